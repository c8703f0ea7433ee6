"""The demo's generated history has no seams: the month of report history, the recent days and the live
simulator continue one another per vehicle (warehouse/history.py, simulator/fleet.py, fleet up's odometer
file), so the odometer never runs backwards and the seam days read like their neighbours."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from fleet.demo_fleet import device_phone
from fleet.phones import canonical_phone
from fleet.settings import SimulatorSettings
from simulator.fleet import build_terminals, phone_of
from tests.support.databases import create_database, drop_database
from warehouse.db import connect
from warehouse.history import last_odometers, seed_history, seed_report_history
from warehouse.seed import seed_demo

TERMINALS = 12
MONTH_DAYS, RECENT_DAYS = 4, 3
NOW = datetime(2026, 11, 30, 4, 0, tzinfo=UTC)  # noon in Beijing


@pytest.fixture(scope="module")
def seeded(pg_url: str) -> Iterator[str]:
    url = create_database(pg_url, "seams")
    seed_demo(url, terminals=TERMINALS)
    seed_report_history(url, MONTH_DAYS, 300.0, recent_days=RECENT_DAYS, now=NOW)
    seed_history(url, RECENT_DAYS, 60.0, now=NOW)
    try:
        yield url
    finally:
        drop_database(pg_url, url)


def test_odometers_never_run_backwards_from_the_month_to_the_recent_days_to_the_live_simulator(seeded: str) -> None:
    with connect(seeded) as conn:
        rows = conn.execute("SELECT device_id, fix_at, mileage_km FROM gps ORDER BY device_id, fix_at").fetchall()
    by_device: dict[int, list[tuple[datetime, float]]] = {}
    for device, at, km in rows:
        by_device.setdefault(device, []).append((at, float(km)))
    assert len(by_device) == TERMINALS
    seam = NOW - timedelta(minutes=1) - timedelta(days=RECENT_DAYS)
    for device, track in by_device.items():
        before = [km for at, km in track if at < seam]
        after = [km for at, km in track if at >= seam]
        assert before and after, device
        drops = [(a, b) for a, b in zip(track, track[1:], strict=False) if b[1] < a[1]]
        assert drops == [], (device, drops[:3])
        assert 0 <= after[0] - before[-1] < 5, (device, before[-1], after[0])  # one fix interval's driving
    # the live simulator goes on from each vehicle's last stored odometer
    settings = SimulatorSettings()
    odometers = last_odometers(seeded)
    terminals = build_terminals(settings, TERMINALS, 5.0, odometers=odometers)
    for terminal in terminals:
        last = odometers[canonical_phone(phone_of(settings, terminal.index))]
        assert terminal.vehicle.sample().mileage_km == pytest.approx(last, abs=0.05)


def test_the_seam_days_drive_and_alarm_like_their_neighbours(seeded: str) -> None:
    """The month (a fix every 5 minutes) and the recent days (every minute) drive the same km a day and
    raise alarms alike: the fleet's mileage trend does not jump at the seam."""
    with connect(seeded) as conn:
        km = dict(conn.execute(
            """SELECT (fix_at AT TIME ZONE INTERVAL '+08:00')::date AS day, sum(d) FROM (
                   SELECT fix_at, mileage_km - lag(mileage_km) OVER (PARTITION BY device_id ORDER BY fix_at) AS d
                   FROM gps) s GROUP BY day ORDER BY day""").fetchall())
        alarms = dict(conn.execute("SELECT (start_time AT TIME ZONE INTERVAL '+08:00')::date, count(*) FROM alarm"
                                   " GROUP BY 1 ORDER BY 1").fetchall())
    seam = (NOW - timedelta(minutes=1) - timedelta(days=RECENT_DAYS) + timedelta(hours=8)).date()
    days = sorted(km)[1:-1]  # whole days only
    month = [d for d in days if d < seam]
    recent = [d for d in days if d > seam]
    assert month and recent and seam in days

    def mean(values: list[float]) -> float:
        return sum(values) / len(values)

    month_km, recent_km = mean([float(km[d]) for d in month]), mean([float(km[d]) for d in recent])
    assert 0.8 <= recent_km / month_km <= 1.25, (month_km, recent_km)
    assert 0.6 * month_km <= float(km[seam]) <= 1.6 * month_km, (km[seam], month_km)
    month_alarms, recent_alarms = mean([alarms.get(d, 0) for d in month]), mean([alarms.get(d, 0) for d in recent])
    assert recent_alarms <= 2.5 * month_alarms + 3 and month_alarms <= 2.5 * recent_alarms + 3, (month_alarms, recent_alarms)


def test_the_month_and_the_recent_days_carry_the_live_streams_adas_and_dsm_alarms(seeded: str) -> None:
    """The seeded history has the live simulator's alarm mix: ADAS (type 5) and DSM (type 6) events beside the
    terminal bits on both sides of the seam, and the dashboard's day rollups count every seeded alarm."""
    seam = NOW - timedelta(minutes=1) - timedelta(days=RECENT_DAYS)
    with connect(seeded) as conn:
        kinds = {(bool(before), int(t)) for before, t in conn.execute(
            "SELECT DISTINCT start_time < %s, type FROM alarm", (seam,)).fetchall()}
        rolled = conn.execute(
            """SELECT count(*) FROM (
                   SELECT enterprise_id, (start_time AT TIME ZONE INTERVAL '+08:00')::date AS day, key, count(*) AS n,
                          count(*) FILTER (WHERE state = 0) AS u FROM alarm GROUP BY 1, 2, 3) a
               FULL JOIN alarm_day_count c USING (enterprise_id, day, key)
               WHERE a.n IS DISTINCT FROM c.total OR a.u IS DISTINCT FROM c.unhandled""").fetchone()
        latest = conn.execute(
            """SELECT count(*) FROM (SELECT enterprise_id, device_id,
                   max((start_time AT TIME ZONE INTERVAL '+08:00')::date) AS d FROM alarm GROUP BY 1, 2) a
               FULL JOIN alarm_device_latest l USING (enterprise_id, device_id) WHERE a.d IS DISTINCT FROM l.last_day"""
        ).fetchone()
    assert {(True, 1), (True, 5), (True, 6), (False, 1), (False, 5), (False, 6)} <= kinds, kinds
    assert rolled == (0,) and latest == (0,)


def test_the_seeded_history_of_the_vehicles_with_tyre_sensors_fills_the_tpms_log(seeded: str) -> None:
    """Demo terminals 2, 7, 12 have tyre sensors (fleet.demo_fleet.terminal_has_tpms): their seeded fixes carry
    0x66 timed reports of six tyres, which the TPMS log's view reads; the other vehicles have none."""
    with connect(seeded) as conn:
        rows = conn.execute(
            "SELECT d.phone, count(*), count(DISTINCT v.tyre), min(v.pressure_kpa), max(v.pressure_kpa)"
            " FROM tpms_log_view v JOIN device d ON d.id = v.device_id GROUP BY d.phone ORDER BY d.phone").fetchall()
    assert [r[0] for r in rows] == [device_phone(i) for i in (2, 7, 12)]
    for _phone, count, tyres, low, high in rows:
        assert count > 6 * 12 * RECENT_DAYS and tyres == 6 and 0 < low <= high < 1000
