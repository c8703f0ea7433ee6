"""Positions agent steps: uplinks in, ``gps`` rows and ``device_last`` out, refusals dead-lettered.

One batch (``streams.take``) goes through, in order:

1. ``plan_batch``      pure: decode each uplink, classify its fixes (streams.validation); a fix dated
                       implausibly far from its receipt is kept with a quality bit (gps.quality).
1b. ``assess``         teleports flagged (streams.plausibility), flagged fixes counted per local day of
                       receipt in ``gps_reject_day`` (the qualification KPI's unqualified points).
2. ``warehouse.partitions.DayPartitions`` make sure the gps partitions of the batch's days exist (cached per day).
3. ``write_fixes``     one transaction: gps rows by binary COPY (a batch repeating a stored position is
                       written again with INSERT ... ON CONFLICT DO NOTHING), upsert device_last
                       from the same binary rows (COPY into a temporary table; newer fix wins), delete the track day summaries of closed days a late fix
                       lands in (warehouse.track_days), mark the closed local report days it lands in
                       (report_dirty_day) and count the batch's refusals (gps_reject_day); none of
                       those three statements runs for a batch of today's valid fixes (the statements:
                       warehouse/queries/position_sink.py). Outages are retried
                       inside (streams.db), so this returns only after the rows are durable.
4. ``write_batch``     when the database refuses the batch's data, write uplink by uplink to find the
                       culprit(s), which are dead-lettered; the others are still written.
5. the caller sends the dead letters, then acks the batch's events (and only then may Faust commit).
"""

from __future__ import annotations

import dataclasses
import functools
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, tzinfo
from typing import Any
from zoneinfo import ZoneInfo

import psycopg

from streams import fix_batches
from streams.db import DATA_ERRORS, Database
from streams.deadletter import DeadLetters, EventLike
from streams.messages import Fix, PayloadError, RefusedFrame, Uplink, parse_uplink
from streams.plausibility import TeleportGuard, count_flagged
from streams.validation import QUALITY_TIME, Limits, classify_uplink, reason_class
from warehouse.partitions import DayPartitions
from warehouse.queries import position_sink

log = logging.getLogger(__name__)
REPORT_ZONE: tzinfo = ZoneInfo("Asia/Shanghai")  # the default of FLEET_REPORT_TZ; the app passes the setting


@dataclass
class PlannedBatch:
    """Valid fixes per event (index-aligned with the batch) and refusals as (event index, reason); the fixes
    the states step uses per event (``streams.validation.usable_for_state``; filled by ``plan_decoded``)."""

    fixes_by_event: list[list[Fix]] = field(default_factory=list)
    state_fixes_by_event: list[list[Fix]] = field(default_factory=list)
    rejects: list[tuple[int, str]] = field(default_factory=list)
    # refusals counted for the KPI (gps_reject_day): (local day of receipt, device, reason class, enterprise) -> n
    reject_counts: dict[tuple[date, int, str, int], int] = field(default_factory=dict)

    @property
    def fixes(self) -> list[Fix]:
        return [fix for fixes in self.fixes_by_event for fix in fixes]


def decode_batch(values: Sequence[Any]) -> list[Uplink | PayloadError]:
    """Each value parsed once (the uplinks agent shares the result between its steps)."""
    out: list[Uplink | PayloadError] = []
    for value in values:
        try:
            out.append(parse_uplink(value))
        except PayloadError as exc:
            out.append(exc)
    return out


def plan_batch(values: Sequence[Any], limits: Limits, zone: tzinfo = REPORT_ZONE) -> PlannedBatch:
    """Step 1, pure. Uplinks that are not positions yield no fixes and no refusal."""
    return plan_decoded(decode_batch(values), limits, zone)


