"""Uplinks step "alarms" (after states): the batch's valid fixes -> ``alarm`` rows, pushes 2 / 13, 0x9208.

Sources (keys from fleet/alarm_catalog.py):

- 0x0200 alarm flag bits -> ``a<bit>`` (type 1), item 0x14 ``video_alarm_flags`` bits -> ``v<bit>`` (type 2):
  held episodes. A bit rising starts one (start = fix time, ``end_time`` NULL), falling ends it
  (``end_time`` = the fix time of the first fix without it).
- items 0x64-0x67 (``adas_alarm``, ``dsm_alarm``, ``tpms_alarm``, ``bsd_alarm``) -> ``adas_<type>``,
  ``dsm_<type>``, ``tpms_<bit>`` (each tyre event bit but 0, the timed report), ``bsd_<type>`` (types 5-8):
  instantaneous events (end = start = the item's time). ``flag`` 2 (the end of an event) adds nothing.

Per device the bits applied so far are kept in memory; they are rebuilt from the open (end_time NULL,
not backlog) rows when the step first runs (and after a rebalance), so a restarted worker neither raises
an episode twice nor loses its end. Inserts are ON CONFLICT (device_id, key, start_time) DO NOTHING: a
replayed uplink adds nothing and pushes nothing.

Backlog (each 0x0704 item, or a fix not newer than the device's newest one seen): stored with its own
times and ``backlog = true``, against a separate bit state (so it never ends or starts a live episode),
never pushed.

Pushes (streams.console) for each NEW non-backlog row: type 2 ``{alarmId, deviceId, carId, plateNumber,
type, key, level, desc, startTime (epoch ms), lat, lng, speed, state, warnUuid, atted, driverName}``; active
safety (5-8) also as type 13 with the same data. A new active-safety row with attachments (alarm_no
.attachments > 0) of a connected device gets a 0x9208 through the command path (streams.alarm_commands:
connected is online in its row, or heard from in this batch, whose uplinks' receipts it is given).

Cost: a fix without alarm flags, alarm items or open episodes is one dict look-up and two compares.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import psycopg

from fleet.alarm_catalog import SAFETY_ITEMS, VIDEO_FLAGS_ITEM, AlarmKind, describe, rule_key
from fleet.enums import PushType
from fleet.topics import CONSOLE_EVENTS
from protocols.jt808.catalogue import BATCH_LOCATION_UPLOAD
from streams import console
from streams.alarm_model import (
    ACTIVE_SAFETY_KINDS,
    AlarmEpisode,
    DeviceRef,
    close_episodes,
    insert_episodes,
)
from streams.db import DATA_ERRORS, Database
from streams.deadletter import Send, encode
from streams.messages import Fix, PayloadError, Uplink, parse_time
from streams.platform_alarms import PlatformAlarms, plan_into
from warehouse.queries import alarms

log = logging.getLogger(__name__)

SAFETY_EXTRAS: dict[str, tuple[str, AlarmKind]] = SAFETY_ITEMS  # the catalogue's: the track reads the same keys
VIDEO_FLAGS = VIDEO_FLAGS_ITEM
_ALARM_EXTRAS = frozenset((*SAFETY_EXTRAS, VIDEO_FLAGS))
FLAG_END = 2  # Jiangsu flag: 0 not applicable (instantaneous), 1 start, 2 end


@dataclass(slots=True)
class DeviceAlarms:
    """What the step knows of one device: the newest fix applied and the bits held (live and backlog)."""

    newest: datetime | None = None
    bits: int = 0           # 0x0200 alarm flags of the open live episodes
    video: int = 0          # 0x14 bits of the open live episodes
    backlog_bits: int = 0
    backlog_video: int = 0


@dataclass
class Planned:
    """One batch's work: episodes to insert, ends to apply (device, keys, end, backlog), in fix order."""

    episodes: list[AlarmEpisode] = field(default_factory=list)
    ends: list[tuple[int, list[str], datetime, bool]] = field(default_factory=list)
    devices: dict[int, Fix] = field(default_factory=dict)
    states: dict[int, DeviceAlarms] = field(default_factory=dict)  # the new state of each touched device


