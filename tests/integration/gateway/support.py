"""Helpers for gateway integration tests: devices in PostgreSQL, a bare terminal client, a gateway
started in-process on a free port, a Kafka topic tail, and a TCP proxy to bring a 'dead' broker back."""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import psycopg
from aiokafka import AIOKafkaConsumer

from fleet.phones import canonical_phone
from fleet.settings import GatewaySettings
from fleet.uplink_records import is_batch, split_value
from gateway.kafka_io import assign_all_at_end
from gateway.server import GatewayServer, build_gateway
from protocols.jt808 import FrameReader, Message, decode_frame, encode_frame


def insert_devices(pg_url: str, phones: list[str], auth_code: str | None = None) -> dict[str, int]:
    """Devices (with a fresh enterprise) for these phones, stored canonical as the API stores them;
    returns phone (as given) -> device id."""
    with psycopg.connect(pg_url, autocommit=True) as conn:
        name = f"gateway-it-{uuid.uuid4().hex[:8]}"
        row = conn.execute("INSERT INTO enterprise (name, short_name) VALUES (%s, %s) RETURNING id",
                           (name, name)).fetchone()
        assert row is not None
        ids = {}
        for phone in phones:
            device = conn.execute(
                "INSERT INTO device (enterprise_id, phone, device_sn, auth_code) VALUES (%s, %s, %s, %s) "
                "RETURNING id", (row[0], canonical_phone(phone), f"SIM{phone[-7:]}", auth_code)).fetchone()
            assert device is not None
            ids[phone] = device[0]
        return ids


def unique_phones(n: int) -> list[str]:
    base = uuid.uuid4().int % 10**7
    return [f"0139{(base * 10 + i) % 10**8:08d}" for i in range(n)]


class TerminalClient:
    """A bare JT/T 808 terminal over TCP for tests."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, phone: str,
                 version: str = "2013") -> None:
        self.reader, self.writer, self.phone, self.version = reader, writer, phone, version
        self.frames = FrameReader()
        self.inbox: list[Message] = []
        self.seq = 0

    @classmethod
    async def connect(cls, port: int, phone: str, version: str = "2013") -> TerminalClient:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        return cls(reader, writer, phone, version)

    async def send(self, msg_id: int, body: bytes | Any = b"", seq: int | None = None) -> int:
        if seq is None:
            self.seq += 1
            seq = self.seq
        self.writer.write(encode_frame(msg_id, body, phone=self.phone, seq=seq, version=self.version))
        await self.writer.drain()
        return seq

    async def receive(self, timeout_s: float = 5.0) -> Message:
        """The next platform message; raises TimeoutError if none comes in time."""
        async with asyncio.timeout(timeout_s):
            while not self.inbox:
                data = await self.reader.read(65536)
                if not data:
                    raise ConnectionError("gateway closed the connection")
                self.inbox.extend(decode_frame(f) for f in self.frames.feed(data) if isinstance(f, bytes))
        return self.inbox.pop(0)

    async def close(self) -> None:
        self.writer.close()
        with contextlib.suppress(OSError):
            await self.writer.wait_closed()


@contextlib.asynccontextmanager
async def running_gateway(pg_url: str, kafka_bootstrap: str, port: int, **overrides: Any) -> AsyncIterator[GatewayServer]:
    settings = GatewaySettings().model_copy(update={"host": "127.0.0.1", "port": port,
                                                    "gateway_id": f"gw-it-{port}", **overrides})
    server, directory, sink = build_gateway(settings, pg_url, kafka_bootstrap)
    await directory.open()
    sink.start()
    await server.start()
    try:
        yield server
    finally:
        await server.stop(drain_timeout_s=1.0)
        await sink.stop()
        await directory.close()


@dataclass
class TopicTail:
    consumer: AIOKafkaConsumer

    async def records(self, *, key: str | None = None, min_count: int = 1, timeout_s: float = 10.0) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        while len(found) < min_count and loop.time() < deadline:
            batches = await self.consumer.getmany(timeout_ms=200)
            for records in batches.values():
                for record in records:
                    if is_batch(record.value):  # a gateway's batch of uplinks: match each uplink's phone
                        found.extend(item for item in split_value(record.value)
                                     if key is None or item.get("phone") == key)
                    elif key is None or (record.key or b"").decode() == key:
                        found.append(json.loads(record.value))
        return found


@contextlib.asynccontextmanager
async def tail(kafka_bootstrap: str, topic: str) -> AsyncIterator[TopicTail]:
    """Records written to `topic` from now on."""
    consumer = AIOKafkaConsumer(bootstrap_servers=kafka_bootstrap, group_id=None, enable_auto_commit=False)
    await consumer.start()
    try:
        await assign_all_at_end(consumer, topic)
        yield TopicTail(consumer)
    finally:
        await consumer.stop()


@contextlib.asynccontextmanager
async def tcp_proxy(listen_port: int, target: str) -> AsyncIterator[None]:
    """Forward 127.0.0.1:listen_port to target host:port (a broker 'coming back')."""
    host, port = target.rsplit(":", 1)

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except OSError:
            pass
        finally:
            writer.close()

    async def handle(client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        upstream_reader, upstream_writer = await asyncio.open_connection(host, int(port))
        await asyncio.gather(pipe(client_reader, upstream_writer), pipe(upstream_reader, client_writer))

    server = await asyncio.start_server(handle, "127.0.0.1", listen_port)
    try:
        yield
    finally:
        server.close()