def plan_decoded(uplinks: Sequence[Uplink | PayloadError], limits: Limits, zone: tzinfo = REPORT_ZONE) -> PlannedBatch:
    """Step 1 on already parsed uplinks (a PayloadError stands for a value that did not parse). A refusal
    of a parsed uplink is also counted per local day of receipt (``zone``), device and reason class."""
    plan = PlannedBatch()
    for index, uplink in enumerate(uplinks):
        try:
            if isinstance(uplink, RefusedFrame):  # the gateway refused it: logged, not dead-lettered
                plan.fixes_by_event.append([])
                plan.state_fixes_by_event.append([])
                continue
            if isinstance(uplink, PayloadError):
                raise uplink
            classified = classify_uplink(uplink, limits)
        except PayloadError as exc:
            plan.fixes_by_event.append([])
            plan.state_fixes_by_event.append([])
            plan.rejects.append((index, str(exc)))
            continue
        plan.fixes_by_event.append(classified.fixes)
        plan.state_fixes_by_event.append(classified.state_fixes)
        if classified.rejects:
            plan.rejects.extend((index, reason) for reason in classified.rejects)
            day = uplink.received_at.astimezone(zone).date()
            for reason in classified.rejects:
                key = (day, uplink.device_id, reason_class(reason), uplink.enterprise_id)
                plan.reject_counts[key] = plan.reject_counts.get(key, 0) + 1
    return plan


def local_midnight(zone: tzinfo, now: datetime | None = None) -> datetime:
    """Today's start in the report zone (fixes before it belong to closed report days)."""
    local = (now or datetime.now(UTC)).astimezone(zone)
    # as UTC: the fixes' own zone, so the per-fix comparison skips the zone arithmetic (~5x cheaper)
    return local.replace(hour=0, minute=0, second=0, microsecond=0).astimezone(UTC)


async def write_fixes(db: Database, fixes: Sequence[Fix], zone: tzinfo = REPORT_ZONE,
                      reject_counts: dict[tuple[date, int, str, int], int] | None = None) -> None:
    """Step 3: gps rows and device_last in one transaction, with the track day summaries and report days a
    late fix makes stale, and the batch's refusal counts (statements run only when there is something to
    mark or count). Raises only DATA_ERRORS."""
    rows, other = fix_batches.split_same_second(fixes)
    if other:
        reject_counts = _count_same_second(other, dict(reject_counts or {}), zone)
    if not rows and not reject_counts:
        return
    # A flagged fix is stored but never moves device_last (the live map keeps the last plausible fix);
    # one dated implausibly belongs to no report day or track summary it would make stale.
    flagged = any(f.quality for f in rows)
    plausible = [f for f in rows if not f.quality] if flagged else rows
    dated = [f for f in rows if not f.quality & QUALITY_TIME] if flagged else rows
    newest = fix_batches.newest_per_device(plausible)
    stale = fix_batches.closed_days(dated, datetime.now(UTC).date())
    dirty = fix_batches.dirty_report_days(dated, local_midnight(zone), zone)

    copy = position_sink.copy_data(rows) if rows else b""
    # one plausible fix per device (the usual case): device_last's rows are gps's, byte for byte
    last_copy = copy if not flagged and len(newest) == len(rows) else position_sink.copy_data(newest)

    async def work(conn: psycopg.AsyncConnection[Any], *, skip_stored: bool = False) -> None:
        counts = reject_counts
        if rows:
            if skip_stored:
                written = await position_sink.insert_gps_async(conn, rows)
                skipped = [f for f in rows if (f.device_id, f.fix_at) not in written]
                differing = await _differing_from_stored(conn, skipped) if skipped else []
                if differing:
                    counts = _count_same_second(differing, dict(counts or {}), zone)
            else:
                await position_sink.copy_gps_async(conn, copy)
            if newest:
                await position_sink.upsert_device_last_async(conn, last_copy)
        if stale:
            await position_sink.invalidate_track_days_async(conn, stale)
        if dirty:
            await position_sink.mark_dirty_days_async(conn, dirty)
        if counts:
            await position_sink.count_rejects_async(conn, counts)

    try:
        await db.transact(work)
    except psycopg.errors.UniqueViolation:  # a position already stored (replay, resend): skip it
        await db.transact(functools.partial(work, skip_stored=True))


SAME_SECOND = "same_second"


def _count_same_second(fixes: Sequence[Fix], counts: dict[tuple[date, int, str, int], int],
                       zone: tzinfo) -> dict[tuple[date, int, str, int], int]:
    """Count (and log) fixes the track does not keep because their device already has a fix that second."""
    for fix in fixes:
        key = (fix.received_at.astimezone(zone).date(), fix.device_id, SAME_SECOND, fix.enterprise_id)
        counts[key] = counts.get(key, 0) + 1
    first = fixes[0]
    log.info("%d fix(es) not kept in the track: their device already has a fix at that second (e.g. device %d "
             "at %s: %.6f, %.6f)", len(fixes), first.device_id, first.fix_at.isoformat(), first.lat, first.lng)
    return counts


