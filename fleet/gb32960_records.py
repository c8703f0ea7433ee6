"""The record of ``gb32960.uplink.v1`` (docs/topics.md): one frame of a GB/T 32960 (``##`` 2016, ``$$`` 2025)
or GB 17691 / HJ 1239 terminal, as the GB gateway received it after the vehicle's VIN was found in the
vehicle records.

One typed contract for the writer (the GB gateway), the readers (the stream steps) and the tests' builders.
A record's value is one uplink (a JSON object) or a batch of them (a JSON array), read with
``fleet.uplink_records.split_value`` like ``jt808.uplink.v1``; its key is the VIN, so a vehicle's frames keep
their order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

# device.protocol of the terminals that speak the ``##`` / ``$$`` framing (platform-spec §2: the car detail
# variant follows the master device's protocol). jt808 terminals are on jt808.uplink.v1.
GB_PROTOCOLS = ("gb32960", "gb17691", "hj1239", "db4403t363")


@dataclass(frozen=True, slots=True)
class GbUplink:
    protocol: str            # device.protocol: one of GB_PROTOCOLS
    vin: str                 # the frame header's VIN (17 characters)
    device_id: int
    car_id: int | None
    enterprise_id: int
    command: int             # header command, e.g. 0x02 real-time data, 0x03 back-filled data
    response: int | None     # header response flag (0xFE on a command)
    frame_protocol: str      # protocols.gb32960.Protocol value: gb32960-2016 | gb32960-2025 | gb17691
    raw_hex: str             # the whole frame as received (kept so history can be re-decoded)
    message: dict[str, Any]  # protocols.gb32960.jsonify.to_json(message)
    connection_id: str
    gateway_id: str
    received_at: str         # gateway receive time, ISO 8601 UTC

    def encode(self) -> bytes:
        # orjson writes the dataclass itself, fields in declaration order: the same bytes as dumping
        # dataclasses.asdict(self), without asdict's deep copy of ``message`` (~220 of ~450 µs a frame of the
        # GB gateway's CPU with a 96-cell pack; docs/performance.md "GB/T 32960 end to end").
        return orjson.dumps(self)

    @classmethod
    def from_json(cls, value: Any) -> GbUplink:
        """The uplink of one parsed JSON object; ValueError names the first field that is missing or of the
        wrong type (a consumer dead-letters that item and goes on)."""
        if not isinstance(value, dict):
            raise ValueError("gb32960 uplink: not a JSON object")
        for name, kinds in _TYPES.items():
            if name not in value:
                raise ValueError(f"gb32960 uplink: missing field {name}")
            if not isinstance(value[name], kinds) or isinstance(value[name], bool):
                raise ValueError(f"gb32960 uplink: field {name} has type {type(value[name]).__name__}")
        if value["protocol"] not in GB_PROTOCOLS:
            raise ValueError(f"gb32960 uplink: unknown protocol {value['protocol']!r}")
        return cls(**{name: value[name] for name in _TYPES})


_TYPES: dict[str, tuple[type, ...]] = {
    "protocol": (str,), "vin": (str,), "device_id": (int,), "car_id": (int, type(None)),
    "enterprise_id": (int,), "command": (int,), "response": (int, type(None)), "frame_protocol": (str,),
    "raw_hex": (str,), "message": (dict,), "connection_id": (str,), "gateway_id": (str,),
    "received_at": (str,),
}
