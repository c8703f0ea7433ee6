"""The ``alarm`` rows (migration 0018) as the streams steps write them: ``AlarmEpisode`` in, rows out.

Shared by the alarms step (streams/alarms.py: 0x0200 bits, 0x14 video bits, active safety 0x64-0x67)
and the platform rules (streams/platform_alarms.py). Nothing here pushes or sends: the caller does,
for the rows ``store_episodes`` reports as new.

- ``store_episodes(db, episodes, devices)``: one INSERT per call (``unnest``), ON CONFLICT (device_id,
  key, start_time) DO NOTHING, so a replayed uplink adds nothing and reports nothing. Plate, driver and
  phone are copied from the car / device at insert time; enterprise and car from ``devices`` (the
  uplink's, i.e. as at the fix) or else the device row. ``level``: the episode's (ADAS/DSM report their
  own 1/2), else the enterprise's ``alarm_level`` of the key's rule key (``fleet.alarm_catalog.rule_key``: a
  fence alarm's is its kind's, ``fence_enter``) (the newest live row of the alarm's enterprise,
  else of its nearest ancestor that has one), else NULL: a sub-select inside the same INSERT, run only
  for rows without a level (migration 0022 documents the column). Active-safety rows (kinds 5-8) get a new
  32-hex ``warn_uuid`` (what 0x9208 carries). Returns the new rows as dicts (``RETURNED`` keys).
- ``end_episodes(db, device_id, keys, end)``: sets ``end_time`` of the device's open rows of ``keys``
  that started at or before ``end``; returns how many were ended.

The statements are warehouse/queries/alarms.py's (the alarm table family); this module keeps the episode
model and the rows' order.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

import orjson
import psycopg

from fleet.alarm_catalog import rule_key
from streams.db import Database
from warehouse.queries import alarms

ACTIVE_SAFETY_KINDS = frozenset({5, 6, 7, 8})  # fleet.alarm_catalog.AlarmKind ADAS, DSM, TPMS, BSD


@dataclass
class AlarmEpisode:
    """One alarm to store: a held episode (``end`` None while it lasts) or an instantaneous event."""

    device_id: int
    key: str
    kind: int
    level: int | None
    start: datetime
    end: datetime | None
    lat: float
    lng: float
    speed: float
    altitude: float
    alarm_flags: int
    message_seq: int | None
    details: dict[str, Any] = field(default_factory=dict)
    alarm_no: dict[str, Any] | None = None
    attachments: int = 0
    backlog: bool = False


class DeviceRef(Protocol):
    """What ``store_episodes`` reads of ``devices[device_id]`` (a streams.messages.Fix or Uplink fits)."""

    @property
    def enterprise_id(self) -> int: ...

    @property
    def car_id(self) -> int | None: ...


RETURNED = ("id", "enterprise_id", "enterprise_path", "device_id", "car_id", "plate_number", "driver_id",
            "driver_name", "phone", "type", "key", "level", "start_time", "end_time", "lat", "lng", "speed",
            "altitude", "alarm_flags", "message_seq", "warn_uuid", "alarm_no", "attachment_count", "atted",
            "state", "backlog", "details")

def _json(value: dict[str, Any] | None) -> str | None:
    return None if value is None else orjson.dumps(value, default=str).decode()


def insert_params(episodes: Sequence[AlarmEpisode], devices: Mapping[int, DeviceRef]) -> dict[str, list[Any]]:
    """Column arrays of ``warehouse.queries.alarms.insert_episodes_async`` (pure; a new warn_uuid per active-safety episode)."""
    cols: dict[str, list[Any]] = {name: [] for name in (
        "device_id", "enterprise_id", "car_id", "type", "key", "level", "start_time", "end_time", "lat", "lng",
        "speed", "altitude", "alarm_flags", "message_seq", "warn_uuid", "alarm_no", "attachment_count",
        "backlog", "details", "rule_key")}

    def rollup_order(ep: AlarmEpisode) -> tuple[int, str, datetime, int]:
        ref = devices.get(ep.device_id)
        return (0 if ref is None else ref.enterprise_id or 0, ep.key, ep.start, ep.device_id)

    # Rows in one order everywhere (enterprise, key, start): migration 0021's triggers upsert a
    # per-enterprise/day/key counter for each row, so two workers inserting the same counters in
    # different orders could deadlock.
    for ep in sorted(episodes, key=rollup_order):
        ref = devices.get(ep.device_id)
        cols["device_id"].append(ep.device_id)
        cols["enterprise_id"].append(None if ref is None else ref.enterprise_id)
        cols["car_id"].append(None if ref is None else ref.car_id)
        cols["type"].append(int(ep.kind))
        cols["key"].append(ep.key)
        cols["level"].append(ep.level)
        cols["start_time"].append(ep.start)
        cols["end_time"].append(ep.end)
        cols["lat"].append(ep.lat)
        cols["lng"].append(ep.lng)
        cols["speed"].append(ep.speed)
        cols["altitude"].append(ep.altitude)
        cols["alarm_flags"].append(ep.alarm_flags)
        cols["message_seq"].append(ep.message_seq)
        cols["warn_uuid"].append(uuid.uuid4().hex if int(ep.kind) in ACTIVE_SAFETY_KINDS else None)
        cols["alarm_no"].append(_json(ep.alarm_no))
        cols["attachment_count"].append(max(0, min(int(ep.attachments), 32767)))
        cols["backlog"].append(ep.backlog)
        cols["details"].append(_json(ep.details))
        cols["rule_key"].append(rule_key(ep.key))  # the key of its alarm level (a fence alarm: its kind's)
    return cols


async def insert_episodes(conn: psycopg.AsyncConnection[Any], episodes: Sequence[AlarmEpisode],
                          devices: Mapping[int, DeviceRef]) -> list[dict[str, Any]]:
    """``store_episodes`` inside the caller's transaction."""
    if not episodes:
        return []
    return await alarms.insert_episodes_async(conn, insert_params(episodes, devices))


async def close_episodes(conn: psycopg.AsyncConnection[Any], device_id: int, keys: Iterable[str],
                         end: datetime, *, backlog: bool | None = None) -> int:
    """``end_episodes`` inside the caller's transaction (``backlog``: only rows with that flag)."""
    keys = list(keys)
    if not keys:
        return 0
    return await alarms.end_episodes_async(conn, device_id, keys, end, backlog)


async def store_episodes(db: Database, episodes: Sequence[AlarmEpisode],
                         devices: Mapping[int, DeviceRef]) -> list[dict[str, Any]]:
    """Insert the episodes (idempotent); returns the NEW rows only (with id, plate, enterprise path).
    Raises only DATA_ERRORS (streams.db), e.g. for an unknown device."""
    if not episodes:
        return []

    async def work(conn: psycopg.AsyncConnection[Any]) -> list[dict[str, Any]]:
        return await insert_episodes(conn, episodes, devices)

    return await db.transact(work)


async def end_episodes(db: Database, device_id: int, keys: Iterable[str], end: datetime, *,
                       backlog: bool | None = None) -> int:
    """End the device's open episodes of ``keys`` at ``end`` (only those that started by then; ``backlog``:
    only rows with that flag); returns how many were ended."""
    keys = list(keys)
    if not keys:
        return 0

    async def work(conn: psycopg.AsyncConnection[Any]) -> int:
        return await close_episodes(conn, device_id, keys, end, backlog=backlog)

    return await db.transact(work)

