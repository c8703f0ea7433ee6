"""Known answers of the platform fence episode rules (fleet.geofence.FenceChecker): crossings in time,
overspeed with its duration and the night limit, route deviation and segment times, stay-in-place,
replays, backlogs and a restart from the kept state. Expected values are worked out here by hand."""

from __future__ import annotations

import json
from datetime import UTC, datetime, time, timedelta

import pytest

from fleet.geofence import (
    Attr,
    Circle,
    Fence,
    FenceChecker,
    FenceType,
    Position,
    Route,
    RouteSegment,
    TimeWindow,
    VehicleState,
    polygon,
)

T0 = datetime(2026, 12, 1, 4, 0, tzinfo=UTC)  # 12:00 Beijing
DEVICE = 7
SQUARE = polygon([(116.0, 39.0), (116.1, 39.0), (116.1, 39.1), (116.0, 39.1)])
IN_OUT = frozenset({Attr.IN_TO_PLATFORM, Attr.OUT_TO_PLATFORM, Attr.IN_TO_DRIVER})


def at(seconds: float, lng: float, lat: float, speed: float = 40.0, *, late: bool = False,
       start: datetime = T0) -> Position:
    return Position(DEVICE, start + timedelta(seconds=seconds), lng, lat, speed, late=late)


def checker(*fences: Fence, index: str = "strtree") -> FenceChecker:
    return FenceChecker(fences, {DEVICE: [f.fence_id for f in fences]}, index=index)


def summary(events: list) -> list[tuple[str, str, float]]:
    return [(e.kind, e.phase, round((e.at - T0).total_seconds(), 3)) for e in events]


@pytest.mark.parametrize("index", ["strtree", "h3"])
def test_crossing_between_two_fixes_30_s_apart_is_interpolated(index: str) -> None:
    fence = Fence(1, "depot", FenceType.ALARM, SQUARE, attributes=IN_OUT)
    check, states = checker(fence, index=index), {}
    # south of the square's south edge (39.0) at 38.99, then 39.02 thirty seconds later: a third of the way
    events = check.check([at(0, 116.05, 38.99), at(30, 116.05, 39.02)], states).events
    assert summary(events) == [("enter", "instant", 10.0)]
    assert (events[0].lng, events[0].lat) == pytest.approx((116.05, 39.0))
    assert events[0].to_platform and events[0].to_driver and not events[0].backlog
    # leaving through the east edge (116.1): from 116.09 to 116.13 at t 60 -> 90, a quarter of the way
    events = check.check([at(60, 116.09, 39.05), at(90, 116.13, 39.05)], states).events
    assert summary(events) == [("leave", "instant", 67.5)]
    assert not events[0].to_driver  # attribute 4 (out-of-area to driver) not set


def test_a_pass_through_between_two_fixes_yields_enter_and_leave() -> None:
    circle = Fence(2, "school", FenceType.ALARM, Circle((116.0, 39.9), 500), attributes=IN_OUT)
    check, states = checker(circle), {}
    # due north along the centre's meridian, 0.01 deg (1,110.32 m at 39.9 deg) either side, t 0 -> 30:
    # the circle is met 610.32 m and 1,610.32 m along the 2,220.64 m move: t = 8.245 s and 21.755 s
    events = check.check([at(0, 116.0, 39.89), at(30, 116.0, 39.91)], states).events
    assert [(k, p) for k, p, _ in summary(events)] == [("enter", "instant"), ("leave", "instant")]
    assert [(e.at - T0).total_seconds() for e in events] == pytest.approx([8.245, 21.755], abs=0.01)


def test_first_fix_inside_yields_no_enter() -> None:
    fence = Fence(1, "depot", FenceType.ALARM, SQUARE, attributes=IN_OUT)
    assert checker(fence).check([at(0, 116.05, 39.05), at(30, 116.06, 39.05)], {}).events == []


def test_time_window_closed_yields_no_crossing() -> None:
    school_hours = TimeWindow(time(7, 0), time(9, 0))  # Beijing; T0 is noon
    fence = Fence(1, "school", FenceType.ALARM, SQUARE, attributes=IN_OUT, time_window=school_hours)
    assert checker(fence).check([at(0, 116.05, 38.99), at(30, 116.05, 39.02)], {}).events == []
    morning = T0 - timedelta(hours=4)  # 08:00 Beijing
    events = checker(fence).check([at(0, 116.05, 38.99, start=morning), at(30, 116.05, 39.02, start=morning)], {})
    assert [e.kind for e in events.events] == ["enter"]


