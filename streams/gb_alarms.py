"""GB/T 32960 / GB 17691 alarms -> ``alarm`` rows of type 9 (``AlarmKind.NEV``), pushes 2 (the step
"gb_alarms" of streams/gb_uplinks.py).

Keys (fleet/alarm_catalog.py): ``gb<bit>`` for each general alarm flag of the alarm block (32960-2016 table 19,
bits 0-18; the 2025 edition's bits 19-27 too), ``gbf_battery`` / ``gbf_motor`` / ``gbf_engine`` / ``gbf_other`` while that fault-code list is
not empty (the codes in ``details.codes``), ``obd_mil`` while the 17691 OBD block reports the MIL on and
``obd_fault`` while its fault-code list is not empty. Like the 808 alarm bits (streams/alarms.py) they are
held episodes: raised once when the key appears (start = the frame's collection time), ended by the first
later frame whose alarm block no longer has it (a frame without the block changes nothing).

Level: the frame's highest alarm level (32960 table 18: 1 does not affect driving ... 3 stop at once), or a
general flag's own level where a 2025 frame's general fault list gives one (``key_level``), mapped to the
product's (1 highest ... 3, migration 0022): 3 -> 1, 2 -> 2, 1 -> 3; level 0, another value or abnormal
leaves it to the enterprise's alarm_level of the key, as for every other alarm.

Open keys per device are kept in memory and rebuilt from the open type-9 rows on first use (and after a
rebalance). Back-filled frames (0x03) and frames not newer than the device's newest applied one start or
end nothing: their alarms stay on their track points (gps.extras.gb_alarm). Inserts are ON CONFLICT
(device, key, start) DO NOTHING, so a replay stores and pushes nothing again.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import psycopg

from fleet.alarm_catalog import GB_FAULT_KEYS, AlarmKind
from fleet.enums import PushType
from fleet.topics import CONSOLE_EVENTS
from streams import console
from streams.alarm_model import AlarmEpisode, close_episodes, insert_episodes
from streams.alarms import push_data
from streams.db import DATA_ERRORS, Database
from streams.deadletter import Send, encode
from streams.gb_frames import GbAlarm, GbFrame
from streams.messages import PayloadError
from warehouse.queries import alarms

log = logging.getLogger(__name__)

LEVELS = {3: 1, 2: 2, 1: 3}  # GB/T 32960.3 table 18 level -> alarm.level (1 highest)


def alarm_keys(alarm: GbAlarm) -> dict[str, dict[str, Any]]:
    """The keys a frame's alarm block holds, with the details each alarm row keeps."""
    keys: dict[str, dict[str, Any]] = {}
    flags = alarm.flags  # masked to its edition's bits (streams/gb_frames.py): each set bit is a key
    while flags:
        low = flags & -flags
        keys[f"gb{low.bit_length() - 1}"] = {}
        flags ^= low
    for name, codes in alarm.faults.items():
        if codes:
            keys[GB_FAULT_KEYS[name]] = {"codes": codes}
    if alarm.mil:
        keys[GB_FAULT_KEYS["mil"]] = {}
    return keys


def key_level(alarm: GbAlarm, key: str) -> int | None:
    """The standard's level of one key: a general flag's own level where the frame lists it (the 2025
    edition's general fault list), else the frame's highest level."""
    if key.startswith("gb") and key[2:].isdigit():
        return alarm.levels.get(int(key[2:]), alarm.level)
    return alarm.level


@dataclass(slots=True)
class DeviceKeys:
    newest: datetime | None = None
    keys: frozenset[str] = frozenset()


@dataclass
class Planned:
    episodes: list[AlarmEpisode] = field(default_factory=list)
    ends: list[tuple[int, list[str], datetime]] = field(default_factory=list)
    devices: dict[int, GbFrame] = field(default_factory=dict)
    states: dict[int, DeviceKeys] = field(default_factory=dict)


