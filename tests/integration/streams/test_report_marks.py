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


def test_a_second_fix_in_a_second_the_track_holds_is_counted_and_logged_never_dropped_silently(
        pg_url: str, caplog: object) -> None:
    term, = insert_terminals(pg_url, 1, enterprise_name="same-second")
    now = datetime.now(UTC).replace(microsecond=0)
    at = now - timedelta(seconds=30)

    def fix(lat: float) -> dict:
        return payloads.location_report(term, fix_at=at, received_at=now, lng=116.4, lat=lat, speed_kmh=30.0)

    def counts() -> dict:
        return dict(query(pg_url, "SELECT reason_class, n FROM gps_reject_day WHERE device_id = %s",
                          (term.device_id,)))

    _write(pg_url, [fix(30.7002), fix(30.7002)])  # a resend of the same fix in one batch: not a loss
    assert counts() == {}
    _write(pg_url, [fix(30.7002)])  # a replay of a stored fix: not a loss either
    assert counts() == {}
    with caplog.at_level("INFO", logger="streams.positions"):  # type: ignore[attr-defined]
        _write(pg_url, [fix(30.7003)])  # e.g. a 0x0201 answer in the same second as a stored 0x0200
        _write(pg_url, [payloads.location_report(term, fix_at=at + timedelta(seconds=1), received_at=now, lng=116.4,
                                                  lat=30.71, speed_kmh=30.0),
                        payloads.location_report(term, fix_at=at + timedelta(seconds=1), received_at=now, lng=116.4,
                                                  lat=30.72, speed_kmh=30.0)])  # two in one 0x0704 second
    assert counts() == {"same_second": 2}
    track = query(pg_url, "SELECT fix_at, lat FROM gps WHERE device_id = %s ORDER BY fix_at", (term.device_id,))
    assert [lat for _, lat in track] == [30.7002, 30.71]  # the track keeps the first fix of each second
    lines = [r.getMessage() for r in caplog.records if "not kept in the track" in r.getMessage()]  # type: ignore[attr-defined]
    assert len(lines) == 2 and f"device {term.device_id}" in lines[0]
