"""Helpers for the GB gateway's integration tests: cars with a VIN and a GB device in PostgreSQL, a bare
GB terminal over TCP, the gateway in-process on free ports, and frames the tests send."""

from __future__ import annotations

import asyncio
import contextlib
import random
import string
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg

from fleet.settings import GbGatewaySettings
from gateway.gb.server import GbGatewayServer, build_gb_gateway
from protocols.gb32960 import FrameReader, Message, Protocol, decode_frame, encode_frame
from protocols.gb32960.messages import CellVoltages, PackVoltages, RealtimeReport, VehicleData, VehicleLogin

AT = datetime(2026, 3, 1, 4, 5, 6, tzinfo=UTC)
CELLS_96 = tuple(round(3.2 + i * 0.002, 3) for i in range(96))


def unique_vin() -> str:
    # VIN alphabet (no I, O, Q), as the car entity's pattern requires
    letters = "".join(c for c in string.ascii_uppercase + string.digits if c not in "IOQ")
    return "LGB" + "".join(random.choice(letters) for _ in range(14))


def insert_vehicle(pg_url: str, vin: str, protocol: str = "gb32960", *, enterprise_id: int | None = None,
                   protocol_version: str = "2016") -> dict[str, Any]:
    """A car with `vin` (in a fresh enterprise unless given) and its device of `protocol` as master device;
    returns {enterprise_id, car_id, device_id, phone}."""
    phone = f"1{uuid.uuid4().int % 10**10:010d}"
    with psycopg.connect(pg_url, autocommit=True) as conn:
        if enterprise_id is None:
            name = f"gb-it-{uuid.uuid4().hex[:8]}"
            row = conn.execute("INSERT INTO enterprise (name, short_name) VALUES (%s, %s) RETURNING id",
                               (name, name)).fetchone()
            assert row is not None
            enterprise_id = int(row[0])
        car = conn.execute("INSERT INTO car (enterprise_id, plate_number, vin, car_type) VALUES (%s, %s, %s, 2) "
                           "RETURNING id", (enterprise_id, f"粤B{uuid.uuid4().hex[:5].upper()}", vin)).fetchone()
        assert car is not None
        device = conn.execute(
            "INSERT INTO device (enterprise_id, car_id, phone, device_sn, protocol, protocol_version, auth_code) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s) RETURNING id",
            (enterprise_id, car[0], phone, f"GB{phone[-8:]}", protocol, protocol_version,
             "C0DE" if protocol == "jt808" else None)).fetchone()
        assert device is not None
        conn.execute("UPDATE car SET master_device_id = %s WHERE id = %s", (device[0], car[0]))
    return {"enterprise_id": enterprise_id, "car_id": int(car[0]), "device_id": int(device[0]), "phone": phone}


def login_body(at: datetime = AT, serial: int = 1) -> VehicleLogin:
    return VehicleLogin(at, serial, "89860000000000000001", 0, ())


def realtime_body(at: datetime, *, soc: int = 76, voltage: float = 612.3, current: float = -35.2) -> RealtimeReport:
    vehicle = VehicleData(status=1, charging=3, run_mode=1, speed_kmh=42.5, mileage_km=12345.6,
                          total_voltage_v=voltage, total_current_a=current, soc_pct=soc, dcdc=1, gear=0x2E,
                          insulation_kohm=5000, accelerator_pct=20, brake_pct=0)
    pack = PackVoltages(1, voltage, current, 96, 1, CELLS_96)
    return RealtimeReport(at, (vehicle, CellVoltages((pack,))))


def nth_time(n: int) -> datetime:
    return AT + timedelta(seconds=n)


class GbTerminal:
    """A bare GB terminal over TCP: sends frames, reads the platform's answers."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, vin: str,
                 protocol: Protocol) -> None:
        self.reader, self.writer, self.vin, self.protocol = reader, writer, vin, protocol
        self.frames = FrameReader()
        self.inbox: list[bytes] = []

    @classmethod
    async def connect(cls, port: int, vin: str, protocol: Protocol = Protocol.GB32960_2016) -> GbTerminal:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        return cls(reader, writer, vin, protocol)

    async def send(self, command: int, body: Any, *, vin: str | None = None) -> bytes:
        frame = encode_frame(command, body, vin=vin or self.vin, protocol=self.protocol)
        await self.send_raw(frame)
        return frame

    async def send_raw(self, data: bytes) -> None:
        self.writer.write(data)
        await self.writer.drain()

    async def receive_raw(self, timeout_s: float = 5.0) -> bytes:
        """The next answer frame as bytes; raises TimeoutError if none comes in time, ConnectionError at EOF."""
        async with asyncio.timeout(timeout_s):
            while not self.inbox:
                data = await self.reader.read(65536)
                if not data:
                    raise ConnectionError("gateway closed the connection")
                self.inbox.extend(f for f in self.frames.feed(data) if isinstance(f, bytes))
        return self.inbox.pop(0)

    async def receive(self, timeout_s: float = 5.0) -> Message:
        """The next answer, decoded (GB/T 32960: an answer holding only a time is ``TimeOnly``)."""
        protocol = Protocol.GB17691 if self.protocol is Protocol.GB17691 else None
        return decode_frame(await self.receive_raw(timeout_s), protocol=protocol)

    async def close(self) -> None:
        self.writer.close()
        with contextlib.suppress(OSError):
            await self.writer.wait_closed()


@contextlib.asynccontextmanager
async def running_gb_gateway(pg_url: str, kafka_bootstrap: str, **overrides: Any) -> AsyncIterator[GbGatewayServer]:
    settings = GbGatewaySettings().model_copy(update={"host": "127.0.0.1", "port": 0, "emission_port": 0,
                                                      "gateway_id": f"gb-it-{uuid.uuid4().hex[:6]}", **overrides})
    server, directory, sink = build_gb_gateway(settings, pg_url, kafka_bootstrap)
    await directory.open()
    sink.start()
    await server.start()
    try:
        yield server
    finally:
        await server.stop(drain_timeout_s=1.0)
        await sink.stop()
        await directory.close()
