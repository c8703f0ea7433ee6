"""The gb32960.uplink.v1 contract: what the GB gateway writes is what the stream steps read, and a malformed
item is refused with the field it lacks (docs/topics.md)."""

import orjson
import pytest

from fleet.gb32960_records import GbUplink
from fleet.uplink_records import batch_value, split_value


def _uplink(**changes: object) -> GbUplink:
    base = GbUplink(protocol="gb32960", vin="LNBSCB3F5JW123456", device_id=7, car_id=3, enterprise_id=1,
                    command=0x02, response=0xFE, frame_protocol="gb32960-2016", raw_hex="2323",
                    message={"header": {"command": "0x02"}, "name": "real-time data", "body": {}},
                    connection_id="c1", gateway_id="gb-1", received_at="2026-12-02T00:00:00+00:00")
    return GbUplink(**{**{f: getattr(base, f) for f in base.__dataclass_fields__}, **changes})


def test_a_record_round_trips_single_and_in_a_batch() -> None:
    one, two = _uplink(), _uplink(vin="LNBSCB3F5JW654321", car_id=None)
    assert [GbUplink.from_json(v) for v in split_value(one.encode())] == [one]
    assert [GbUplink.from_json(v) for v in split_value(batch_value([one.encode(), two.encode()]))] == [one, two]


def test_the_json_object_holds_every_field_of_the_contract_in_its_order_and_nothing_else() -> None:
    item = orjson.loads(_uplink().encode())
    assert list(item) == list(GbUplink.__dataclass_fields__)
    assert item["message"] == {"header": {"command": "0x02"}, "name": "real-time data", "body": {}}


@pytest.mark.parametrize(("field", "value", "error"), [
    ("vin", None, "field vin has type NoneType"),
    ("device_id", "7", "field device_id has type str"),
    ("device_id", True, "field device_id has type bool"),
    ("protocol", "jt808", "unknown protocol 'jt808'"),
])
def test_a_malformed_item_names_its_field(field: str, value: object, error: str) -> None:
    item = orjson.loads(_uplink().encode()) | {field: value}
    with pytest.raises(ValueError, match=error):
        GbUplink.from_json(item)


def test_a_missing_field_is_named() -> None:
    item = orjson.loads(_uplink().encode())
    del item["received_at"]
    with pytest.raises(ValueError, match="missing field received_at"):
        GbUplink.from_json(item)
    with pytest.raises(ValueError, match="not a JSON object"):
        GbUplink.from_json([1])
