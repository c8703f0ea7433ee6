"""Known answers of the car-day assembly, enterprise-days and the regulator KPIs (docs/kpi.md)."""

from __future__ import annotations

import polars as pl
import pytest

from pipelines.enterprise import enterprise_days
from pipelines.kpi import kpi_enterprise_rows, kpi_vehicle_days
from pipelines.mileage import point_counts, vehicle_mileage
from pipelines.motion import trips_and_parks
from pipelines.runtime import runtime_from_points
from pipelines.segments import segments
from pipelines.vehicle_day import DayParts, car_days
from tests.unit.pipelines.tracks import RULES, WINDOW, drive, frame, local, point, stand

CARS = pl.DataFrame({
    "car_id": [101, 102, 201], "device_id": [1, 2, 3], "enterprise_id": [10, 10, 20],
    "enterprise_path": ["/10/", "/10/", "/10/20/"], "enterprise_name": ["总公司", "总公司", "分公司"],
    "group_id": [None, None, None], "plate_number": ["京A·1", "京A·2", "京B·3"], "driver_id": [None, None, None],
    "driver_name": [None, None, None]})


def day_rows() -> pl.DataFrame:
    rows = (drive(1, local(8), 10) + stand(1, local(8, 11), 10, km=10.0)      # car 101: 10 km, a 10 min park
            + drive(3, local(9), 1, kmh=24.0)                                 # car 201: 0.4 km, no trip
            + [point(3, local(9, 5), 0.4, 0.0, status=0)])                    # and one unpositioned fix
    points = frame(rows)
    seg = segments(points, WINDOW, RULES)
    trips, parks = trips_and_parks(seg, WINDOW, RULES)
    parts = DayParts(counts=point_counts(points, WINDOW), mileage=vehicle_mileage(seg, WINDOW, RULES),
                     trips=trips, parks=parks, runtime_logs=pl.DataFrame(schema={"device_id": pl.Int64}),
                     runtime_points=runtime_from_points(seg, RULES),
                     online=pl.DataFrame(schema={"device_id": pl.Int64}),
                     rejects=pl.DataFrame({"device_id": [3], "n": [2]}))
    return car_days(CARS, parts, WINDOW, RULES)


def test_every_live_vehicle_gets_a_row_with_its_figures() -> None:
    days = {r["car_id"]: r for r in day_rows().to_dicts()}
    assert set(days) == {101, 102, 201}
    a = days[101]
    assert a["date"] == 20261015 and a["mileage_km"] == pytest.approx(10.0) and a["mileage_source"] == 2
    assert (a["trips"], a["parks"], a["idlings"], a["trip_s"]) == (1, 1, 1, 660)
    # 08:10-08:11 counts for its first point (moving): 11 minutes driving, then 10 idling
    assert (a["drive_s"], a["idle_s"], a["runtime_source"]) == (660, 600, 2)
    assert a["active"] and a["online"] and a["points"] == 22
    idle = days[102]
    assert (idle["mileage_km"], idle["mileage_source"], idle["points"], idle["online"], idle["active"]) == (
        0.0, None, 0, False, False)
    b = days[201]
    assert (b["points"], b["positioned_points"], b["rejected_points"]) == (3, 2, 2)
    assert b["mileage_km"] == pytest.approx(0.4) and not b["active"] and b["online"]


def test_enterprise_days_sum_their_own_vehicles() -> None:
    devices = pl.DataFrame({"enterprise_id": [10, 10], "alarm_total": [3, 1]})
    got = {r["enterprise_id"]: r for r in enterprise_days(day_rows(), devices, WINDOW).to_dicts()}
    assert (got[10]["vehicles"], got[10]["active_vehicles"], got[10]["online_vehicles"]) == (2, 1, 1)
    assert got[10]["mileage_km"] == pytest.approx(10.0) and got[10]["avg_km_per_active"] == pytest.approx(10.0)
    assert (got[10]["alarms"], got[20]["alarms"], got[20]["trips"]) == (4, 0, 0)
    assert got[20]["avg_km_per_active"] is None


def test_kpi_vehicle_day_counts_unpositioned_and_refused_as_unqualified() -> None:
    alarms = pl.DataFrame({"car_id": [101, 101], "overspeed_alarms": [2, 1], "fatigue_s": [0, 60]})
    rows = {r["car_id"]: r for r in kpi_vehicle_days(day_rows(), WINDOW, alarms).to_dicts()}
    assert (rows[101]["overspeed_alarms"], rows[101]["fatigue_s"], rows[201]["overspeed_alarms"]) == (3, 60, 0)
    assert (rows[201]["qualified_points"], rows[201]["rejected_points"]) == (2, 3)
    assert rows[101]["total_km"] == pytest.approx(10.0) and rows[101]["complete_km"] == pytest.approx(10.0)


def test_kpi_ratios_from_numerators_and_denominators() -> None:
    cars = pl.DataFrame({"car_id": [101, 102, 103, 201], "enterprise_id": [10, 10, 10, 20],
                         "enterprise_path": ["/10/", "/10/", "/10/", "/10/20/"],
                         "enterprise_name": ["总", "总", "总", "分"]})
    vehicle = pl.DataFrame({
        "car_id": [101, 102, 201], "online": [True, False, True], "drift_points": [1, 0, 0],
        "qualified_points": [90, 0, 50], "rejected_points": [10, 0, 0], "total_km": [100.0, 0.0, 10.0],
        "complete_km": [95.0, 0.0, 10.0], "online_s": [3600, 0, 600], "offline_s": [0, 86400, 0],
        "overspeed_alarms": [4, 0, 0], "fatigue_s": [600, 0, 0]})
    got = {r["enterprise_id"]: r for r in kpi_enterprise_rows(vehicle, cars, pl.Series([101, 102, 201])).to_dicts()}
    head = got[10]
    assert (head["vehicles"], head["joined_vehicles"], head["online_vehicles"], head["drift_vehicles"]) == (3, 2, 1, 1)
    assert head["join_rate"] == pytest.approx(2 / 3) and head["online_rate"] == pytest.approx(0.5)
    assert head["completeness_rate"] == pytest.approx(0.95) and head["qualification_rate"] == pytest.approx(0.9)
    assert head["drift_rate"] == 1.0 and head["connectivity_rate"] is None
    assert (head["avg_overspeed"], head["avg_fatigue_s"], head["avg_offline_s"]) == (4.0, 600.0, 43200.0)
    sub = got[20]
    assert (sub["drift_rate"], sub["completeness_rate"], sub["qualification_rate"]) == (0.0, 1.0, 1.0)
    empty = kpi_enterprise_rows(vehicle.clear(), cars.filter(pl.col("car_id") == 103),
                                pl.Series([], dtype=pl.Int64)).to_dicts()[0]
    assert (empty["join_rate"], empty["online_rate"], empty["drift_rate"]) == (0.0, None, None)
