"""What the regulator counts of the inferior's traffic (issue section 5: "counts forwarded positions").

Per vehicle (plate + colour): real-time positions (0x1202), back-filled ones (0x1203, several per
message), duplicates (the same fix time of the same vehicle seen before, in either), out-of-order
real-time fixes (a 0x1202 fix older than the vehicle's latest real-time fix: JT/T 809 §5.3.3.2.2 sends
real-time positions in time order, late ones belong in a 0x1203), back-fills not oldest first
(§5.3.3.2.3), registrations (0x1201). Alarm reports (0x1402), handling results (0x1403) and inspection
answers (0x1301) are kept as records. Frames that fail are counted by kind, never raised.
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from exchange.regulator.lag import LagHistogram

ERROR_KINDS = ("framing", "length", "crc", "decrypt", "version", "body")


@dataclass
class VehicleTally:
    plate: str
    colour: int
    real_time: int = 0
    backfilled: int = 0
    duplicates: int = 0
    out_of_order: int = 0
    backfill_unordered: int = 0
    registrations: int = 0
    unparsed_fixes: int = 0  # positions whose fix time could not be read (counted, not deduplicated)
    latest_real_time: datetime | None = None
    fixes: set[int] = field(default_factory=set, repr=False)  # unique fix times, epoch seconds

    def as_json(self) -> dict[str, Any]:
        out = {k: v for k, v in asdict(self).items() if k != "fixes"}
        out["latest_real_time"] = self.latest_real_time.isoformat() if self.latest_real_time else None
        out["unique_fixes"] = len(self.fixes)
        return out


@dataclass(frozen=True)
class AlarmRecord:
    """An alarm the inferior reported (0x1402): ``info_id`` names it in urgings and handling results
    (2011); the 2019 layout has none (0)."""

    plate: str
    colour: int
    warn_type: int
    warn_time: datetime
    info_id: int
    warn_src: int
    content: str
    account: int
    received_at: datetime


@dataclass(frozen=True)
class InspectionRecord:
    info_id: int
    answer: str
    latency_s: float | None  # from our 0x9301 to this 0x1301; None when we never asked
    object_id: str
    account: int
    received_at: datetime
    responder: str | None = None


class Tally:
    def __init__(self, max_records: int = 1000) -> None:
        self.vehicles: dict[tuple[str, int], VehicleTally] = {}
        self.errors: Counter[str] = Counter({kind: 0 for kind in ERROR_KINDS})
        self.alarms: deque[AlarmRecord] = deque(maxlen=max_records)
        self.handling_results: deque[dict[str, Any]] = deque(maxlen=max_records)
        self.urging_answers: deque[dict[str, Any]] = deque(maxlen=max_records)  # 0x1401
        self.static_answers: deque[dict[str, Any]] = deque(maxlen=max_records)  # 0x1601
        self.video_answers: deque[dict[str, Any]] = deque(maxlen=max_records)  # 0x1801 / 0x1802 / 0x1A01 / 0x1A02
        self.control_answers: deque[dict[str, Any]] = deque(maxlen=max_records)  # 0x1501-0x1505
        self.inspection_answers: deque[InspectionRecord] = deque(maxlen=max_records)
        self.positions_total = 0  # every position received, duplicates included (what 0x9101 reports)
        self.lag = LagHistogram()

    def vehicle(self, plate: str, colour: int) -> VehicleTally:
        key = (plate, colour)
        found = self.vehicles.get(key)
        if found is None:
            found = self.vehicles[key] = VehicleTally(plate, colour)
        return found

    def _seen(self, vehicle: VehicleTally, fix_at: datetime | None) -> bool:
        """Record the fix; True when the vehicle had it already (a duplicate)."""
        self.positions_total += 1
        if fix_at is None:
            vehicle.unparsed_fixes += 1
            return False
        second = int(fix_at.timestamp())
        if second in vehicle.fixes:
            vehicle.duplicates += 1
            return True
        vehicle.fixes.add(second)
        return False

    def real_time(self, plate: str, colour: int, fix_at: datetime | None, received_at: datetime | None = None) -> None:
        vehicle = self.vehicle(plate, colour)
        vehicle.real_time += 1
        if self._seen(vehicle, fix_at) or fix_at is None:
            return
        if received_at is not None:
            self.lag.add(max(0.0, (received_at - fix_at).total_seconds()))
        if vehicle.latest_real_time is not None and fix_at < vehicle.latest_real_time:
            vehicle.out_of_order += 1
        else:
            vehicle.latest_real_time = fix_at

    def backfill(self, plate: str, colour: int, fixes: list[datetime | None]) -> None:
        vehicle = self.vehicle(plate, colour)
        known = [f for f in fixes if f is not None]
        if any(later < earlier for earlier, later in zip(known, known[1:], strict=False)):
            vehicle.backfill_unordered += 1
        for fix_at in fixes:
            vehicle.backfilled += 1
            self._seen(vehicle, fix_at)

    def registration(self, plate: str, colour: int) -> None:
        self.vehicle(plate, colour).registrations += 1

    def totals(self) -> dict[str, int]:
        keys = ("real_time", "backfilled", "duplicates", "out_of_order", "backfill_unordered", "registrations",
                "unparsed_fixes")
        out = {k: sum(getattr(v, k) for v in self.vehicles.values()) for k in keys}
        out["unique_fixes"] = sum(len(v.fixes) for v in self.vehicles.values())
        out["vehicles"] = len(self.vehicles)
        out["positions"] = self.positions_total
        out["alarms"] = len(self.alarms)
        out["handling_results"] = len(self.handling_results)
        out["inspection_answers"] = len(self.inspection_answers)
        return out
