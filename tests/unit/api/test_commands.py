"""Command payloads (api/commands.py): server-side validation with the console spec's messages, and the
bodies they encode to (decoded back with the codec, so a wrong field order or flag bit fails)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from api.command_params import ALARM_PARAMS
from api.commands import PHOTO_MAX, build
from api.errors import BadRequest
from protocols.jt808 import decode_body
from protocols.jt808.messages.param_table import PARAMS
from protocols.jt808.messages.t8103_set_parameters import SetParameters


def decoded(command: str, payload: Any, version: str = "2013") -> Any:
    built = build(command, payload, version)
    assert built.msg_id == int(command, 16)
    return decode_body(built.msg_id, bytes.fromhex(built.body_hex), version)


def refused(command: str, payload: Any, version: str = "2013") -> BadRequest:
    with pytest.raises(BadRequest) as caught:
        build(command, payload, version)
    return caught.value


def test_8103_encodes_each_parameter_with_its_standard_size() -> None:
    body = decoded("8103", {"paramList": [{"id": "0055", "value": 60}, {"id": "0031", "value": 10},
                                          {"id": "0013", "value": "127.0.0.1"}]})
    assert isinstance(body, SetParameters)
    values = {p.id: p.value for p in body.params}
    assert values == {0x0055: 60, 0x0031: 10, 0x0013: "127.0.0.1"}  # 0031 is a WORD: sent as 2 bytes
    assert build("8103", {"paramList": [{"id": "0031", "value": 10}]}, "2013").body_hex == "01000000310200" + "0a"
    assert build("8103", {"paramList": [{"id": "0031", "hex": "000A"}]}, "2013").body_hex == "01000000310200" + "0a"


@pytest.mark.parametrize(("param_id", "zh"), [(pid, spec[0]) for pid, spec in ALARM_PARAMS.items()])
def test_8103_alarm_fields_have_the_spec_messages_when_empty_and_out_of_range(param_id: int, zh: str) -> None:
    label = f"{param_id:04X}"
    for blank in ({"id": label}, {"id": label, "value": None}, {"id": label, "hex": ""}):
        empty = refused("8103", {"paramList": [blank]})
        expected = "疲劳驾驶预警差值" if param_id == 0x005C else f"{zh}不能为空"
        assert empty.message.startswith(expected + " (") and empty.data == {"field": label}
    high = PARAMS[param_id].max
    too_big = refused("8103", {"paramList": [{"id": label, "value": high + 1}]})
    assert too_big.message.startswith(f"{zh}范围 ") and too_big.data == {"field": label}
    zero = refused("8103", {"paramList": [{"id": label, "value": 0}]})
    assert zero.message == too_big.message


def test_8103_max_speed_range_message_is_bilingual() -> None:
    assert refused("8103", {"paramList": [{"id": "0055", "value": 181}]}).message == \
        "最高速度范围 1~180 km/h (max speed must be 1 to 180 km/h)"
    assert build("8103", {"paramList": [{"id": "0055", "value": 180}]}, "2013").payload == \
        {"paramList": [{"id": "0055", "value": 180}]}


@pytest.mark.parametrize(("param_id", "sent", "text"), [
    (0x0031, 100_000, "非法位移阈值范围 1~65535 m，终端参数为 WORD，最大 65535 m (illegal displacement threshold must be"
                      " 1 to 65535 m: the terminal parameter is a WORD, at most 65535 m)"),
    (0x005B, 100_000 * 10, "超时报警预警差值范围 0.1~6553.5 km/h，终端参数为 WORD，最大 6553.5 km/h (overspeed warning"
                           " difference must be 0.1 to 6553.5 km/h: the terminal parameter is a WORD, at most 6553.5 km/h)"),
    (0x005C, 100_000, "疲劳驾驶预警差值范围 1~65535 s，终端参数为 WORD，最大 65535 s (fatigue warning difference must be"
                      " 1 to 65535 s: the terminal parameter is a WORD, at most 65535 s)"),
])
def test_8103_spec_range_past_a_word_is_refused_in_the_consoles_unit_never_clamped(
        param_id: int, sent: int, text: str) -> None:
    """Console-spec §5 allows 100000 (m, km/h, s); the terminal's WORD (005B in 1/10 km/h) cannot carry it."""
    assert refused("8103", {"paramList": [{"id": f"{param_id:04X}", "value": sent}]}).message == text
    top = PARAMS[param_id].max
    assert build("8103", {"paramList": [{"id": f"{param_id:04X}", "value": top}]}, "2013").payload == \
        {"paramList": [{"id": f"{param_id:04X}", "value": top}]}


