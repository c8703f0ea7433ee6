"""Implausible fixes, from the terminal's wire bytes: stored with a quality flag, never dropped, counted."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from gateway.payloads import TerminalIdentity, uplink_value
from protocols.jt808 import decode_frame, to_json
from streams.messages import Fix
from streams.plausibility import TeleportGuard, count_flagged
from streams.positions import PlannedBatch, plan_batch
from streams.validation import QUALITY_FUTURE, QUALITY_PAST, QUALITY_TELEPORT, Limits, usable_for_state

LIMITS = Limits(max_future_s=600, max_speed_kmh=250, max_past_s=720 * 3600, max_implied_speed_kmh=250,
                teleport_min_km=1.0)
ZONE = ZoneInfo("Asia/Shanghai")
RECEIVED = datetime(2026, 12, 1, 6, 42, 3, tzinfo=UTC)  # 14:42:03 in GMT+8
IDENTITY = TerminalIdentity(phone="013395279527", device_id=41, car_id=51, enterprise_id=3)

# 0x0200 at 39.9087 N 116.3975 E (Beijing), its BCD time 20 12 01 14 42 02: the terminal wrote the century
# ("20") where the year belongs (26), so the fix reads 2020-12-01 14:42:02 GMT+8.
CENTURY_AS_YEAR = "7E0200001C013395279527000500000000000000030260F55C06F015BC00320190005A201201144202207E"
# The same terminal, right: Beijing at 14:42:02, then 31.2304 N 121.4737 E (Shanghai, 1,067 km) ten seconds
# later, then Beijing again at 14:42:22.
BEIJING = "7E0200001C013395279527000500000000000000030260F55C06F015BC00320190005A261201144202267E"
SHANGHAI_10S_LATER = "7E0200001C0133952795270005000000000000000301DC89C0073D8AA400320190005A261201144212227E"
BEIJING_AGAIN = "7E0200001C013395279527000500000000000000030260F5C006F0162000320190005A261201144222057E"


def uplink_of(frame_hex: str, received_at: datetime = RECEIVED) -> bytes:
    """The jt808.uplink.v1 value the gateway sends for this frame."""
    msg = decode_frame(bytes.fromhex(frame_hex))
    return uplink_value(IDENTITY, msg_id=msg.header.msg_id, seq=msg.header.seq, protocol_version="2013",
                        raw_hex=frame_hex, message=to_json(msg), connection_id="c1", gateway_id="g1",
                        received_at=received_at.isoformat())


def assessed(values: list[bytes], guard: TeleportGuard | None = None) -> PlannedBatch:
    """Steps 1 and 1b of the positions agent without a database (the guard knows the devices already)."""
    plan = plan_batch(values, LIMITS, ZONE)
    guard = guard or TeleportGuard(LIMITS)
    for fix in plan.fixes:
        guard._reference.setdefault(fix.device_id, None)
    plan.fixes_by_event = [[guard.assess(f) for f in fixes] for fixes in plan.fixes_by_event]
    count_flagged(plan.fixes, plan.reject_counts, ZONE)
    return plan


def test_fix_dated_2020_by_a_century_written_as_year_is_stored_flagged_past() -> None:
    plan = assessed([uplink_of(CENTURY_AS_YEAR)])
    assert plan.rejects == []  # stored, not dead-lettered
    [fix] = plan.fixes
    assert fix.fix_at == datetime(2020, 12, 1, 6, 42, 2, tzinfo=UTC)
    assert fix.quality == QUALITY_PAST
    assert plan.reject_counts == {(date(2026, 12, 1), 41, "past", 3): 1}  # unqualified, on the day it arrived
    assert not usable_for_state(fix, LIMITS)  # no ACC / business state change dated 2020


def test_fix_dated_past_max_future_is_stored_flagged_future_not_refused() -> None:
    plan = assessed([uplink_of(BEIJING, received_at=RECEIVED - timedelta(hours=2))])
    assert plan.rejects == [] and [f.quality for f in plan.fixes] == [QUALITY_FUTURE]
    assert plan.reject_counts == {(date(2026, 12, 1), 41, "future", 3): 1}


def test_backlog_younger_than_max_past_is_plausible() -> None:
    plan = assessed([uplink_of(BEIJING, received_at=RECEIVED + timedelta(days=29))])
    assert [f.quality for f in plan.fixes] == [0] and plan.reject_counts == {}


def test_jump_of_1067_km_in_ten_seconds_is_flagged_teleport_and_only_the_jump() -> None:
    plan = assessed([uplink_of(BEIJING), uplink_of(SHANGHAI_10S_LATER, RECEIVED + timedelta(seconds=10)),
                     uplink_of(BEIJING_AGAIN, RECEIVED + timedelta(seconds=20))])
    assert [f.quality for f in plan.fixes] == [0, QUALITY_TELEPORT, 0]
    assert plan.reject_counts == {(date(2026, 12, 1), 41, "teleport", 3): 1}


def test_teleport_memory_spans_batches() -> None:
    guard = TeleportGuard(LIMITS)
    assert [f.quality for f in assessed([uplink_of(BEIJING)], guard).fixes] == [0]
    later = assessed([uplink_of(SHANGHAI_10S_LATER, RECEIVED + timedelta(seconds=10))], guard)
    assert [f.quality for f in later.fixes] == [QUALITY_TELEPORT]


def fix_at(seconds: float, lat: float, lng: float, device: int = 41) -> Fix:
    at = RECEIVED + timedelta(seconds=seconds)
    return Fix(device_id=device, car_id=51, enterprise_id=3, fix_at=at, lat=lat, lng=lng, altitude_m=0.0,
               speed_kmh=60.0, direction_deg=0, alarm_flags=0, status_flags=3, mileage_km=None, fuel_l=None,
               extras={}, received_at=at)


def test_a_wrong_reference_costs_one_flagged_fix_when_the_next_fix_agrees() -> None:
    guard = TeleportGuard(LIMITS)
    guard._reference[41] = None
    qualities = [guard.assess(f).quality for f in (
        fix_at(0, 39.9087, 116.3975),       # where the terminal last was
        fix_at(60, 31.2304, 121.4737),      # a minute later in Shanghai: flagged
        fix_at(70, 31.2310, 121.4740),      # agrees with it: the vehicle really is there
        fix_at(80, 31.2316, 121.4743))]
    assert qualities == [0, QUALITY_TELEPORT, 0, 0]


@pytest.mark.parametrize(("seconds", "lat", "flagged"), [
    (1, 39.9087 + 0.005, False),   # 556 m in a second: GPS noise under teleport_min_km
    (60, 39.9087 + 0.036, False),  # 4 km in a minute: 240 km/h, under the limit
    (60, 39.9087 + 0.040, True),   # 4.4 km in a minute: 267 km/h
    (-3600, 39.9087 + 2.0, False),  # a backlog item an hour older, 222 km away: plausible
])
def test_implied_speed_rule(seconds: float, lat: float, flagged: bool) -> None:
    guard = TeleportGuard(LIMITS)
    guard._reference[41] = None
    guard.assess(fix_at(0, 39.9087, 116.3975))
    assert bool(guard.assess(fix_at(seconds, lat, 116.3975)).quality & QUALITY_TELEPORT) is flagged
