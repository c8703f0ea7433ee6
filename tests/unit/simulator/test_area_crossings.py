"""A simulated terminal reports crossing the areas it holds (simulator/area_watch.py): on the 0x0200 of the
fix that enters or leaves an area whose attributes send that alarm to the platform, item 0x12 (location
type, area id, direction) and alarm bit 20 (area) or 21 (route); item 0x11 and bit 1 while it is faster
than an area's speed limit for its overspeed duration; nothing for an area that alarms the driver only."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from protocols.jt808 import (
    CircleArea,
    LocationReport,
    RectangleArea,
    RoutePoint,
    SetCircleAreas,
    SetPolygonArea,
    SetRectangleAreas,
    SetRoute,
    TerminalResponse,
    Vertex,
)
from protocols.jt808.messages._areas import (
    ATTR_BY_TIME,
    ATTR_ENTER_ALARM_DRIVER,
    ATTR_ENTER_ALARM_PLATFORM,
    ATTR_LEAVE_ALARM_DRIVER,
    ATTR_LEAVE_ALARM_PLATFORM,
    ATTR_SPEED_LIMIT,
    SET_APPEND,
)
from simulator.fleet import MemoryAuthStore
from simulator.terminal import TerminalConfig, VirtualTerminal
from tests.support.scripted_vehicle import ScriptedVehicle, TrackPoint, east_of

LNG, LAT = 116.39, 39.91
START = datetime(2026, 12, 2, 1, 0, tzinfo=UTC)
TO_PLATFORM = ATTR_ENTER_ALARM_PLATFORM | ATTR_LEAVE_ALARM_PLATFORM
BIT_OVERSPEED, BIT_AREA, BIT_ROUTE = 1 << 1, 1 << 20, 1 << 21


def _at(east_m: float, speed_kmh: float = 40.0) -> TrackPoint:
    return (*east_of(LNG, LAT, east_m), speed_kmh)


# west of it, inside (twice), east of it: across anything of at most 300 m around (LNG, LAT)
ACROSS = [_at(-600), _at(-100), _at(100), _at(600)]


def _terminal(track: list[TrackPoint], version: str = "2013") -> VirtualTerminal:
    config = TerminalConfig(host="127.0.0.1", port=1, interval_s=5.0, heartbeat_interval_s=30, ack_timeout_s=10,
                            backlog_batch_items=20, reconnect_min_s=0.1, reconnect_max_s=1,
                            protocol_version=version)
    return VirtualTerminal(index=1, phone="013800000001", terminal_id="SIM0000001", config=config,
                           vehicle=ScriptedVehicle(track), rng=random.Random(1), auth_store=MemoryAuthStore(),
                           fix_clock=START)


def _give(terminal: VirtualTerminal, msg_id: int, body: Any) -> None:
    """The platform's downlink, as the terminal handles it (simulator.commands)."""
    handled = terminal.responder.handle(msg_id, 7, body, terminal.current_position(), START)
    (answer,) = handled.answers
    assert isinstance(answer.body, TerminalResponse) and answer.body.result == 0


def _reports(terminal: VirtualTerminal, count: int) -> list[LocationReport]:
    """The next ``count`` 0x0200 bodies as the platform decodes them."""
    version = terminal.config.protocol_version
    return [LocationReport.decode(terminal.generate_position().report.encode(version), version)
            for _ in range(count)]


def _area_items(reports: list[LocationReport]) -> list[tuple[int, dict[str, int] | None]]:
    """Per report: its bits 20 / 21 and its 0x12 item."""
    return [(r.alarm_flags & (BIT_AREA | BIT_ROUTE), r.extras.get("area_alarm")) for r in reports]


def _circle(area_id: int, attributes: int, radius_m: int = 300, **more: Any) -> SetCircleAreas:
    return SetCircleAreas(SET_APPEND, (CircleArea(area_id, attributes, LAT, LNG, radius_m, **more),))