def _bit_keys(prefix: str, flags: int) -> list[str]:
    return [f"{prefix}{bit}" for bit in range(32) if flags >> bit & 1]


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def safety_episodes(fix: Fix, seq: int | None, backlog: bool) -> list[AlarmEpisode]:
    """The active-safety events of one fix (items 0x64-0x67)."""
    out: list[AlarmEpisode] = []
    for name, (prefix, kind) in SAFETY_EXTRAS.items():
        item = fix.extras.get(name)
        if not isinstance(item, dict) or item.get("flag") == FLAG_END:
            continue
        if kind == AlarmKind.TPMS:
            flags = 0
            for event in item.get("events") or ():
                if isinstance(event, dict):
                    flags |= _int(event.get("type")) or 0
            flags = (flags or _int(item.get("type")) or 0) & ~1  # bit 0: the timed report, not an alarm
            types = [bit for bit in range(16) if flags >> bit & 1]
        else:
            alarm_type = _int(item.get("type"))
            types = [] if alarm_type is None else [alarm_type]
        if not types:
            continue
        try:
            at = parse_time(item["time"], f"{name}.time") if item.get("time") else fix.fix_at
        except PayloadError:
            at = fix.fix_at
        alarm_no = item.get("alarm_no") if isinstance(item.get("alarm_no"), dict) else None
        attachments = _int((alarm_no or {}).get("attachments")) or 0
        level = _int(item.get("level"))
        for alarm_type in types:
            out.append(AlarmEpisode(
                device_id=fix.device_id, key=f"{prefix}_{alarm_type}", kind=int(kind), level=level,
                start=at, end=at, lat=fix.lat, lng=fix.lng, speed=fix.speed_kmh, altitude=fix.altitude_m,
                alarm_flags=fix.alarm_flags, message_seq=seq, details=item, alarm_no=alarm_no,
                attachments=attachments, backlog=backlog))
    return out


def _held(fix: Fix, seq: int | None, backlog: bool, prefix: str, kind: AlarmKind, old: int, new: int,
          planned: Planned) -> None:
    rose, fell = new & ~old, old & ~new
    for key in _bit_keys(prefix, rose):
        details = {"video_alarm_flags": new} if kind == AlarmKind.VIDEO else {}
        planned.episodes.append(AlarmEpisode(
            device_id=fix.device_id, key=key, kind=int(kind), level=None, start=fix.fix_at, end=None,
            lat=fix.lat, lng=fix.lng, speed=fix.speed_kmh, altitude=fix.altitude_m, alarm_flags=fix.alarm_flags,
            message_seq=seq, details=details, backlog=backlog))
    if fell:
        planned.ends.append((fix.device_id, _bit_keys(prefix, fell), fix.fix_at, backlog))


