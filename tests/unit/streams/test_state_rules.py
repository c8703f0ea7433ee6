from __future__ import annotations

import dataclasses
import json
from datetime import timedelta

import pytest

from fleet.enums import BizState
from streams import payloads
from streams.messages import Fix, parse_fix, parse_session, parse_uplink
from streams.payloads import Terminal
from streams.state_rules import (
    AccChange,
    BizChange,
    DeviceState,
    OnlineChange,
    Rules,
    apply_fix,
    apply_session,
    apply_tick,
    derive_biz_state,
)

from .conftest import T0

RULES = Rules(no_signal_after_s=600, driving_min_speed_kmh=5)
TERMINAL = Terminal("013800000001", 11, 21, 3)


def fix(seconds: float = 0, **kwargs) -> Fix:
    uplink = parse_uplink(json.dumps(payloads.location_report(
        TERMINAL, fix_at=T0 + timedelta(seconds=seconds), received_at=T0, **kwargs)))
    return parse_fix(uplink, uplink.body)


def online_state(**kwargs) -> DeviceState:
    return DeviceState(device_id=11, car_id=21, enterprise_id=3, online=True, connection_id="c1", **kwargs)


@pytest.mark.parametrize(("facts", "expected"), [
    ({"online": False, "positioned": True, "fresh": True, "acc_on": True, "speed_kmh": 50}, BizState.OFFLINE),
    ({"online": True, "positioned": False, "fresh": True, "acc_on": True, "speed_kmh": 50}, BizState.NO_SIGNAL),
    ({"online": True, "positioned": True, "fresh": False, "acc_on": True, "speed_kmh": 50}, BizState.NO_SIGNAL),
    ({"online": True, "positioned": True, "fresh": True, "acc_on": False, "speed_kmh": 50}, BizState.ENGINE_OFF),
    ({"online": True, "positioned": True, "fresh": True, "acc_on": None, "speed_kmh": 0}, BizState.ENGINE_OFF),
    ({"online": True, "positioned": True, "fresh": True, "acc_on": True, "speed_kmh": 5.1}, BizState.DRIVING),
    ({"online": True, "positioned": True, "fresh": True, "acc_on": True, "speed_kmh": 5.0}, BizState.PARKED),
    ({"online": True, "positioned": True, "fresh": True, "acc_on": True, "speed_kmh": 0}, BizState.PARKED),
])
def test_business_state_rules_in_order(facts: dict, expected: BizState) -> None:
    assert derive_biz_state(rules=RULES, **facts) == expected


def test_a_fix_keeps_every_field_it_does_not_set() -> None:
    # apply_fix builds the next state field by field: a field added to DeviceState must be carried over there
    before = DeviceState(device_id=11, car_id=99, enterprise_id=98, online=True, connection_id="c7", acc_on=False,
                         biz_state=BizState.ENGINE_OFF, last_fix_at=T0 - timedelta(minutes=1), positioned=False,
                         speed_kmh=1.0, lng=1.0, lat=2.0, position_seen_s=5.0)
    after, _ = apply_fix(before, fix(60, speed_kmh=30, acc_on=True), now_s=100, rules=RULES)
    set_by_fix = {"car_id", "enterprise_id", "acc_on", "last_fix_at", "positioned", "speed_kmh", "lng", "lat",
                  "position_seen_s", "biz_state"}
    kept = {f.name for f in dataclasses.fields(DeviceState)} - set_by_fix
    assert kept == {"device_id", "online", "connection_id"}  # a new field fails here until apply_fix carries it
    assert all(getattr(after, name) == getattr(before, name) for name in kept)
    assert (after.car_id, after.enterprise_id, after.acc_on, after.speed_kmh) == (21, 3, True, 30)


def test_first_fix_logs_acc_and_business_state_at_fix_time() -> None:
    state, changes = apply_fix(online_state(), fix(speed_kmh=30, acc_on=True), now_s=100, rules=RULES)
    assert changes == [AccChange(T0, True, 116.39, 39.91), BizChange(T0, BizState.DRIVING)]
    assert (state.acc_on, state.biz_state, state.last_fix_at, state.position_seen_s) == (
        True, BizState.DRIVING, T0, 100)


def test_driving_to_parked_to_engine_off_logs_each_transition_once() -> None:
    state, _ = apply_fix(online_state(), fix(0, speed_kmh=30), 0, RULES)
    state, c1 = apply_fix(state, fix(10, speed_kmh=40), 10, RULES)
    state, c2 = apply_fix(state, fix(20, speed_kmh=0), 20, RULES)
    state, c3 = apply_fix(state, fix(30, speed_kmh=0, acc_on=False), 30, RULES)
    assert c1 == []
    assert c2 == [BizChange(T0 + timedelta(seconds=20), BizState.PARKED)]
    assert c3 == [AccChange(T0 + timedelta(seconds=30), False, 116.39, 39.91),
                  BizChange(T0 + timedelta(seconds=30), BizState.ENGINE_OFF)]


