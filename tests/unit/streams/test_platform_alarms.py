"""Platform alarm rules at their boundaries (streams/platform_alarms.py)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from fleet.platform_alarm_rules import DEFAULT_RULES, rules_from_row
from protocols.jt808.catalogue import BATCH_LOCATION_UPLOAD
from streams.messages import STATUS_ACC_ON, STATUS_POSITIONED, Fix, Uplink
from streams.platform_alarms import DeviceRules, Evaluated, PlatformAlarms, evaluate, in_night

T0 = datetime(2026, 11, 25, 4, 0, tzinfo=UTC)  # 12:00 Beijing time
RULES = replace(DEFAULT_RULES, overspeed_limit_kmh=100, overspeed_duration_s=10, fatigue_driving_s=600,
                fatigue_rest_s=120, parking_timeout_s=300)


def fix(seconds: float, speed: float, acc: bool = True, at: datetime = T0) -> Fix:
    return Fix(device_id=7, car_id=None, enterprise_id=3, fix_at=at + timedelta(seconds=seconds), lat=30.0, lng=120.0,
               altitude_m=5.0, speed_kmh=speed, direction_deg=0, alarm_flags=0,
               status_flags=STATUS_POSITIONED | (STATUS_ACC_ON if acc else 0), mileage_km=None, fuel_l=None,
               extras={}, received_at=at + timedelta(seconds=seconds))


def run(points: list[Fix], rules=RULES, state: DeviceRules | None = None) -> tuple[DeviceRules, Evaluated]:
    state = state or DeviceRules()
    out = Evaluated()
    for point in points:
        evaluate(state, point, 1, rules, out)
    return state, out


def keys(out: Evaluated) -> list[tuple[str, float]]:
    return [(e.key, (e.start - T0).total_seconds()) for e in out.episodes]


def test_overspeed_exactly_at_the_limit_is_not_overspeed() -> None:
    _, out = run([fix(s, 100.0) for s in range(0, 60)])
    assert keys(out) == []


def test_overspeed_fires_when_the_duration_is_reached_not_a_second_earlier() -> None:
    _, early = run([fix(s, 101.0) for s in range(0, 10)])  # 0..9 s above the limit: 9 s
    assert keys(early) == []
    state, out = run([fix(s, 101.0) for s in range(0, 11)])  # the fix at 10 s completes 10 s
    assert keys(out) == [("p_overspeed", 10.0)]
    assert out.episodes[0].kind == 3 and out.episodes[0].end is None
    assert out.episodes[0].details["since"] == T0.isoformat()
    _, more = run([fix(s, 120.0) for s in range(11, 30)], state=state)  # held: nothing new
    assert more.episodes == [] and more.ends == []


def test_overspeed_ends_at_the_first_fix_at_or_below_the_limit_and_a_dip_restarts_the_count() -> None:
    state, out = run([fix(s, 101.0) for s in range(0, 11)] + [fix(11, 100.0)])
    assert out.ends == [(7, ["p_overspeed"], T0 + timedelta(seconds=11))]
    _, again = run([fix(s, 101.0) for s in range(12, 21)], state=state)  # 8 s over since the dip
    assert again.episodes == []


def test_fatigue_fires_one_second_over_the_continuous_driving_limit() -> None:
    state, out = run([fix(s, 60.0) for s in range(0, 601, 60)])  # exactly 600 s driving
    assert keys(out) == []
    _, out = run([fix(601, 60.0)], state=state)
    assert keys(out) == [("p_fatigue", 601.0)]


def test_a_rest_of_the_minimum_length_resets_fatigue_and_ends_its_episode() -> None:
    state, out = run([fix(s, 60.0) for s in range(0, 700, 50)])
    assert [k for k, _ in keys(out)] == ["p_fatigue"]
    # A stop of 119 s does not reset: driving continues, no second episode, nothing ended.
    state, short = run([fix(700, 0.0), fix(819, 60.0)], state=state)
    assert short.ends == [] and short.episodes == []
    # A stop of exactly 120 s is a rest: the episode ends and the driving time restarts.
    state, rest = run([fix(900, 0.0), fix(1020, 0.0)], state=state)
    assert rest.ends == [(7, ["p_fatigue"], T0 + timedelta(seconds=1020))]
    _, after = run([fix(s, 60.0) for s in range(1030, 1631, 60)], state=state)  # 600 s since 1030: not over
    assert after.episodes == []


def test_silence_longer_than_the_minimum_rest_counts_as_a_rest() -> None:
    state, _ = run([fix(s, 60.0) for s in range(0, 500, 50)])
    _, out = run([fix(s, 60.0) for s in range(700, 1200, 50)], state=state)  # 250 s gap, then 500 s driving
    assert out.episodes == []


def test_parking_timeout_needs_acc_on_and_strictly_more_than_the_timeout() -> None:
    _, exact = run([fix(s, 0.0) for s in range(0, 301, 30)])
    assert keys(exact) == []
    state, out = run([fix(s, 0.0) for s in range(0, 302, 1)])
    assert keys(out) == [("p_parking", 301.0)]
    _, off = run([fix(302, 0.0, acc=False)], state=state)
    assert off.ends == [(7, ["p_parking"], T0 + timedelta(seconds=302))]
    _, acc_off = run([fix(s, 0.0, acc=False) for s in range(0, 1000, 10)])
    assert acc_off.episodes == []


def test_night_driving_is_off_by_default_and_follows_the_window_when_on() -> None:
    night = T0.replace(hour=18, minute=30)  # 02:30 Beijing time
    _, off = run([fix(0, 50.0, at=night)])
    assert off.episodes == []
    rules = replace(RULES, night_enabled=True)
    state, out = run([fix(0, 50.0, at=night)], rules=rules)
    assert [e.key for e in out.episodes] == ["p_night"]
    _, ended = run([fix(9000, 50.0, at=night)], rules=rules, state=state)  # 05:00 Beijing: outside [02:00, 05:00)
    assert ended.ends == [(7, ["p_night"], night + timedelta(seconds=9000))]
    assert in_night(T0.replace(hour=23), replace(rules, night_start_hour=22, night_end_hour=8))  # 07:00 local


def test_a_rule_switched_off_ends_its_open_episode() -> None:
    state, _ = run([fix(s, 101.0) for s in range(0, 11)])
    _, out = run([fix(11, 130.0)], rules=replace(RULES, overspeed_enabled=False), state=state)
    assert out.ends == [(7, ["p_overspeed"], T0 + timedelta(seconds=11))]


def test_backlog_fixes_are_ignored() -> None:
    platform = PlatformAlarms(db=None)  # type: ignore[arg-type]
    platform.rules = {3: RULES}
    live = Uplink("013800000001", 7, None, 3, 0x0200, T0, {})
    batch = Uplink("013800000001", 7, None, 3, BATCH_LOCATION_UPLOAD, T0, {})
    # a 0x0704 batch of 20 s overspeed: nothing
    out = platform.plan([batch], [[fix(s, 130.0) for s in range(0, 20)]])
    assert out.episodes == []
    # live fixes, then an older (replayed) fix: ignored, the state is unchanged
    out = platform.plan([live, live], [[fix(s, 130.0) for s in range(100, 105)], [fix(50, 0.0)]])
    assert out.ends == [] and platform.devices[7].over_since == T0 + timedelta(seconds=100)
    out = platform.plan([live], [[fix(110, 130.0)]])
    assert [e.key for e in out.episodes] == ["p_overspeed"]


def test_rules_from_a_row_override_the_defaults_and_an_absent_row_is_the_defaults() -> None:
    assert rules_from_row(None) == DEFAULT_RULES
    assert DEFAULT_RULES.overspeed_limit_kmh == 100 and DEFAULT_RULES.overspeed_duration_s == 10
    assert DEFAULT_RULES.fatigue_driving_s == 4 * 3600 and DEFAULT_RULES.fatigue_rest_s == 20 * 60
    assert DEFAULT_RULES.parking_timeout_s == 1800 and not DEFAULT_RULES.night_enabled
    rules = rules_from_row({"overspeed_limit_kmh": 80, "night_start_hour": None})
    assert rules.overspeed_limit_kmh == 80 and rules.night_start_hour == 2
