"""In-memory twins for gateway unit tests (never used outside unit scope): a transport, a device
directory and a record sink whose futures the test resolves, plus a small terminal-side helper."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field, replace
from typing import Any

from fleet.settings import GatewaySettings
from gateway.connection import TerminalConnection
from gateway.devices import (
    DeviceRecord,
    RegistrationInfo,
    RegistrationOutcome,
    decide_registration,
    new_auth_code,
)
from gateway.replies import REG_OK
from gateway.server import GatewayServer
from protocols.jt808 import FrameReader, Message, decode_frame, encode_frame


class FakeTransport(asyncio.Transport):
    def __init__(self, protocol: TerminalConnection) -> None:
        super().__init__()
        self.protocol = protocol
        self.written = bytearray()
        self.reading = True
        self.closing = False
        self.aborted = False
        self._reader = FrameReader()

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.written += data

    def pause_reading(self) -> None:
        self.reading = False

    def resume_reading(self) -> None:
        self.reading = True

    def is_reading(self) -> bool:
        return self.reading

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        pass

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        if not self.closing:
            self.closing = True
            asyncio.get_running_loop().call_soon(self.protocol.connection_lost, None)

    def abort(self) -> None:
        self.aborted = True
        self.close()

    def replies(self) -> list[Message]:
        """Frames written since the last call, decoded."""
        data, self.written = bytes(self.written), bytearray()
        return [decode_frame(f) for f in self._reader.feed(data) if isinstance(f, bytes)]


@dataclass
class MemoryDirectory:
    devices: dict[str, DeviceRecord] = field(default_factory=dict)
    lookups: int = 0

    def add(self, phone: str, device_id: int, auth_code: str | None = None, state: int = 1,
            identity: tuple[str, str, str] = ("0000001", "FLEET", "SIM-808")) -> None:
        """A device; with a code, registered by the terminal `identity` (terminal id, maker, model)."""
        registered = identity if auth_code else (None, None, None)
        self.devices[phone] = DeviceRecord(device_id, phone, 10, 100 + device_id, auth_code, f"SIM{device_id:07d}",
                                           state, *registered)

    async def find(self, phone: str) -> DeviceRecord | None:
        self.lookups += 1
        return self.devices.get(phone)

    async def register(self, phone: str, info: RegistrationInfo) -> RegistrationOutcome:
        device = self.devices.get(phone)
        result = decide_registration(device, info)
        if result != REG_OK or device is None:
            return RegistrationOutcome(result, device=device)
        code = new_auth_code()
        self.devices[phone] = replace(device, auth_code=code,
                                      device_sn=device.device_sn or info.terminal_id,
                                      registered_terminal_id=info.terminal_id,
                                      registered_manufacturer_id=info.manufacturer_id,
                                      registered_terminal_model=info.terminal_model)
        return RegistrationOutcome(REG_OK, code, device.id, replaced_code=bool(device.auth_code), device=device)

    async def deregister(self, device_id: int, auth_code: str) -> bool:
        for phone, device in self.devices.items():
            if device.id == device_id and device.auth_code == auth_code:
                self.devices[phone] = replace(device, auth_code=None, registered_terminal_id=None,
                                              registered_manufacturer_id=None, registered_terminal_model=None)
                return True
        return False

    async def record_imei(self, device_id: int, imei: str) -> None:
        for phone, device in self.devices.items():
            if device.id == device_id and not device.registered_imei:
                self.devices[phone] = replace(device, registered_imei=imei)


class MemorySink:
    """Records handed to 'Kafka'; each stays unacknowledged until the test stores or fails it. A batch
    record's value (a JSON array of uplinks) is kept as the list; `values` flattens batches."""

    def __init__(self, auto_store: bool = False, partitions: int = 4) -> None:
        self.records: list[tuple[str, bytes | None, Any, asyncio.Future[object]]] = []
        self.partitions: list[int | None] = []  # the partition each record was sent to (None: the key's)
        self.headers: list[list[tuple[str, bytes]] | None] = []
        self.partition_total = partitions
        self.auto_store = auto_store
        self.ready = asyncio.Event()
        self.ready.set()

    async def wait_ready(self) -> None:
        await self.ready.wait()

    async def enqueue(self, topic: str, key: bytes | None, value: bytes, *, partition: int | None = None,
                      headers: list[tuple[str, bytes]] | None = None) -> asyncio.Future[object]:
        future: asyncio.Future[object] = asyncio.get_running_loop().create_future()
        self.records.append((topic, key, json.loads(value), future))
        self.partitions.append(partition)
        self.headers.append(headers)
        if self.auto_store:
            future.set_result(None)
        return future

    async def partition_count(self, topic: str) -> int:
        return self.partition_total

    def store_all(self) -> None:
        for *_, future in self.records:
            if not future.done():
                future.set_result(None)

    def fail_all(self) -> None:
        for *_, future in self.records:
            if not future.done():
                future.set_exception(RuntimeError("broker down"))

    def values(self, topic: str) -> list[dict[str, Any]]:
        """Every uplink / record value sent to `topic`, batches flattened, in order."""
        out: list[dict[str, Any]] = []
        for t, _, value, _ in self.records:
            if t == topic:
                out.extend(value if isinstance(value, list) else [value])
        return out


PHONE = "013800000001"


def frame(msg_id: int, body: bytes = b"", seq: int = 1, phone: str = PHONE, version: str = "2013") -> bytes:
    return encode_frame(msg_id, body, phone=phone, seq=seq, version=version)


def settings(**overrides: Any) -> GatewaySettings:
    base = {"gateway_id": "gw-test", "heartbeat_interval_s": 60.0, "produce_buffer": 100, "batch_window_ms": 0.0}
    base.update(overrides)
    return GatewaySettings().model_copy(update=base)


async def settle(rounds: int = 5) -> None:
    for _ in range(rounds):
        await asyncio.sleep(0)


@dataclass
class Harness:
    server: GatewayServer
    directory: MemoryDirectory
    sink: MemorySink

    def connect(self) -> tuple[TerminalConnection, FakeTransport]:
        conn = self.server.new_connection()
        transport = FakeTransport(conn)
        conn.connection_made(transport)
        return conn, transport


def run(test: Callable[[Harness], Coroutine[Any, Any, None]], *, auto_store: bool = False,
        **setting_overrides: Any) -> None:
    async def main() -> None:
        directory = MemoryDirectory()
        sink = MemorySink(auto_store)
        server = GatewayServer(settings(**setting_overrides), directory, sink)
        server.build_context()
        try:
            await test(Harness(server, directory, sink))
        finally:
            assert server.pipeline is not None
            await server.pipeline.stop(0)

    asyncio.run(main())
