"""Platform commands to GB/T 32960 terminals: 0x80 parameter query, 0x81 parameter set, 0x82 terminal
control (GB/T 32960.3-2016 §7.6-7.8), on the one command path (docs/architecture.md).

The API writes such a command to ``jt808.downlink.v1`` like any other (api/gb_commands.py), with ``vin``
instead of ``phone`` and the data unit as ``body_hex``. Every GB gateway reads that topic (group-less, from
its end, as the JT/T 808 gateway does); the one holding a logged-in connection of that VIN on its GB/T
32960 port frames the data unit (header: the command, flag 0xFE, the VIN, no encryption; ``##`` or ``$$``
as the terminal logged in) and writes it. Records without a ``vin`` are the JT/T 808 gateway's; a VIN this
gateway does not hold is ignored (another gateway may hold it), exactly as on the 808 side: the API has
refused an offline vehicle with a 409 already, and a vehicle that goes offline meanwhile fails its
command ``closed``.

Pacing is the 808 gateway's ``DownlinkPacer``: at most one command per vehicle awaits its answer (the
standard's answer carries no serial but starts with the answered command's time: the answer to a command is the
terminal's frame of the same command with an answer flag and that time, or its next one when it echoes another
time; a late answer to one that expired releases nothing), others queue (``FLEET_GB_GATEWAY_DOWNLINK_QUEUE_MAX``, then
``queue_full``). Each written or failed command is a ``jt808.sent.v1`` record with the device's phone,
so the streams ``sent`` agent moves the command row as for an 808 terminal; ``seq`` is this gateway's
own count per connection (the GB header has no serial). The terminal's answer reaches streams on
``gb32960.uplink.v1`` (step ``gb_commands``), which answers the command row.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from fleet.phones import canonical_phone
from gateway.downlinks import Downlink, DownlinkPacer, SentRecorder, sent_value
from gateway.payloads import utc_now_iso
from protocols.gb32960 import Header, Protocol, Response, encode_frame
from protocols.gb32960.catalogue import PARAMETER_QUERY, PARAMETER_SET, TERMINAL_CONTROL
from protocols.gb32960.framing import HEADER_BYTES
from protocols.gb32960.values import TIME_BYTES

if TYPE_CHECKING:
    from gateway.gb.connection import GbConnection
    from gateway.gb.server import GbContext
    from gateway.gb.vehicles import VehicleTerminal

log = logging.getLogger("gateway.gb.downlinks")

# The platform's commands a GB/T 32960 terminal answers (table 5); nothing else is written to a terminal.
PLATFORM_COMMANDS = frozenset({PARAMETER_QUERY, PARAMETER_SET, TERMINAL_CONTROL})
SEQ_MODULO = 0x10000  # the sent record's `seq` is a WORD, as an 808 serial


class GbDownlinks:
    """The downlink side of one GB gateway process: a pacer per logged-in connection that was sent a command."""

    def __init__(self, ctx: GbContext, sent: SentRecorder) -> None:
        self.ctx = ctx
        self.sent = sent
        self._pacers: dict[GbConnection, DownlinkPacer] = {}
        self._seqs: dict[GbConnection, int] = {}
        self._terminals: dict[GbConnection, VehicleTerminal] = {}  # as when its first command came

    def handle(self, payload: dict[str, Any]) -> None:
        """One ``jt808.downlink.v1`` value (called by gateway.kafka_io.consume_downlinks)."""
        vin = payload.get("vin")
        if not isinstance(vin, str) or not vin:
            return  # a JT/T 808 terminal's downlink
        counters = self.ctx.counters
        conn = self.ctx.registry.get(vin)
        if conn is None or conn.closed or conn.terminal is None or conn.family != "gb32960":
            counters.downlinks_ignored += 1
            return
        msg_id, body_hex, command_id = payload.get("msg_id"), payload.get("body_hex"), payload.get("command_id")
        try:
            if not isinstance(msg_id, int) or msg_id not in PLATFORM_COMMANDS or not isinstance(body_hex, str):
                raise ValueError(f"not a GB/T 32960 platform command: msg_id {msg_id!r}")
            body = bytes.fromhex(body_hex)
        except ValueError as exc:
            counters.downlinks_invalid += 1
            log.warning("invalid GB downlink for %s (command %s): %s", vin, command_id, exc)
            self._record(conn, Downlink(msg_id if isinstance(msg_id, int) else 0, b"", _text(command_id)),
                         None, "failed", "encode_error")
            return
        self._pacer(conn).submit(Downlink(msg_id, body, _text(command_id)))

    def on_answer(self, conn: GbConnection, header: Header, frame: bytes) -> None:
        """A terminal's answer (flag not 0xFE) to a platform command arrived on `conn`: the command it
        answers (the one whose time its clear data unit starts with, else the oldest awaited) is released and the
        next queued one written; a late answer to a command that expired releases nothing."""
        pacer = self._pacers.get(conn)
        if pacer is not None and header.command in PLATFORM_COMMANDS:
            echoed = b"" if header.encrypted else frame[HEADER_BYTES:HEADER_BYTES + TIME_BYTES]
            pacer.on_answer(header.command, echoed if len(echoed) == TIME_BYTES else b"")

    def closed(self, conn: GbConnection) -> None:
        """The connection is gone: its awaited and queued commands fail (`closed`)."""
        self._seqs.pop(conn, None)
        pacer = self._pacers.pop(conn, None)
        if pacer is not None:
            pacer.close()
        self._terminals.pop(conn, None)

    def _pacer(self, conn: GbConnection) -> DownlinkPacer:
        pacer = self._pacers.get(conn)
        if pacer is None:
            settings = self.ctx.settings
            pacer = DownlinkPacer(lambda d: self._write(conn, d), lambda d, reason: self._fail(conn, d, reason),
                                  in_flight_max=1, queue_max=settings.downlink_queue_max,
                                  reply_wait_s=settings.downlink_reply_wait_s, loop=self.ctx.loop,
                                  counters=self.ctx.counters)
            self._pacers[conn] = pacer
            if conn.terminal is not None:
                self._terminals[conn] = conn.terminal
        return pacer

    def _write(self, conn: GbConnection, downlink: Downlink) -> bool:
        if conn.closed or conn.terminal is None:
            self._fail(conn, downlink, "closed")
            return False
        protocol = conn.frame_protocol or Protocol.GB32960_2016
        try:
            frame = encode_frame(downlink.msg_id, downlink.body, vin=conn.terminal.vin, protocol=protocol,
                                 response=Response.COMMAND)
        except ValueError as exc:
            log.warning("GB command %s for %s cannot be framed: %s", downlink.command_id, conn.vin, exc)
            self._fail(conn, downlink, "encode_error")
            return False
        seq = self._seqs.get(conn, 0)
        self._seqs[conn] = (seq + 1) % SEQ_MODULO
        downlink.seqs = (seq,)
        conn.write_downlink(frame)
        self.ctx.counters.downlinks_delivered += 1
        self._record(conn, downlink, frame, "sent", None)
        return True

    def _fail(self, conn: GbConnection, downlink: Downlink, reason: str) -> None:
        self.ctx.counters.downlinks_failed += 1
        self._record(conn, downlink, None, "failed", reason)

    def _record(self, conn: GbConnection, downlink: Downlink, frame: bytes | None, event: str,
                reason: str | None) -> None:
        terminal = conn.terminal or self._terminals.get(conn)
        if terminal is None:
            return  # no device to attribute it to (as the 808 gateway's frames before a terminal is known)
        phone = canonical_phone(terminal.phone)
        self.sent.submit(phone.encode(), sent_value(
            phone=phone, device_id=terminal.device_id, car_id=terminal.car_id, enterprise_id=terminal.enterprise_id,
            msg_id=downlink.msg_id, seq=downlink.seqs[0] if frame is not None and downlink.seqs else None,
            packages=1 if frame is not None else 0, raw_hex=frame.hex() if frame is not None else None,
            body_hex=downlink.body.hex(), command_id=downlink.command_id, event=event, reason=reason,
            connection_id=conn.connection_id, gateway_id=self.ctx.settings.gateway_id, at=utc_now_iso()))


def _text(value: Any) -> str | None:
    return None if value in (None, "") else str(value)
