"""Area and route bodies (0x8600-0x8608, 0x0608): known answers written field by field from the
standard's byte layout (not produced by the encoder), round trips under every header version, the
fields only 2019 carries, and malformed bodies that give a BodyError naming the field."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from click.testing import CliRunner

from fleet.cli import main
from protocols.jt808 import (
    BodyError,
    CircleArea,
    DeleteCircleAreas,
    DeletePolygonAreas,
    DeleteRectangleAreas,
    DeleteRoutes,
    QueryAreas,
    QueryAreasResponse,
    RectangleArea,
    RoutePoint,
    SetCircleAreas,
    SetPolygonArea,
    SetRectangleAreas,
    SetRoute,
    Vertex,
    decode_body,
    decode_frame,
    encode_frame,
)
from protocols.jt808.catalogue import message_info
from protocols.jt808.jsonify import to_json_value
from protocols.jt808.messages._areas import (
    ATTR_BY_TIME,
    ATTR_ENTER_ALARM_PLATFORM,
    ATTR_LEAVE_ALARM_DRIVER,
    ATTR_LEAVE_ALARM_PLATFORM,
    ATTR_NO_DOOR_OPENING,
    ATTR_SOUTH,
    ATTR_SPEED_LIMIT,
    SEGMENT_SPEED_LIMIT,
    SEGMENT_TRAVEL_TIME,
    SET_APPEND,
    SET_UPDATE,
)

VERSIONS = ["2011", "2013", "2019"]


def _hex(*fields: str) -> bytes:
    return bytes.fromhex("".join(fields).replace(" ", ""))


# 0x8600, 2013: one circle, speed limit and "alarm the platform on entering" (bits 1 and 3).
CIRCLE_2013 = _hex(
    "00",  # set attribute: 0 update
    "01",  # area count
    "00000001",  # area id 1
    "000A",  # attribute: bit 1 speed limit, bit 3 enter alarm to platform
    "0157FAF8",  # centre latitude 22.543096
    "06CC6289",  # centre longitude 114.057865
    "000001F4",  # radius 500 m
    "003C",  # max speed 60 km/h (bit 1)
    "0A",  # overspeed duration 10 s (bit 1)
)

# The 2019 circle item: by time and speed limit, start 2026-12-01 08:00 GMT+8, no end time, a night
# limit and a name. Used alone in 0x0608 and after a set attribute and count in 0x8600.
CIRCLE_ITEM_2019 = (
    "00000007",  # area id 7
    "0003",  # attribute: bit 0 by time, bit 1 speed limit
    "0157FAF8",  # centre latitude 22.543096
    "06CC6289",  # centre longitude 114.057865
    "0000012C",  # radius 300 m
    "261201080000",  # start time 26-12-01 08:00:00 (GMT+8)
    "000000000000",  # end time: all zeros, no time
    "0028",  # max speed 40 km/h
    "05",  # overspeed duration 5 s
    "001E",  # 2019: night max speed 30 km/h
    "0004", "D1A7D0A3",  # 2019: name length 4, 学校 in GBK
)
CIRCLE_2019 = _hex("01", "01", *CIRCLE_ITEM_2019)  # append, one area


def test_decodes_a_2013_circle_with_its_speed_limit_and_no_time() -> None:
    body = decode_body(0x8600, CIRCLE_2013, "2013")
    assert body == SetCircleAreas(SET_UPDATE, (
        CircleArea(1, ATTR_SPEED_LIMIT | ATTR_ENTER_ALARM_PLATFORM, 22.543096, 114.057865, 500,
                   max_speed_kmh=60, overspeed_duration_s=10),))
    assert body.encode("2013") == CIRCLE_2013
    assert body.encode("2011") == CIRCLE_2013


def test_decodes_the_2019_circle_night_limit_name_and_open_end_time() -> None:
    body = decode_body(0x8600, CIRCLE_2019, "2019")
    (area,) = body.areas
    assert body.action == SET_APPEND
    assert area.start == datetime(2026, 12, 1, 0, 0, tzinfo=UTC)  # 08:00 GMT+8
    assert area.end is None
    assert (area.max_speed_kmh, area.overspeed_duration_s, area.night_max_speed_kmh) == (40, 5, 30)
    assert area.name == "学校"
    assert body.encode("2019") == CIRCLE_2019


def test_2013_layout_has_no_night_limit_or_name() -> None:
    body = decode_body(0x8600, CIRCLE_2019, "2019")
    older = body.encode("2013")
    assert older == CIRCLE_2019[: -len(_hex("001E", "0004", "D1A7D0A3"))]
    (area,) = decode_body(0x8600, older, "2013").areas
    assert area.night_max_speed_kmh is None and area.name == ""


def test_south_latitude_comes_from_attribute_bit_6() -> None:
    raw = _hex("00", "01", "00000009", "0040", "0204CC14", "09034550", "00000064")
    (area,) = decode_body(0x8600, raw, "2013").areas
    assert (area.center_lat, area.center_lng) == (-33.86882, 151.209296)
    assert area.attributes == ATTR_SOUTH
    # the encoder sets the bit from the sign, whatever the attributes said
    assert SetCircleAreas(0, (CircleArea(9, 0, -33.86882, 151.209296, 100),)).encode("2013") == raw


RECTANGLE_2013 = _hex(
    "01", "01",  # append, one area
    "00000002",  # area id 2
    "0100",  # attribute: bit 8 no door opening
    "0158D940", "06C9F9E0",  # top-left 22.6, 113.9
    "015752A0", "06CB8080",  # bottom-right 22.5, 114.0
)


def test_decodes_a_rectangle_by_its_north_west_and_south_east_corners() -> None:
    body = decode_body(0x8602, RECTANGLE_2013, "2013")
    assert body == SetRectangleAreas(SET_APPEND, (RectangleArea(2, ATTR_NO_DOOR_OPENING, 22.6, 113.9, 22.5, 114.0),))
    assert body.encode("2013") == RECTANGLE_2013


POLYGON_2019 = _hex(
    "00000003",  # area id 3
    "0032",  # attribute: bit 1 speed limit, bits 4/5 leave alarms
    "0050", "1E",  # max speed 80 km/h, overspeed 30 s (before the vertices)
    "0003",  # three vertices
    "0157C7D0", "06CA4800",  # 22.53, 113.92
    "01583D00", "06CA4800",  # 22.56, 113.92
    "0157EEE0", "06CABD30",  # 22.54, 113.95
    "0046",  # 2019: night max speed 70 km/h (after the vertices)
    "0004", "CEA7C0B8",  # 2019: name 围栏
)


def test_decodes_a_2019_polygon_with_the_night_limit_after_its_vertices() -> None:
    body = decode_body(0x8604, POLYGON_2019, "2019")
    assert body == SetPolygonArea(
        3, ATTR_SPEED_LIMIT | ATTR_LEAVE_ALARM_DRIVER | ATTR_LEAVE_ALARM_PLATFORM,
        (Vertex(22.53, 113.92), Vertex(22.56, 113.92), Vertex(22.54, 113.95)),
        max_speed_kmh=80, overspeed_duration_s=30, night_max_speed_kmh=70, name="围栏")
    assert body.encode("2019") == POLYGON_2019
    assert body.encode("2013") == POLYGON_2019[: -len(_hex("0046", "0004", "CEA7C0B8"))]


ROUTE_2019 = _hex(
    "00000005",  # route id 5
    "0009",  # route attribute: bit 0 by time, bit 3 enter alarm to platform
    "261201060000", "261201220000",  # 06:00 to 22:00 GMT+8
    "0002",  # two inflection points
    "00000001", "0000000A", "0157EEE0", "06CA6F10",  # point 1, segment 10, 22.54, 113.93
    "32", "03",  # width 50 m, segment attribute: travel time and speed limit
    "0258", "003C",  # too long 600 s, too short 60 s
    "003C", "0A",  # max speed 60, overspeed 10 s
    "0028",  # 2019: night max speed 40
    "00000002", "0000000A", "015815F0", "06CA9620",  # point 2, segment 10, 22.55, 113.94
    "32", "00",  # width 50 m, no thresholds, no limit
    "0002", "5231",  # 2019: route name R1
)


def test_decodes_a_2019_route_with_segment_thresholds_and_limits() -> None:
    body = decode_body(0x8606, ROUTE_2019, "2019")
    assert isinstance(body, SetRoute) and body.route_id == 5 and body.name == "R1"
    assert body.start == datetime(2026, 11, 30, 22, 0, tzinfo=UTC)
    assert body.end == datetime(2026, 12, 1, 14, 0, tzinfo=UTC)
    assert body.points == (
        RoutePoint(1, 10, 22.54, 113.93, 50, SEGMENT_TRAVEL_TIME | SEGMENT_SPEED_LIMIT, 600, 60, 60, 10, 40),
        RoutePoint(2, 10, 22.55, 113.94, 50, 0),
    )
    assert body.encode("2019") == ROUTE_2019


def test_2013_route_points_carry_no_night_limit_and_the_route_no_name() -> None:
    older = decode_body(0x8606, ROUTE_2019, "2019").encode("2013")
    expected = ROUTE_2019.replace(_hex("0A", "0028"), _hex("0A"))[: -len(_hex("0002", "5231"))]
    assert older == expected
    assert decode_body(0x8606, older, "2013").points[0].night_max_speed_kmh is None


@pytest.mark.parametrize(("msg_id", "cls"), [(0x8601, DeleteCircleAreas), (0x8603, DeleteRectangleAreas),
                                             (0x8605, DeletePolygonAreas), (0x8607, DeleteRoutes)])
def test_delete_bodies_list_ids_or_nothing_for_all(msg_id: int, cls: type) -> None:
    raw = _hex("02", "00000001", "00000007")
    assert decode_body(msg_id, raw, "2013") == cls((1, 7))
    assert decode_body(msg_id, _hex("00"), "2019") == cls(())
    assert cls((1, 7)).encode("2011") == raw


def test_query_and_answer_are_2019_messages() -> None:
    assert decode_body(0x8608, _hex("01", "00000002", "00000001", "00000007"), "2019") == QueryAreas(1, (1, 7))
    assert decode_body(0x8608, _hex("03", "00000000"), "2019") == QueryAreas(3)
    answer = decode_body(0x0608, _hex("01", "00000001", *CIRCLE_ITEM_2019), "2019")
    assert answer == QueryAreasResponse(1, decode_body(0x8600, CIRCLE_2019, "2019").areas)
    assert answer.encode("2019") == _hex("01", "00000001", *CIRCLE_ITEM_2019)
    with pytest.raises(ValueError, match="only in JT/T 808-2019"):
        QueryAreas(1).encode("2013")


def test_answer_to_a_route_query_holds_whole_route_bodies() -> None:
    answer = decode_body(0x0608, _hex("04", "00000002") + ROUTE_2019 + ROUTE_2019, "2019")
    assert [r.route_id for r in answer.areas] == [5, 5]


def _bodies() -> list[tuple[int, object]]:
    circle = decode_body(0x8600, CIRCLE_2019, "2019")
    return [
        (0x8600, circle),
        (0x8602, decode_body(0x8602, RECTANGLE_2013, "2013")),
        (0x8604, decode_body(0x8604, POLYGON_2019, "2019")),
        (0x8606, decode_body(0x8606, ROUTE_2019, "2019")),
        (0x8601, DeleteCircleAreas((3,))),
        (0x8607, DeleteRoutes()),
    ]


@pytest.mark.parametrize("version", VERSIONS)
def test_round_trips_through_a_frame_under_every_header(version: str) -> None:
    for msg_id, body in _bodies():
        frame = encode_frame(msg_id, body, phone="13912345678", seq=9, version=version)
        decoded = decode_frame(frame).body
        again = decode_frame(encode_frame(msg_id, decoded, phone="13912345678", seq=9, version=version)).body
        assert decoded == again
        if version == "2019":
            assert decoded == body


def test_every_area_message_is_in_the_catalogue() -> None:
    for msg_id in (0x8600, 0x8601, 0x8602, 0x8603, 0x8604, 0x8605, 0x8606, 0x8607, 0x8608, 0x0608):
        info = message_info(msg_id)
        assert info is not None and info.has_body


MALFORMED = [
    ("truncated circle", 0x8600, "2013", CIRCLE_2013[:-1], "overspeed duration at byte 22 needs 1 bytes"),
    ("count overruns", 0x8600, "2013", _hex("00", "05") + CIRCLE_2013[2:], "announces 5 areas"),
    ("trailing bytes", 0x8600, "2013", CIRCLE_2013 + b"\x00", "1 bytes after its last field"),
    ("bad set attribute", 0x8600, "2013", _hex("03") + CIRCLE_2013[1:], "set attribute at byte 0: 3"),
    ("invalid time", 0x8604, "2013", _hex("00000003", "0001", "261301080000", "000000000000", "0003"),
     "start time at byte 6"),
    ("vertex count overruns", 0x8604, "2013", _hex("00000003", "0000", "FFFF") + bytes(24), "announces 65535 vertices"),
    ("rectangle set body cut", 0x0608, "2019", _hex("02", "00000001", "01", "01", "00000002"), "0x0608"),
    ("2019 name overruns", 0x8604, "2019", POLYGON_2019[:-2], "name at byte"),
    # 2013: the first point whole (25 bytes, no night limit), the second cut inside its latitude
    ("route point cut", 0x8606, "2013", ROUTE_2019[:45] + ROUTE_2019[47:58], "point 1 latitude at byte 53"),
    ("delete over 125", 0x8601, "2013", _hex("7E") + bytes(126 * 4), "at most 125"),
    ("delete count overruns", 0x8605, "2013", _hex("03", "00000001"), "announces 3 ids"),
    ("unknown query type", 0x8608, "2019", _hex("05", "00000000"), "query type at byte 0: 5"),
    ("answer count overruns", 0x0608, "2019", _hex("01", "FFFFFFFF", *CIRCLE_ITEM_2019), "announces 4294967295 areas"),
    ("empty body", 0x8606, "2019", b"", "route id at byte 0 needs 4 bytes"),
]


@pytest.mark.parametrize(("case", "msg_id", "version", "raw", "message"), MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_bodies_name_the_field(case: str, msg_id: int, version: str, raw: bytes, message: str) -> None:
    with pytest.raises(BodyError, match=message.replace("(", r"\(")):
        decode_body(msg_id, raw, version)


@pytest.mark.parametrize(("body", "message"), [
    (CircleArea(1, ATTR_SPEED_LIMIT, 22.5, 114.0, 100), "needs max_speed_kmh"),
    (CircleArea(1, 0, 22.5, 114.0, 100, max_speed_kmh=60, overspeed_duration_s=5), "needs its speed-limit"),
    (CircleArea(1, 0, 22.5, 114.0, 100, start=datetime(2026, 1, 1, tzinfo=UTC)), "needs attribute bit 0"),
    (CircleArea(1, ATTR_BY_TIME, 22.5, 114.0, 100, start=datetime(2026, 1, 1)), "start time: .*timezone-aware"),
    (CircleArea(1, 0, 95.0, 114.0, 100), "outside ±90"),
    (CircleArea(1, 0, 22.5, 114.0, 2**32), "radius"),
])
def test_encoding_refuses_fields_that_disagree_with_the_attributes(body: CircleArea, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SetCircleAreas(SET_UPDATE, (body,)).encode("2019")


def test_encoding_refuses_what_decodes_but_cannot_be_drawn() -> None:
    reversed_corners = RectangleArea(2, 0, 22.5, 113.9, 22.6, 114.0)
    assert reversed_corners.corner_problem() is not None
    with pytest.raises(ValueError, match="not north-west"):
        SetRectangleAreas(SET_UPDATE, (reversed_corners,)).encode("2013")
    with pytest.raises(ValueError, match="needs 2-65535"):
        SetRoute(5, 0, (RoutePoint(1, 1, 22.5, 114.0, 20, 0),)).encode("2013")
    with pytest.raises(ValueError, match="vertex 0 latitude: 123.456789 degrees is outside ±90"):
        SetPolygonArea(1, 0, (Vertex(123.456789, 100.0), Vertex(2.0, 100.0), Vertex(1.0, 101.0))).encode("2013")


def test_encoding_refuses_a_polygon_across_the_equator_and_too_few_vertices() -> None:
    with pytest.raises(ValueError, match="cannot cross the equator"):
        SetPolygonArea(1, 0, (Vertex(1.0, 100.0), Vertex(-1.0, 100.0), Vertex(0.5, 101.0))).encode("2013")
    with pytest.raises(ValueError, match="needs 3-65535"):
        SetPolygonArea(1, 0, (Vertex(1.0, 100.0), Vertex(2.0, 100.0))).encode("2013")


def test_json_names_the_attribute_bits() -> None:
    data = to_json_value(decode_body(0x8606, ROUTE_2019, "2019"))
    assert data["attribute_flags"] == ["by_time", "enter_alarm_platform"]
    assert data["points"][0]["attribute_flags"] == ["travel_time", "speed_limit"]
    assert data["start"] == "2026-11-30T22:00:00+00:00"
    assert to_json_value(decode_body(0x8600, CIRCLE_2019, "2019"))["action_name"] == "append"
    assert to_json_value(QueryAreas(4))["query_type_name"] == "route"


def test_fleet_decode_prints_an_area_command_readably() -> None:
    frame = encode_frame(0x8604, POLYGON_2019, phone="13912345678", seq=3, version="2019")
    result = CliRunner().invoke(main, ["decode", frame.hex()])
    assert result.exit_code == 0, result.stderr
    body = json.loads(result.stdout)["body"]
    assert body["name"] == "围栏"
    assert body["vertices"][0] == {"lat": 22.53, "lng": 113.92}
    assert body["attribute_flags"] == ["speed_limit", "leave_alarm_driver", "leave_alarm_platform"]


# Public vectors: SmallChi/JT808's tests (src/JT808.Protocol.Test/MessageBody/, commit in each tag). Their
# coordinates (123.456789°) are test data off the earth: decoded as sent, never encodable. Times GMT+8.

def test_smallchi_0x8600_three_circles() -> None:
    # JT808_0x8600Test.cs@119ead0 Test2: append, attributes 222 (speed, alarms, south, west), 0, 2211 (time, speed, west)
    raw = _hex("0103", "000005F2 00DE 075BCD15 075BCD15 000000C8 003C C8",
               "000005F3 0000 075BCD15 075BCD15 000000C8",
               "000005F4 08A3 075BCD15 075BCD15 000000C8 181018000012 181019000012 003C C8")
    body = decode_body(0x8600, raw, "2013")
    first, second, third = body.areas
    assert body.action == SET_APPEND
    assert first == CircleArea(1522, 222, -123.456789, -123.456789, 200, max_speed_kmh=60, overspeed_duration_s=200)
    assert second == CircleArea(1523, 0, 123.456789, 123.456789, 200)
    assert third == CircleArea(1524, 2211, 123.456789, -123.456789, 200, datetime(2018, 10, 17, 16, 0, 12, tzinfo=UTC),
                               datetime(2018, 10, 18, 16, 0, 12, tzinfo=UTC), 60, 200)


def test_smallchi_0x8604_polygon_of_two_vertices_decodes_as_sent() -> None:
    # JT808_0x8604Test.cs@1924e87 Test2
    body = decode_body(0x8604, _hex("000004D20001181120000012181121000012", "0002",
                                    "075BCD15075BCD14", "075BCCBC075BCCBD"), "2013")
    assert (body.area_id, body.attributes, body.max_speed_kmh) == (1234, 1, None)
    assert (body.start, body.end) == (datetime(2018, 11, 19, 16, 0, 12, tzinfo=UTC),
                                      datetime(2018, 11, 20, 16, 0, 12, tzinfo=UTC))
    assert body.vertices == (Vertex(123.456789, 123.456788), Vertex(123.4567, 123.456701))


SMALLCHI_ROUTE_2019 = _hex(
    "0000270F 0033 200104000012 200104000012 0002",
    "000003E8 00000507 075BCD15 075BCD14 38 03 0032 007B 0045 17 0050",
    "000003E9 00002EE7 075BCD0C 075BCD0D 4B 03 003A 007C 002A 1A 0042",
    "0008 6B6F696B65353138",
)


def test_smallchi_0x8606_2019_route_with_night_limits_and_name() -> None:
    # JT808_0x8606Test.cs@03ab089 Test6_2019
    body = decode_body(0x8606, SMALLCHI_ROUTE_2019, "2019")
    assert (body.route_id, body.attributes, body.name) == (9999, 51, "koike518")
    assert body.start == body.end == datetime(2020, 1, 3, 16, 0, 12, tzinfo=UTC)
    assert body.points == (
        RoutePoint(1000, 1287, 123.456789, 123.456788, 56, 3, 50, 123, 69, 23, 80),
        RoutePoint(1001, 12007, 123.45678, 123.456781, 75, 3, 58, 124, 42, 26, 66),
    )


def test_smallchi_0x8608_all_circles() -> None:
    # JT808_0x8608Test.cs@4a69f92 Test4
    assert decode_body(0x8608, _hex("0100000000"), "2019") == QueryAreas(1)


def test_smallchi_0x0608_whole_set_bodies_per_entry_decode_too() -> None:
    # JT808_0x0608Test.cs@7294897 Test_JT808_0X8600s_2 and Test_JT808_0X8602s_2: one 0x8600 / 0x8602 body
    # (append, one area) per entry, 2019 night limit and name
    circles = decode_body(0x0608, _hex("01 00000001 01 01 000005F2 00DE 075BCD15 075BCD15 000000C8 003C C8 029A",
                                       "0008 536D616C6C436869"), "2019")
    assert circles == QueryAreasResponse(1, (CircleArea(1522, 222, -123.456789, -123.456789, 200, None, None,
                                                        60, 200, 666, "SmallChi"),))
    rectangles = decode_body(0x0608, _hex("02 00000001 01 01 000005F2 00DE 075BCD13 075BCD12 075BCD15 075BCD14",
                                          "003C C8 0000 0008 736D616C6C636869"), "2019")
    assert rectangles == QueryAreasResponse(2, (RectangleArea(1522, 222, -123.456787, -123.456786, -123.456789,
                                                              -123.456788, None, None, 60, 200, 0, "smallchi"),))


def test_smallchi_0x0608_route_entry_is_a_whole_route_body() -> None:
    # JT808_0x0608Test.cs@7294897 Test_JT808_0X8606s_2: one route of one point
    answer = decode_body(0x0608, _hex("04 00000001 0000270F 0033 200107000012 200107000012 0001",
                                      "000003E8 00000507 075BCD15 075BCD14 38 03 0032 007B 0045 17 0050",
                                      "0008 6B6F696B65353138"), "2019")
    (route,) = answer.areas
    assert (route.route_id, route.name, len(route.points), route.points[0].night_max_speed_kmh) == (9999, "koike518", 1, 80)
