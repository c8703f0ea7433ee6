"""The GB gateway process: two TCP listeners (GB/T 32960 on `port`, GB 17691 / HJ 1239 on `emission_port`),
the VIN registry, sweeps and the counters line.

Built by `build_gb_gateway(settings, database_url, kafka_bootstrap)`; unit tests build a `GbGatewayServer`
with an in-memory directory and sink instead.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Callable
from typing import Any

from fleet.settings import GbGatewaySettings
from fleet.topics import GB32960_UPLINK, JT808_DOWNLINK, JT808_SENT
from gateway.admission import UnauthenticatedPool, accept_queue_note, admit_connection
from gateway.counters import GbGatewayCounters
from gateway.downlinks import SentRecorder
from gateway.gb.connection import GbConnection
from gateway.gb.downlinks import GbDownlinks
from gateway.gb.inferior_links import InferiorLinks, utc_now
from gateway.gb.vehicles import InferiorLinkStore, PostgresVehicleDirectory, VehicleDirectory
from gateway.hostile_log import HostileInputLog
from gateway.kafka_io import KafkaRecordSink, consume_downlinks
from gateway.pipeline import RecordSink, UplinkPipeline

log = logging.getLogger("gateway.gb.server")


class VinRegistry:
    """Which connection holds which vehicle, by VIN (both ports: one vehicle, one session)."""

    def __init__(self) -> None:
        self._by_vin: dict[str, GbConnection] = {}

    def __len__(self) -> int:
        return len(self._by_vin)

    def get(self, vin: str) -> GbConnection | None:
        return self._by_vin.get(vin)

    def claim(self, conn: GbConnection) -> None:
        assert conn.vin is not None
        self._by_vin[conn.vin] = conn

    def release(self, conn: GbConnection) -> bool:
        """Forget `conn`; True if it held its VIN (so its session ends now)."""
        vin = conn.vin
        if vin is not None and self._by_vin.get(vin) is conn:
            del self._by_vin[vin]
            return True
        return False


class GbContext:
    """What every GB connection shares."""

    def __init__(self, settings: GbGatewaySettings, directory: VehicleDirectory, pipeline: UplinkPipeline,
                 counters: GbGatewayCounters, loop: asyncio.AbstractEventLoop) -> None:
        self.settings = settings
        self.directory = directory
        self.pipeline = pipeline
        self.counters = counters
        self.loop = loop
        self.registry = VinRegistry()
        self.downlinks: GbDownlinks | None = None  # platform commands (gateway/gb/downlinks.py), set by the server
        self.inferior_links = InferiorLinks(settings.gateway_id, max_messages=settings.inferior_log_buffer)
        self.connections: set[GbConnection] = set()
        self.unauthenticated: UnauthenticatedPool[GbConnection] = UnauthenticatedPool(settings.unauthenticated_max)
        self.hostile_log = HostileInputLog(
            counters, loop.time, per_connection=settings.hostile_log_per_connection,
            per_s=settings.hostile_log_per_s, burst=settings.hostile_log_burst,
            hex_bytes=settings.hostile_log_hex_bytes)

    def connection_opened(self, conn: GbConnection) -> bool:
        """Track a new connection; False when its host is over its share of those not logged in
        (gateway/admission.py, as on the JT/T 808 gateway)."""
        self.connections.add(conn)
        self.counters.connections_opened += 1
        self.counters.connections_open = len(self.connections)
        return admit_connection(self.unauthenticated, conn, self.counters)

    def connection_authenticated(self, conn: GbConnection) -> None:
        self.counters.authenticated += 1
        self.unauthenticated.discard(conn)

    def connection_closed(self, conn: GbConnection) -> None:
        self.connections.discard(conn)
        self.unauthenticated.discard(conn)
        self.counters.connections_closed += 1
        self.counters.connections_open = len(self.connections)


class GbGatewayServer:
    def __init__(self, settings: GbGatewaySettings, directory: VehicleDirectory, sink: RecordSink,
                 *, downlink_source: Callable[..., Any] | None = None,
                 link_store: InferiorLinkStore | None = None) -> None:
        self.settings = settings
        self.counters = GbGatewayCounters()
        self._directory = directory
        self._sink = sink
        self._ids = itertools.count(1)
        self._servers: dict[str, asyncio.Server] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self.ctx: GbContext | None = None
        self.pipeline: UplinkPipeline | None = None
        self.sent: SentRecorder | None = None
        self._downlink_source = downlink_source
        self._link_store = link_store  # None (unit tests): inferior platforms' link state is kept in memory only
        self.downlinks_ready = asyncio.Event()

    def port_of(self, family: str) -> int:
        """The bound port of the `gb32960` or `gb17691` listener."""
        return int(self._servers[family].sockets[0].getsockname()[1])

    def build_context(self) -> GbContext:
        loop = asyncio.get_running_loop()
        self.pipeline = UplinkPipeline(self._sink, self.counters, buffer_limit=self.settings.produce_buffer,
                                       batch_topic=GB32960_UPLINK,
                                       batch_window_s=self.settings.batch_window_ms / 1000,
                                       batch_max_bytes=self.settings.batch_max_bytes)
        self.pipeline.start()
        self.ctx = GbContext(self.settings, self._directory, self.pipeline, self.counters, loop)
        self.sent = SentRecorder(self._sink, self.counters, JT808_SENT, limit=self.settings.sent_record_buffer)
        self.sent.start()
        self.ctx.downlinks = GbDownlinks(self.ctx, self.sent)
        return self.ctx

    def new_connection(self, family: str) -> GbConnection:
        assert self.ctx is not None
        return GbConnection(self.ctx, f"{self.settings.gateway_id}-{next(self._ids)}", family)

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        ctx = self.build_context()
        for family, port in (("gb32960", self.settings.port), ("gb17691", self.settings.emission_port)):
            self._servers[family] = await loop.create_server(
                lambda family=family: self.new_connection(family),  # type: ignore[misc]
                self.settings.host, port, backlog=self.settings.listen_backlog, reuse_address=True)
        self._tasks.append(asyncio.create_task(self._sweep_loop(), name="gb-gateway-sweep"))
        self._tasks.append(asyncio.create_task(self._status_loop(), name="gb-gateway-status"))
        if self._link_store is not None:
            self._tasks.append(asyncio.create_task(self._links_loop(self._link_store), name="gb-inferior-links"))
        if self._downlink_source is not None:
            assert ctx.downlinks is not None
            self._tasks.append(asyncio.create_task(
                self._downlink_source(ctx.downlinks.handle, ready=self.downlinks_ready), name="gb-downlinks"))
        log.info("GB gateway %s listening on %s: GB/T 32960 %d, GB 17691 / HJ 1239 %d (%s)", self.settings.gateway_id,
                 self.settings.host, self.port_of("gb32960"), self.port_of("gb17691"),
                 accept_queue_note(self.settings.listen_backlog))

    async def stop(self, drain_timeout_s: float = 5.0) -> None:
        """Stop accepting, end every session (reason gateway_stop), give Kafka time to store them."""
        for server in self._servers.values():
            server.close()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self.ctx is not None:
            for conn in list(self.ctx.connections):
                conn.close("gateway_stop")
            for _ in range(100):
                if not self.ctx.connections:
                    break
                await asyncio.sleep(0.01)
        if self._link_store is not None:  # the sessions just closed are written offline
            await self.flush_links(self._link_store)
        if self.pipeline is not None:
            await self.pipeline.stop(drain_timeout_s)
        if self.sent is not None:
            await self.sent.stop(drain_timeout_s)
        self.counters.log_line()

    async def _sweep_loop(self) -> None:
        assert self.ctx is not None
        ctx = self.ctx
        interval_s = max(0.05, min(5.0, self.settings.idle_timeout_s / 4, self.settings.login_deadline_s / 4))
        while True:
            await asyncio.sleep(interval_s)
            now = ctx.loop.time()
            for conn in list(ctx.connections):
                try:
                    conn.sweep(now)
                except Exception:
                    self.counters.internal_errors += 1
                    log.exception("sweep of %s failed", conn.connection_id)

    async def _links_loop(self, store: InferiorLinkStore) -> None:
        """Inferior platforms' link state and frame log, one write every `inferior_link_flush_s`
        (gateway/gb/inferior_links.py); first, the sessions a previous run of this gateway left online end."""
        try:
            async with asyncio.timeout(self.settings.db_timeout_s):
                await store.gateway_links_offline(self.settings.gateway_id)
        except Exception as exc:
            self.counters.inferior_link_writes_failed += 1
            log.warning("inferior platforms' link state of a previous run not reset: %r", exc)
        while True:
            await asyncio.sleep(self.settings.inferior_link_flush_s)
            await self.flush_links(store)

    async def flush_links(self, store: InferiorLinkStore) -> None:
        """Write what gathered; a failed write is counted and its rows kept for the next one."""
        assert self.ctx is not None
        links = self.ctx.inferior_links
        states, messages = links.take(utc_now(), self.ctx.loop.time())
        unknown = links.take_unknown()
        if not states and not messages and not unknown:
            return
        try:
            async with asyncio.timeout(self.settings.db_timeout_s):
                await store.save_inferior_links(states, messages, unknown)
        except Exception as exc:
            self.counters.inferior_link_writes_failed += 1
            log.warning("inferior platforms' link state not written (kept for the next flush): %r", exc)
            links.restore(states, messages)
            links.restore_unknown(unknown)
            self.counters.inferior_log_dropped = links.dropped_messages

    async def _status_loop(self) -> None:
        while True:
            await asyncio.sleep(self.settings.status_interval_s)
            self.counters.log_line()


def build_gb_gateway(settings: GbGatewaySettings, database_url: str, kafka_bootstrap: str, *,
                     pool_max: int = 4) -> tuple[GbGatewayServer, PostgresVehicleDirectory, KafkaRecordSink]:
    """The production wiring: PostgreSQL VIN directory and the idempotent Kafka producer (acks=all)."""
    directory = PostgresVehicleDirectory(database_url, pool_max=pool_max, lookup_linger_s=settings.lookup_linger_ms / 1000)
    sink = KafkaRecordSink(kafka_bootstrap, linger_ms=settings.linger_ms)

    def downlinks(handle: Callable[[dict[str, Any]], None], *, ready: asyncio.Event) -> Any:
        return consume_downlinks(kafka_bootstrap, JT808_DOWNLINK, handle, ready=ready)

    return (GbGatewayServer(settings, directory, sink, downlink_source=downlinks, link_store=directory), directory,
            sink)


async def run_gb_gateway(settings: GbGatewaySettings, database_url: str, kafka_bootstrap: str,
                         stop: asyncio.Event | None = None, *, pool_max: int = 4) -> None:
    """Run until `stop` is set (or forever), then shut down cleanly."""
    server, directory, sink = build_gb_gateway(settings, database_url, kafka_bootstrap, pool_max=pool_max)
    await directory.open()
    sink.start()
    await server.start()
    try:
        await (stop or asyncio.Event()).wait()
    finally:
        await server.stop()
        await sink.stop()
        await directory.close()
