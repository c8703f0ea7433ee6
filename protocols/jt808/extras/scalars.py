"""Standard items that are one unsigned number, declared as a table (JT/T 808-2019 table 27).

| id | key | wire | unit |
|---|---|---|---|
| 0x01 | mileage_km | DWORD | 1/10 km (odometer) |
| 0x02 | fuel_l | WORD | 1/10 L (fuel gauge) |
| 0x03 | record_speed_kmh | WORD | 1/10 km/h (driving recorder speed) |
| 0x04 | alarm_event_id_to_confirm | WORD | id of an alarm needing manual confirmation, from 1 |
| 0x25 | vehicle_signal_status | DWORD | extended vehicle signal bits (table 31) |
| 0x2A | io_status | WORD | IO status bits (table 32) |
| 0x30 | rssi | BYTE | wireless signal strength |
| 0x31 | gnss_satellites | BYTE | satellites in use |
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

from protocols.jt808.extras.registry import ItemSpec, register_item


def scalar_item(item_id: int, name: str, fmt: str, scale: int = 1) -> ItemSpec:
    """An unsigned number; with ``scale`` 10 the value is wire / 10 (a float in the named unit)."""
    layout = struct.Struct(">" + fmt)
    decode: Callable[[bytes], Any]
    if scale == 1:
        def decode(raw: bytes) -> Any:
            return layout.unpack(raw)[0]

        def encode(value: Any) -> bytes:
            return layout.pack(int(value))
    else:
        def decode(raw: bytes) -> Any:
            return layout.unpack(raw)[0] / scale

        def encode(value: Any) -> bytes:
            return layout.pack(round(value * scale))

    return ItemSpec(item_id, name, decode, encode, frozenset({layout.size}))


for _spec in (
    scalar_item(0x01, "mileage_km", "I", scale=10),
    scalar_item(0x02, "fuel_l", "H", scale=10),
    scalar_item(0x03, "record_speed_kmh", "H", scale=10),
    scalar_item(0x04, "alarm_event_id_to_confirm", "H"),
    scalar_item(0x25, "vehicle_signal_status", "I"),
    scalar_item(0x2A, "io_status", "H"),
    scalar_item(0x30, "rssi", "B"),
    scalar_item(0x31, "gnss_satellites", "B"),
):
    register_item(_spec)
