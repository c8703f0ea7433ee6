from __future__ import annotations

import json
from datetime import timedelta

from fleet.enums import BizState, PushType
from fleet.position_wire import LIVE_POSITION_FIELDS, POSITION_FIELDS, epoch_ms
from streams import console, payloads
from streams.messages import Fix, parse_fix, parse_uplink
from streams.payloads import Terminal

from .conftest import T0


def fix(device_id: int, enterprise_id: int, seconds: float, **kwargs) -> Fix:
    terminal = Terminal(f"0138{device_id:08d}", device_id, 100 + device_id, enterprise_id)
    uplink = parse_uplink(json.dumps(payloads.location_report(
        terminal, fix_at=T0 + timedelta(seconds=seconds), received_at=T0 + timedelta(seconds=seconds + 1),
        **kwargs)))
    return parse_fix(uplink, uplink.body)


def test_coalescer_keeps_latest_per_device_grouped_by_enterprise() -> None:
    coalescer = console.LiveCoalescer()
    for seconds in (0, 1, 2):
        coalescer.add(fix(1, 10, seconds, speed_kmh=seconds), BizState.DRIVING)
    coalescer.add(fix(1, 10, 1.5), BizState.PARKED)  # older than the newest: ignored
    coalescer.add(fix(2, 10, 0), BizState.PARKED)
    coalescer.add(fix(3, 20, 0), BizState.ENGINE_OFF)
    assert len(coalescer) == 3
    drained = coalescer.drain()
    assert sorted(drained) == [10, 20]
    by_device = {p["deviceId"]: p for p in (dict(zip(LIVE_POSITION_FIELDS, row, strict=True)) for row in drained[10])}
    assert by_device[1]["speed"] == 2 and by_device[1]["bizState"] == 1
    assert by_device[1]["sentAt"] == epoch_ms(T0 + timedelta(seconds=3))
    assert by_device[1]["time"] == epoch_ms(T0 + timedelta(seconds=2))
    assert coalescer.drain() == {} and len(coalescer) == 0


def test_a_live_position_is_a_row_of_the_bulk_reads_columns_plus_its_receive_time() -> None:
    # one position shape on the wire (fleet.position_wire): the push names the bulk read's columns
    assert LIVE_POSITION_FIELDS[:-1] == POSITION_FIELDS and LIVE_POSITION_FIELDS[-1] == "sentAt"
    row = console.live_position(fix(1, 10, 0, speed_kmh=33.0, direction_deg=45, alarm_flags=0x80000002), 1)
    entry = dict(zip(LIVE_POSITION_FIELDS, row, strict=True))
    assert (entry["direction"], entry["speed"], entry["carId"], entry["deviceId"]) == (45, 33.0, 101, 1)
    assert entry["alarmType"] == 0x80000002 and entry["status"] & 1 == 1  # unsigned word; ACC bit 0
    assert (entry["online"], entry["bizState"], entry["time"]) == (1, 1, epoch_ms(T0))
    event = console.positions_event(10, "/10/", [row])
    assert event["fields"] == list(LIVE_POSITION_FIELDS) and event["rows"] == [row]


def test_push_payloads() -> None:
    data = console.online_push_data(device_id=1, car_id=2, plate_number="A1", online=True, at=T0)
    event = console.push_event(10, "/1/10/", PushType.ONLINE_OFFLINE, data)
    assert event == {"kind": "push", "enterprise_id": 10, "enterprise_path": "/1/10/",
                     "push": {"type": 1, "data": {"deviceId": 1, "carId": 2, "plateNumber": "A1", "state": 1,
                                                  "time": "2026-05-01T08:00:00Z"}}}
    assert console.biz_push_data(device_id=1, car_id=2, biz_state=BizState.PARKED, at=T0) == {
        "deviceId": 1, "carId": 2, "bizState": 2, "time": "2026-05-01T08:00:00Z"}
    assert console.positions_event(10, "/10/", [])["kind"] == "positions"
