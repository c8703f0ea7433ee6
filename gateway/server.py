"""The JT/T 808 gateway process: TCP server, connection registry, sweeps, downlinks.

Built by `build_gateway(settings, database_url, kafka_bootstrap)`; unit tests build a `GatewayServer`
with in-memory directory and sink instead.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Callable
from typing import Any

from fleet.phones import canonical_phone
from fleet.settings import GatewaySettings
from fleet.topics import DEVICE_SESSIONS, JT808_DOWNLINK, JT808_SENT, JT808_UPLINK
from gateway.admission import AuthBackoff, UnauthenticatedPool, accept_queue_note, admit_connection
from gateway.connection import TerminalConnection
from gateway.counters import GatewayCounters
from gateway.devices import DeviceDirectory, PostgresDeviceDirectory
from gateway.downlinks import SentRecorder
from gateway.hostile_log import HostileInputLog
from gateway.kafka_io import KafkaRecordSink, consume_downlinks
from gateway.pipeline import RecordSink, UplinkPipeline
from gateway.reassembly import ReassemblyBudget
from gateway.unknown_terminals import RefusalWriter, UnknownTerminalLog

log = logging.getLogger("gateway.server")


class ConnectionRegistry:
    """Which connection holds which terminal, by canonical phone (`fleet.phones`): a 12-digit 2013
    header, a 20-digit 2019 header and an 11-digit SIM number of one terminal are one key."""

    def __init__(self) -> None:
        self._by_phone: dict[str, TerminalConnection] = {}

    def __len__(self) -> int:
        return len({id(c) for c in self._by_phone.values()})

    def _keys(self, conn: TerminalConnection) -> set[str]:
        keys = set()
        for phone in (conn.phone, conn.device_phone):
            if phone:
                try:
                    keys.add(canonical_phone(phone))
                except ValueError:
                    pass
        return keys

    def claim(self, conn: TerminalConnection) -> TerminalConnection | None:
        """Make `conn` the holder of its terminal; returns the connection it replaces, if any."""
        previous = None
        for key in self._keys(conn):
            holder = self._by_phone.get(key)
            if holder is not None and holder is not conn:
                previous = holder
            self._by_phone[key] = conn
        return previous

    def release(self, conn: TerminalConnection) -> bool:
        """Forget `conn`; True if it was the holder (so its session ends now)."""
        owned = False
        for key in self._keys(conn):
            if self._by_phone.get(key) is conn:
                del self._by_phone[key]
                owned = True
        return owned

    def get(self, phone: str) -> TerminalConnection | None:
        """The connection holding `phone` (any form: it is canonicalised)."""
        try:
            return self._by_phone.get(canonical_phone(phone))
        except ValueError:
            return None


class GatewayContext:
    """What every connection shares."""

    def __init__(self, settings: GatewaySettings, directory: DeviceDirectory, pipeline: UplinkPipeline,
                 counters: GatewayCounters, loop: asyncio.AbstractEventLoop) -> None:
        self.settings = settings
        self.directory = directory
        self.pipeline = pipeline
        self.counters = counters
        self.loop = loop
        self.registry = ConnectionRegistry()
        self.budget = ReassemblyBudget(settings.subpackage_max_bytes)
        self.connections: set[TerminalConnection] = set()
        self.unauthenticated: UnauthenticatedPool[TerminalConnection] = UnauthenticatedPool(
            settings.unauthenticated_max)
        self.auth_backoff = AuthBackoff(free_failures=settings.auth_free_failures,
                                        base_s=settings.auth_backoff_base_s, max_s=settings.auth_backoff_max_s,
                                        phones_max=settings.auth_backoff_phones_max)
        self.hostile_log = HostileInputLog(
            counters, loop.time, per_connection=settings.hostile_log_per_connection,
            per_s=settings.hostile_log_per_s, burst=settings.hostile_log_burst,
            hex_bytes=settings.hostile_log_hex_bytes)
        self.uplink_topic = JT808_UPLINK
        self.sessions_topic = DEVICE_SESSIONS
        self.idle_timeout_s = settings.idle_timeout_s or 3 * settings.heartbeat_interval_s
        self.sent: SentRecorder | None = None  # jt808.sent.v1 records (set by GatewayServer.build_context)
        # refused 0x0100 / 0x0102 of unknown phones, written in the background (gateway/unknown_terminals.py)
        self.unknown_terminals = UnknownTerminalLog(counters, buffer_max=settings.unknown_refusals_buffer_max)

    def connection_opened(self, conn: TerminalConnection) -> bool:
        """Track a new connection; False when its host is over its share of the connections waiting
        to authenticate (the caller closes it). A full pool makes room for a host holding fewer by
        closing the oldest waiting connection of the host holding most (`UnauthenticatedPool`);
        authenticated terminals are not counted, so they keep working."""
        self.connection_tracked(conn)
        return self.connection_admitted(conn)

    def connection_tracked(self, conn: TerminalConnection) -> None:
        """Count `conn` as open (its authentication deadline runs from now)."""
        self.connections.add(conn)
        self.counters.connections_opened += 1
        self.counters.connections_open = len(self.connections)

    def connection_admitted(self, conn: TerminalConnection) -> bool:
        """Admit `conn` to the unauthenticated pool under its peer's address (`connection_opened`); behind
        a PROXY protocol balancer this runs once the header has named the terminal's address."""
        return admit_connection(self.unauthenticated, conn, self.counters)

    def connection_authenticated(self, conn: TerminalConnection) -> None:
        self.unauthenticated.discard(conn)

    def connection_closed(self, conn: TerminalConnection) -> None:
        self.connections.discard(conn)
        self.unauthenticated.discard(conn)
        self.counters.connections_closed += 1
        self.counters.connections_open = len(self.connections)