@pytest.mark.parametrize(("payload", "field"), [
    ({}, "paramList"),
    ({"paramList": []}, "paramList"),
    ({"paramList": ["0055"]}, "paramList[0]"),
    ({"paramList": [{"id": "xyz", "value": 1}]}, "paramList[0].id"),
    ({"paramList": [{"id": "0001", "hex": "0G"}]}, "0001"),
    ({"paramList": [{"id": "0001", "hex": "000"}]}, "0001"),
    ({"paramList": [{"id": "0001", "hex": "0100000000"}]}, "0001"),  # a DWORD is 4 bytes
    ({"paramList": [{"id": "0001", "hex": "00000E11"}]}, "0001"),  # 3601 s: past the table's range
    ({"paramList": [{"id": "0001", "value": "30"}]}, "0001"),  # text is never read as a number
    ({"paramList": [{"id": "0001", "value": 30.5}]}, "0001"),
    ({"paramList": [{"id": "0001", "value": True}]}, "0001"),
    ({"paramList": [{"id": "0001", "value": 30, "hex": "0000001E"}]}, "0001"),  # one form only
    ({"paramList": [{"id": "0084", "value": 256}]}, "0084"),  # a BYTE
    ({"paramList": [{"id": "0013", "value": 10}]}, "0013"),  # a STRING takes text
    ({"paramList": [{"id": "0083", "value": "\U0001F600"}]}, "0083"),  # outside GBK
    ({"paramList": [{"id": "0032", "value": "08001800"}]}, "0032"),  # a byte block only as hex
    ({"paramList": [{"id": "0032", "hex": "0800"}]}, "0032"),  # of its exact size
    ({"paramList": [{"id": "F000", "hex": "00"}]}, "F000"),  # not in the table
])
def test_8103_other_parameters_are_checked_by_type_and_size(payload: dict[str, Any], field: str) -> None:
    assert refused("8103", payload).data == {"field": field}


def test_8103_marks_link_and_identity_parameters_sensitive_and_masks_credentials() -> None:
    ordinary = build("8103", {"paramList": [{"id": "0055", "value": 60}]}, "2013")
    assert ordinary.sensitive == ()
    linked = build("8103", {"paramList": [{"id": "0012", "value": "pw"}, {"id": "0082", "value": 100}]}, "2013")
    assert linked.sensitive == ("main_server_dial_password (0x0012)", "city_id (0x0082)")
    assert linked.payload == {"paramList": [{"id": "0012", "value": "******"}, {"id": "0082", "value": 100}]}


def test_unbounded_tracking_recording_and_delete_after_upload_are_sensitive() -> None:
    assert build("8202", {"interval": 5, "validity": 600}, "2013").sensitive == ()
    assert build("8202", {"interval": 0}, "2013").sensitive == ()
    assert build("8202", {"interval": 5, "validity": 0}, "2013").sensitive
    assert build("8202", {"interval": 5, "validity": 86_401}, "2013").sensitive
    assert build("8801", {"channelId": 1, "commandType": 1, "executionTime": 0}, "2013").sensitive
    assert build("8801", {"channelId": 1, "commandType": 1, "executionTime": 30}, "2013").sensitive == ()
    assert build("8803", {"mediaType": 0, "deleteFlag": 1}, "2013").sensitive
    assert build("8803", {"mediaType": 0, "deleteFlag": 0}, "2013").sensitive == ()