class AlarmsStep:
    """The step's state (per device) and its batch body. ``send`` produces to Kafka (pushes)."""

    def __init__(self, db: Database, send: Send, directory: Any,
                 request_attachments: Callable[[list[dict[str, Any]], dict[int, datetime]], Awaitable[Any]] | None = None
                 ) -> None:
        self.db, self.send, self.directory = db, send, directory
        self.request_attachments = request_attachments  # 0x9208 (streams.alarm_commands); None: off
        self.devices: dict[int, DeviceAlarms] = {}
        self.loaded = False
        self.rows_stored = 0
        self.platform = PlatformAlarms(db)  # platform rules (streams.platform_alarms)

    def clear(self) -> None:
        """Forget everything (a rebalance: another worker may have moved the devices on); rebuilt on next use."""
        self.devices.clear()
        self.loaded = False
        self.platform.clear()

    async def rebuild(self) -> None:
        """Bits of the open live episodes, per device (one query on the partial index alarm_open)."""
        async def work(conn: psycopg.AsyncConnection[Any]) -> list[tuple[Any, ...]]:
            return await alarms.open_terminal_alarms_async(conn)

        devices: dict[int, DeviceAlarms] = {}
        for device_id, key, start in await self.db.transact(work):
            state = devices.setdefault(device_id, DeviceAlarms())
            bit = int(key[1:]) if key[1:].isdigit() else -1
            if not 0 <= bit < 32:
                continue
            if key[0] == "a":
                state.bits |= 1 << bit
            elif key[0] == "v":
                state.video |= 1 << bit
            if state.newest is None or start > state.newest:
                state.newest = start
        self.devices = devices
        self.loaded = True

    def plan(self, uplinks: Sequence[Uplink | PayloadError], fixes_by_event: Sequence[Sequence[Fix]]) -> Planned:
        """The batch's episodes and ends, in fix order; the new states of devices with alarm input in
        ``states`` (kept by ``handle`` after the commit); quiet fixes only move ``newest`` in place."""
        planned = Planned()
        known = self.devices
        pending = planned.states
        for uplink, fixes in zip(uplinks, fixes_by_event, strict=True):
            if not fixes or isinstance(uplink, PayloadError):
                continue
            batch_upload = uplink.msg_id == BATCH_LOCATION_UPLOAD
            for fix in fixes:
                dev = fix.device_id
                state = pending.get(dev) or known.get(dev)
                extras = fix.extras
                quiet = not fix.alarm_flags and (not extras or _ALARM_EXTRAS.isdisjoint(extras))
                if state is None:
                    if quiet:
                        if not batch_upload:  # a device without alarms: just its newest fix time
                            known[dev] = DeviceAlarms(newest=fix.fix_at)
                        continue
                    state = DeviceAlarms()
                backlog = batch_upload or (state.newest is not None and fix.fix_at <= state.newest)
                if quiet and not (state.bits or state.video or state.backlog_bits or state.backlog_video):
                    if not backlog:
                        state.newest = fix.fix_at
                    continue
                new = DeviceAlarms(state.newest, state.bits, state.video, state.backlog_bits, state.backlog_video)
                video_flags = _int(extras.get(VIDEO_FLAGS)) if extras else None
                flags = fix.alarm_flags & 0xFFFFFFFF
                if backlog:
                    _held(fix, uplink.seq, True, "a", AlarmKind.TERMINAL, new.backlog_bits, flags, planned)
                    new.backlog_bits = flags
                    if video_flags is not None or new.backlog_video:  # no 0x14 item: no video alarm
                        vflags = video_flags or 0
                        _held(fix, uplink.seq, True, "v", AlarmKind.VIDEO, new.backlog_video, vflags, planned)
                        new.backlog_video = vflags
                else:
                    new.newest = fix.fix_at
                    _held(fix, uplink.seq, False, "a", AlarmKind.TERMINAL, new.bits, flags, planned)
                    new.bits = flags
                    if video_flags is not None or new.video:  # no 0x14 item: no video alarm
                        vflags = video_flags or 0
                        _held(fix, uplink.seq, False, "v", AlarmKind.VIDEO, new.video, vflags, planned)
                        new.video = vflags
                if extras:
                    planned.episodes.extend(safety_episodes(fix, uplink.seq, backlog))
                pending[dev] = new
                planned.devices.setdefault(dev, fix)
        return planned

    async def handle(self, uplinks: Sequence[Uplink | PayloadError], fixes_by_event: Sequence[Sequence[Fix]],
                     refuse: Callable[[int, str], None] | None = None) -> int:
        """Store the batch's alarms (one transaction), keep the new state, push. Returns new rows.

        A device whose rows the database refuses as data: its uplinks go to ``refuse(index, reason)`` (the
        pipeline dead-letters them for this step, replayable), the other devices' alarms are stored."""
        if not self.loaded:
            await self.rebuild()
        planned = self.plan(uplinks, fixes_by_event)
        await plan_into(self.platform, planned, uplinks, fixes_by_event)
        if not planned.episodes and not planned.ends:
            self.devices.update(planned.states)
            return 0
        try:
            rows = await self._write(planned.episodes, planned.ends, planned.devices)
        except DATA_ERRORS as exc:  # e.g. a device deleted meanwhile: device by device, the rest still lands
            log.info("alarms batch refused (%s); writing device by device", exc)
            rows = []
            for dev, fix in planned.devices.items():
                try:
                    rows += await self._write([e for e in planned.episodes if e.device_id == dev],
                                              [e for e in planned.ends if e[0] == dev], {dev: fix})
                except DATA_ERRORS as dev_exc:
                    log.warning("alarms of device %s refused: %s", dev, dev_exc)
                    if refuse is not None:
                        for index, fixes in enumerate(fixes_by_event):
                            if any(fix.device_id == dev for fix in fixes):
                                refuse(index, f"alarms refused by the database: {dev_exc}")
        self.devices.update(planned.states)
        self.rows_stored += len(rows)
        for row in rows:
            if not row["backlog"]:
                await self._push(row)
        if self.request_attachments is not None:
            wanted = [r for r in rows if r["type"] in ACTIVE_SAFETY_KINDS and r["attachment_count"] > 0]
            if wanted:
                try:
                    await self.request_attachments(wanted, heard_from(uplinks))
                except Exception:  # a bug: the alarm stays without attachments; never stop the batch
                    log.exception("alarms: 0x9208 not sent")
        return len(rows)

    async def _write(self, episodes: list[AlarmEpisode], ends: list[tuple[int, list[str], datetime, bool]],
                     devices: Mapping[int, DeviceRef]) -> list[dict[str, Any]]:
        async def work(conn: psycopg.AsyncConnection[Any]) -> list[dict[str, Any]]:
            rows = await insert_episodes(conn, episodes, devices)
            for device_id, keys, end, backlog in ends:
                await close_episodes(conn, device_id, keys, end, backlog=backlog)
            return rows

        return await self.db.transact(work)

    async def _push(self, row: dict[str, Any]) -> None:
        data = push_data(row)
        ent = row["enterprise_id"]
        for push_type in (PushType.ALARM, PushType.AI_ALARM) if row["type"] in ACTIVE_SAFETY_KINDS else (PushType.ALARM,):
            payload = console.push_event(ent, row["enterprise_path"], push_type, data)
            await self.send(CONSOLE_EVENTS, str(ent).encode(), encode(payload))