class GatewayServer:
    def __init__(self, settings: GatewaySettings, directory: DeviceDirectory, sink: RecordSink,
                 *, downlink_source: Callable[..., Any] | None = None,
                 refusal_writer: RefusalWriter | None = None) -> None:
        self.settings = settings
        self._refusal_writer = refusal_writer  # None: refusals of unknown phones are gathered, never written
        self.counters = GatewayCounters()
        self._directory = directory
        self._sink = sink
        self._downlink_source = downlink_source
        self._ids = itertools.count(1)
        self._server: asyncio.Server | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self.downlinks_ready = asyncio.Event()
        self.ctx: GatewayContext | None = None
        self.pipeline: UplinkPipeline | None = None
        self.sent: SentRecorder | None = None

    @property
    def port(self) -> int:
        assert self._server is not None
        return int(self._server.sockets[0].getsockname()[1])

    def build_context(self) -> GatewayContext:
        """The shared state connections need, with the uplink pump running (no socket yet)."""
        loop = asyncio.get_running_loop()
        self.pipeline = UplinkPipeline(self._sink, self.counters, buffer_limit=self.settings.produce_buffer,
                                       batch_topic=JT808_UPLINK, batch_window_s=self.settings.batch_window_ms / 1000,
                                       batch_max_bytes=self.settings.batch_max_bytes)
        self.pipeline.start()
        self.ctx = GatewayContext(self.settings, self._directory, self.pipeline, self.counters, loop)
        self.sent = SentRecorder(self._sink, self.counters, JT808_SENT, limit=self.settings.sent_record_buffer)
        self.sent.start()
        self.ctx.sent = self.sent
        return self.ctx

    def new_connection(self) -> TerminalConnection:
        assert self.ctx is not None
        return TerminalConnection(self.ctx, f"{self.settings.gateway_id}-{next(self._ids)}")

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        self.build_context()
        self._server = await loop.create_server(self.new_connection, self.settings.host, self.settings.port,
                                                backlog=self.settings.listen_backlog, reuse_address=True)
        self._tasks.append(asyncio.create_task(self._sweep_loop(), name="gateway-sweep"))
        self._tasks.append(asyncio.create_task(self._status_loop(), name="gateway-status"))
        if self._refusal_writer is not None:
            assert self.ctx is not None
            self._tasks.append(asyncio.create_task(self.ctx.unknown_terminals.write_loop(
                self._refusal_writer, self.settings.unknown_refusals_flush_s), name="gateway-unknown-terminals"))
        if self._downlink_source is not None:
            self._tasks.append(asyncio.create_task(
                self._downlink_source(self.handle_downlink, ready=self.downlinks_ready), name="downlinks"))
        log.info("gateway %s listening on %s:%d (%s)", self.settings.gateway_id, self.settings.host, self.port,
                 accept_queue_note(self.settings.listen_backlog))

    async def stop(self, drain_timeout_s: float = 5.0) -> None:
        """Stop accepting, end every session (reason gateway_stop), give Kafka time to store them."""
        if self._server is not None:
            self._server.close()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self.ctx is not None:
            for conn in list(self.ctx.connections):
                conn.close("gateway_stop")
            for _ in range(100):  # let connection_lost run and queue the offline events
                if not self.ctx.connections:
                    break
                await asyncio.sleep(0.01)
        if self.pipeline is not None:
            await self.pipeline.stop(drain_timeout_s)
        if self.sent is not None:
            await self.sent.stop(drain_timeout_s)
        self.counters.log_line()

    def handle_downlink(self, payload: dict[str, Any]) -> None:
        """Write a `jt808.downlink.v1` message to the connection holding its terminal, if here."""
        assert self.ctx is not None
        if "phone" not in payload and payload.get("vin"):  # a GB/T 32960 command: the GB gateway's (gateway/gb/)
            self.counters.downlinks_ignored += 1
            return
        try:
            phone = canonical_phone(str(payload["phone"]))
            msg_id = int(payload["msg_id"])
            body = bytes.fromhex(str(payload.get("body_hex") or ""))
            command_id = payload.get("command_id")
            command_id = None if command_id is None else str(command_id)
        except (KeyError, TypeError, ValueError):
            self.counters.downlinks_invalid += 1
            log.warning("invalid downlink %r", payload)
            return
        conn = self.ctx.registry.get(phone)
        if conn is None:
            self.counters.downlinks_ignored += 1
            return
        log.info("downlink 0x%04x (command %s) to %s on %s", msg_id, command_id, phone, conn.connection_id)
        conn.send_downlink(msg_id, body, command_id)

    async def _sweep_loop(self) -> None:
        assert self.ctx is not None
        ctx = self.ctx
        interval_s = max(0.05, min(5.0, ctx.idle_timeout_s / 4, self.settings.subpackage_resend_after_s / 2,
                                   self.settings.auth_deadline_s / 4))
        while True:
            await asyncio.sleep(interval_s)
            now = ctx.loop.time()
            ctx.auth_backoff.sweep(now)
            for conn in list(ctx.connections):
                try:
                    conn.sweep(now)
                except Exception:
                    self.counters.internal_errors += 1
                    log.exception("sweep of %s failed", conn.connection_id)

    async def _status_loop(self) -> None:
        while True:
            await asyncio.sleep(self.settings.status_interval_s)
            self.counters.log_line()


