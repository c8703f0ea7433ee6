"""Trips attributed to drivers and the driver-days (docs/reports.md §4 driverDailyMileage).

A trip's driver is the one signed in on its terminal at the trip's start: the newest 0x0702 driver
identity report at or before the start, when it is a sign-in (status 1) naming a known driver
(``driver_source`` 1). Otherwise (no report, a sign-out, an unknown card) it is the vehicle's assigned
driver (``driver_source`` 2), or none. A whole trip counts for the driver at its start (a trip is not split
at a driver change).
"""

from __future__ import annotations

import polars as pl

from pipelines.rules import Window

EVENT_SCHEMA = {"device_id": pl.Int64(), "at": pl.Datetime("us", "UTC"), "status": pl.Int64(),
                "driver_id": pl.Int64()}
SIGN_IN = 1
SOURCE_CARD, SOURCE_ASSIGNED = 1, 2


def attribute_trips(trips: pl.DataFrame, events: pl.DataFrame, cars: pl.DataFrame) -> pl.DataFrame:
    """``trips`` (device_id, start_at, ...) with ``car_id``, ``driver_id`` and ``driver_source``."""
    ev = (events.select([pl.col(c).cast(t) for c, t in EVENT_SCHEMA.items()]) if not events.is_empty()
          else pl.DataFrame(schema=EVENT_SCHEMA)).sort("at")
    base = trips.sort("start_at").join(
        cars.select("device_id", "car_id", pl.col("driver_id").alias("assigned_driver_id")),
        on="device_id", how="inner")
    joined = base.join_asof(ev.rename({"at": "event_at", "driver_id": "card_driver_id"}),
                            left_on="start_at", right_on="event_at", by="device_id", strategy="backward",
                            check_sortedness=False)  # both sides sorted by time above
    card = (pl.col("status") == SIGN_IN) & pl.col("card_driver_id").is_not_null()
    return joined.with_columns(
        driver_id=pl.when(card).then(pl.col("card_driver_id")).otherwise(pl.col("assigned_driver_id")),
        driver_source=pl.when(card).then(SOURCE_CARD)
        .when(pl.col("assigned_driver_id").is_not_null()).then(SOURCE_ASSIGNED).cast(pl.Int64),
    ).drop("event_at", "status", "card_driver_id", "assigned_driver_id").sort(["car_id", "start_at"])


def driver_days(attributed: pl.DataFrame, drivers: pl.DataFrame, cars: pl.DataFrame, window: Window) -> pl.DataFrame:
    """One row per driver with trips on the day: vehicles, plates, mileage, driving time, trips, max speed.
    ``drivers``: (driver_id, enterprise_id, enterprise_path, driver_name)."""
    plates = cars.select("car_id", "plate_number")
    trips = attributed.filter(pl.col("driver_id").is_not_null()).join(plates, on="car_id", how="left")
    days = trips.group_by("driver_id").agg(
        cars=pl.col("car_id").n_unique().cast(pl.Int64),
        plate_numbers=pl.col("plate_number").drop_nulls().unique().sort().str.join(","),
        mileage_km=pl.col("distance_km").sum(),
        drive_s=pl.col("duration_s").sum().cast(pl.Int64),
        trips=pl.len().cast(pl.Int64),
        max_speed_kmh=pl.col("max_speed_kmh").max(),
        driver_source=pl.col("driver_source").min().cast(pl.Int64),
    )
    return days.join(drivers.with_columns(pl.col("driver_id").cast(pl.Int64)), on="driver_id", how="inner").with_columns(
        date=pl.lit(window.date_key, pl.Int64), day=pl.lit(window.day), provisional=pl.lit(window.provisional),
    ).sort("driver_id")
