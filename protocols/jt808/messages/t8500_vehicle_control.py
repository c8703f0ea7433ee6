"""0x8500 vehicle control (JT/T 808 §8.47).

2011 / 2013: one control flag BYTE; bit 0 is the doors (0 unlock, 1 lock), bits 1-7 reserved.
2019 (table 76 and 77): control type count WORD, then each control as its type id WORD and its parameter;
the standard defines one type, 0x0001 doors, whose parameter is a BYTE (0 unlock, 1 lock); 0x0002-0x8000
are reserved and 0xF001-0xFFFF the makers' own, whose parameter lengths the standard does not give, so a
body naming one cannot be read past it (a BodyError says so).

The terminal answers with 0x0500 (reply serial and its position, t0500_vehicle_control_response).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import ClassVar

from protocols.jt808.errors import BodyError
from protocols.jt808.registry import register_body

DOOR_CONTROL = 0x0001  # 2019 control type: the doors, parameter BYTE 0 unlock / 1 lock
DOOR_UNLOCK, DOOR_LOCK = 0, 1


@dataclass(frozen=True)
class Control:
    type_id: int
    value: int  # the doors: 0 unlock, 1 lock


@register_body
@dataclass(frozen=True)
class VehicleControl:
    MSG_ID: ClassVar[int] = 0x8500
    controls: tuple[Control, ...]

    @classmethod
    def doors(cls, lock: bool) -> VehicleControl:
        return cls((Control(DOOR_CONTROL, DOOR_LOCK if lock else DOOR_UNLOCK),))

    @classmethod
    def decode(cls, body: bytes, version: str) -> VehicleControl:
        if version != "2019":
            if len(body) != 1:
                raise BodyError(f"0x8500 ({version}) is one control flag byte, got {len(body)}")
            return cls((Control(DOOR_CONTROL, body[0] & 1),))
        if len(body) < 2:
            raise BodyError(f"0x8500 (2019) needs its control count, got {len(body)} bytes")
        (count,) = struct.unpack_from(">H", body)
        controls, offset = [], 2
        for index in range(count):
            if offset + 2 > len(body):
                raise BodyError(f"0x8500 control {index}: type id missing at offset {offset}")
            (type_id,) = struct.unpack_from(">H", body, offset)
            if type_id != DOOR_CONTROL:
                raise BodyError(f"0x8500 control {index}: type 0x{type_id:04X} has no length in the standard")
            if offset + 3 > len(body):
                raise BodyError(f"0x8500 control {index}: door parameter missing at offset {offset + 2}")
            controls.append(Control(type_id, body[offset + 2]))
            offset += 3
        if offset != len(body):
            raise BodyError(f"0x8500: {len(body) - offset} bytes after the {count} controls")
        return cls(tuple(controls))

    def encode(self, version: str) -> bytes:
        for control in self.controls:
            if control.type_id != DOOR_CONTROL or control.value not in (DOOR_UNLOCK, DOOR_LOCK):
                raise ValueError(f"0x8500 control type 0x{control.type_id:04X} value {control.value} is not a door control")
        if version != "2019":
            if len(self.controls) != 1:
                raise ValueError(f"0x8500 ({version}) carries exactly one door control")
            return bytes((self.controls[0].value,))
        return struct.pack(">H", len(self.controls)) + b"".join(
            struct.pack(">HB", c.type_id, c.value) for c in self.controls)