def build_gateway(settings: GatewaySettings, database_url: str, kafka_bootstrap: str,
                  *, pool_max: int = 4) -> tuple[GatewayServer, PostgresDeviceDirectory, KafkaRecordSink]:
    """The production wiring: PostgreSQL directory, idempotent Kafka producer, downlink consumer."""
    directory = PostgresDeviceDirectory(database_url, pool_max=pool_max, auto_register=settings.auto_register,
                                        unassigned_enterprise_id=settings.unassigned_enterprise_id,
                                        lookup_linger_s=settings.lookup_linger_ms / 1000)
    sink = KafkaRecordSink(kafka_bootstrap, linger_ms=settings.linger_ms)

    def downlinks(handle: Callable[[dict[str, Any]], None], *, ready: asyncio.Event) -> Any:
        return consume_downlinks(kafka_bootstrap, JT808_DOWNLINK, handle, ready=ready)

    def write_refusals(attempts: list[Any]) -> Any:
        return directory.record_refusals(attempts, settings.unknown_refusals_max_rows)

    return (GatewayServer(settings, directory, sink, downlink_source=downlinks, refusal_writer=write_refusals),
            directory, sink)


async def run_gateway(settings: GatewaySettings, database_url: str, kafka_bootstrap: str,
                      stop: asyncio.Event | None = None, *, pool_max: int = 4) -> None:
    """Run until `stop` is set (or forever), then shut down cleanly."""
    server, directory, sink = build_gateway(settings, database_url, kafka_bootstrap, pool_max=pool_max)
    await directory.open()
    sink.start()
    await server.start()
    try:
        await (stop or asyncio.Event()).wait()
    finally:
        await server.stop()
        await sink.stop()
        await directory.close()