def test_older_or_repeated_fix_does_not_change_live_state() -> None:
    state, _ = apply_fix(online_state(), fix(10, speed_kmh=30), 0, RULES)
    assert apply_fix(state, fix(10, speed_kmh=0, acc_on=False), 1, RULES) == (state, [])
    assert apply_fix(state, fix(5, speed_kmh=0, acc_on=False), 1, RULES) == (state, [])


def test_unpositioned_fix_means_no_signal_and_keeps_last_seen_time() -> None:
    state, _ = apply_fix(online_state(), fix(0, speed_kmh=30), 0, RULES)
    state, changes = apply_fix(state, fix(10, lat=0.0, lng=0.0, positioned=False), 10, RULES)
    assert changes == [BizChange(T0 + timedelta(seconds=10), BizState.NO_SIGNAL)]
    assert state.position_seen_s == 0


def test_no_signal_after_silence_then_back_on_next_fix() -> None:
    state, _ = apply_fix(online_state(), fix(0, speed_kmh=0), 0, RULES)
    assert apply_tick(state, 600, T0, RULES) == (state, [])
    later = T0 + timedelta(seconds=601)
    state, changes = apply_tick(state, 601, later, RULES)
    assert changes == [BizChange(later, BizState.NO_SIGNAL)]
    assert apply_tick(state, 1200, later, RULES) == (state, [])  # logged once
    state, changes = apply_fix(state, fix(700, speed_kmh=20), 700, RULES)
    assert changes == [BizChange(T0 + timedelta(seconds=700), BizState.DRIVING)]


def test_tick_ignores_offline_devices() -> None:
    state = DeviceState(device_id=11, car_id=21, enterprise_id=3, online=False, biz_state=BizState.OFFLINE)
    assert apply_tick(state, 10_000, T0, RULES) == (state, [])


def session(online: bool, seconds: float = 0, connection_id: str = "c1", reason: str = ""):
    return parse_session(json.dumps(payloads.session(
        TERMINAL, online=online, at=T0 + timedelta(seconds=seconds), connection_id=connection_id, reason=reason)))


def test_online_without_position_is_no_signal_and_offline_is_offline() -> None:
    state = DeviceState(device_id=11, car_id=21, enterprise_id=3, online=False)
    state, changes = apply_session(state, session(True), 0, RULES)
    assert changes == [OnlineChange(T0, True, True, "auth", "c1", "test-gw"), BizChange(T0, BizState.NO_SIGNAL)]
    state, changes = apply_session(state, session(False, 5), 5, RULES)
    assert changes[1] == BizChange(T0 + timedelta(seconds=5), BizState.OFFLINE)
    assert not state.online


def test_online_keeps_the_session_source_ip_and_offline_clears_it() -> None:
    state = DeviceState(device_id=11, car_id=21, enterprise_id=3, online=False)
    event = parse_session(json.dumps(payloads.session(TERMINAL, online=True, at=T0, peer="[::ffff:10.1.2.3]:40000")))
    state, changes = apply_session(state, event, 0, RULES)
    assert changes[0] == OnlineChange(T0, True, True, "auth", "test-conn", "test-gw", "10.1.2.3")
    state, changes = apply_session(state, session(False, 5, connection_id="test-conn"), 5, RULES)
    assert changes[0].session_address is None  # type: ignore[union-attr]


def test_online_with_recent_position_derives_from_it() -> None:
    state, _ = apply_fix(DeviceState(11, 21, 3, online=False), fix(0, speed_kmh=30), 0, RULES)
    assert state.biz_state == BizState.OFFLINE
    state, changes = apply_session(state, session(True, 1), 1, RULES)
    assert changes[1] == BizChange(T0 + timedelta(seconds=1), BizState.DRIVING)


def test_offline_of_a_replaced_connection_is_logged_but_not_applied() -> None:
    state = online_state(biz_state=BizState.NO_SIGNAL)
    state2, changes = apply_session(state, session(False, 5, connection_id="old", reason="closed"), 5, RULES)
    assert state2.online and changes == [OnlineChange(T0 + timedelta(seconds=5), False, False, "closed", "old", "test-gw")]
    state3, changes = apply_session(state, session(False, 5, connection_id="c1", reason="replaced"), 5, RULES)
    assert state3.online and not changes[0].applies  # type: ignore[union-attr]
