"""Trips, parks and idling (docs/reports.md §3; Traccar's classic rules, fleetwatch's 5 km/h).

Over the ``segments`` frame of the whole read (lookback + day + lookahead), per device:

- a point is *moving* when faster than ``motion_kmh``; consecutive points of the same kind form a run,
  and a gap (``gap_s`` without data) always ends a run. A run lasts from its first point to the first point
  of the next run (or its own last point when a gap or the end of data follows);
- a stop run shorter than ``park_min_s`` between two moving runs (no gap) does not split the trip: it
  becomes part of it;
- consecutive moving runs then form a streak; a streak lasting at least ``trip_min_s`` or covering at least
  ``trip_min_m`` is a trip: start/end time, place and odometer, distance (the odometer difference when both
  ends carry it and it is sane, else the GPS mileage counted over the trip), duration, max and average speed.
  A trip still moving at the last point read is ``truncated``;
- a stop run of at least ``park_min_s`` is a park: start, end, duration, the place of its first point,
  ``acc_on_s`` (time with the ACC on) and ``idling`` (ACC on for at least ``idle_min_s`` of it).

Trips and parks belong to the day they start in (``window.start <= start < window.end``), listed once.
"""

from __future__ import annotations

import polars as pl

from pipelines.rules import Rules, Window
from pipelines.segments import ACC_ON

TRIP_COLUMNS = ("device_id", "start_at", "end_at", "start_lng", "start_lat", "end_lng", "end_lat", "start_odo_km",
                "end_odo_km", "distance_km", "duration_s", "max_speed_kmh", "avg_speed_kmh", "truncated")
PARK_COLUMNS = ("device_id", "start_at", "end_at", "lng", "lat", "duration_s", "acc_on_s", "idling")


def _runs(seg: pl.DataFrame, rules: Rules) -> pl.DataFrame:
    """One row per run (module doc) with its interval, first point, end point and cumulative km."""
    frame = seg.select("device_id", "fix_at", "t", "lng", "lat", "speed_kmh", "mileage_km", "status_flags",
                       "gap", "counted_km", "prev_t")
    moving = pl.col("speed_kmh") > rules.motion_kmh
    new_device = pl.col("prev_t").is_null()
    frame = frame.with_columns(
        moving=moving,
        cum_km=pl.col("counted_km").cum_sum().over("device_id"),
    )
    boundary = new_device | pl.col("gap") | (pl.col("moving") != pl.col("moving").shift(1))
    same_next = pl.col("device_id") == pl.col("device_id").shift(-1)
    next_t = pl.when(same_next & ~pl.col("gap").shift(-1).fill_null(True)).then(pl.col("t").shift(-1))
    acc_dt = pl.when((pl.col("status_flags") & ACC_ON) != 0).then(next_t - pl.col("t")).otherwise(0.0)
    frame = frame.with_columns(run=boundary.fill_null(True).cum_sum(), acc_dt=acc_dt.fill_null(0.0),
                               next_t=next_t, next_cum=pl.when(same_next).then(pl.col("cum_km").shift(-1)),
                               next_odo=pl.when(same_next).then(pl.col("mileage_km").shift(-1)),
                               next_lng=pl.when(same_next).then(pl.col("lng").shift(-1)),
                               next_lat=pl.when(same_next).then(pl.col("lat").shift(-1)))
    runs = frame.group_by("run", maintain_order=True).agg(
        device_id=pl.col("device_id").first(),
        moving=pl.col("moving").first(),
        t0=pl.col("t").first(), t1=pl.col("t").last(), tn=pl.col("next_t").last(),
        cum0=pl.col("cum_km").first(), cum1=pl.col("cum_km").last(), cumn=pl.col("next_cum").last(),
        odo0=pl.col("mileage_km").first(), odo1=pl.col("mileage_km").last(), odon=pl.col("next_odo").last(),
        lng0=pl.col("lng").first(), lat0=pl.col("lat").first(),
        lng1=pl.col("lng").last(), lat1=pl.col("lat").last(),
        lngn=pl.col("next_lng").last(), latn=pl.col("next_lat").last(),
        max_speed=pl.col("speed_kmh").max(),
        speed_sum=pl.col("speed_kmh").sum(), speed_n=pl.len(),
        acc_on_s=pl.col("acc_dt").sum(),
    )
    has_next = pl.col("tn").is_not_null()
    runs = runs.with_columns(
        end_t=pl.when(has_next).then(pl.col("tn")).otherwise(pl.col("t1")),
        end_cum=pl.when(has_next).then(pl.col("cumn")).otherwise(pl.col("cum1")),
        end_odo=pl.when(has_next).then(pl.col("odon")).otherwise(pl.col("odo1")),
        end_lng=pl.when(has_next).then(pl.col("lngn")).otherwise(pl.col("lng1")),
        end_lat=pl.when(has_next).then(pl.col("latn")).otherwise(pl.col("lat1")),
        last_of_device=pl.col("device_id") != pl.col("device_id").shift(-1).fill_null(-1),
    )
    return runs.with_columns(duration=pl.col("end_t") - pl.col("t0"))