def plan(frames: Sequence[GbFrame | PayloadError], known: dict[int, DeviceKeys]) -> Planned:
    """Episodes to raise and keys to end, per device in collection-time order (pure)."""
    planned = Planned()
    ordered = sorted((f for f in frames if isinstance(f, GbFrame) and f.alarm is not None
                      and f.collected_at is not None and not f.backfilled),
                     key=lambda f: (f.device_id, f.collected_at))
    for frame in ordered:
        at, alarm = frame.collected_at, frame.alarm
        assert at is not None and alarm is not None
        state = planned.states.get(frame.device_id) or known.get(frame.device_id) or DeviceKeys()
        if state.newest is not None and at <= state.newest:
            continue
        now = alarm_keys(alarm)
        rose = [k for k in now if k not in state.keys]
        fell = sorted(state.keys - now.keys())
        fix = frame.fix
        for key in rose:
            gb_level = key_level(alarm, key)
            planned.episodes.append(AlarmEpisode(
                device_id=frame.device_id, key=key, kind=int(AlarmKind.NEV),
                level=LEVELS.get(gb_level) if gb_level is not None else None, start=at, end=None,
                lat=fix.lat if fix else 0.0, lng=fix.lng if fix else 0.0, speed=fix.speed_kmh if fix else 0.0,
                altitude=0.0, alarm_flags=alarm.flags, message_seq=None,
                details={**now[key], "gbLevel": gb_level, "vin": frame.uplink.vin}))
        if fell:
            planned.ends.append((frame.device_id, fell, at))
        planned.states[frame.device_id] = DeviceKeys(at, frozenset(now))
        planned.devices.setdefault(frame.device_id, frame)
    return planned


class GbAlarms:
    """The step's state (open keys per device) and its batch body; ``send`` produces the pushes."""

    def __init__(self, db: Database, send: Send) -> None:
        self.db, self.send = db, send
        self.devices: dict[int, DeviceKeys] = {}
        self.loaded = False
        self.rows_stored = 0

    def clear(self) -> None:
        self.devices.clear()
        self.loaded = False

    async def rebuild(self) -> None:
        async def work(conn: psycopg.AsyncConnection[Any]) -> list[tuple[Any, ...]]:
            return await alarms.open_alarm_keys_async(conn, int(AlarmKind.NEV))

        open_keys: dict[int, set[str]] = {}
        for device_id, key in await self.db.transact(work):
            open_keys.setdefault(device_id, set()).add(key)
        self.devices = {dev: DeviceKeys(None, frozenset(keys)) for dev, keys in open_keys.items()}
        self.loaded = True

    async def handle(self, frames: Sequence[GbFrame | PayloadError], refuse: Callable[[int, str], None]) -> int:
        """Store the batch's episodes and ends (one transaction), keep the new state, push 2 for new rows.
        A device whose rows the database refuses: its frames refused (dead-lettered for this step)."""
        if not self.loaded:
            await self.rebuild()
        planned = plan(frames, self.devices)
        if not planned.episodes and not planned.ends:
            self.devices.update(planned.states)
            return 0
        try:
            rows = await self._write(planned.episodes, planned.ends, planned.devices)
        except DATA_ERRORS as exc:
            log.info("gb alarms batch refused (%s); writing device by device", exc)
            rows = []
            for dev, frame in planned.devices.items():
                try:
                    rows += await self._write([e for e in planned.episodes if e.device_id == dev],
                                              [e for e in planned.ends if e[0] == dev], {dev: frame})
                except DATA_ERRORS as dev_exc:
                    planned.states.pop(dev, None)
                    for index, item in enumerate(frames):
                        if isinstance(item, GbFrame) and item.device_id == dev:
                            refuse(index, f"alarms refused by the database: {dev_exc}")
        self.devices.update(planned.states)
        self.rows_stored += len(rows)
        for row in rows:
            payload = console.push_event(row["enterprise_id"], row["enterprise_path"], PushType.ALARM, push_data(row))
            await self.send(CONSOLE_EVENTS, str(row["enterprise_id"]).encode(), encode(payload))
        return len(rows)

    async def _write(self, episodes: list[AlarmEpisode], ends: list[tuple[int, list[str], datetime]],
                     devices: dict[int, GbFrame]) -> list[dict[str, Any]]:
        async def work(conn: psycopg.AsyncConnection[Any]) -> list[dict[str, Any]]:
            rows = await insert_episodes(conn, episodes, devices)
            for device_id, keys, end in ends:
                await close_episodes(conn, device_id, keys, end, backlog=False)
            return rows

        return await self.db.transact(work)