def test_overspeed_inside_lasting_the_duration() -> None:
    zone = Fence(3, "school zone", FenceType.OVERSPEED, SQUARE, speed_limit_kmh=60, overspeed_s=10)
    check, states = checker(zone), {}
    fixes = [at(0, 116.05, 39.05, 50), at(5, 116.05, 39.05, 70), at(10, 116.05, 39.05, 70),
             at(15, 116.05, 39.05, 70), at(20, 116.05, 39.05, 50)]
    events = check.check(fixes, states).events
    # above 60 from t 5; 10 s later (the fix at t 15) the episode is raised, starting at t 5; ends at t 20
    assert summary(events) == [("overspeed", "start", 5.0), ("overspeed", "end", 20.0)]
    assert events[0].started_at == events[1].started_at == T0 + timedelta(seconds=5)
    assert events[0].limit_kmh == 60 and events[0].duration_s == 10
    # a run shorter than the duration raises nothing
    short = [at(30, 116.05, 39.05, 70), at(35, 116.05, 39.05, 70), at(40, 116.05, 39.05, 50)]
    assert check.check(short, states).events == []


def test_overspeed_ends_when_leaving_the_area() -> None:
    zone = Fence(3, "zone", FenceType.ALARM, SQUARE, attributes=frozenset({Attr.SPEED_LIMIT}), speed_limit_kmh=60)
    events = checker(zone).check([at(0, 116.09, 39.05, 80), at(30, 116.13, 39.05, 80)], {}).events
    assert summary(events) == [("overspeed", "start", 0.0), ("overspeed", "end", 7.5)]


def test_night_speed_limit_applies_at_night_beijing_time() -> None:
    zone = Fence(3, "village", FenceType.OVERSPEED, SQUARE, speed_limit_kmh=80, night_speed_limit_kmh=40)
    noon = [at(0, 116.05, 39.05, 60), at(30, 116.05, 39.05, 60)]
    assert checker(zone).check(noon, {}).events == []
    night = T0 + timedelta(hours=11)  # 15:00 UTC = 23:00 Beijing, inside the default 22-6 night
    events = checker(zone).check([at(0, 116.05, 39.05, 60, start=night)], {}).events
    assert [(e.kind, e.phase, e.limit_kmh) for e in events] == [("night_overspeed", "start", 40)]


# A straight route east along lat 39.0: segment 0 from 116.00 to 116.01, segment 1 from 116.01 to 116.02,
# 100 m wide. At 39 deg a degree of longitude is N cos(phi) pi/180 = 86,627.5 m, so the corridor's round
# cap starts 50 m = 0.000577185 deg west of 116.00, at 115.999422815.
ROUTE = Route((RouteSegment(((116.0, 39.0), (116.01, 39.0)), 100, min_time_s=60, max_time_s=300, speed_limit_kmh=50),
               RouteSegment(((116.01, 39.0), (116.02, 39.0)), 100)))
ENTRY_T = (115.999422815 - 115.995) / 0.01 * 10  # the move 115.995 -> 116.005 takes t 0 -> 10: 4.4228 s


def test_segment_time_too_short() -> None:
    line = Fence(4, "bus 12", FenceType.ROUTE, ROUTE)
    fixes = [at(0, 115.995, 39.0), at(10, 116.005, 39.0), at(40, 116.015, 39.0)]
    events = checker(line).check(fixes, {}).events
    # first seen outside the corridor: no deviation (it is raised on leaving the route only)
    assert [(e.kind, e.segment) for e in events] == [("segment_short", 0)]
    short = events[0]
    assert short.duration_s == pytest.approx(40 - ENTRY_T, abs=0.01)  # 35.577 s < 60 s
    assert short.started_at - T0 == pytest.approx(timedelta(seconds=ENTRY_T), abs=timedelta(milliseconds=10))


def test_segment_time_too_long() -> None:
    line = Fence(4, "bus 12", FenceType.ROUTE, ROUTE)
    fixes = [at(0, 115.995, 39.0), at(10, 116.005, 39.0), at(200, 116.008, 39.0), at(400, 116.015, 39.0)]
    events = [e for e in checker(line).check(fixes, {}).events if e.kind.startswith("segment")]
    assert [(e.kind, e.segment) for e in events] == [("segment_long", 0)]
    assert events[0].duration_s == pytest.approx(400 - ENTRY_T, abs=0.01)  # 395.577 s > 300 s


