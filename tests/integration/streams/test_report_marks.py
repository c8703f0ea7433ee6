"""The positions write marks the closed local report days a late fix lands in (report_dirty_day) and counts
refused positions (gps_reject_day), in the same transaction as the rows; today's valid fixes mark nothing."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from streams import payloads
from streams.db import Database
from streams.messages import parse_uplink
from streams.positions import plan_decoded, write_batch
from streams.validation import Limits
from warehouse.db import connect
from warehouse.partitions import ensure_gps_partitions

from .support import insert_terminals, query

SHANGHAI = ZoneInfo("Asia/Shanghai")
LIMITS = Limits(max_future_s=600, max_speed_kmh=250)


def _write(pg_url: str, values: list[dict]) -> None:
    plan = plan_decoded([parse_uplink(json.dumps(v)) for v in values], LIMITS, SHANGHAI)

    async def run() -> None:
        db = Database(pg_url, name="test")
        await write_batch(db, plan, SHANGHAI)
        await db.close()

    asyncio.run(run())


def _marks(pg_url: str, enterprise_id: int) -> list[object]:
    return [r[0] for r in query(pg_url, "SELECT day FROM report_dirty_day WHERE enterprise_id = %s ORDER BY day",
                                (enterprise_id,))]


def test_late_fixes_mark_closed_local_days_and_refusals_are_counted(pg_url: str) -> None:
    term, = insert_terminals(pg_url, 1, enterprise_name="report-marks")
    now = datetime.now(UTC)
    closed_at = now - timedelta(days=3)
    with connect(pg_url) as conn:
        ensure_gps_partitions(conn, closed_at.date(), 4)
        conn.commit()

    def fix(at: datetime, **kw: object) -> dict:
        return payloads.location_report(term, fix_at=at, received_at=now, lng=116.4, lat=39.9, **kw)

    _write(pg_url, [fix(now - timedelta(seconds=5), speed_kmh=30.0)])
    assert _marks(pg_url, term.enterprise_id) == []  # today's fix: nothing to rebuild

    _write(pg_url, [fix(closed_at, speed_kmh=30.0), fix(closed_at + timedelta(minutes=1), speed_kmh=31.0)])
    assert _marks(pg_url, term.enterprise_id) == [closed_at.astimezone(SHANGHAI).date()]

    _write(pg_url, [fix(now - timedelta(seconds=3), speed_kmh=400.0), fix(now - timedelta(seconds=2), speed_kmh=500.0),
                    fix(now - timedelta(seconds=1), speed_kmh=20.0, direction_deg=400)])
    counts = dict(query(pg_url, "SELECT reason_class, n FROM gps_reject_day WHERE device_id = %s", (term.device_id,)))
    assert counts == {"speed": 2, "direction": 1}
    day = query(pg_url, "SELECT DISTINCT day FROM gps_reject_day WHERE device_id = %s", (term.device_id,))
    assert day == [(now.astimezone(SHANGHAI).date(),)]
