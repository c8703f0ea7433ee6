"""JT/T 1078 video alarm items (0x14-0x18), an extension registered like any vendor's would be.

| id | key | wire |
|---|---|---|
| 0x14 | video_alarm_flags | DWORD bits (JT/T 1078 table 14) |
| 0x15 | video_signal_lost_channels | DWORD, bit n = logical channel n+1 |
| 0x16 | video_signal_blocked_channels | DWORD, bit n = logical channel n+1 |
| 0x17 | storage_fault_flags | WORD, bits 0-11 main storage 1-12, bits 12-15 backup 1-4 |
| 0x18 | abnormal_driving | WORD behaviour bits + BYTE fatigue level 0-100 (table 15) |
"""

from __future__ import annotations

from typing import Any

from protocols.jt808.extras.registry import ItemSpec, register_item
from protocols.jt808.extras.scalars import scalar_item


def _decode_abnormal_driving(raw: bytes) -> dict[str, Any]:
    fatigue = raw[2] if len(raw) == 3 else None
    return {"behaviour_flags": int.from_bytes(raw[:2], "big"), "fatigue_level": fatigue}


def _encode_abnormal_driving(value: Any) -> bytes:
    flags = int(value["behaviour_flags"]).to_bytes(2, "big")
    fatigue = value.get("fatigue_level")
    return flags if fatigue is None else flags + bytes((fatigue,))


for _spec in (
    scalar_item(0x14, "video_alarm_flags", "I"),
    scalar_item(0x15, "video_signal_lost_channels", "I"),
    scalar_item(0x16, "video_signal_blocked_channels", "I"),
    scalar_item(0x17, "storage_fault_flags", "H"),
    ItemSpec(0x18, "abnormal_driving", _decode_abnormal_driving, _encode_abnormal_driving, frozenset({2, 3})),
):
    register_item(_spec)
