"""Terminal parameters: every id of JT/T 808 table 12 is named and typed; the API's hex values convert both ways."""

from __future__ import annotations

import pytest

from protocols.jt808 import (
    BodyError,
    QueryParametersResponse,
    SetParameters,
    TerminalParam,
    decode_body,
    to_json,
)
from protocols.jt808.codec import Message
from protocols.jt808.header import Header
from protocols.jt808.messages.params import (
    NUMBER_SIZE,
    PARAM_NAMES,
    STRING_IDS,
    param_type,
    param_value_from_hex,
    param_value_to_hex,
)

# The standard's table 12 (2013, plus the 2019 ids 0x0023-0x0026 and 0x0032), by type.
TABLE_12 = {
    "DWORD": [*range(0x0001, 0x0008), 0x0018, 0x0019, 0x001B, 0x001C, 0x0020, 0x0021, 0x0022, 0x0027, 0x0028,
              0x0029, *range(0x002C, 0x0031), 0x0045, 0x0046, 0x0047, *range(0x0050, 0x005B), 0x0064, 0x0065,
              *range(0x0070, 0x0075), 0x0080, 0x0093, 0x0095, 0x0100, 0x0102],
    "WORD": [0x0031, 0x005B, 0x005C, 0x005D, 0x005E, 0x0081, 0x0082, 0x0101, 0x0103],
    "BYTE": [0x0084, 0x0090, 0x0091, 0x0092, 0x0094],
    "STRING": [*range(0x0010, 0x0018), 0x001A, 0x001D, *range(0x0023, 0x0027), *range(0x0040, 0x0045), 0x0048,
               0x0049, 0x0083],
    "BYTES": [0x0032, 0x0110, 0x01FF],
}


@pytest.mark.parametrize("kind", TABLE_12)
def test_every_standard_parameter_has_a_name_and_its_type(kind: str) -> None:
    for param_id in TABLE_12[kind]:
        assert PARAM_NAMES.get(param_id), f"0x{param_id:04X} has no name"
        assert param_type(param_id) == kind, f"0x{param_id:04X}"


def test_names_are_unique_and_cover_exactly_the_typed_ids() -> None:
    assert len(set(PARAM_NAMES.values())) == len(PARAM_NAMES)
    assert set(NUMBER_SIZE) | STRING_IDS <= set(PARAM_NAMES)
    assert PARAM_NAMES[0x0055] == "max_speed_kmh"
    assert PARAM_NAMES[0x0031] == "geofence_radius_m"


@pytest.mark.parametrize(
    "param_id,hex_value,value",
    [
        (0x0055, "0000003C", 60),  # max speed 60 km/h, DWORD
        (0x005B, "0032", 50),  # overspeed warning margin 5.0 km/h, WORD in 1/10 km/h
        (0x0084, "02", 2),  # plate colour, BYTE
        (0x0013, "3132372E302E302E31", "127.0.0.1"),  # STRING
        (0x0083, "D4C14231", "粤B1"),  # GBK STRING
        (0x0032, "08001200", b"\x08\x00\x12\x00"),  # 2019 illegal driving period, BYTE[4]
        (0xF366, "0102", b"\x01\x02"),  # an id outside the table (T/JSATL12 TPMS block): raw
    ],
)
def test_converts_the_apis_hex_values_both_ways(param_id: int, hex_value: str, value: object) -> None:
    assert param_value_from_hex(param_id, hex_value) == value
    assert param_value_from_hex(param_id, hex_value.lower()) == value
    assert param_value_to_hex(param_id, value) == hex_value  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "param_id,hex_value,match",
    [
        (0x0055, "3C", "needs 4 bytes, got 1"),
        (0x0031, "00000064", "needs 2 bytes, got 4"),
        (0x0032, "0800", "needs 4 bytes"),
        (0x0055, "zz", "not hex"),
    ],
)
def test_refuses_hex_of_the_wrong_size(param_id: int, hex_value: str, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        param_value_from_hex(param_id, hex_value)


def test_refuses_a_number_that_does_not_fit_or_has_no_numeric_type() -> None:
    with pytest.raises(ValueError, match="does not fit WORD"):
        param_value_to_hex(0x0031, 70000)
    with pytest.raises(ValueError, match="does not fit"):
        param_value_to_hex(0x0055, -1)
    with pytest.raises(ValueError, match="no numeric type"):
        param_value_to_hex(0x0013, 5)


def test_json_names_each_parameter_and_keeps_the_received_bytes() -> None:
    # 0x0083 sent as UTF-8 by a MicroPython terminal: the name is decoded, value_hex stays as received
    body = bytes.fromhex("0007" + "03" + "00000055" + "04" + "0000003C" + "00000083" + "04" + "E7B2A441"
                         + "0000F001" + "02" + "FFFF")
    reply = decode_body(0x0104, body, "2013")
    assert isinstance(reply, QueryParametersResponse)
    header = Header(0x0104, "013912345602", 1, "2013", None, False, len(body), None, None)
    params = to_json(Message(header, reply, b""))["body"]["params"]
    assert params == [
        {"id": 0x0055, "name": "max_speed_kmh", "value": 60, "value_hex": "0000003C"},
        {"id": 0x0083, "name": "plate_number", "value": "粤A", "value_hex": "E7B2A441"},
        {"id": 0xF001, "name": None, "value": "ffff", "value_hex": "FFFF"},
    ]


def test_set_parameters_built_from_api_hex_encodes_the_same_bytes() -> None:
    pairs = [("0055", "0000003C"), ("0056", "0000000A"), ("005B", "0032")]
    params = tuple(TerminalParam(int(i, 16), param_value_from_hex(int(i, 16), v)) for i, v in pairs)
    assert SetParameters(params).encode("2013").hex().upper() == (
        "03" + "00000055040000003C" + "00000056040000000A" + "0000005B020032"
    )


def test_a_0104_that_ends_before_its_count_keeps_what_it_holds_but_an_overrun_is_an_error() -> None:
    short = bytes.fromhex("0001" + "03" + "00000055" + "04" + "0000003C")
    assert decode_body(0x0104, short, "2013") == QueryParametersResponse(1, (TerminalParam(0x0055, 60),))
    with pytest.raises(BodyError, match="overruns"):
        decode_body(0x0104, bytes.fromhex("0001" + "01" + "00000055" + "04" + "0000"), "2013")
    with pytest.raises(BodyError, match="announces 2 parameters"):
        decode_body(0x8103, bytes.fromhex("02" + "00000055" + "04" + "0000003C"), "2013")


def test_the_parameter_table_declares_a_range_within_each_wire_type() -> None:
    from protocols.jt808.messages.param_table import PARAMS, TYPE_SIZE

    for spec in PARAMS.values():
        assert spec.what and spec.min <= spec.max, f"0x{spec.id:04X}"
        if spec.type in TYPE_SIZE:
            assert 0 <= spec.min and spec.max < 1 << (8 * TYPE_SIZE[spec.type]), f"0x{spec.id:04X}"
    # what made terminals useless or left the platform: refused by range, or guarded
    assert PARAMS[0x0001].min > 0 and PARAMS[0x0029].max < 0xFFFFFFFF
    assert {pid for pid, spec in PARAMS.items() if spec.guard == "link"} >= {0x0010, 0x0012, 0x0013, 0x0018, 0x0042}
    assert {pid for pid, spec in PARAMS.items() if spec.secret} == {0x0012, 0x0016, 0x0025}
