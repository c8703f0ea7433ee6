"""GB 17691-2018 annex Q (HJ 1239-2021 keeps the layout) real-time blocks: 0x01 OBD information and
0x02 engine / after-treatment data stream.

No public capture exists (see shared/reference/gbt32960-vectors.md): these are built from the
standard's layout as we know it (annex Q tables Q.8-Q.10), not checked against a terminal. HJ 1239's
additions (activation, signatures) are not typed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Self

from protocols.gb32960.header import Protocol
from protocols.gb32960.messages._blocks import FixedBlock, register_block
from protocols.gb32960.values import (
    Field,
    Reading,
    need,
    read_fields,
    read_text,
    read_uint,
    write_fields,
    write_text,
)

F = Field
VIN_BYTES, CALIBRATION_ID_BYTES, CVN_BYTES, IUPR_BYTES = 17, 18, 18, 36
_OBD_HEAD = (F("obd_protocol", 1), F("mil", 1), F("diagnosis_supported", 2, special=False),
             F("diagnosis_ready", 2, special=False))


@register_block(Protocol.GB17691)
@dataclass(frozen=True, slots=True)
class ObdInfo:
    """0x01 OBD information: protocol (0 ISO 15765, 1 ISO 27145, 2 SAE J1939), MIL (0 off, 1 on),
    diagnosis support and readiness bit fields, VIN, software calibration id, CVN, IUPR (kept as bytes)
    and the fault codes (4 bytes each; count 0xFE = invalid, sent with no codes)."""

    INFO_TYPE = 0x01
    obd_protocol: Reading
    mil: Reading
    diagnosis_supported: int
    diagnosis_ready: int
    vin: str
    calibration_id: str
    cvn: str
    iupr: bytes
    fault_codes: tuple[int, ...]

    @classmethod
    def decode(cls, data: bytes, at: int) -> tuple[Self, int]:
        head, at = read_fields(_OBD_HEAD, data, at, "OBD information")
        vin, at = read_text(data, at, VIN_BYTES, "OBD VIN")
        calibration, at = read_text(data, at, CALIBRATION_ID_BYTES, "software calibration id")
        cvn, at = read_text(data, at, CVN_BYTES, "CVN")
        need(data, at, IUPR_BYTES, "IUPR")
        iupr, at = bytes(data[at : at + IUPR_BYTES]), at + IUPR_BYTES
        count, at = read_uint(data, at, 1, "fault code count")
        codes = []
        for i in range(0 if count == 0xFE else count):
            code, at = read_uint(data, at, 4, f"fault code {i + 1} of {count}")
            codes.append(code)
        return cls(*head, vin, calibration, cvn, iupr, tuple(codes)), at  # type: ignore[call-arg, arg-type]

    def encode(self) -> bytes:
        if len(self.iupr) != IUPR_BYTES:
            raise ValueError(f"IUPR is {IUPR_BYTES} bytes")
        return (write_fields(_OBD_HEAD, [getattr(self, f.name) for f in _OBD_HEAD])
                + write_text(self.vin, VIN_BYTES, "OBD VIN")
                + write_text(self.calibration_id, CALIBRATION_ID_BYTES, "software calibration id")
                + write_text(self.cvn, CVN_BYTES, "CVN") + self.iupr + bytes((len(self.fault_codes),))
                + b"".join(c.to_bytes(4, "big") for c in self.fault_codes))


@register_block(Protocol.GB17691)
@dataclass(frozen=True, slots=True)
class EngineDataStream(FixedBlock):
    """0x02 engine and after-treatment data stream (37 bytes). NOx in ppm (0.05, offset -200), SCR
    temperatures 0.03125 °C with offset -273, reagent and tank levels 0.4 %, torques % with offset -125,
    position status as in 32960 0x05 (bit 0 no fix, bit 1 south, bit 2 west)."""

    INFO_TYPE = 0x02
    FIELDS = (F("speed_kmh", 2, 1 / 256), F("atmospheric_pressure_kpa", 1, 0.5),
              F("engine_torque_pct", 1, offset=-125), F("friction_torque_pct", 1, offset=-125),
              F("engine_speed_rpm", 2, 0.125), F("fuel_flow_l_per_h", 2, 0.05),
              F("nox_upstream_ppm", 2, 0.05, -200), F("nox_downstream_ppm", 2, 0.05, -200),
              F("reagent_level_pct", 1, 0.4), F("intake_air_flow_kg_per_h", 2, 0.05),
              F("scr_inlet_temp_c", 2, 0.03125, -273), F("scr_outlet_temp_c", 2, 0.03125, -273),
              F("dpf_pressure_difference_kpa", 2, 0.1), F("coolant_temp_c", 1, offset=-40),
              F("tank_level_pct", 1, 0.4), F("position_status", 1, special=False),
              F("longitude_deg", 4, 0.000001), F("latitude_deg", 4, 0.000001), F("mileage_km", 4, 0.1))
    speed_kmh: Reading
    atmospheric_pressure_kpa: Reading
    engine_torque_pct: Reading
    friction_torque_pct: Reading
    engine_speed_rpm: Reading
    fuel_flow_l_per_h: Reading
    nox_upstream_ppm: Reading
    nox_downstream_ppm: Reading
    reagent_level_pct: Reading
    intake_air_flow_kg_per_h: Reading
    scr_inlet_temp_c: Reading
    scr_outlet_temp_c: Reading
    dpf_pressure_difference_kpa: Reading
    coolant_temp_c: Reading
    tank_level_pct: Reading
    position_status: int
    longitude_deg: Reading
    latitude_deg: Reading
    mileage_km: Reading