async def _differing_from_stored(conn: psycopg.AsyncConnection[Any], fixes: Sequence[Fix]) -> list[Fix]:
    """Of fixes whose (device, second) is stored already, those that say something else than the stored one."""
    rows = await position_sink.stored_fixes_async(conn, [f.device_id for f in fixes], [f.fix_at for f in fixes])
    stored = {(row[0], row[1]): row for row in rows}
    differing = []
    for fix in fixes:
        row = stored.get((fix.device_id, fix.fix_at))
        if row is None:
            continue
        _, _, lat, lng, speed, direction, alarm_flags, status_flags = row
        kept = dataclasses.replace(fix, lat=lat, lng=lng, speed_kmh=speed, direction_deg=direction,
                                   alarm_flags=alarm_flags, status_flags=status_flags)
        if not fix_batches.same_position(kept, fix):
            differing.append(fix)
    return differing


async def write_batch(db: Database, plan: PlannedBatch, zone: tzinfo = REPORT_ZONE) -> list[tuple[int, str]]:
    """Step 4: write the batch; on a data error isolate it per event. Returns (event index, error)."""
    try:
        await write_fixes(db, plan.fixes, zone, plan.reject_counts)
        return []
    except DATA_ERRORS as exc:
        log.info("batch refused (%s); writing uplink by uplink", exc)
    failed: list[tuple[int, str]] = []
    for index, fixes in enumerate(plan.fixes_by_event):
        try:
            await write_fixes(db, fixes, zone)
        except DATA_ERRORS as exc:
            failed.append((index, f"database refused: {type(exc).__name__}: {exc}".strip()))
    if plan.reject_counts:
        try:
            await write_fixes(db, [], zone, plan.reject_counts)
        except DATA_ERRORS as exc:  # counts only: never fail the batch for them
            log.warning("refusal counts not stored: %s", exc)
    return failed


class PositionsProcessor:
    """The positions agent's body for one batch of events (no Faust in here)."""

    def __init__(self, db: Database, partitions: DayPartitions | None, dead_letters: DeadLetters,
                 limits: Limits, zone: tzinfo = REPORT_ZONE) -> None:
        self.db = db
        self.partitions = partitions
        self.dead_letters = dead_letters
        self.limits = limits
        self.zone = zone  # the report day's zone (FLEET_REPORT_TZ): late fixes mark closed local days
        self.rows_written = 0
        self.teleports = TeleportGuard(limits)

    async def process(self, events: Sequence[EventLike]) -> None:
        """Returns once every event is written or dead-lettered; the caller then acks them all."""
        plan = plan_batch([event.value for event in events], self.limits, self.zone)
        await self.assess(plan)
        await self.process_planned(events, plan)

    async def assess(self, plan: PlannedBatch) -> None:
        """Step 1b: flag the plan's teleports (in place) and count its flagged fixes for the KPI. The
        memory of a device unseen so far starts from device_last; if that read fails, from this batch."""
        fixes = plan.fixes
        if not fixes:
            return
        try:
            await self.teleports.prime(self.db, fixes)
        except DATA_ERRORS as exc:  # pragma: no cover - device_last is ours; never block ingest for it
            log.warning("teleport check: device_last not read: %s", exc)
        assess = self.teleports.assess
        plan.fixes_by_event = [[assess(fix) for fix in event_fixes] if event_fixes else event_fixes
                               for event_fixes in plan.fixes_by_event]
        count_flagged(plan.fixes, plan.reject_counts, self.zone)

    async def process_planned(self, events: Sequence[EventLike], plan: PlannedBatch) -> None:
        """Steps 2-5 for a batch planned by the caller (``plan_decoded``), index-aligned with ``events``."""
        fixes = plan.fixes
        if self.partitions is not None and fixes:
            await self.partitions.ensure(fix_batches.days_touched(fixes))
        failed = await write_batch(self.db, plan, self.zone)
        failed_events = {index for index, _ in failed}
        self.rows_written += sum(
            len(f) for i, f in enumerate(plan.fixes_by_event) if i not in failed_events
        )
        for index, reason in sorted(plan.rejects + failed):
            await self.dead_letters(events[index], reason)
