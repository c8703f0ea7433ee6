"""Platform commands on a GB connection (gateway/gb/downlinks.py) on in-memory twins: framed with the
VIN and flag 0xFE, one per vehicle awaiting its answer (released by the answer echoing its time; a late answer
to one that expired releases nothing), sent records for the streams, failures named."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from fleet.topics import JT808_SENT
from gateway.gb.connection import GbConnection
from protocols.gb32960 import Protocol, Response, TimeOnly, encode_frame
from protocols.gb32960.messages.params import ParameterQuery, TerminalControl
from tests.integration.gateway.gb_support import login_body
from tests.unit.gateway.test_gb_connection import TERMINAL, VIN, Harness, answers, run
from tests.unit.gateway.twins import FakeTransport, settle

AT = datetime(2026, 3, 1, 4, 5, 6, tzinfo=UTC)
QUERY = ParameterQuery(AT, (0x02, 0x09)).encode(Protocol.GB32960_2016).hex()
RESET = TerminalControl(AT, 3).encode(Protocol.GB32960_2016).hex()


async def _logged_in(h: Harness) -> tuple[GbConnection, FakeTransport]:
    conn, transport = h.connect()
    conn.data_received(encode_frame(0x01, login_body(), vin=VIN))
    await settle(10)
    h.sink.store_all()
    await settle()
    answers(transport)
    return conn, transport


def test_a_command_is_framed_for_the_vin_and_the_next_waits_for_the_answer() -> None:
    async def body(h: Harness) -> None:
        conn, transport = await _logged_in(h)
        downlinks = h.server.ctx.downlinks  # type: ignore[union-attr]
        assert downlinks is not None
        downlinks.handle({"vin": VIN, "msg_id": 0x80, "body_hex": QUERY, "command_id": "11"})
        downlinks.handle({"vin": VIN, "msg_id": 0x82, "body_hex": RESET, "command_id": "12"})
        downlinks.handle({"phone": "13800000001", "msg_id": 0x8104, "body_hex": ""})  # an 808 terminal's
        downlinks.handle({"vin": "LNBSCU3H5JR999999", "msg_id": 0x80, "body_hex": QUERY})  # not held here
        [sent] = answers(transport)
        assert (sent.header.command, sent.header.response, sent.header.vin) == (0x80, Response.COMMAND, VIN)
        assert sent.body == ParameterQuery(AT, (0x02, 0x09))
        conn.data_received(encode_frame(0x80, ParameterQuery(AT, values=((0x02, 10), (0x09, 30))), vin=VIN,
                                        response=Response.SUCCESS))
        [control] = answers(transport)  # the answer released the queued reset
        assert control.header.command == 0x82 and control.body == TerminalControl(AT, 3)
        await settle()
        records = h.sink.values(JT808_SENT)
        assert [(r["command_id"], r["event"], r["seq"], r["msg_id"], r["device_id"], r["phone"]) for r in records] \
            == [("11", "sent", 0, 0x80, TERMINAL.device_id, TERMINAL.phone),
                ("12", "sent", 1, 0x82, TERMINAL.device_id, TERMINAL.phone)]
        assert h.server.counters.downlinks_ignored == 1

    run(body)


def test_queued_and_awaited_commands_fail_closed_when_the_connection_goes() -> None:
    async def body(h: Harness) -> None:
        conn, transport = await _logged_in(h)
        downlinks = h.server.ctx.downlinks  # type: ignore[union-attr]
        assert downlinks is not None
        downlinks.handle({"vin": VIN, "msg_id": 0x80, "body_hex": QUERY, "command_id": "21"})
        downlinks.handle({"vin": VIN, "msg_id": 0x80, "body_hex": QUERY, "command_id": "22"})
        downlinks.handle({"vin": VIN, "msg_id": 0x8103, "body_hex": "00", "command_id": "23"})  # not a GB command
        conn.connection_lost(None)
        await settle()
        records = h.sink.values(JT808_SENT)
        assert [(r["command_id"], r["event"], r["reason"]) for r in records] == [
            ("21", "sent", None), ("23", "failed", "encode_error"), ("21", "failed", "closed"),
            ("22", "failed", "closed")]

    run(body)


def test_an_answer_without_an_awaited_command_is_only_forwarded() -> None:
    async def body(h: Harness) -> None:
        conn, transport = await _logged_in(h)
        conn.data_received(encode_frame(0x81, TimeOnly(AT), vin=VIN, response=Response.SUCCESS))
        await settle()
        assert answers(transport) == []

    run(body)


def test_an_answer_releases_the_command_whose_time_it_echoes_and_a_late_one_releases_nothing() -> None:
    first, second, third = (ParameterQuery(AT + timedelta(seconds=n), (0x02,)) for n in (0, 10, 20))

    async def body(h: Harness) -> None:
        conn, transport = await _logged_in(h)
        downlinks = h.server.ctx.downlinks  # type: ignore[union-attr]
        assert downlinks is not None
        for n, query in enumerate((first, second, third)):
            downlinks.handle({"vin": VIN, "msg_id": 0x80, "body_hex": query.encode(Protocol.GB32960_2016).hex(),
                              "command_id": str(31 + n)})
        assert [m.body for m in answers(transport)] == [first]
        await asyncio.sleep(0.15)  # the first expires unanswered: the second is written
        assert [m.body for m in answers(transport)] == [second]

        def answer(query: ParameterQuery) -> bytes:
            return encode_frame(0x80, ParameterQuery(query.time, values=((0x02, 10),)), vin=VIN,
                                response=Response.SUCCESS)

        conn.data_received(answer(first))  # late: the third stays queued, the second still awaited
        await settle()
        assert answers(transport) == [] and h.server.counters.downlink_late_answers == 1
        conn.data_received(answer(second))
        await settle()
        assert [m.body for m in answers(transport)] == [third]

    run(body, downlink_reply_wait_s=0.1)