def _rectangle(area_id: int) -> SetRectangleAreas:
    (west, north), (east, south) = east_of(LNG, LAT + 0.002, -300), east_of(LNG, LAT - 0.002, 300)
    return SetRectangleAreas(SET_APPEND, (RectangleArea(area_id, TO_PLATFORM, north, west, south, east),))


def _polygon(area_id: int) -> SetPolygonArea:
    (west, _), (east, _) = east_of(LNG, LAT, -300), east_of(LNG, LAT, 300)
    return SetPolygonArea(area_id, TO_PLATFORM, (Vertex(LAT - 0.002, west), Vertex(LAT - 0.002, east),
                                                 Vertex(LAT + 0.003, LNG)))


def _route(route_id: int) -> SetRoute:
    """A road running north-south through (LNG, LAT), 50 m wide, in two segments."""
    return SetRoute(route_id, TO_PLATFORM, (RoutePoint(1, 1, LAT - 0.01, LNG, 50, 0),
                                            RoutePoint(2, 2, LAT, LNG, 50, 0),
                                            RoutePoint(3, 2, LAT + 0.01, LNG, 50, 0)))


def test_driving_across_a_circle_it_holds_reports_0x12_in_then_out_with_bit_20_on_those_reports_only() -> None:
    terminal = _terminal(ACROSS)
    _give(terminal, 0x8600, _circle(41, TO_PLATFORM))
    assert _area_items(_reports(terminal, 4)) == [
        (0, None),  # the first fix settles: outside
        (BIT_AREA, {"location_type": 1, "area_id": 41, "direction": 0}),
        (0, None),
        (BIT_AREA, {"location_type": 1, "area_id": 41, "direction": 1}),
    ]


@pytest.mark.parametrize(("msg_id", "area", "area_id", "location_type", "bit"), [
    (0x8602, _rectangle(42), 42, 2, BIT_AREA),
    (0x8604, _polygon(43), 43, 3, BIT_AREA),
    (0x8606, _route(44), 44, 4, BIT_ROUTE),
], ids=["rectangle", "polygon", "route corridor"])
def test_rectangles_polygons_and_route_corridors_report_their_type_and_id(
        msg_id: int, area: Any, area_id: int, location_type: int, bit: int) -> None:
    terminal = _terminal([_at(-600), _at(-10), _at(10), _at(600)])
    _give(terminal, msg_id, area)
    assert _area_items(_reports(terminal, 4)) == [
        (0, None),
        (bit, {"location_type": location_type, "area_id": area_id, "direction": 0}),
        (0, None),
        (bit, {"location_type": location_type, "area_id": area_id, "direction": 1}),
    ]


def test_an_area_whose_alarms_go_to_the_driver_only_or_nowhere_is_crossed_without_a_report() -> None:
    terminal = _terminal(ACROSS)
    _give(terminal, 0x8600, SetCircleAreas(SET_APPEND, (
        CircleArea(51, ATTR_ENTER_ALARM_DRIVER | ATTR_LEAVE_ALARM_DRIVER, LAT, LNG, 300),
        CircleArea(52, 0, LAT, LNG, 300))))
    assert _area_items(_reports(terminal, 4)) == [(0, None)] * 4


def test_only_the_direction_the_attributes_ask_for_is_reported() -> None:
    terminal = _terminal(ACROSS)
    _give(terminal, 0x8600, _circle(53, ATTR_ENTER_ALARM_PLATFORM))
    assert [item for _, item in _area_items(_reports(terminal, 4))] == [
        None, {"location_type": 1, "area_id": 53, "direction": 0}, None, None]


def test_the_first_fix_inside_a_just_received_area_settles_without_a_report() -> None:
    terminal = _terminal([_at(0), _at(100), _at(600)])
    _give(terminal, 0x8600, _circle(54, TO_PLATFORM))
    assert [item for _, item in _area_items(_reports(terminal, 3))] == [
        None, None, {"location_type": 1, "area_id": 54, "direction": 1}]