def test_route_deviation_starts_leaving_the_corridor_and_ends_returning() -> None:
    line = Fence(4, "bus 12", FenceType.ROUTE, ROUTE)
    check, states = checker(line), {}
    check.check([at(0, 116.005, 39.0)], states)  # first sight on the route
    # 100 m north of the line (0.000899 deg at 111,035 m/deg): outside the 50 m half width
    events = check.check([at(30, 116.005, 39.0 + 100 / 111_035)], states).events
    assert [(e.kind, e.phase) for e in events] == [("deviation", "start")]
    assert (events[0].at - T0).total_seconds() == pytest.approx(15.0, abs=0.05)  # halfway: 50 of 100 m
    events = check.check([at(60, 116.006, 39.0)], states).events
    assert [(e.kind, e.phase) for e in events] == [("deviation", "end")]
    assert (events[0].started_at - T0).total_seconds() == pytest.approx(15.0, abs=0.05)


def test_route_segment_speed_limit() -> None:
    line = Fence(4, "bus 12", FenceType.ROUTE, ROUTE)
    events = checker(line).check([at(0, 116.005, 39.0, 60), at(30, 116.015, 39.0, 60)], {}).events
    # segment 0 limits 50 km/h with no duration; segment 1 has no limit: the episode ends at t 30
    assert summary(events) == [("overspeed", "start", 0.0), ("overspeed", "end", 30.0)]


def test_stay_in_place() -> None:
    depot = Fence(5, "depot", FenceType.STAY, SQUARE, stay_limit_s=300)
    check, states = checker(depot), {}
    standing = [at(t, 116.05, 39.05, 0) for t in (0, 100, 200)]
    assert check.check(standing, states).events == []
    events = check.check([at(300, 116.05, 39.05, 0), at(360, 116.05, 39.05, 30)], states).events
    assert summary(events) == [("stay", "start", 0.0), ("stay", "end", 360.0)]


def test_door_opening_inside_a_no_door_area() -> None:
    zone = Fence(6, "bridge", FenceType.ALARM, SQUARE, attributes=frozenset({Attr.NO_DOOR_OPENING}))
    door = Position(DEVICE, T0 + timedelta(seconds=30), 116.05, 39.05, 0.0, door_open=True)
    events = checker(zone).check([at(0, 116.05, 39.05), door, at(60, 116.05, 39.05)], {}).events
    assert summary(events) == [("door_open", "start", 30.0), ("door_open", "end", 60.0)]


def test_the_same_fixes_twice_yield_no_second_event() -> None:
    fence = Fence(1, "depot", FenceType.ALARM, SQUARE, attributes=IN_OUT)
    check, states = checker(fence), {}
    fixes = [at(0, 116.05, 38.99), at(30, 116.05, 39.02), at(60, 116.09, 39.05), at(90, 116.13, 39.05)]
    assert len(check.check(fixes, states).events) == 2
    again = check.check(fixes, states)
    assert again.events == [] and again.replays == 4


def test_backlog_filling_a_gap_yields_its_crossings_at_their_own_times_marked() -> None:
    fence = Fence(1, "depot", FenceType.ALARM, SQUARE, attributes=IN_OUT)
    check, states = checker(fence), {}
    # live: outside at t 0, inside at t 300 (a blind area): the crossing interpolated at t 100
    live = check.check([at(0, 116.05, 38.99), at(300, 116.05, 39.02)], states).events
    assert summary(live) == [("enter", "instant", 100.0)]
    # the 0x0704 backlog of the blind area: outside at t 100 (38.995), inside at t 200 (39.005): midway, t 150
    late = [at(100, 116.05, 38.995, late=True), at(200, 116.05, 39.005, late=True)]
    events = check.check(late, states).events
    assert summary(events) == [("enter", "instant", 150.0)]
    assert events[0].backlog and events[0].supersedes == live[0].started_at
    assert check.check(late, states).events == []  # the same backlog again: nothing


def test_a_late_fix_newer_than_the_newest_is_marked_backlog() -> None:
    fence = Fence(1, "depot", FenceType.ALARM, SQUARE, attributes=IN_OUT)
    events = checker(fence).check([at(0, 116.05, 38.99, late=True), at(30, 116.05, 39.02, late=True)], {}).events
    assert [(e.kind, e.backlog) for e in events] == [("enter", True)]


