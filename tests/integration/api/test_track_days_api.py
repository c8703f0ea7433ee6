"""Track day summaries (warehouse.track_days) behind long track reads and the stop logs: a thinned
read over closed days served from the summaries gives the stops of every fix and rows equal to the
stored ones; the first read stores the missing summaries; ``fleet summarise-days`` is idempotent.

Every test writes its own vehicle and days no other test uses (June 2026).
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from click.testing import CliRunner
from flask.testing import FlaskClient

from fleet.cli import main as fleet_cli
from fleet.stops import StopThresholds, detect_stops
from tests.integration.api.conftest import Demo
from tests.integration.api.test_track_api import Car, Login, _make_car, _ms
from warehouse.db import connect
from warehouse.history import DrivingModel, HistoryVehicle, load_history
from warehouse.queries import positions

START = datetime(2026, 6, 3, 15, tzinfo=UTC)  # 3 days 18 hours: two partial days and three whole ones
END = datetime(2026, 6, 7, 9, tzinfo=UTC)


@pytest.fixture(scope="module")
def dense_car(pg_url: str, demo: Demo) -> Car:
    car = _make_car(pg_url, demo.enterprises["a"])
    with connect(pg_url) as conn:
        # few alarms: a thinned read keeps every alarming fix, and this test measures the thinning of driving
        load_history(conn, [HistoryVehicle(car.device_id, car.car_id, demo.enterprises["a"])], START, END, 10, seed=7,
                     model=DrivingModel(alarm_rate_per_hour=0.2, safety_alarm_rate_per_hour=0.0))
    return car


def _summaries(pg_url: str, device_id: int) -> dict[date, tuple[Any, ...]]:
    with connect(pg_url) as conn:
        rows = conn.execute("SELECT day, points, computed_at, times FROM track_day WHERE device_id = %s ORDER BY day",
                            (device_id,)).fetchall()
    return {row[0]: row[1:] for row in rows}


def _stop_key(stop: dict[str, Any]) -> tuple[Any, ...]:
    return stop["kind"], stop["start"], stop["end"], stop["ongoing"]


def test_a_thinned_read_over_closed_days_equals_the_direct_read(
    client: FlaskClient, login: Login, dense_car: Car, pg_url: str
) -> None:
    headers = login("admin_a")
    query = {"start": _ms(START), "end": _ms(END)}
    assert _summaries(pg_url, dense_car.device_id) == {}
    data = client.get(f"/api/gps/car/{dense_car.car_id}/track.json", headers=headers,
                      query_string=query).json["data"]  # type: ignore[index]
    stored = _summaries(pg_url, dense_car.device_id)
    assert sorted(stored) == [date(2026, 6, 4), date(2026, 6, 5), date(2026, 6, 6)]  # the whole closed days
    assert all(points == 8640 and len(times) < points / 3 for points, _at, times in stored.values())

    every = client.get(f"/api/gps/car/{dense_car.car_id}/track.json", headers=headers,
                       query_string={**query, "maxPoints": 0}).json["data"]  # type: ignore[index]
    assert data["total"] == every["total"] == len(every["rows"]) == 24 * 360 * 3 + 9 * 360 + 9 * 360
    assert data["thinned"] is True and data["returned"] == len(data["rows"]) < 2000 + 2 * len(data["stops"]) + 400
    # The stops of every fix, as the direct path finds them (positions.track_points over gps).
    with connect(pg_url) as conn:
        points = positions.track_points(conn, dense_car.device_id, START, END, StopThresholds.from_settings().park_speed_kmh)
        direct = [s.to_json() for s in detect_stops(points.times_ms, points.speeds, points.acc, points.lngs,
                                                    points.lats, thresholds=StopThresholds.from_settings())]
    assert [_stop_key(s) for s in data["stops"]] == [_stop_key(s) for s in direct] and direct
    assert [_stop_key(s) for s in every["stops"]] == [_stop_key(s) for s in direct]
    # Every returned row is the stored row of that time, field for field; alarms and stop bounds kept.
    by_time = {row[0]: row for row in every["rows"]}
    assert all(by_time[row[0]] == row for row in data["rows"])
    times = {row[0] for row in data["rows"]}
    assert {row[0] for row in every["rows"] if row[9]} <= times
    assert all(s["start"] in times and s["end"] in times for s in data["stops"])

    again = client.get(f"/api/gps/car/{dense_car.car_id}/track.json", headers=headers,
                       query_string=query).json["data"]  # type: ignore[index]
    assert again == data
    assert _summaries(pg_url, dense_car.device_id) == stored  # read, not recomputed


def test_park_log_over_summarised_days_lists_the_stops_of_every_fix(
    client: FlaskClient, login: Login, dense_car: Car, pg_url: str
) -> None:
    body = {"carId.eq": dense_car.car_id, "rangeConditions": [
        {"fieldName": "startTime", "start": START.isoformat(), "end": (END - timedelta(seconds=1)).isoformat()}]}
    reply = client.post("/api/common/query/parkLog.json", headers=login("admin_a"), json=body,
                        query_string={"pageSize": 100})
    assert reply.status_code == 200, reply.json
    rows = reply.json["data"]["list"]  # type: ignore[index]
    with connect(pg_url) as conn:
        points = positions.track_points(conn, dense_car.device_id, START, END, 5.0)
    th = StopThresholds.from_settings()
    parks = [s for s in detect_stops(points.times_ms, points.speeds, points.acc, points.lngs, points.lats, thresholds=th)
             if s.kind == "park"]
    got = sorted((_epoch_ms(r["startTime"]), _epoch_ms(r["endTime"])) for r in rows)
    assert got == sorted((p.start_ms, p.end_ms) for p in parks) and got


def _epoch_ms(value: Any) -> int:
    if isinstance(value, int):
        return value
    return _ms(datetime.fromisoformat(str(value)))


def test_another_enterprise_reads_neither_the_track_nor_the_park_log(
    client: FlaskClient, login: Login, dense_car: Car
) -> None:
    reply = client.get(f"/api/gps/car/{dense_car.car_id}/track.json", headers=login("admin_b"),
                       query_string={"start": _ms(START), "end": _ms(END)})
    assert reply.status_code == 404


def test_summarise_days_is_idempotent(pg_url: str, demo: Demo) -> None:
    car = _make_car(pg_url, demo.enterprises["b"])
    day = date(2026, 6, 12)
    with connect(pg_url) as conn:
        start = datetime(2026, 6, 12, tzinfo=UTC)
        load_history(conn, [HistoryVehicle(car.device_id, car.car_id, demo.enterprises["b"])], start,
                     start + timedelta(hours=12), 30)
    args = ["summarise-days", "--day", day.isoformat(), "--database-url", pg_url]
    first = CliRunner().invoke(fleet_cli, args)
    assert first.exit_code == 0, first.output
    made = _summaries(pg_url, car.device_id)
    assert list(made) == [day] and made[day][0] == 1440
    second = CliRunner().invoke(fleet_cli, args)
    assert second.exit_code == 0 and f"{day}: 0 summaries" in second.output, second.output
    assert _summaries(pg_url, car.device_id) == made
    forced = CliRunner().invoke(fleet_cli, [*args, "--force"])
    assert forced.exit_code == 0, forced.output
    again = _summaries(pg_url, car.device_id)
    assert again[day][0] == made[day][0] and again[day][2] == made[day][2] and again[day][1] > made[day][1]
    future = CliRunner().invoke(fleet_cli, ["summarise-days", "--day", "2999-01-01", "--database-url", pg_url])
    assert future.exit_code != 0 and "not a closed UTC day" in future.output
