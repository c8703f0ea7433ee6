"""Alarm levels applied when alarms are written (streams/alarm_model.py ``_INSERT``, against the real
PostgreSQL, no Kafka): an alarm without a terminal-reported level gets its enterprise's ``alarm_level`` of
the key (the newest live row of the alarm's enterprise, else of its nearest ancestor), ADAS/DSM keep their own."""

from __future__ import annotations

import asyncio
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg

from fleet.alarm_catalog import AlarmKind
from streams.alarm_model import AlarmEpisode, store_episodes
from streams.db import Database

from .support import insert_terminals, query


@dataclass(frozen=True)
class Ref:
    enterprise_id: int
    car_id: int | None


def _level(conn: Any, enterprise_id: int, key: str, level: int, *, age_min: int = 0, state: int = 1) -> None:
    conn.execute("INSERT INTO alarm_level (enterprise_id, name, alarm_key, level, record_state, updated_at)"
                 " VALUES (%s, %s, %s, %s, %s, now() - make_interval(mins => %s))",
                 (enterprise_id, f"{key}-{secrets.token_hex(3)}", key, level, state, age_min))


def _episode(device_id: int, key: str, kind: AlarmKind, level: int | None, start: datetime) -> AlarmEpisode:
    end = start if kind in (AlarmKind.ADAS, AlarmKind.DSM) else None
    return AlarmEpisode(device_id=device_id, key=key, kind=int(kind), level=level, start=start, end=end, lat=39.9,
                        lng=116.4, speed=40.0, altitude=50.0, alarm_flags=0, message_seq=1)


def test_alarms_without_a_level_get_the_nearest_enterprises_newest_level(pg_url: str) -> None:
    [root_terminal] = insert_terminals(pg_url, 1, enterprise_name="levels-root")
    root = root_terminal.enterprise_id
    [child_terminal] = insert_terminals(pg_url, 1, enterprise_name="levels-child")
    child = child_terminal.enterprise_id
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("UPDATE enterprise SET parent_id = %s, path = %s WHERE id = %s", (root, f"/{root}/{child}/", child))
        _level(conn, root, "a0", 3, age_min=60)
        _level(conn, root, "a0", 2, age_min=5)        # the newer row of a key counts
        _level(conn, root, "a1", 3)
        _level(conn, child, "a1", 1, age_min=120)     # the nearest enterprise beats a newer ancestor row
        _level(conn, root, "p_overspeed", 1, age_min=1)
        _level(conn, root, "p_overspeed", 3, state=0)  # deleted: does not count
        _level(conn, root, "adas_1", 3)
        _level(conn, root, "adas_2", 3)
    t0 = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=3)
    child_device, root_device = child_terminal.device_id, root_terminal.device_id
    episodes = [
        _episode(child_device, "a0", AlarmKind.TERMINAL, None, t0),
        _episode(child_device, "a1", AlarmKind.TERMINAL, None, t0),
        _episode(child_device, "a2", AlarmKind.TERMINAL, None, t0),          # nobody gives a2 a level
        _episode(child_device, "p_overspeed", AlarmKind.PLATFORM, None, t0),
        _episode(child_device, "adas_1", AlarmKind.ADAS, 1, t0),             # the terminal's own level stays
        _episode(child_device, "adas_2", AlarmKind.ADAS, None, t0),          # none reported: the enterprise's
        _episode(root_device, "a1", AlarmKind.TERMINAL, None, t0),           # the parent's own alarm: its level
    ]
    devices = {child_device: Ref(child, child_terminal.car_id), root_device: Ref(root, root_terminal.car_id)}

    async def run() -> list[dict[str, Any]]:
        db = Database(pg_url, name="test")
        try:
            return await store_episodes(db, episodes, devices)
        finally:
            await db.close()

    rows = asyncio.run(run())
    assert {(r["device_id"], r["key"]): r["level"] for r in rows} == {
        (child_device, "a0"): 2, (child_device, "a1"): 1, (child_device, "a2"): None,
        (child_device, "p_overspeed"): 1, (child_device, "adas_1"): 1, (child_device, "adas_2"): 3,
        (root_device, "a1"): 3,
    }
    stored = query(pg_url, "SELECT key, level FROM alarm WHERE device_id = %s ORDER BY key", (child_device,))
    assert stored == [("a0", 2), ("a1", 1), ("a2", None), ("adas_1", 1), ("adas_2", 3), ("p_overspeed", 1)]


def test_a_fence_alarm_gets_the_level_of_its_kind_whatever_its_fence(pg_url: str) -> None:
    """One level per fence alarm kind (``fence_enter``, ``tfence_leave``: fleet.alarm_catalog.rule_key) applies
    to every fence's alarm of that kind; the row keeps its own key."""
    [terminal] = insert_terminals(pg_url, 1, enterprise_name="levels-fence")
    ent, device = terminal.enterprise_id, terminal.device_id
    with psycopg.connect(pg_url, autocommit=True) as conn:
        _level(conn, ent, "fence_enter", 3)
        _level(conn, ent, "tfence_leave", 1)
    t0 = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=3)
    episodes = [
        _episode(device, "fence:12:enter", AlarmKind.FENCE, None, t0),
        _episode(device, "fence:13:enter", AlarmKind.FENCE, None, t0),
        _episode(device, "fence:12:leave", AlarmKind.FENCE, None, t0),     # nobody gives leave a level
        _episode(device, "tfence:12:leave", AlarmKind.FENCE, None, t0),
    ]

    async def run() -> list[dict[str, Any]]:
        db = Database(pg_url, name="test")
        try:
            return await store_episodes(db, episodes, {device: Ref(ent, terminal.car_id)})
        finally:
            await db.close()

    rows = asyncio.run(run())
    assert {r["key"]: r["level"] for r in rows} == {
        "fence:12:enter": 3, "fence:13:enter": 3, "fence:12:leave": None, "tfence:12:leave": 1}