def test_two_crossings_on_one_fix_go_on_that_report_and_the_next() -> None:
    terminal = _terminal([_at(-600), _at(0), _at(0)])
    _give(terminal, 0x8600, SetCircleAreas(SET_APPEND, (CircleArea(61, TO_PLATFORM, LAT, LNG, 300),
                                                        CircleArea(62, TO_PLATFORM, LAT, LNG, 200))))
    assert [item for _, item in _area_items(_reports(terminal, 3))] == [
        None, {"location_type": 1, "area_id": 61, "direction": 0}, {"location_type": 1, "area_id": 62, "direction": 0}]


def test_an_area_with_a_time_window_is_watched_only_inside_it() -> None:
    window = {"start": START + timedelta(seconds=12), "end": START + timedelta(hours=1)}
    terminal = _terminal([_at(-600), _at(0), _at(600), _at(0)])  # fixes every 5 s from START + 5 s
    _give(terminal, 0x8600, _circle(63, TO_PLATFORM | ATTR_BY_TIME, **window))
    # the entry at +10 s is before the window; the fix at +15 s settles (outside), +20 s enters
    assert [item for _, item in _area_items(_reports(terminal, 4))] == [
        None, None, None, {"location_type": 1, "area_id": 63, "direction": 0}]


def test_speeding_in_an_area_with_a_speed_limit_past_its_duration_reports_0x11_and_bit_1() -> None:
    track = [_at(-600, 80), _at(-100, 80), _at(-50, 80), _at(0, 80), _at(50, 30), _at(600, 80)]
    terminal = _terminal(track)  # a fix every 5 s
    _give(terminal, 0x8600, _circle(64, ATTR_SPEED_LIMIT, max_speed_kmh=60, overspeed_duration_s=5))
    reports = _reports(terminal, 6)
    assert [(r.alarm_flags & BIT_OVERSPEED, r.extras.get("overspeed_alarm")) for r in reports] == [
        (0, None), (0, None),  # outside; inside and fast for 0 s (the duration is 5 s)
        (BIT_OVERSPEED, {"location_type": 1, "area_id": 64}), (BIT_OVERSPEED, {"location_type": 1, "area_id": 64}),
        (0, None), (0, None)]  # slower than the limit; outside
    assert all("area_alarm" not in r.extras for r in reports)  # no enter / leave alarm asked for


def test_a_deleted_area_is_no_longer_reported() -> None:
    from protocols.jt808 import DeleteCircleAreas

    terminal = _terminal(ACROSS)
    _give(terminal, 0x8600, _circle(65, TO_PLATFORM))
    assert _area_items(_reports(terminal, 2))[1][1] == {"location_type": 1, "area_id": 65, "direction": 0}
    _give(terminal, 0x8601, DeleteCircleAreas((65,)))
    assert _area_items(_reports(terminal, 2)) == [(0, None), (0, None)]


def test_an_area_that_cannot_be_drawn_as_a_fence_is_held_but_not_watched() -> None:
    terminal = _terminal([_at(-600), _at(-10), _at(10), _at(600)])
    narrow = SetRoute(66, TO_PLATFORM, (RoutePoint(1, 1, LAT - 0.01, LNG, 0, 0), RoutePoint(2, 1, LAT + 0.01, LNG, 0, 0)))
    _give(terminal, 0x8606, narrow)  # a corridor 0 m wide: the terminal keeps it, nothing is inside
    assert 66 in terminal.responder.areas.routes
    assert _area_items(_reports(terminal, 4)) == [(0, None)] * 4


def test_a_terminal_that_holds_no_area_adds_nothing() -> None:
    terminal = _terminal(ACROSS)
    assert all(not r.extras.keys() & {"area_alarm", "overspeed_alarm"} and not r.alarm_flags & (BIT_AREA | BIT_ROUTE)
               for r in _reports(terminal, 4))
