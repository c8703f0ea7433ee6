"""A simulated terminal keeps the areas and routes the platform sends it (0x8600-0x8607), with the set
attribute's update / append / modify, deletes them, answers 0x0001 with the right result, and lists
them in 0x0608 when a 2019 platform asks with 0x8608 (simulator/areas.py, through CommandResponder)."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from protocols.jt808 import (
    CircleArea,
    DeleteCircleAreas,
    DeletePolygonAreas,
    DeleteRectangleAreas,
    DeleteRoutes,
    LocationReport,
    Message,
    QueryAreas,
    QueryAreasResponse,
    RectangleArea,
    RoutePoint,
    SetCircleAreas,
    SetPolygonArea,
    SetRectangleAreas,
    SetRoute,
    TerminalResponse,
    Vertex,
    encode_frame,
    encode_subpackages,
    merge_subpackages,
)
from protocols.jt808.messages._areas import (
    ATTR_ENTER_ALARM_PLATFORM,
    ATTR_SPEED_LIMIT,
    QUERY_CIRCLE,
    QUERY_POLYGON,
    QUERY_RECTANGLE,
    QUERY_ROUTE,
    SET_APPEND,
    SET_MODIFY,
    SET_UPDATE,
)
from simulator.areas import TerminalAreas
from simulator.commands import CommandResponder, Handled, default_params
from simulator.fleet import MemoryAuthStore
from simulator.terminal import VirtualTerminal
from tests.unit.simulator.test_terminal_over_tcp import PHONE, FakeGateway, _terminal

NOW = datetime(2026, 12, 1, 2, 0, tzinfo=UTC)
POSITION = LocationReport(0, 3, 22.54, 113.93, 10, 30.0, 90, NOW)


def _circle(area_id: int, radius_m: int = 200, name: str = "") -> CircleArea:
    return CircleArea(area_id, ATTR_SPEED_LIMIT | ATTR_ENTER_ALARM_PLATFORM, 22.54, 113.93, radius_m,
                      max_speed_kmh=40, overspeed_duration_s=10, night_max_speed_kmh=30, name=name)


POLYGON = SetPolygonArea(3, 0, (Vertex(22.53, 113.92), Vertex(22.56, 113.92), Vertex(22.54, 113.95)), name="depot")
ROUTE = SetRoute(5, 0, (RoutePoint(1, 10, 22.54, 113.93, 50, 0), RoutePoint(2, 10, 22.55, 113.94, 50, 0)), name="R1")
RECTANGLE = RectangleArea(2, 0, 22.6, 113.9, 22.5, 114.0, name="zone")


def _responder(version: str = "2019") -> CommandResponder:
    return CommandResponder("013800000001", "京A·00001", params=default_params("京A·00001", 5),
                            protocol_version=version, areas=TerminalAreas(capacity=5))


def _send(responder: CommandResponder, msg_id: int, body: Any, seq: int = 1) -> Any:
    handled: Handled = responder.handle(msg_id, seq, body, POSITION, NOW)
    (answer,) = handled.answers
    return answer.body


def _result(responder: CommandResponder, msg_id: int, body: Any) -> int:
    reply = _send(responder, msg_id, body, seq=42)
    assert isinstance(reply, TerminalResponse) and (reply.reply_seq, reply.reply_msg_id) == (42, msg_id)
    return reply.result


def test_set_attribute_updates_appends_and_modifies_circles() -> None:
    terminal = _responder()
    assert _result(terminal, 0x8600, SetCircleAreas(SET_UPDATE, (_circle(1), _circle(2)))) == 0
    assert list(terminal.areas.circles) == [1, 2]
    assert _result(terminal, 0x8600, SetCircleAreas(SET_APPEND, (_circle(3), _circle(1, 900)))) == 0
    assert list(terminal.areas.circles) == [1, 2, 3] and terminal.areas.circles[1].radius_m == 900
    assert _result(terminal, 0x8600, SetCircleAreas(SET_MODIFY, (_circle(2, 50),))) == 0
    assert terminal.areas.circles[2].radius_m == 50
    assert _result(terminal, 0x8600, SetCircleAreas(SET_UPDATE, (_circle(4),))) == 0
    assert list(terminal.areas.circles) == [4]


def test_modifying_an_area_the_terminal_does_not_hold_fails_and_changes_nothing() -> None:
    terminal = _responder()
    _result(terminal, 0x8600, SetCircleAreas(SET_UPDATE, (_circle(1),)))
    assert _result(terminal, 0x8600, SetCircleAreas(SET_MODIFY, (_circle(1, 60), _circle(9)))) == 1
    assert terminal.areas.circles == {1: _circle(1)}


def test_areas_beyond_the_terminal_capacity_fail_and_change_nothing() -> None:
    terminal = _responder()
    _result(terminal, 0x8600, SetCircleAreas(SET_UPDATE, tuple(_circle(i) for i in range(1, 5))))
    assert _result(terminal, 0x8600, SetCircleAreas(SET_APPEND, (_circle(5), _circle(6)))) == 1
    assert list(terminal.areas.circles) == [1, 2, 3, 4]


def test_rectangles_polygons_and_routes_are_kept_and_deleted() -> None:
    terminal = _responder()
    assert _result(terminal, 0x8602, SetRectangleAreas(SET_APPEND, (RECTANGLE,))) == 0
    assert _result(terminal, 0x8604, POLYGON) == 0
    assert _result(terminal, 0x8606, ROUTE) == 0
    assert (terminal.areas.rectangles, terminal.areas.polygons, terminal.areas.routes) == (
        {2: RECTANGLE}, {3: POLYGON}, {5: ROUTE})
    assert _result(terminal, 0x8604, SetPolygonArea(3, 0, POLYGON.vertices[::-1])) == 0  # same id: replaced
    assert terminal.areas.polygons[3].vertices == POLYGON.vertices[::-1]
    assert _result(terminal, 0x8605, DeletePolygonAreas((3, 77))) == 0  # an id it does not hold is no error
    assert _result(terminal, 0x8607, DeleteRoutes()) == 0  # none named: all routes
    assert _result(terminal, 0x8603, DeleteRectangleAreas((2,))) == 0
    assert (terminal.areas.rectangles, terminal.areas.polygons, terminal.areas.routes) == ({}, {}, {})


def test_deleting_named_circles_keeps_the_others() -> None:
    terminal = _responder()
    _result(terminal, 0x8600, SetCircleAreas(SET_UPDATE, (_circle(1), _circle(2), _circle(3))))
    assert _result(terminal, 0x8601, DeleteCircleAreas((2,))) == 0
    assert list(terminal.areas.circles) == [1, 3]


def test_a_2019_terminal_answers_0x8608_with_the_areas_asked_for() -> None:
    terminal = _responder()
    _result(terminal, 0x8600, SetCircleAreas(SET_UPDATE, (_circle(1), _circle(2), _circle(3))))
    _result(terminal, 0x8604, POLYGON)
    _result(terminal, 0x8606, ROUTE)
    assert _send(terminal, 0x8608, QueryAreas(QUERY_CIRCLE)) == QueryAreasResponse(
        QUERY_CIRCLE, (_circle(1), _circle(2), _circle(3)))
    assert _send(terminal, 0x8608, QueryAreas(QUERY_CIRCLE, (3, 9, 1))) == QueryAreasResponse(
        QUERY_CIRCLE, (_circle(3), _circle(1)))
    assert _send(terminal, 0x8608, QueryAreas(QUERY_POLYGON)) == QueryAreasResponse(QUERY_POLYGON, (POLYGON,))
    assert _send(terminal, 0x8608, QueryAreas(QUERY_ROUTE)) == QueryAreasResponse(QUERY_ROUTE, (ROUTE,))
    assert _send(terminal, 0x8608, QueryAreas(QUERY_RECTANGLE)) == QueryAreasResponse(QUERY_RECTANGLE, ())


def test_a_2013_terminal_answers_0x8608_unsupported_and_an_undecodable_area_body_message_error() -> None:
    assert _result(_responder("2013"), 0x8608, QueryAreas(QUERY_CIRCLE)) == 3
    assert _result(_responder(), 0x8604, None) == 2


def test_an_area_that_cannot_be_drawn_is_a_message_error_and_not_kept() -> None:
    terminal = _responder()
    two_vertices = SetPolygonArea(8, 0, (Vertex(22.53, 113.92), Vertex(22.56, 113.92)))
    assert _result(terminal, 0x8604, two_vertices) == 2
    reversed_corners = RectangleArea(2, 0, 22.5, 113.9, 22.6, 114.0)
    assert _result(terminal, 0x8602, SetRectangleAreas(SET_APPEND, (RECTANGLE, reversed_corners))) == 2
    assert terminal.areas.polygons == {} and terminal.areas.rectangles == {}


class _Gateway2019(FakeGateway):
    """The fake gateway speaking 2019 headers; sub-packaged uplinks are merged before they queue."""

    parts: list[Message]

    def send(self, *bodies: tuple[int, object]) -> list[int]:
        assert self.writer is not None
        data, seqs = b"", []
        for msg_id, body in bodies:
            self.seq += 1
            seqs.append(self.seq)
            data += encode_frame(msg_id, body, phone=PHONE.zfill(20), seq=self.seq, version="2019")  # type: ignore[arg-type]
        self.writer.write(data)
        return seqs

    def on_message(self, msg: Message) -> None:
        total = msg.header.package_total
        if total is None:
            super().on_message(msg)
            return
        self.parts = [*getattr(self, "parts", []), msg]
        if len(self.parts) == total:
            self.uplinks.put_nowait(merge_subpackages(self.parts))


def test_a_terminal_over_tcp_applies_areas_joins_a_sub_packaged_polygon_and_lists_many_in_0x0608() -> None:
    gateway = _Gateway2019()

    async def scenario(terminal: Any) -> None:
        (seq,) = gateway.send((0x8604, POLYGON))
        assert (await gateway.next_uplink()).body == TerminalResponse(seq, 0x8604, 0)
        circles = tuple(_circle(i, name=f"school zone {i:03d}") for i in range(1, 41))
        # one frame holds 20 of them: the first 20 replace, the next 20 are appended
        seqs = gateway.send((0x8600, SetCircleAreas(SET_UPDATE, circles[:20])),
                            (0x8600, SetCircleAreas(SET_APPEND, circles[20:])))
        for seq in seqs:
            assert (await gateway.next_uplink()).body == TerminalResponse(seq, 0x8600, 0)
        gateway.send((0x8608, QueryAreas(QUERY_CIRCLE)))
        answer = await gateway.next_uplink()
        assert answer.header.msg_id == 0x0608 and len(gateway.parts) == 2  # over one frame's 1023 bytes
        assert answer.body == QueryAreasResponse(QUERY_CIRCLE, circles)
        assert terminal.responder.areas.polygons == {3: POLYGON}

        # a polygon too long for one frame arrives in packages: applied once whole, answered with the
        # first package's serial
        ring = tuple(Vertex((22_500_000 + 100 * i) / 1e6, (113_900_000 + 1_000 * (i % 2)) / 1e6) for i in range(150))
        big = SetPolygonArea(11, 0, ring, name="long fence")
        gateway.seq += 1
        first_seq = gateway.seq
        packages = encode_subpackages(0x8604, big, phone=PHONE.zfill(20), seq=first_seq, version="2019")
        assert len(packages) == 2
        gateway.seq += len(packages) - 1
        assert gateway.writer is not None
        gateway.writer.write(b"".join(packages))
        assert (await gateway.next_uplink()).body == TerminalResponse(first_seq, 0x8604, 0)
        assert terminal.responder.areas.polygons[11] == big

    async def run() -> None:
        server = await asyncio.start_server(gateway.serve, "127.0.0.1", 0)
        base = _terminal(server.sockets[0].getsockname()[1])
        terminal = VirtualTerminal(index=1, phone=PHONE, terminal_id="SIM0000001",
                                   config=replace(base.config, protocol_version="2019"), vehicle=base.vehicle,
                                   rng=base.rng, auth_store=MemoryAuthStore(), fix_clock=base.fix_clock, plate=base.plate)
        stop = asyncio.Event()
        task = asyncio.create_task(terminal.run(stop))
        try:
            await gateway.until(lambda: terminal.counters.authenticated)
            await scenario(terminal)
        finally:
            stop.set()
            terminal.wake()
            await asyncio.wait_for(task, 10)
            server.close()

    asyncio.run(run())
