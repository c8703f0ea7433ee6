"""Teleports: a fix farther from its device's last plausible fix than any vehicle could drive.

The positions plan's second step (after streams.validation). A fix whose implied speed from the device's
last plausible fix (great-circle distance / time between the fix times) is above ``max_implied_speed_kmh``
and whose jump is longer than ``teleport_min_km`` is kept with ``QUALITY_TELEPORT`` set: stored, never
dropped, but not on the live map, not in ``device_last``, not in mileage (docs/architecture.md "Position
quality"). Rules:

- the reference is the device's last *plausible* fix, so one jump out and back flags only the jump;
- a flagged fix that the next fix agrees with (plausible from it) was the truth: that next fix is
  plausible and becomes the reference (a wrong reference, e.g. after a terminal moved while the worker
  was down, costs one flagged fix, never a flagged track);
- a fix older than the reference (a 0x0704 backlog) is checked against it over the absolute time
  difference and never replaces it; fixes with a time flag are neither checked nor a reference.

Per-vehicle order is kept end to end (Kafka key = terminal), so the worker holding a device's partition
sees its fixes in order. The memory starts from ``device_last`` for devices it does not know (``prime``).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable
from datetime import date, tzinfo
from typing import Any

from streams.db import Database
from streams.messages import Fix
from streams.validation import QUALITY_TELEPORT, QUALITY_TIME, Limits, quality_class
from warehouse.queries import position_sink

EARTH_RADIUS_KM = 6371.0088  # the reports' radius (pipelines.rules)
_KM_PER_DEG = EARTH_RADIUS_KM * math.pi / 180

# (epoch seconds, lat, lng) of a fix
Point = tuple[float, float, float]


def distance_km(a: Point, b: Point) -> float:
    """Great-circle distance (haversine)."""
    p1, p2 = math.radians(a[1]), math.radians(b[1])
    dp, dl = p2 - p1, math.radians(b[2] - a[2])
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * EARTH_RADIUS_KM * math.asin(min(1.0, math.sqrt(h)))


class TeleportGuard:
    """Per-device memory of the last plausible fix (and of the last flagged one)."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._min_km, self._max_kmh = limits.teleport_min_km, limits.max_implied_speed_kmh
        self._reference: dict[int, Point | None] = {}  # None: known to have no fix yet
        self._flagged: dict[int, Point] = {}

    def unknown(self, fixes: Iterable[Fix]) -> set[int]:
        """Devices of ``fixes`` this memory has not seen (``prime`` loads them)."""
        known = self._reference
        return {fix.device_id for fix in fixes if fix.device_id not in known}

    async def prime(self, db: Database, fixes: Iterable[Fix]) -> None:
        """Start the memory of unseen devices from their ``device_last`` (one query, only for new devices)."""
        missing = self.unknown(fixes)
        if not missing:
            return

        async def read(conn: Any) -> list[tuple[int, float, float, float]]:
            return await position_sink.last_fixes_async(conn, sorted(missing))

        rows = await db.transact(read)
        for device in missing:
            self._reference.setdefault(device, None)
        for device, at, lat, lng in rows:
            self._reference[device] = (float(at), float(lat), float(lng))

    def forget(self) -> None:
        """After a partition rebalance another worker may have moved the devices on."""
        self._reference.clear()
        self._flagged.clear()

    def assess(self, fix: Fix) -> Fix:
        """The fix, with QUALITY_TELEPORT set when it is one; updates the memory. The common case (a plausible
        fix near its reference) costs a few comparisons: the bound below settles it without trigonometry."""
        if fix.quality & QUALITY_TIME:
            return fix
        t = fix.fix_at.timestamp()
        device = fix.device_id
        reference = self._reference.get(device)
        if reference is not None:
            dt = abs(t - reference[0])
            # R·(|Δφ| + |Δλ|) bounds the great-circle distance from above
            bound = _KM_PER_DEG * (abs(fix.lat - reference[1]) + abs(fix.lng - reference[2]))
            if bound > self._min_km and bound > self._max_kmh * max(dt, 1.0) / 3600.0:
                return self._slow(fix, (t, fix.lat, fix.lng), reference)
        if reference is None or t >= reference[0]:
            self._reference[device] = (t, fix.lat, fix.lng)
        if self._flagged:
            self._flagged.pop(device, None)
        return fix

    def _slow(self, fix: Fix, point: Point, reference: Point) -> Fix:
        """A fix the bound did not settle: the exact distance decides."""
        device = fix.device_id
        if not self._too_fast(reference, point):
            if point[0] >= reference[0]:
                self._reference[device] = point
            self._flagged.pop(device, None)
            return fix
        flagged = self._flagged.get(device)
        if flagged is not None and point[0] >= reference[0] and not self._too_fast(flagged, point):
            self._reference[device] = point  # two fixes agree on the new place: the old one was wrong
            del self._flagged[device]
            return fix
        self._flagged[device] = point
        return dataclasses.replace(fix, quality=fix.quality | QUALITY_TELEPORT)

    def _too_fast(self, a: Point, b: Point) -> bool:
        km = distance_km(a, b)
        return km > self._min_km and km / (max(abs(b[0] - a[0]), 1.0) / 3600.0) > self._max_kmh


def count_flagged(fixes: Iterable[Fix], counts: dict[tuple[date, int, str, int], int], zone: tzinfo) -> None:
    """Add the flagged fixes to ``counts`` (gps_reject_day: local day of receipt, device, class, enterprise):
    the qualification KPI counts them as unqualified, on the day they arrived (a fix dated 2020 has no
    other day to count on)."""
    for fix in fixes:
        if fix.quality:
            key = (fix.received_at.astimezone(zone).date(), fix.device_id, quality_class(fix.quality), fix.enterprise_id)
            counts[key] = counts.get(key, 0) + 1
