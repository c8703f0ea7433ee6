"""One GB connection (gateway/gb/connection.py) on in-memory twins: order behind a login lookup, answers only
from Kafka's delivery, a failed lookup, a stored logout, bounded memory for garbage."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any

from fleet.settings import GbGatewaySettings
from fleet.topics import DEVICE_SESSIONS, GB32960_UPLINK
from fleet.uplink_messages import SessionEvent, parse_sessions_record
from gateway.gb.connection import GbConnection
from gateway.gb.server import GbGatewayServer
from gateway.gb.vehicles import VehicleTerminal
from protocols.gb32960 import FrameReader, Message, Response, decode_frame, encode_frame
from protocols.gb32960.framing import HEADER_BYTES
from protocols.gb32960.messages import Heartbeat, VehicleLogout
from protocols.gb32960.values import write_time
from tests.integration.gateway.gb_support import login_body, nth_time, realtime_body
from tests.unit.gateway.twins import FakeTransport, MemorySink, settle

VIN = "LNBSCU3H5JR000001"
TERMINAL = VehicleTerminal(VIN, 7, "13800000007", "gb32960", 70, 10)


class GateDirectory:
    """Answers a VIN lookup once `gate` is set; `fail` makes it raise (the database down)."""

    def __init__(self) -> None:
        self.gate = asyncio.Event()
        self.gate.set()
        self.fail = False
        self.lookups = 0

    async def find(self, vin: str, protocols: Sequence[str], owner: int | None = None) -> list[VehicleTerminal]:
        self.lookups += 1
        await self.gate.wait()
        if self.fail:
            raise OSError("database down")
        return [TERMINAL] if vin == VIN and "gb32960" in protocols else []

    async def inferior_platform(self, username: str) -> None:
        return None


@dataclass
class Harness:
    server: GbGatewayServer
    directory: GateDirectory
    sink: MemorySink

    def connect(self) -> tuple[GbConnection, FakeTransport]:
        conn = self.server.new_connection("gb32960")
        transport = FakeTransport(conn)  # type: ignore[arg-type]
        conn.connection_made(transport)
        return conn, transport


def answers(transport: FakeTransport) -> list[Message]:
    data, transport.written = bytes(transport.written), bytearray()
    return [decode_frame(f) for f in FrameReader().feed(data) if isinstance(f, bytes)]


def run(test: Callable[[Harness], Coroutine[Any, Any, None]], **overrides: Any) -> None:
    async def main() -> None:
        directory, sink = GateDirectory(), MemorySink()
        settings = GbGatewaySettings().model_copy(update={"gateway_id": "gb-test", "batch_window_ms": 0.0,
                                                          "produce_buffer": 100, **overrides})
        server = GbGatewayServer(settings, directory, sink)
        server.build_context()
        try:
            await test(Harness(server, directory, sink))
        finally:
            assert server.pipeline is not None
            await server.pipeline.stop(0)

    asyncio.run(main())


def test_frames_behind_a_login_wait_for_its_lookup_and_are_answered_only_once_stored() -> None:
    async def body(h: Harness) -> None:
        conn, transport = h.connect()
        h.directory.gate.clear()
        conn.data_received(encode_frame(0x01, login_body(), vin=VIN)
                           + encode_frame(0x02, realtime_body(nth_time(1)), vin=VIN))
        await settle()
        assert not transport.reading and h.sink.values(GB32960_UPLINK) == []  # the report waits behind the login
        h.directory.gate.set()
        await settle(10)
        assert [v["command"] for v in h.sink.values(GB32960_UPLINK)] == [0x01, 0x02]
        assert answers(transport) == []  # nothing answered before Kafka stored it
        h.sink.store_all()
        await settle()
        assert [(a.header.command, a.header.response) for a in answers(transport)] == [
            (0x01, Response.SUCCESS), (0x02, Response.SUCCESS)]
        online = h.sink.values(DEVICE_SESSIONS)
        assert [(s["event"], s["reason"], s["phone"], s["device_id"]) for s in online] == [
            ("online", "login", TERMINAL.phone, TERMINAL.device_id)]
        # the streams states agent reads it as any terminal's session (keyed by device id)
        event = parse_sessions_record(json.dumps(online[0]))
        assert isinstance(event, SessionEvent) and (event.online, event.device_id, event.car_id) == (
            True, TERMINAL.device_id, TERMINAL.car_id)
        assert transport.reading

    run(body)


def test_a_frame_kafka_failed_to_store_is_never_answered() -> None:
    async def body(h: Harness) -> None:
        conn, transport = h.connect()
        conn.data_received(encode_frame(0x01, login_body(), vin=VIN))
        await settle(10)
        h.sink.fail_all()
        await settle()
        assert answers(transport) == []

    run(body)


def test_a_login_sent_again_gets_the_first_copys_answer_once_it_is_stored_and_is_not_kept_twice() -> None:
    async def body(h: Harness) -> None:
        conn, transport = h.connect()
        login = encode_frame(0x01, login_body(), vin=VIN)
        conn.data_received(login)
        await settle(10)
        conn.data_received(login)  # the answer is late: Kafka has not stored the first copy yet
        await settle()
        assert answers(transport) == []  # neither copy is answered before Kafka stored the login
        h.sink.store_all()
        await settle()
        first = answers(transport)
        assert [(a.header.command, a.header.response, a.raw[HEADER_BYTES:-1]) for a in first] == [
            (0x01, Response.SUCCESS, write_time(nth_time(0)))] * 2  # the login's time, as the first copy's answer
        conn.data_received(login)  # the answer crossed a third copy on the wire
        await settle()
        assert [(a.header.command, a.header.response) for a in answers(transport)] == [(0x01, Response.SUCCESS)]
        assert [v["command"] for v in h.sink.values(GB32960_UPLINK)] == [0x01]  # one login kept, not three
        assert h.directory.lookups == 1 and h.server.counters.login_resends_answered == 2
        assert [s["event"] for s in h.sink.values(DEVICE_SESSIONS)] == ["online"]
        # a login that differs (the next serial) is a login again: looked up, kept, answered after Kafka
        conn.data_received(encode_frame(0x01, login_body(serial=2), vin=VIN))
        await settle(10)
        h.sink.store_all()
        await settle()
        assert [v["command"] for v in h.sink.values(GB32960_UPLINK)] == [0x01, 0x01]
        assert h.directory.lookups == 2 and len(answers(transport)) == 1

    run(body)


def test_a_login_kafka_did_not_store_is_handled_again_when_it_comes_again() -> None:
    async def body(h: Harness) -> None:
        conn, transport = h.connect()
        login = encode_frame(0x01, login_body(), vin=VIN)
        conn.data_received(login)
        await settle(10)
        conn.data_received(login)
        await settle()
        h.sink.fail_all()
        await settle()
        assert answers(transport) == []  # the copy that waited on it gets no answer either
        assert h.server.counters.login_resends_answered == 0
        conn.data_received(login)
        await settle(10)
        h.sink.store_all()
        await settle()
        assert [(a.header.command, a.header.response) for a in answers(transport)] == [(0x01, Response.SUCCESS)]
        assert h.directory.lookups == 2

    run(body)


def test_a_failed_lookup_answers_error_and_the_connection_stays_logged_out() -> None:
    async def body(h: Harness) -> None:
        conn, transport = h.connect()
        h.directory.fail = True
        conn.data_received(encode_frame(0x01, login_body(), vin=VIN))
        await settle(10)
        conn.data_received(encode_frame(0x07, Heartbeat(), vin=VIN))
        await settle()
        assert [(a.header.command, a.header.response) for a in answers(transport)] == [
            (0x01, Response.ERROR), (0x07, Response.ERROR)]
        assert h.sink.values(GB32960_UPLINK) == [] and conn.terminal is None
        assert h.server.counters.refused_lookup_failed == 1 and h.server.counters.refused_not_logged_in == 1

    run(body)


def test_a_stored_logout_ends_the_session_and_closes() -> None:
    async def body(h: Harness) -> None:
        conn, transport = h.connect()
        conn.data_received(encode_frame(0x01, login_body(), vin=VIN))
        await settle(10)
        h.sink.store_all()
        await settle()
        answers(transport)
        conn.data_received(encode_frame(0x04, VehicleLogout(nth_time(2), 1), vin=VIN))
        await settle()
        assert not transport.closing  # not stored yet: the session goes on
        h.sink.store_all()
        await settle()
        assert [(a.header.command, a.header.response) for a in answers(transport)] == [(0x04, Response.SUCCESS)]
        assert transport.closing and h.server.ctx is not None and h.server.ctx.registry.get(VIN) is None
        assert [(s["event"], s["reason"]) for s in h.sink.values(DEVICE_SESSIONS)] == [
            ("online", "login"), ("offline", "logout")]

    run(body)


def test_garbage_and_an_oversize_header_hold_no_more_than_max_frame_bytes() -> None:
    async def body(h: Harness) -> None:
        conn, transport = h.connect()
        for _ in range(100):
            conn.data_received(b"\x00garbage" * 1000)
        header = bytearray(encode_frame(0x02, b"", vin=VIN)[:24])
        header[22:24] = (60000).to_bytes(2, "big")  # announces a 60 KB frame
        conn.data_received(bytes(header) + bytes(4000))
        await settle()
        assert conn._reader.buffered <= h.server.settings.max_frame_bytes
        assert h.server.counters.framing_errors >= 2 and h.server.counters.internal_errors == 0
        assert not transport.closing and h.sink.values(GB32960_UPLINK) == []

    run(body, max_frame_bytes=1024)
