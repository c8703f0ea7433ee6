"""A terminal fence row as the JT/T 808 area message that sets or deletes it (fleet.fence_areas): the
shape picks the message, the fence id is the area id, attributes and limits map to the wire, the device's
protocol version picks the layout, and what no terminal can hold is refused with the reason."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from fleet.fence_areas import NotSendable, delete_message, set_message
from protocols.jt808 import (
    DeletePolygonAreas,
    DeleteRoutes,
    SetCircleAreas,
    SetPolygonArea,
    SetRectangleAreas,
    SetRoute,
)
from protocols.jt808.messages._areas import SET_APPEND

SQUARE = [[121.40, 31.20], [121.50, 31.20], [121.50, 31.30], [121.40, 31.30], [121.40, 31.20]]


def _fence(**over: Any) -> dict[str, Any]:
    base = {"id": 42, "name": "仓库", "shape": "polygon", "geometry": {"rings": [SQUARE]}, "attributes": 0,
            "start_time": None, "end_time": None, "speed_limit": None, "overspeed_duration": None,
            "night_speed_limit": None}
    return base | over


def test_a_polygon_is_0x8604_with_the_fence_id_and_its_ring_without_the_closing_vertex() -> None:
    msg_id, body = set_message(_fence(attributes=(1 << 3) | (1 << 5)), "2013")
    area = SetPolygonArea.decode(body, "2013")
    assert msg_id == 0x8604 and area.area_id == 42 and area.attributes == 0b101000
    assert [(v.lng, v.lat) for v in area.vertices] == [tuple(p) for p in SQUARE[:-1]]


def test_the_2019_layout_carries_the_name_and_the_night_limit() -> None:
    fence = _fence(attributes=1 << 1, speed_limit=60.0, overspeed_duration=10, night_speed_limit=40.0)
    area = SetPolygonArea.decode(set_message(fence, "2019")[1], "2019")
    assert (area.name, area.max_speed_kmh, area.overspeed_duration_s, area.night_max_speed_kmh) == ("仓库", 60, 10, 40)
    assert SetPolygonArea.decode(set_message(fence, "2013")[1], "2013").name == ""


def test_an_unknown_protocol_version_is_sent_in_the_2013_layout() -> None:
    assert set_message(_fence(), None)[1] == set_message(_fence(), "2013")[1]


def test_a_circle_and_a_rectangle_are_appended_so_the_terminals_other_areas_stay() -> None:
    msg_id, body = set_message(_fence(shape="circle", geometry={"center": [121.47, 31.23], "radius": 500}), "2013")
    circles = SetCircleAreas.decode(body, "2013")
    assert msg_id == 0x8600 and circles.action == SET_APPEND
    assert (circles.areas[0].center_lng, circles.areas[0].center_lat, circles.areas[0].radius_m) == (121.47, 31.23, 500)
    msg_id, body = set_message(_fence(shape="rectangle", geometry={"topLeft": [121.4, 31.3],
                                                                   "bottomRight": [121.5, 31.2]}), "2013")
    rect = SetRectangleAreas.decode(body, "2013")
    assert msg_id == 0x8602 and rect.action == SET_APPEND and rect.areas[0].top_left_lat == 31.3


def test_an_absolute_window_sets_the_by_time_bit() -> None:
    start, end = datetime(2026, 12, 1, tzinfo=UTC), datetime(2026, 12, 31, tzinfo=UTC)
    area = SetPolygonArea.decode(set_message(_fence(start_time=start, end_time=end), "2013")[1], "2013")
    assert area.attributes & 1 and (area.start, area.end) == (start, end)


def test_a_route_shares_the_point_where_two_segments_meet_and_carries_each_segments_rules() -> None:
    geometry = {"segments": [
        {"points": [[121.40, 31.20], [121.45, 31.22]], "width": 50, "minTime": 60, "maxTime": 600, "speedLimit": 60},
        {"points": [[121.45, 31.22], [121.50, 31.25]], "width": 30}]}
    msg_id, body = set_message(_fence(shape="route", geometry=geometry), "2013")
    route = SetRoute.decode(body, "2013")
    assert msg_id == 0x8606 and route.route_id == 42
    assert [(p.point_id, p.segment_id, p.lng, p.width_m) for p in route.points] == [
        (1, 1, 121.40, 50), (2, 2, 121.45, 30), (3, 2, 121.50, 30)]
    first = route.points[0]
    assert (first.max_travel_s, first.min_travel_s, first.max_speed_kmh) == (600, 60, 60)


@pytest.mark.parametrize(("over", "reason"), [
    ({"geometry": {"rings": [SQUARE, [[121.42, 31.22], [121.43, 31.22], [121.43, 31.23]]]}}, "holes"),
    ({"shape": "district", "geometry": {"districtId": 310101}}, "cannot be sent"),
    ({"attributes": 1 << 1}, "needs a speed limit"),
    ({"geometry": {"rings": [SQUARE[:2]]}}, "vertices"),
    ({"shape": "route", "geometry": {"segments": [{"points": SQUARE[:2], "width": 300}]}}, "255"),
])
def test_a_fence_no_terminal_can_hold_is_refused_with_the_reason(over: dict[str, Any], reason: str) -> None:
    with pytest.raises(NotSendable, match=reason):
        set_message(_fence(**over), "2013")


def test_a_delete_names_the_fence_id_in_the_message_of_its_shape() -> None:
    msg_id, body = delete_message("polygon", 42, "2019")
    assert msg_id == 0x8605 and DeletePolygonAreas.decode(body, "2019").ids == (42,)
    msg_id, body = delete_message("route", 7, "2013")
    assert msg_id == 0x8607 and DeleteRoutes.decode(body, "2013").ids == (7,)
    with pytest.raises(NotSendable):
        delete_message("district", 1, "2013")
