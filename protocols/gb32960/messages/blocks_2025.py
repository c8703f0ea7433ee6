"""GB/T 32960.3-2025 blocks that a public source gives a layout for.

We did not read the 2025 text. The only public implementation (baichangda/MyFramework, its ``v2025``
model at the commit of the public sample) drops accelerator and brake from the whole-vehicle block (18 bytes) and changes the drive motor block to 10 bytes per motor: speed
on 2 bytes with offset -32000 rpm, torque on 4 bytes at 0.1 N·m with offset -20000 N·m (raw 200000),
and no controller voltage / DC current. Its other new blocks (fuel-cell stack, supercapacitor and its
extremes, minimum parallel-unit voltages, signature) are not typed: from the first of them on, a 2025
data unit is kept as bytes (``UnparsedTail``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Self

from protocols.gb32960.header import Protocol
from protocols.gb32960.messages._blocks import FixedBlock, register_block
from protocols.gb32960.messages.blocks_2016 import Motor
from protocols.gb32960.values import Field, Reading, read_fields, read_uint, write_fields

F = Field
MOTOR_FIELDS_2025 = (F("number", 1, special=False), F("status", 1), F("controller_temp_c", 1, offset=-40),
                     F("speed_rpm", 2, offset=-32000), F("torque_nm", 4, 0.1, -20000), F("temp_c", 1, offset=-40))


@register_block(Protocol.GB32960_2025)
@dataclass(frozen=True, slots=True)
class VehicleData2025(FixedBlock):
    """0x01 whole vehicle in the 2025 reading: the 2016 fields up to insulation (no accelerator, brake)."""

    INFO_TYPE = 0x01
    FIELDS = (F("status", 1), F("charging", 1), F("run_mode", 1), F("speed_kmh", 2, 0.1), F("mileage_km", 4, 0.1),
              F("total_voltage_v", 2, 0.1), F("total_current_a", 2, 0.1, -1000), F("soc_pct", 1), F("dcdc", 1),
              F("gear", 1, special=False), F("insulation_kohm", 2))
    status: Reading
    charging: Reading
    run_mode: Reading
    speed_kmh: Reading
    mileage_km: Reading
    total_voltage_v: Reading
    total_current_a: Reading
    soc_pct: Reading
    dcdc: Reading
    gear: int
    insulation_kohm: Reading


@register_block(Protocol.GB32960_2025)
@dataclass(frozen=True, slots=True)
class Motors2025:
    """0x02 drive motors in the 2025 reading: a count, then 10 bytes per motor."""

    INFO_TYPE = 0x02
    motors: tuple[Motor, ...]

    @classmethod
    def decode(cls, data: bytes, at: int) -> tuple[Self, int]:
        count, at = read_uint(data, at, 1, "motor count")
        motors = []
        for i in range(count):
            values, at = read_fields(MOTOR_FIELDS_2025, data, at, f"motor {i + 1} of {count}")
            motors.append(Motor(*values))  # type: ignore[arg-type]
        return cls(tuple(motors)), at

    def encode(self) -> bytes:
        out = bytes((len(self.motors),))
        for motor in self.motors:
            out += write_fields(MOTOR_FIELDS_2025, [getattr(motor, f.name) for f in MOTOR_FIELDS_2025])
        return out
