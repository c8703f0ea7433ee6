"""Enterprise-days (docs/reports.md §4 enterpriseDailyMileage): one row per enterprise with vehicles,
over its own vehicles (a parent's ``isParent`` view adds its subsidiaries' rows at query time).

vehicles (live ones), active vehicles (mileage >= active_day_km), online vehicles (上线), mileage, driving
time, trips, average km per active vehicle (null without one), alarms (Σ ``alarm_total`` of its terminals).
"""

from __future__ import annotations

import polars as pl

from pipelines.rules import Window


def enterprise_days(car_days: pl.DataFrame, device_days: pl.DataFrame, window: Window) -> pl.DataFrame:
    alarms = (device_days.group_by("enterprise_id").agg(alarms=pl.col("alarm_total").sum().cast(pl.Int64))
              if not device_days.is_empty() else pl.DataFrame(schema={"enterprise_id": pl.Int64, "alarms": pl.Int64}))
    out = car_days.group_by("enterprise_id").agg(
        enterprise_path=pl.col("enterprise_path").first(), enterprise_name=pl.col("enterprise_name").first(),
        vehicles=pl.len().cast(pl.Int64),
        active_vehicles=pl.col("active").sum().cast(pl.Int64),
        online_vehicles=pl.col("online").sum().cast(pl.Int64),
        mileage_km=pl.col("mileage_km").sum(),
        drive_s=pl.col("drive_s").sum().cast(pl.Int64),
        trips=pl.col("trips").sum().cast(pl.Int64),
    ).join(alarms.with_columns(pl.col("enterprise_id").cast(pl.Int64)), on="enterprise_id", how="left")
    return out.with_columns(
        alarms=pl.col("alarms").fill_null(0),
        avg_km_per_active=pl.when(pl.col("active_vehicles") > 0)
        .then(pl.col("mileage_km") / pl.col("active_vehicles")),
        date=pl.lit(window.date_key, pl.Int64), day=pl.lit(window.day), provisional=pl.lit(window.provisional),
    ).sort("enterprise_id")