def test_state_survives_a_restart_as_json() -> None:
    zone = Fence(3, "zone", FenceType.OVERSPEED, SQUARE, attributes=IN_OUT, speed_limit_kmh=60, overspeed_s=10)
    states: dict[int, VehicleState] = {}
    first = checker(zone).check([at(0, 116.05, 38.99, 70), at(30, 116.05, 39.02, 70), at(45, 116.05, 39.03, 70)], states)
    assert [(e.kind, e.phase) for e in first.events] == [("enter", "instant"), ("overspeed", "start")]
    kept = json.dumps({k: v.to_json() for k, v in states.items()})
    restored = {int(k): VehicleState.from_json(v) for k, v in json.loads(kept).items()}
    assert restored == states
    # a new worker (new checker, restored state): the replayed fix adds nothing, the next one ends the episode
    after = checker(zone).check([at(45, 116.05, 39.03, 70), at(60, 116.05, 39.04, 40)], restored)
    assert summary(after.events) == [("overspeed", "end", 60.0)]


def test_a_fence_that_cannot_be_compiled_is_named_and_the_others_still_work() -> None:
    bad = Fence(9, "broken", FenceType.ALARM, Circle((116.0, 39.0), -1), attributes=IN_OUT)
    good = Fence(1, "depot", FenceType.ALARM, SQUARE, attributes=IN_OUT)
    check = checker(bad, good)
    assert set(check.invalid) == {9}
    assert [e.fence_id for e in check.check([at(0, 116.05, 38.99), at(30, 116.05, 39.02)], {}).events] == [1]


def test_an_unbound_vehicle_gets_no_event() -> None:
    fence = Fence(1, "depot", FenceType.ALARM, SQUARE, attributes=IN_OUT)
    check = FenceChecker([fence], {DEVICE + 1: [1]})
    states: dict[int, VehicleState] = {}
    assert check.check([at(0, 116.05, 38.99), at(30, 116.05, 39.02)], states).events == []
    assert states[DEVICE].last_at == (T0 + timedelta(seconds=30)).timestamp()


def test_unbinding_forgets_the_pairs_and_a_new_binding_starts_from_the_newest_fix() -> None:
    fence = Fence(1, "depot", FenceType.ALARM, SQUARE, attributes=IN_OUT)
    states: dict[int, VehicleState] = {}
    checker(fence).check([at(0, 116.05, 38.99), at(30, 116.05, 39.02)], states)  # entered: inside
    assert states[DEVICE].fences[1].inside
    FenceChecker([fence], {}).check([at(60, 116.05, 39.03)], states)  # unbound: forgotten, no leave
    assert states[DEVICE].fences == {}
    # bound again: the forgotten pair is outside, so the way out (39.03 -> 38.99) yields no leave; the way
    # back in (38.99 -> 39.02 between t 90 and 120) enters a third of the way: t 100
    events = checker(fence).check([at(90, 116.05, 38.99), at(120, 116.05, 39.02)], states).events
    assert summary(events) == [("enter", "instant", 100.0)]


def test_both_indexes_find_the_same_events_on_random_drives() -> None:
    import random

    rng = random.Random(8)
    fences = [Fence(i, f"f{i}", FenceType.ALARM, Circle((116.0 + rng.uniform(0, 0.2), 39.0 + rng.uniform(0, 0.2)),
                                                         rng.uniform(200, 3000)), attributes=IN_OUT)
              for i in range(1, 41)]
    fences.append(Fence(41, "bus", FenceType.ROUTE, ROUTE))
    bindings = {d: [f.fence_id for f in rng.sample(fences, 10)] for d in range(1, 21)}
    drives = []
    for d in range(1, 21):
        lng, lat = 116.0 + rng.uniform(0, 0.2), 39.0 + rng.uniform(0, 0.2)
        for step in range(40):
            lng, lat = lng + rng.uniform(-0.004, 0.004), lat + rng.uniform(-0.003, 0.003)
            drives.append(Position(d, T0 + timedelta(seconds=30 * step), lng, lat, 50.0))
    found = {}
    for index in ("strtree", "h3"):
        events = FenceChecker(fences, bindings, index=index).check(drives, {}).events
        found[index] = sorted((e.device_id, e.fence_id, e.kind, e.at) for e in events)
    assert found["strtree"] == found["h3"] and len(found["strtree"]) > 20


@pytest.mark.parametrize("kept", [{}, {"last_at": 1.0, "lng": 116.0}, {"last_at": "x", "lng": 1, "lat": 2},
                                  {"last_at": 1.0, "lng": 116.0, "lat": 39.0, "fences": {"1": {"bogus": 1}}},
                                  {"last_at": 1.0, "lng": 116.0, "lat": 39.0, "gap": [1, 2]}])
def test_a_kept_state_that_does_not_parse_is_a_clear_error(kept: dict) -> None:
    with pytest.raises(ValueError, match="not a fence state"):
        VehicleState.from_json(kept)
