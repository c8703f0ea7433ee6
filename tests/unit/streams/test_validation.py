from __future__ import annotations

import json
from datetime import timedelta

import pytest

from streams import payloads
from streams.messages import PayloadError, parse_fix, parse_session, parse_uplink
from streams.payloads import Terminal
from streams.validation import (
    QUALITY_FUTURE,
    UNPOSITIONED,
    Limits,
    classify_uplink,
    time_quality,
    usable_for_state,
    validate_fix,
)

from .conftest import T0

LIMITS = Limits(max_future_s=600, max_speed_kmh=250)


def fix_of(terminal: Terminal, **kwargs):
    kwargs.setdefault("fix_at", T0)
    uplink = parse_uplink(json.dumps(payloads.location_report(terminal, received_at=T0, **kwargs)))
    return parse_fix(uplink, uplink.body)


def test_accepts_a_plain_position(terminal: Terminal) -> None:
    fix = fix_of(terminal, speed_kmh=42.0, acc_on=True)
    assert validate_fix(fix, LIMITS) is None
    assert (fix.device_id, fix.car_id, fix.enterprise_id, fix.speed_kmh, fix.acc_on, fix.positioned) == (
        11, 21, 3, 42.0, True, True)
    assert fix.fix_at == T0 and fix.fix_at.tzinfo is not None


@pytest.mark.parametrize(("kwargs", "reason"), [
    ({"lat": 91.0}, "latitude 91.0 out of range"),
    ({"lat": -90.5}, "latitude -90.5 out of range"),
    ({"lng": 180.1}, "longitude 180.1 out of range"),
    ({"speed_kmh": 250.1}, "speed 250.1 km/h outside 0..250"),
    ({"speed_kmh": -1.0}, "speed -1 km/h outside 0..250"),
    ({"direction_deg": 360}, "direction 360 outside 0..359"),
])
def test_rejects_out_of_range_values(terminal: Terminal, kwargs: dict[str, float], reason: str) -> None:
    assert validate_fix(fix_of(terminal, **kwargs), LIMITS) == reason


def test_flags_fix_further_in_the_future_than_max_future_s_after_receipt(terminal: Terminal) -> None:
    assert time_quality(fix_of(terminal, fix_at=T0 + timedelta(seconds=600)), LIMITS) == 0
    late = fix_of(terminal, fix_at=T0 + timedelta(seconds=601))
    assert validate_fix(late, LIMITS) is None  # stored, flagged: never refused for its time
    assert time_quality(late, LIMITS) == QUALITY_FUTURE


def test_accepts_old_fix_because_backlogs_are_old(terminal: Terminal) -> None:
    assert validate_fix(fix_of(terminal, fix_at=T0 - timedelta(days=3)), LIMITS) is None


def test_rejects_zero_zero_without_positioned_bit_but_state_still_uses_it(terminal: Terminal) -> None:
    fix = fix_of(terminal, lat=0.0, lng=0.0, positioned=False)
    assert validate_fix(fix, LIMITS) == UNPOSITIONED
    assert usable_for_state(fix, LIMITS)


def test_accepts_zero_zero_when_positioned_bit_says_positioned(terminal: Terminal) -> None:
    assert validate_fix(fix_of(terminal, lat=0.0, lng=0.0, positioned=True), LIMITS) is None


def test_unpositioned_last_known_coordinates_are_stored(terminal: Terminal) -> None:
    assert validate_fix(fix_of(terminal, positioned=False), LIMITS) is None


def test_batch_rejects_only_the_bad_items_and_names_them(terminal: Terminal) -> None:
    items = [payloads.location_body(fix_at=T0 + timedelta(seconds=i), speed_kmh=900.0 if i == 1 else 10.0)
             for i in range(3)]
    items.append({"lat": 1})
    result = classify_uplink(parse_uplink(json.dumps(payloads.location_batch(terminal, items, received_at=T0))), LIMITS)
    assert [f.fix_at for f in result.fixes] == [T0, T0 + timedelta(seconds=2)]
    assert result.rejects[0].startswith("item 1: speed 900")
    assert result.rejects[1].startswith("item 3: fix_at")


def test_the_same_pass_gives_the_states_step_its_fixes_in_order(terminal: Terminal) -> None:
    """The states step reads the fixes ``usable_for_state`` from the plan instead of parsing each body again:
    valid and unpositioned fixes in the uplink's order, not a fix refused for its values, not one flagged
    for its time (a state change dated next week would be wrong), not a body that does not parse."""
    items = [payloads.location_body(fix_at=T0, speed_kmh=10.0),
             payloads.location_body(fix_at=T0 + timedelta(seconds=1), lat=0.0, lng=0.0, positioned=False),
             payloads.location_body(fix_at=T0 + timedelta(seconds=2), speed_kmh=900.0),
             payloads.location_body(fix_at=T0 + timedelta(days=2)),
             {"lat": 1},
             payloads.location_body(fix_at=T0 + timedelta(seconds=5), speed_kmh=20.0)]
    uplink = parse_uplink(json.dumps(payloads.location_batch(terminal, items, received_at=T0)))
    result = classify_uplink(uplink, LIMITS)
    assert [f.fix_at for f in result.state_fixes] == [T0, T0 + timedelta(seconds=1), T0 + timedelta(seconds=5)]
    parsed = []
    for body in items[:4] + items[5:]:
        parsed.append(parse_fix(uplink, body))
    assert result.state_fixes == [f for f in parsed if usable_for_state(f, LIMITS)]
    assert [f.fix_at for f in result.fixes] == [T0, T0 + timedelta(days=2), T0 + timedelta(seconds=5)]


def test_other_message_ids_yield_nothing(terminal: Terminal) -> None:
    heartbeat = payloads.uplink(terminal, 0x0002, {})
    assert classify_uplink(parse_uplink(json.dumps(heartbeat)), LIMITS).fixes == []


@pytest.mark.parametrize(("raw", "reason"), [
    (b"not json", "not JSON"),
    (b"\xff\xfe", "not JSON"),
    (b"[1, 2]", "not a JSON object"),
    (b'{"device_id": 1}', "message.body"),
])
def test_bad_uplinks_raise_payload_error_with_reason(raw: bytes, reason: str) -> None:
    with pytest.raises(PayloadError, match=reason):
        parse_uplink(raw)


def test_refuses_times_without_offset(terminal: Terminal) -> None:
    value = payloads.location_report(terminal, fix_at=T0)
    value["received_at"] = "2026-05-01T08:00:00"
    with pytest.raises(PayloadError, match="without offset"):
        parse_uplink(json.dumps(value))


def test_parses_sessions(terminal: Terminal) -> None:
    event = parse_session(json.dumps(payloads.session(terminal, online=False, at=T0, reason="idle_timeout")))
    assert (event.online, event.reason, event.at, event.device_id) == (False, "idle_timeout", T0, 11)
    with pytest.raises(PayloadError, match="event"):
        parse_session(json.dumps({**payloads.session(terminal, online=True), "event": "maybe"}))