def heard_from(uplinks: Sequence[Uplink | PayloadError]) -> dict[int, datetime]:
    """Each device's latest uplink receipt in the batch (a terminal just heard from is connected)."""
    heard: dict[int, datetime] = {}
    for uplink in uplinks:
        if isinstance(uplink, Uplink) and (uplink.device_id not in heard or uplink.received_at > heard[uplink.device_id]):
            heard[uplink.device_id] = uplink.received_at
    return heard


def push_data(row: dict[str, Any]) -> dict[str, Any]:
    """Push 2 / 13 data of a stored alarm row (alarm_model.RETURNED keys). ``ruleKey``: the key of the
    notification rule that governs the alarm (``fleet.alarm_catalog.rule_key``: a fence alarm's kind), which
    the console's pop-up and voice look up instead of repeating the resolution."""
    start: datetime = row["start_time"]
    return {
        "alarmId": row["id"], "deviceId": row["device_id"], "carId": row["car_id"],
        "plateNumber": row["plate_number"], "type": row["type"], "key": row["key"], "level": row["level"],
        "ruleKey": rule_key(row["key"]),
        "desc": describe(row["key"], row["level"]), "startTime": int(start.timestamp() * 1000),
        "lat": row["lat"], "lng": row["lng"], "speed": row["speed"], "state": row["state"],
        "warnUuid": row["warn_uuid"], "atted": row["atted"], "driverName": row["driver_name"],
    }
