"""What the link service forwards from Kafka records: vehicles in scope only, thinning by the superior's
interval, back-fill of old fixes as 0x1203 batches in order per vehicle, alarms mapped to the upper-platform
alarm types, and frames the superior can decode in both versions."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from exchange.link import forwarding as f
from protocols.jt809 import decode_frame, encode_frame
from protocols.jt809 import messages as m
from streams.payloads import Terminal, location_batch, location_body, location_report

NOW = datetime(2026, 12, 2, 4, 0, 0, tzinfo=UTC)
T1 = Terminal("013800000001", device_id=11, car_id=101, enterprise_id=5)
T2 = Terminal("013800000002", device_id=12, car_id=102, enterprise_id=5)
OTHER = Terminal("013800000003", device_id=13, car_id=103, enterprise_id=9)
SCOPE = frozenset({5})


def fixes(*records: dict) -> list:
    return [fix for record in records for fix in f.position_fixes(record, SCOPE)]


def test_only_vehicles_of_the_exchanged_enterprises_are_forwarded() -> None:
    found = fixes(location_report(T1, fix_at=NOW), location_report(OTHER, fix_at=NOW))
    assert [x.car_id for x in found] == [101]


def test_a_batch_record_and_a_0x0704_give_every_fix_in_order() -> None:
    items = [location_body(fix_at=NOW - timedelta(seconds=s)) for s in (30, 20, 10)]
    found = fixes([location_batch(T1, items), location_report(T2, fix_at=NOW)])
    assert [(x.car_id, x.fix_at) for x in found] == [(101, NOW - timedelta(seconds=s)) for s in (30, 20, 10)] + [
        (102, NOW)]


def test_at_most_one_position_per_vehicle_per_interval_the_rest_counted_as_thinned() -> None:
    found = fixes(*(location_report(T1, fix_at=NOW + timedelta(seconds=s)) for s in range(0, 60, 5)))
    plan, thinned = f.plan_positions(found, f.Thinning(30), NOW, backfill_after_s=300)
    assert [o.fixes[0].fix_at for o in plan] == [NOW, NOW + timedelta(seconds=30)]
    assert thinned == 10
    assert all(not o.backfill for o in plan)


def test_interval_zero_forwards_every_position() -> None:
    found = fixes(*(location_report(T1, fix_at=NOW + timedelta(seconds=s)) for s in range(5)))
    plan, thinned = f.plan_positions(found, f.Thinning(0), NOW, backfill_after_s=300)
    assert (len(plan), thinned) == (5, 0)


def test_old_fixes_go_as_backfill_batches_in_order_before_the_vehicles_next_real_time_position() -> None:
    old = [location_body(fix_at=NOW - timedelta(seconds=600 - s)) for s in range(120)]
    found = fixes(location_batch(T1, old), location_report(T1, fix_at=NOW))
    plan, thinned = f.plan_positions(found, f.Thinning(0), NOW, backfill_after_s=30)
    assert [(o.backfill, len(o.fixes)) for o in plan] == [(True, 50), (True, 50), (True, 20), (False, 1)]
    times = [fix.fix_at for o in plan for fix in o.fixes]
    assert times == sorted(times) and len(times) == 121 and thinned == 0


def test_fixes_sent_again_after_a_link_loss_all_go_as_backfill_however_fresh() -> None:
    found = fixes(*(location_report(T1, fix_at=NOW - timedelta(seconds=s)) for s in (2, 1)))
    plan, _ = f.plan_positions(found, f.Thinning(0), NOW, backfill_after_s=30, resend=True)
    assert [(o.backfill, [x.fix_at for x in o.fixes]) for o in plan] == [
        (True, [NOW - timedelta(seconds=2), NOW - timedelta(seconds=1)])]


def test_backlog_older_than_the_last_kept_fix_is_thinned_at_the_same_rate() -> None:
    thinning = f.Thinning(30)
    assert thinning.keep(1, NOW)
    assert thinning.keep(1, NOW - timedelta(seconds=300))  # a backlog starts the chain again
    assert not thinning.keep(1, NOW - timedelta(seconds=290))
    assert thinning.keep(1, NOW - timedelta(seconds=270))


@pytest.mark.parametrize("version", ["2011", "2019"])
def test_position_frames_decode_at_the_superior_with_plate_and_fix(version: str) -> None:
    found = fixes(location_report(T1, fix_at=NOW, lat=39.9, lng=116.4, speed_kmh=60))
    outgoing = f.Outgoing(101, 11, False, tuple(found))
    frame = encode_frame(m.VehicleDynamic.MSG_ID, f.position_body("京A12345", 2, outgoing, version), sn=1,
                         centre_id=7, version=version)
    body = decode_frame(frame, version=version).body
    assert (body.plate, body.plate_colour, body.data_type) == ("京A12345", 2, 0x1202)
    position = body.data.position
    if version == "2019":
        assert position.location.fix_at == NOW and round(position.location.lat, 4) == 39.9
    else:
        assert position.fix_at == NOW and position.lat_e6 == 39_900_000 and position.speed_kmh == 60


def test_backfill_frame_carries_several_positions() -> None:
    found = fixes(location_batch(T1, [location_body(fix_at=NOW - timedelta(seconds=s)) for s in (90, 60)]))
    frame = encode_frame(m.VehicleDynamic.MSG_ID,
                         f.position_body("京A12345", 2, f.Outgoing(101, 11, True, tuple(found)), "2019"),
                         sn=1, centre_id=7, version="2019")
    body = decode_frame(frame, version="2019").body
    assert body.data_type == 0x1203 and len(body.data.positions) == 2


@pytest.mark.parametrize(("key", "warn_type"), [
    ("a1", 1), ("a2", 2), ("a0", 3), ("fence:7:enter", 4), ("tfence:3:leave", 5), ("a23", 11), ("a28", 12),
    ("a18", 13), ("p_overspeed", 1), ("v3", None), ("fence:7:segment_long", None),
])
def test_alarm_keys_map_to_upper_platform_alarm_types(key: str, warn_type: int | None) -> None:
    assert f.upper_alarm_type(key) == warn_type


def _alarm_event(enterprise_id: int, key: str) -> dict:
    return {"kind": "push", "enterprise_id": enterprise_id, "enterprise_path": "/5/",
            "push": {"type": 2, "data": {"alarmId": 9, "carId": 101, "deviceId": 11, "plateNumber": "京A12345",
                                         "key": key, "startTime": int(NOW.timestamp() * 1000), "desc": "超速报警"}}}


@pytest.mark.parametrize("version", ["2011", "2019"])
def test_an_alarm_push_of_a_vehicle_in_scope_becomes_a_0x1402(version: str) -> None:
    alarm = f.alarm_of(_alarm_event(5, "a1"), SCOPE)
    assert alarm is not None and alarm.warn_type == 1 and alarm.started_at == NOW
    frame = encode_frame(m.AlarmExchange.MSG_ID, f.alarm_body(alarm, 2, "7", version), sn=1, centre_id=7,
                         version=version)
    body = decode_frame(frame, version=version).body
    assert body.data_type == 0x1402
    if version == "2019":
        assert (body.data.warn_type, body.data.plate, body.data.content) == (1, "京A12345", "超速报警")
    else:
        assert (body.plate, body.data.warn_type, body.data.info_id, body.data.content) == ("京A12345", 1, 9, "超速报警")


def test_alarms_out_of_scope_or_without_an_upper_type_are_not_forwarded() -> None:
    assert f.alarm_of(_alarm_event(9, "a1"), SCOPE) is None
    assert f.alarm_of(_alarm_event(5, "v3"), SCOPE) is None
    assert f.alarm_of({"kind": "positions", "enterprise_id": 5}, SCOPE) is None
