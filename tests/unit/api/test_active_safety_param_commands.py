"""8103 with the T/JSATL12-2017 §4.2 active-safety blocks (api/command_params.py): an object of camelCase
fields or the whole block as hex, every field range-checked server-side, 400 naming the parameter."""

from __future__ import annotations

from typing import Any

import pytest

from api.command_params import block_field_key
from api.commands import build
from api.errors import BadRequest
from protocols.jt808 import decode_body
from protocols.jt808.messages.active_safety_params import ADAS_PARAMS, DSM_PARAMS, ParamBlock
from protocols.jt808.messages.t8103_set_parameters import SetParameters


def api_fields(block: ParamBlock, **changes: int) -> dict[str, Any]:
    values = {**block.defaults(), **changes}
    return {block_field_key(name): value for name, value in values.items() if not name.startswith("reserved")}


def refused(payload: Any) -> BadRequest:
    with pytest.raises(BadRequest) as caught:
        build("8103", payload, "2013")
    return caught.value


def test_an_adas_block_given_as_fields_is_encoded_whole_into_8103() -> None:
    fields = api_fields(ADAS_PARAMS, alarm_speed_threshold_kmh=45, headway_video_s=10)
    assert fields["alarmSpeedThresholdKmh"] == 45 and "forwardCollisionTimeThreshold100ms" in fields
    built = build("8103", {"paramList": [{"id": "F364", "value": fields}]}, "2019")
    body = decode_body(0x8103, bytes.fromhex(built.body_hex), "2019")
    assert isinstance(body, SetParameters)
    (param,) = body.params
    values = ADAS_PARAMS.decode(param.value_bytes())
    assert values["alarm_speed_threshold_kmh"] == 45 and values["headway_video_s"] == 10
    assert built.payload == {"paramList": [{"id": "F364", "hex": param.value_bytes().hex().upper()}]}


def test_a_dsm_block_as_hex_is_range_checked_like_fields() -> None:
    good = DSM_PARAMS.encode(DSM_PARAMS.defaults())
    assert build("8103", {"paramList": [{"id": "F365", "hex": good.hex()}]}, "2013").body_hex.endswith(good.hex())
    bad = bytearray(good)
    bad[46] = 7  # driver-id trigger 7: the standard knows 0-3
    error = refused({"paramList": [{"id": "F365", "hex": bad.hex()}]})
    assert "driver_id_trigger must be 0 to 3" in error.message and error.data == {"field": "F365"}
    short = refused({"paramList": [{"id": "F365", "hex": good[:47].hex()}]})
    assert "hex of 49 bytes" in short.message and short.data == {"field": "F365"}


@pytest.mark.parametrize(
    "value,match",
    [
        ({**api_fields(ADAS_PARAMS), "alarmVolume": 9}, "alarm_volume must be 0 to 8"),
        ({**api_fields(ADAS_PARAMS), "laneChangeCount": "5"}, "lane_change_count must be an integer"),
        ({k: v for k, v in api_fields(ADAS_PARAMS).items() if k != "headwayVideoS"}, "headway_video_s is required"),
        ({**api_fields(ADAS_PARAMS), "speed": 3}, "has no field 'speed'"),
        ({**api_fields(ADAS_PARAMS), "reserved52": "zz"}, "reserved52 takes hex text"),
        (30, "takes an object of its fields"),
    ],
)
def test_refuses_a_bad_field_naming_it(value: Any, match: str) -> None:
    error = refused({"paramList": [{"id": "F364", "value": value}]})
    assert match in error.message and error.data == {"field": "F364"}


def test_all_ff_leaves_a_field_as_the_terminal_has_it() -> None:
    built = build("8103", {"paramList": [{"id": "F364", "value": api_fields(ADAS_PARAMS, alarm_volume=0xFF)}]}, "2013")
    assert bytes.fromhex(built.body_hex)[6 + 1] == 0xFF  # count, id, length, then byte 1 of the block
