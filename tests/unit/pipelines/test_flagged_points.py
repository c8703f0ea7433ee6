"""Fixes the positions step flagged implausible (gps.quality): no mileage, counted as drift and unqualified."""

from __future__ import annotations

import polars as pl
import pytest

from pipelines.kpi import kpi_enterprise_rows, kpi_vehicle_days
from pipelines.mileage import point_counts, vehicle_mileage
from pipelines.motion import trips_and_parks
from pipelines.runtime import runtime_from_points
from pipelines.segments import segments
from pipelines.vehicle_day import DayParts, car_days
from tests.unit.pipelines.tracks import RULES, WINDOW, drive, frame, local, point

CARS = pl.DataFrame({
    "car_id": [101], "device_id": [1], "enterprise_id": [10], "enterprise_path": ["/10/"],
    "enterprise_name": ["总公司"], "group_id": [None], "plate_number": ["京A·1"], "driver_id": [None],
    "driver_name": [None]})


def car_day(rows: list[dict], rejects: pl.DataFrame | None = None) -> tuple[dict, dict]:
    points = frame(rows)
    seg = segments(points, WINDOW, RULES)
    trips, parks = trips_and_parks(seg, WINDOW, RULES)
    parts = DayParts(counts=point_counts(points, WINDOW), mileage=vehicle_mileage(seg, WINDOW, RULES),
                     trips=trips, parks=parks, runtime_logs=pl.DataFrame(schema={"device_id": pl.Int64}),
                     runtime_points=runtime_from_points(seg, RULES),
                     online=pl.DataFrame(schema={"device_id": pl.Int64}),
                     rejects=rejects if rejects is not None else pl.DataFrame(schema={"device_id": pl.Int64,
                                                                                      "n": pl.Int64}))
    rows_ = car_days(CARS, parts, WINDOW, RULES)
    vehicle = kpi_vehicle_days(rows_, WINDOW)
    enterprise = kpi_enterprise_rows(vehicle, CARS, pl.Series("car_id", [101], dtype=pl.Int64))
    return rows_.to_dicts()[0], enterprise.to_dicts()[0]


def test_teleport_flagged_fix_adds_no_mileage_and_counts_as_drift_and_unqualified() -> None:
    rows = drive(1, local(8), 10)  # 10 km at 60 km/h, 11 fixes
    # five minutes in, the terminal reported a point 300 km away (flagged teleport by the positions step)
    jump = {**point(1, local(8, 5, 30), 300.0, 60.0), "quality": 4}
    day, kpi = car_day([*rows, jump])
    assert day["mileage_km"] == pytest.approx(10.0)
    assert (day["points"], day["positioned_points"], day["drift_points"]) == (12, 11, 1)
    assert kpi["drift_vehicles"] == 1 and kpi["drift_rate"] == 1.0
    assert kpi["qualification_rate"] == pytest.approx(11 / 12)


def test_fix_with_implausible_time_is_no_point_of_the_day_it_claims() -> None:
    rows = drive(1, local(8), 10)
    # dated in this day but flagged "future" (it arrived a day earlier): counted on its day of receipt
    future = {**point(1, local(8, 5, 30), 0.0, 0.0), "quality": 2}
    day, kpi = car_day([*rows, future])
    assert (day["points"], day["positioned_points"], day["drift_points"]) == (11, 11, 0)
    assert day["mileage_km"] == pytest.approx(10.0)
    # the day a fix dated 2020 arrived counts it as unqualified (gps_reject_day class "past")
    day, kpi = car_day(rows, pl.DataFrame({"device_id": [1], "n": [1]}))
    assert kpi["qualification_rate"] == pytest.approx(11 / 12)
