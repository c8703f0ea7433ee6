"""A late fix (0x0704 backlog) for a closed UTC day deletes that day's track summary in the positions
write (warehouse.track_days rebuilds it with the fix); today's fixes leave every summary alone."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, date, datetime, timedelta

from streams import payloads
from streams.db import Database
from streams.messages import Fix, parse_fix, parse_uplink
from streams.positions import write_fixes
from warehouse.db import connect
from warehouse.partitions import ensure_gps_partitions
from warehouse.track_days import summarise_day

from .support import insert_terminals, query


def _fix(term: payloads.Terminal, at: datetime, lng: float = 116.4) -> Fix:
    value = payloads.location_report(term, fix_at=at, received_at=at, lng=lng, lat=39.9, speed_kmh=30.0)
    uplink = parse_uplink(json.dumps(value))
    return parse_fix(uplink, uplink.body)


def _write(pg_url: str, fixes: list[Fix]) -> None:
    async def run() -> None:
        db = Database(pg_url, name="test")
        await write_fixes(db, fixes)
        await db.close()

    asyncio.run(run())


def _points(pg_url: str, device_id: int) -> dict[date, int]:
    return dict(query(pg_url, "SELECT day, points FROM track_day WHERE device_id = %s", (device_id,)))  # type: ignore[arg-type]


def test_a_late_fix_for_a_closed_day_drops_its_summary_and_today_s_fixes_do_not(pg_url: str) -> None:
    late, other = insert_terminals(pg_url, 2)
    today = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
    closed = (today - timedelta(days=3)).date()
    at = datetime(closed.year, closed.month, closed.day, 8, tzinfo=UTC)
    with connect(pg_url) as conn:
        ensure_gps_partitions(conn, closed, 4)
        conn.commit()
    _write(pg_url, [_fix(t, at + timedelta(minutes=k)) for t in (late, other) for k in range(10)])
    with connect(pg_url) as conn:
        assert summarise_day(conn, closed, device_ids=[late.device_id, other.device_id]) == 2
    assert _points(pg_url, late.device_id) == {closed: 10} == _points(pg_url, other.device_id)

    _write(pg_url, [_fix(late, today - timedelta(minutes=1)), _fix(other, today - timedelta(minutes=2))])
    assert _points(pg_url, late.device_id) == {closed: 10} == _points(pg_url, other.device_id)

    _write(pg_url, [_fix(late, at + timedelta(hours=3))])  # the backlog arrives
    assert _points(pg_url, late.device_id) == {} and _points(pg_url, other.device_id) == {closed: 10}
    with connect(pg_url) as conn:
        assert summarise_day(conn, closed, device_ids=[late.device_id]) == 1
    assert _points(pg_url, late.device_id) == {closed: 11}