def test_8300_flags_and_text_type_by_protocol_version() -> None:
    payload = {"content": "前方拥堵", "tts": True, "display": True, "emergency": False, "textType": 2}
    body_2013 = decoded("8300", payload, "2013")
    assert (body_2013.flags, body_2013.text) == (0b1100, "前方拥堵")
    body_2019 = decoded("8300", payload, "2019")
    assert (body_2019.flags, body_2019.text, body_2019.text_type) == (0b1100, "前方拥堵", 2)
    assert decoded("8300", {"content": "x", "emergency": True}).flags == 1


def test_8300_content_required_and_at_most_150_characters() -> None:
    for payload in ({}, {"content": ""}, {"content": "   "}):
        assert refused("8300", payload).message.startswith("下发内容不能为空 (")
    assert decoded("8300", {"content": "字" * 150}).text == "字" * 150
    assert refused("8300", {"content": "字" * 151}).data == {"field": "content"}
    assert refused("8300", {"content": "x", "textType": 3}).data == {"field": "textType"}


def test_8801_capture_payload_of_the_console() -> None:
    console = {"channelId": 2, "commandType": 2, "totalPicture": 1, "executionTime": 0, "saveFlag": 0, "resolution": 2,
               "quality": 1, "luminance": 127, "saturation": 1, "chromaticity": 1}
    body = decoded("8801", console)
    assert (body.channel, body.command, body.interval_s, body.save_flag, body.resolution, body.quality,
            body.brightness, body.saturation, body.chroma) == (2, 1, 0, 0, 2, 1, 127, 1, 1)
    assert decoded("8801", console | {"commandType": 1, "executionTime": 30}).command == 0xFFFF  # record video
    assert decoded("8801", console | {"commandType": 0}).command == 0  # stop
    assert refused("8801", console | {"luminance": 256}).data == {"field": "luminance"}
    assert refused("8801", {"commandType": 2}).data == {"field": "channelId"}
    assert decoded("8801", console | {"totalPicture": PHOTO_MAX}).command == PHOTO_MAX
    assert refused("8801", console | {"totalPicture": PHOTO_MAX + 1}).data == {"field": "totalPicture"}


def test_8105_only_the_safe_subset() -> None:
    assert decoded("8105", {"command": 4}).command == 4
    for command in (1, 2, 3, 5, 6, 7):  # wireless upgrade, connect server, power off, ... are refused
        assert refused("8105", {"command": command}).data == {"field": "command"}


def test_small_commands() -> None:
    assert decoded("8104", {}).__class__.__name__ == "QueryParameters"
    assert decoded("8106", {"ids": ["0055", "0x0056", 0x57]}).ids == (0x55, 0x56, 0x57)
    assert decoded("8201", None).__class__.__name__ == "QueryLocation"
    tracking = decoded("8202", {"interval": 10, "validity": 600})
    assert (tracking.interval_s, tracking.validity_s) == (10, 600)
    confirm = decoded("8203", {"messageSeq": 77, "alarmType": 1})
    assert (confirm.alarm_seq, confirm.alarm_type) == (77, 1)
    assert refused("8202", {"interval": 10}).data == {"field": "validity"}
    assert refused("8203", {"messageSeq": 70000, "alarmType": 1}).data == {"field": "messageSeq"}
    assert refused("8104", [1, 2]).message.startswith("请求体必须是 JSON 对象")


def test_8802_and_8803_times_are_utc_bcd_and_ordered() -> None:
    payload = {"mediaType": 0, "channelId": 1, "eventCode": 0, "startTime": "2026-11-25 08:00:00",
               "endTime": "2026-11-25T01:00:00Z"}
    search = decoded("8802", payload)
    assert search.start == datetime(2026, 11, 25, 0, 0, tzinfo=UTC)  # naive input is UTC+8
    assert search.end == datetime(2026, 11, 25, 1, 0, tzinfo=UTC)
    upload = decoded("8803", payload | {"deleteFlag": 1, "startTime": None})
    assert (upload.start, upload.delete) == (None, 1)
    assert refused("8802", payload | {"endTime": "2026-11-24T00:00:00Z"}).data == {"field": "endTime"}
    assert refused("8802", payload | {"mediaType": 3}).data == {"field": "mediaType"}
    assert refused("8802", payload | {"startTime": "1999-01-01T00:00:00Z"}).data == {"field": "startTime"}
