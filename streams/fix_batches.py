"""The positions sink's batch shaping, pure: which fixes of a batch are written, which one per device
moves ``device_last``, which closed days a late fix makes stale. No SQL here: the statements, the binary
rows and the array parameters are warehouse/queries/position_sink.py; streams/positions.py runs them.

- ``gps`` keeps one fix per device and second (its key, the first stored); a later fix of that second
  that says something else (a 0x0704 item, a 0x0201 answer: the command keeps that one in its reply) is
  counted in ``gps_reject_day`` as ``same_second`` and logged, never dropped silently.
- ``device_last`` takes the newest fix of each device; a fix flagged implausible (``quality``,
  migration 0038) never reaches it (streams.positions.write_fixes).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, date, datetime, tzinfo
from typing import Any

from streams.messages import Fix
from warehouse.queries.arrays import DateArray, IntArray, SqlArray


def dirty_report_days(fixes: Iterable[Fix], local_midnight: datetime, zone: tzinfo) -> list[SqlArray]:
    """The (local day, enterprise) pairs of fixes before ``local_midnight`` (today's start in the report
    zone), as the parameters of
    ``position_sink.mark_dirty_days_async``; empty for a batch of today's fixes (one comparison per fix)."""
    pairs = {(fix.fix_at.astimezone(zone).date(), fix.enterprise_id) for fix in fixes if fix.fix_at < local_midnight}
    if not pairs:
        return []
    return [DateArray([day for day, _ in pairs]), IntArray([enterprise for _, enterprise in pairs])]


def closed_days(fixes: Iterable[Fix], today: date) -> list[SqlArray]:
    """The (device, UTC day) pairs of fixes older than ``today``, as the parameters of
    ``position_sink.invalidate_track_days_async``; empty (nothing to run) for a batch of today's fixes, the usual case."""
    pairs = {(fix.device_id, day) for fix in fixes if (day := fix.fix_at.astimezone(UTC).date()) < today}
    if not pairs:
        return []
    return [IntArray([device for device, _ in pairs]), DateArray([day for _, day in pairs])]


def unique_fixes(fixes: Iterable[Fix]) -> list[Fix]:
    """First fix per (device, fix time), input order kept. A batch may repeat a resent position."""
    return split_same_second(fixes)[0]


def same_position(a: Fix, b: Fix) -> bool:
    """Whether two fixes of one device and second say the same (a resend or replay), not two fixes."""
    return (abs(a.lat - b.lat) < 1e-6 and abs(a.lng - b.lng) < 1e-6 and abs(a.speed_kmh - b.speed_kmh) < 0.05
            and a.direction_deg == b.direction_deg and a.alarm_flags == b.alarm_flags
            and a.status_flags == b.status_flags)


def split_same_second(fixes: Iterable[Fix]) -> tuple[list[Fix], list[Fix]]:
    """(first fix per device and second, input order kept; the later fixes of a second that say something
    else). The track keeps one fix a second (gps' key); a repeat saying the same is a resend and not counted."""
    first: dict[tuple[int, Any], Fix] = {}
    out: list[Fix] = []
    other: list[Fix] = []
    for fix in fixes:
        key = (fix.device_id, fix.fix_at)
        kept = first.get(key)
        if kept is None:
            first[key] = fix
            out.append(fix)
        elif not same_position(kept, fix):
            other.append(fix)
    return out, other


def newest_per_device(fixes: Iterable[Fix]) -> list[Fix]:
    """The newest fix of each device (first one wins a tie). One upsert may touch a row only once."""
    newest: dict[int, Fix] = {}
    for fix in fixes:
        current = newest.get(fix.device_id)
        if current is None or fix.fix_at > current.fix_at:
            newest[fix.device_id] = fix
    return list(newest.values())


def days_touched(fixes: Iterable[Fix]) -> set[date]:
    """UTC days of the fixes: the gps partitions a batch needs."""
    return {fix.fix_at.astimezone(UTC).date() for fix in fixes}
