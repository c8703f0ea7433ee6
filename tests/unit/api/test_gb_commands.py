"""GB/T 32960 commands on the 808 command codes (api/gb_commands.py): table-24 ids and widths, the domain's
length item written from its text, the refusals naming the field."""

from __future__ import annotations

from typing import Any

import pytest

from api.errors import BadRequest
from api.gb_commands import build
from protocols.gb32960 import Protocol
from protocols.gb32960.messages.params import ParameterQuery, ParameterSet, TerminalControl


def _decoded(built: Any, cls: Any) -> Any:
    return cls.decode(bytes.fromhex(built.body_hex), Protocol.GB32960_2016)


def test_queries_sets_and_control_encode_the_standards_data_units() -> None:
    every = build("8104", {}, "gb32960")
    assert every.msg_id == 0x80 and _decoded(every, ParameterQuery).ids == tuple(range(1, 0x11))
    some = build("8106", {"ids": ["0A", "2", "0x02"]}, "gb32960")
    assert _decoded(some, ParameterQuery).ids == (0x0A, 0x02) and some.payload == {"ids": ["0A", "02"]}
    setting = build("8103", {"paramList": [{"id": "01", "value": 65535}, {"id": "05", "value": "gb.example.com"},
                                           {"id": "10", "value": 1}]}, "gb32960")
    assert setting.msg_id == 0x81
    assert _decoded(setting, ParameterSet).values == ((0x01, 65535), (0x04, 14), (0x05, "gb.example.com"), (0x10, 1))
    assert setting.sensitive  # the platform's domain: the terminal could leave the platform
    reset = build("8105", {"command": 3}, "gb32960")
    assert reset.msg_id == 0x82 and _decoded(reset, TerminalControl).command == 3 and not reset.sensitive
    assert build("8105", {"command": 2}, "gb32960").sensitive == ("terminal control: shutdown",)


@pytest.mark.parametrize(("code", "payload", "field"), [
    ("8106", {"ids": []}, "ids"),
    ("8106", {"ids": ["zz"]}, "ids[0]"),
    ("8106", {"ids": ["11"]}, "ids[0]"),
    ("8106", {"ids": [2]}, "ids[0]"),
    ("8103", {"paramList": [{"id": "09", "value": 256}]}, "paramList[0].value"),
    ("8103", {"paramList": [{"id": "02", "value": -1}]}, "paramList[0].value"),
    ("8103", {"paramList": [{"id": "02", "value": "10"}]}, "paramList[0].value"),
    ("8103", {"paramList": [{"id": "05", "value": "域名"}]}, "paramList[0].value"),
    ("8103", {"paramList": [{"id": "05", "value": "x" * 256}]}, "paramList[0].value"),
    ("8103", {"paramList": [{"id": "0D", "value": 3}]}, "paramList[0].id"),
    ("8103", {"paramList": [{"id": "08", "value": "FW001"}]}, "paramList[0].id"),
    ("8103", {"paramList": [{"id": "02", "value": 1}, {"id": "02", "value": 2}]}, "paramList[1].id"),
    ("8105", {"command": 6}, "command"),
    ("8105", {"command": 0}, "command"),
    ("8300", {"content": "hi"}, "command"),
])
def test_a_wrong_id_or_value_is_a_400_naming_the_field(code: str, payload: dict[str, Any], field: str) -> None:
    with pytest.raises(BadRequest) as caught:
        build(code, payload, "gb32960")
    assert caught.value.data == {"field": field}


def test_an_emissions_terminal_takes_no_command() -> None:
    with pytest.raises(BadRequest) as caught:
        build("8104", {}, "gb17691")
    assert "gb17691" in str(caught.value.message)
