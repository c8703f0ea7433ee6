"""Builders of ``gb32960.uplink.v1`` records (fleet/gb32960_records.GbUplink) from real frames, for the tests
and the benchmark that produce to Kafka without the GB gateway. As the gateway does: the frame is built with
``protocols.gb32960.encode_frame`` from typed blocks, ``raw_hex`` is its hex and ``message`` is
``to_json(decode_frame(frame))``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from fleet.gb32960_records import GbUplink
from protocols.gb32960 import Protocol, decode_frame, encode_frame
from protocols.gb32960.jsonify import to_json
from protocols.gb32960.messages.blocks_2016 import (
    Alarms,
    CellVoltages,
    Extremes,
    Motor,
    Motors,
    PackTemperatures,
    PackVoltages,
    Position,
    ProbeTemperatures,
    VehicleData,
)
from protocols.gb32960.messages.realtime import RealtimeReport, ReissuedReport
from streams.console import iso


@dataclass(frozen=True)
class GbVehicle:
    vin: str
    device_id: int
    car_id: int | None
    enterprise_id: int
    protocol: str = "gb32960"


def pack_cells(first_v: float = 3.3, cells: int = 96, step_v: float = 0.001) -> tuple[float, ...]:
    return tuple(round(first_v + (i % 50) * step_v, 3) for i in range(cells))


def random_cells(rnd: random.Random, cells: int = 96) -> tuple[float, ...]:
    """A vehicle's own pack, 3.200-3.500 V a cell: frames of a fleet whose packs are all alike would compress in
    Kafka (FLEET_KAFKA_COMPRESSION) far better than a real fleet's."""
    return tuple(round(3.2 + rnd.random() * 0.3, 3) for _ in range(cells))


def realtime_blocks(*, lat: float = 39.916527, lng: float = 116.397128, speed_kmh: float = 42.5,
                    mileage_km: float = 12345.6, soc_pct: int = 80, voltage_v: float = 350.4,
                    current_a: float = 12.3, charging: int = 3, status: int = 1, fix_valid: bool = True,
                    alarm_level: int = 0, alarm_flags: int = 0, storage_faults: tuple[int, ...] = (),
                    cells: tuple[float, ...] | None = None, probes: tuple[int, ...] = (25, 26, 31, 24),
                    insulation_kohm: Any = 5000) -> tuple[Any, ...]:
    """The blocks of a 2016 real-time frame: whole vehicle, one motor, position, extremes (from ``cells`` /
    ``probes``), alarms, cell voltages (a 96-cell pack by default) and probe temperatures."""
    cells = cells if cells is not None else pack_cells()
    hi = max(range(len(cells)), key=lambda i: cells[i])
    lo = min(range(len(cells)), key=lambda i: cells[i])
    thi = max(range(len(probes)), key=lambda i: probes[i])
    tlo = min(range(len(probes)), key=lambda i: probes[i])
    return (
        VehicleData(status, charging, 1, speed_kmh, mileage_km, voltage_v, current_a, soc_pct, 1, 0x0E,
                    insulation_kohm, 0, 0),
        Motors((Motor(1, 1, 45, 3000, 120.5, 60, voltage_v, current_a),)),
        Position((0 if fix_valid else 1) | (2 if lat < 0 else 0) | (4 if lng < 0 else 0), abs(lng), abs(lat)),
        Extremes(1, hi + 1, cells[hi], 1, lo + 1, cells[lo], 1, thi + 1, probes[thi], 1, tlo + 1, probes[tlo]),
        Alarms(alarm_level, alarm_flags, storage_faults, (), (), ()),
        CellVoltages((PackVoltages(1, voltage_v, current_a, len(cells), 1, cells),)),
        ProbeTemperatures((PackTemperatures(1, probes),)),
    )


def frame_record(vehicle: GbVehicle, frame: bytes, *, protocol: Protocol = Protocol.GB32960_2016,
                 received_at: datetime | None = None) -> dict[str, Any]:
    """The record the GB gateway produces for ``frame`` (as a JSON-ready dict)."""
    message = decode_frame(frame, protocol=protocol) if protocol is Protocol.GB17691 else decode_frame(frame)
    header = message.header
    record = GbUplink(protocol=vehicle.protocol, vin=header.vin, device_id=vehicle.device_id, car_id=vehicle.car_id,
                      enterprise_id=vehicle.enterprise_id, command=header.command, response=header.response,
                      frame_protocol=header.protocol.value, raw_hex=frame.hex(), message=to_json(message),
                      connection_id="test-conn", gateway_id="test-gb-gw",
                      received_at=iso(received_at or datetime.now(UTC)))
    return {name: getattr(record, name) for name in record.__dataclass_fields__}


def realtime(vehicle: GbVehicle, at: datetime, *, backfilled: bool = False, received_at: datetime | None = None,
             **blocks: Any) -> dict[str, Any]:
    """A real-time (0x02) or back-filled (0x03) record collected ``at``; ``blocks`` go to :func:`realtime_blocks`."""
    body = (ReissuedReport if backfilled else RealtimeReport)(at, realtime_blocks(**blocks))
    frame = encode_frame(0x03 if backfilled else 0x02, body, vin=vehicle.vin)
    return frame_record(vehicle, frame, received_at=received_at)
