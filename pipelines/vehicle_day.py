"""The ``car_day_report`` rows of one day: every live vehicle (its master terminal's data), one row each.

``car_days(cars, parts, window, rules)`` joins the per-device facts of the other modules onto the vehicle
registry. Runtime comes from the state logs when the terminal has a known state in the day
(``runtime_source`` 1), else from its positions (2); a vehicle with neither has zero runtime and null
``runtime_source``. ``mileage_km`` is 0 (``mileage_source`` null) for a vehicle without positions.
``trips`` / ``parks`` / ``idlings`` count the rows listed on the day, ``active`` is mileage >=
``active_day_km``, ``online`` (上线) is at least one qualified (positioned) fix.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl

from pipelines.rules import Rules, Window

CAR_SCHEMA = {"car_id": pl.Int64(), "device_id": pl.Int64(), "enterprise_id": pl.Int64(),
              "enterprise_path": pl.String(), "enterprise_name": pl.String(), "group_id": pl.Int64(),
              "plate_number": pl.String(), "driver_id": pl.Int64(), "driver_name": pl.String()}
RUNTIME_COLUMNS = ("acc_on_s", "drive_s", "idle_s", "engine_off_s", "no_signal_s")
COUNT_COLUMNS = ("points", "positioned_points", "odo_points", "rejected_points", "drift_points", "gap_count",
                 "overspeed_count", "overspeed_s", "trips", "trip_s", "parks", "idlings", "online_s", "offline_s",
                 "online_sessions", *RUNTIME_COLUMNS)


@dataclass
class DayParts:
    """The per-device frames of one day (any may be empty)."""

    counts: pl.DataFrame
    mileage: pl.DataFrame
    trips: pl.DataFrame
    parks: pl.DataFrame
    runtime_logs: pl.DataFrame
    runtime_points: pl.DataFrame
    online: pl.DataFrame
    rejects: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema={"device_id": pl.Int64, "n": pl.Int64}))
    spikes: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema={"device_id": pl.Int64,
                                                                               "spikes": pl.Int64}))


def conform_cars(cars: pl.DataFrame) -> pl.DataFrame:
    return cars.select([(pl.col(c) if c in cars.columns else pl.lit(None)).cast(t).alias(c)
                        for c, t in CAR_SCHEMA.items()])


def _left(frame: pl.DataFrame, other: pl.DataFrame) -> pl.DataFrame:
    if other.is_empty() and "device_id" not in other.columns:
        return frame
    other = other.with_columns(pl.col("device_id").cast(pl.Int64))
    return frame.join(other, on="device_id", how="left")


def car_days(cars: pl.DataFrame, parts: DayParts, window: Window, rules: Rules) -> pl.DataFrame:
    frame = conform_cars(cars)
    trips = parts.trips.group_by("device_id").agg(trips=pl.len().cast(pl.Int64),
                                                  trip_s=pl.col("duration_s").sum().cast(pl.Int64))
    parks = parts.parks.group_by("device_id").agg(parks=pl.len().cast(pl.Int64),
                                                  idlings=pl.col("idling").sum().cast(pl.Int64))
    rejects = parts.rejects.group_by("device_id").agg(rejected_points=pl.col("n").sum().cast(pl.Int64))
    logs = parts.runtime_logs.with_columns(runtime_source=pl.lit(1, pl.Int64))
    points = parts.runtime_points.with_columns(runtime_source=pl.lit(2, pl.Int64),
                                               no_signal_s=pl.lit(0, pl.Int64),
                                               first_acc_on_at=pl.lit(None, pl.Datetime("us", "UTC")),
                                               last_acc_off_at=pl.lit(None, pl.Datetime("us", "UTC")))
    runtime = pl.concat([logs, points.filter(~pl.col("device_id").is_in(logs["device_id"].implode()))],
                        how="diagonal_relaxed") if not logs.is_empty() else points
    for part in (parts.counts, parts.mileage, trips, parks, runtime, parts.online, rejects):
        frame = _left(frame, part)
    for name in COUNT_COLUMNS:
        if name not in frame.columns:
            frame = frame.with_columns(pl.lit(0, pl.Int64).alias(name))
    spikes = parts.spikes.group_by("device_id").agg(spk=pl.col("spikes").sum())
    frame = _left(frame, spikes)
    ints = [pl.col(c).fill_null(0).round(0).cast(pl.Int64) if frame.schema[c].is_float()
            else pl.col(c).fill_null(0).cast(pl.Int64) for c in COUNT_COLUMNS]
    frame = frame.with_columns(ints)
    teleports = pl.col("teleport_points").fill_null(0).cast(pl.Int64) if "teleport_points" in frame.columns else 0
    frame = frame.with_columns(  # a fix the positions step flagged as a teleport is a drift point too
        drift_points=pl.col("drift_points") + pl.col("spk").fill_null(0).cast(pl.Int64) + teleports,
        mileage_km=pl.col("mileage_km").fill_null(0.0),
    )
    return frame.with_columns(
        date=pl.lit(window.date_key, pl.Int64),
        day=pl.lit(window.day),
        active=pl.col("mileage_km") >= rules.active_day_km,
        online=pl.col("positioned_points") > 0,
        provisional=pl.lit(window.provisional),
    ).drop("spk", "teleport_points", strict=False).sort("car_id")
