"""The seeded system dictionaries: what the console loads at start-up is complete and valid."""

from __future__ import annotations

import json

import protocols.jt808.messages  # noqa: F401  (registers every body)
from api.query.entities_settings import DICTIONARY, GATEWAY_TABS, json_text_problem
from protocols.jt808.registry import registered_ids
from warehouse.seed_dictionaries import CAR_ALARM_BITS, DEVICE_MESSAGES, system_entries

STARTUP_CODES = {"car_alarm_desc", "ol_map_config", "device_message_desc", "exchange_message_desc"}


def test_device_message_names_cover_every_message_the_codec_knows() -> None:
    assert sorted(msg_id for msg_id, _, _ in DEVICE_MESSAGES) == sorted(registered_ids())


def test_car_alarm_descriptions_name_each_of_the_32_bits_once() -> None:
    assert [bit for bit, _, _ in CAR_ALARM_BITS] == list(range(32))
    assert all(name and name_en for _, name, name_en in CAR_ALARM_BITS)


def test_every_seeded_entry_passes_the_dictionary_declaration() -> None:
    entries = system_entries()
    codes = {code for _, code, _, _ in entries}
    assert STARTUP_CODES | {"driving_behavior_grade", "alarm_notify_rule"} <= codes
    for prefix in GATEWAY_TABS:  # each gateway tab of the dictionary screen has an entry
        assert any(t == 99 and code.startswith(prefix) for t, code, _, _ in entries), prefix
    for type_id, code, name, content in entries:
        text = json.dumps(content, ensure_ascii=False)
        assert type_id in DICTIONARY.fields["type"].enum  # type: ignore[operator]
        assert json_text_problem(text) is None and len(text) <= (DICTIONARY.fields["content"].max_length or 0)
        assert len(name) <= 64 and len(code) <= 64


def test_content_check_names_what_is_not_json() -> None:
    problem = json_text_problem("{not json")
    assert problem is not None and problem.startswith("内容必须是 JSON 文本")


def test_the_exchange_descriptions_name_every_jt809_message_and_every_gb32960_command_by_protocol() -> None:
    from protocols.gb32960.catalogue import GB32960_COMMANDS
    from protocols.jt809.catalogue import MESSAGES

    content = next(c for _, code, _, c in system_entries() if code == "exchange_message_desc")
    by_protocol: dict[str, dict[str, str]] = {}
    for entry in content:
        assert entry["name"] and entry["nameEn"]
        by_protocol.setdefault(entry["protocol"], {})[entry["id"]] = entry["name"]
    assert set(by_protocol) == {"jt809", "gb32960"}
    assert set(by_protocol["jt809"]) == {f"0x{m.msg_id:04X}" for m in MESSAGES}
    assert by_protocol["gb32960"]["0x05"] == "平台登入" and by_protocol["gb32960"]["0x06"] == "平台登出"
    assert len(by_protocol["gb32960"]) == len(GB32960_COMMANDS)
