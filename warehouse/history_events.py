"""What the streams would have recorded for a generated track (warehouse.history): alarm episodes of the
0x0200 alarm bits, ACC and business-state transitions, and the online log, so generated history gives every
report its inputs.

``EventTracker(vehicle, phone)`` is fed the points of one vehicle in time order (``add``) and ``close``d at the
end; it derives, with the streams' rules (``streams/state_rules.py``, ``streams/alarm_model.py``):

- an alarm episode (type 1, key ``a<bit>``) per run of fixes with the bit set: it starts at the first such fix
  and ends at the first fix without it (still open at the end of the track: ended at its last fix);
- an active-safety alarm (type 5 ``adas_<n>`` / type 6 ``dsm_<n>``, with its level) per ADAS / DSM event of the
  driving model (``safety_event``), the mix the live simulator sends as items 0x64 / 0x65;
- an ACC transition whenever status bit 0 changes (and the first fix's state);
- a business-state transition whenever the state changes, by the driving / parked rule of
  ``fleet/motion.py``: driving (1), parked (2) or engine off (3);
- online (1) at the first fix; the terminals of generated history stay online (no offline row).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from fleet.alarm_catalog import AlarmKind
from fleet.driving_model import SafetyDraw
from fleet.motion import motion_state

ACC_ON = 1


@dataclass
class Events:
    alarms: list[tuple[Any, ...]] = field(default_factory=list)   # ALARM_COLUMNS
    acc: list[tuple[Any, ...]] = field(default_factory=list)      # ACC_COLUMNS
    biz: list[tuple[Any, ...]] = field(default_factory=list)      # BIZ_COLUMNS
    online: list[tuple[Any, ...]] = field(default_factory=list)   # ONLINE_COLUMNS


ALARM_COLUMNS = ("device_id", "car_id", "enterprise_id", "phone", "plate_number", "type", "key", "level",
                 "start_time", "end_time", "lng", "lat", "speed", "alarm_flags", "state", "backlog")
ACC_COLUMNS = ("device_id", "create_time", "state", "car_id", "enterprise_id", "lng", "lat")
BIZ_COLUMNS = ("device_id", "create_time", "state", "car_id", "enterprise_id")
ONLINE_COLUMNS = ("device_id", "at", "state", "enterprise_id", "reason")


def biz_state(status: int, speed_kmh: float) -> int:
    return int(motion_state(bool(status & ACC_ON), speed_kmh))


class EventTracker:
    def __init__(self, device_id: int, car_id: int | None, enterprise_id: int, phone: str, plate: str | None,
                 events: Events) -> None:
        self.ids = (device_id, car_id, enterprise_id)
        self.phone, self.plate, self.events = phone, plate, events
        self.open: dict[int, tuple[datetime, float, float, float, int]] = {}
        self.acc: int | None = None
        self.biz: int | None = None
        self.last_at: datetime | None = None

    def add(self, at: datetime, lng: float, lat: float, speed: float, alarm: int, status: int) -> None:
        device_id, car_id, enterprise_id = self.ids
        if self.last_at is None:
            self.events.online.append((device_id, at, 1, enterprise_id, "generated history"))
        acc = status & ACC_ON
        if acc != self.acc:
            self.events.acc.append((device_id, at, acc, car_id, enterprise_id, lng, lat))
            self.acc = acc
        biz = biz_state(status, speed)
        if biz != self.biz:
            self.events.biz.append((device_id, at, biz, car_id, enterprise_id))
            self.biz = biz
        for bit in [b for b in self.open if not alarm >> b & 1]:
            self._end(bit, at)
        bits = alarm
        bit = 0
        while bits:
            if bits & 1 and bit not in self.open:
                self.open[bit] = (at, lng, lat, speed, alarm)
            bits >>= 1
            bit += 1
        self.last_at = at

    def _end(self, bit: int, at: datetime) -> None:
        device_id, car_id, enterprise_id = self.ids
        start, lng, lat, speed, flags = self.open.pop(bit)
        self.events.alarms.append((device_id, car_id, enterprise_id, self.phone, self.plate, 1, f"a{bit}", None,
                                   start, at, lng, lat, speed, flags, 2, True))  # history: handled (2), never pushed

    def safety_event(self, at: datetime, event: SafetyDraw, lng: float, lat: float, speed: float) -> None:
        """An ADAS (type 5, ``adas_<n>``) or DSM (type 6, ``dsm_<n>``) event: an instant, as the streams record
        an item 0x64 / 0x65 (start = end = its time)."""
        device_id, car_id, enterprise_id = self.ids
        kind = AlarmKind.ADAS if event.adas else AlarmKind.DSM
        self.events.alarms.append((device_id, car_id, enterprise_id, self.phone, self.plate, int(kind), event.key,
                                   event.level, at, at, lng, lat, speed, 0, 2, True))

    def close(self) -> None:
        """End the episodes still open at the last fix."""
        if self.last_at is not None:
            for bit in list(self.open):
                self._end(bit, self.last_at)