def trips_and_parks(seg: pl.DataFrame, window: Window, rules: Rules) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(trips, parks) starting in the window's day (columns TRIP_COLUMNS / PARK_COLUMNS)."""
    if seg.is_empty():
        return _empty_trips(), _empty_parks()
    runs = _runs(seg, rules)
    same_prev = pl.col("device_id") == pl.col("device_id").shift(1)
    same_next = pl.col("device_id") == pl.col("device_id").shift(-1)
    linked_prev = same_prev & pl.col("tn").shift(1).is_not_null()  # the previous run leads into this one
    linked_next = same_next & pl.col("tn").is_not_null()
    short_stop = (~pl.col("moving") & (pl.col("duration") < rules.park_min_s) & linked_prev & linked_next
                  & pl.col("moving").shift(1).fill_null(False) & pl.col("moving").shift(-1).fill_null(False))
    runs = runs.with_columns(eff=(pl.col("moving") | short_stop.fill_null(False)))
    streak_break = ~(same_prev & linked_prev).fill_null(False) | (pl.col("eff") != pl.col("eff").shift(1))
    runs = runs.with_columns(streak=streak_break.fill_null(True).cum_sum())
    streaks = runs.filter(pl.col("eff")).group_by("streak", maintain_order=True).agg(
        device_id=pl.col("device_id").first(),
        t0=pl.col("t0").first(), end_t=pl.col("end_t").last(),
        cum0=pl.col("cum0").first(), end_cum=pl.col("end_cum").last(),
        odo0=pl.col("odo0").first(), end_odo=pl.col("end_odo").last(),
        lng0=pl.col("lng0").first(), lat0=pl.col("lat0").first(),
        end_lng=pl.col("end_lng").last(), end_lat=pl.col("end_lat").last(),
        max_speed=pl.col("max_speed").filter(pl.col("moving")).max(),
        speed_sum=pl.col("speed_sum").filter(pl.col("moving")).sum(),
        speed_n=pl.col("speed_n").filter(pl.col("moving")).sum(),
        truncated=(pl.col("last_of_device") & pl.col("tn").is_null() & pl.col("moving")).last(),
    )
    gps_km = pl.col("end_cum") - pl.col("cum0")
    duration = pl.col("end_t") - pl.col("t0")
    d_odo = pl.col("end_odo") - pl.col("odo0")
    odo_ok = d_odo.is_not_null() & (d_odo >= 0) & (d_odo <= rules.v_max_kmh * duration / 3600 + 0.5)
    trips = streaks.with_columns(
        distance_km=pl.when(odo_ok).then(d_odo).otherwise(gps_km),
        duration_s=duration,
    ).filter(
        ((pl.col("duration_s") >= rules.trip_min_s) | (pl.col("distance_km") * 1000 >= rules.trip_min_m))
        & (pl.col("t0") >= window.start_s) & (pl.col("t0") < window.end_s)
    )
    trips = trips.select(
        "device_id", _at("t0").alias("start_at"), _at("end_t").alias("end_at"),
        pl.col("lng0").alias("start_lng"), pl.col("lat0").alias("start_lat"), "end_lng", "end_lat",
        pl.col("odo0").alias("start_odo_km"), pl.col("end_odo").alias("end_odo_km"), "distance_km",
        pl.col("duration_s").round(0).cast(pl.Int64),
        pl.col("max_speed").alias("max_speed_kmh"),
        (pl.col("speed_sum") / pl.col("speed_n")).alias("avg_speed_kmh"),
        pl.col("truncated").fill_null(False),
    )
    parks = runs.filter(~pl.col("eff") & (pl.col("duration") >= rules.park_min_s)
                        & (pl.col("t0") >= window.start_s) & (pl.col("t0") < window.end_s)).select(
        "device_id", _at("t0").alias("start_at"), _at("end_t").alias("end_at"),
        pl.col("lng0").alias("lng"), pl.col("lat0").alias("lat"),
        pl.col("duration").round(0).cast(pl.Int64).alias("duration_s"),
        pl.col("acc_on_s").round(0).cast(pl.Int64),
        (pl.col("acc_on_s") >= rules.idle_min_s).alias("idling"),
    )
    return trips, parks


def _at(column: str) -> pl.Expr:
    return (pl.col(column) * 1e6).round(0).cast(pl.Int64).cast(pl.Datetime("us", "UTC"))


def _empty_trips() -> pl.DataFrame:
    return pl.DataFrame(schema={
        "device_id": pl.Int64, "start_at": pl.Datetime("us", "UTC"), "end_at": pl.Datetime("us", "UTC"),
        "start_lng": pl.Float64, "start_lat": pl.Float64, "end_lng": pl.Float64, "end_lat": pl.Float64,
        "start_odo_km": pl.Float64, "end_odo_km": pl.Float64, "distance_km": pl.Float64, "duration_s": pl.Int64,
        "max_speed_kmh": pl.Float64, "avg_speed_kmh": pl.Float64, "truncated": pl.Boolean})


def _empty_parks() -> pl.DataFrame:
    return pl.DataFrame(schema={
        "device_id": pl.Int64, "start_at": pl.Datetime("us", "UTC"), "end_at": pl.Datetime("us", "UTC"),
        "lng": pl.Float64, "lat": pl.Float64, "duration_s": pl.Int64, "acc_on_s": pl.Int64, "idling": pl.Boolean})
