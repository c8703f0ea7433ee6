"""Per-vehicle mileage, speeds, overspeed and data counts of one day (docs/reports.md §3).

``vehicle_mileage(seg, window, rules)`` reads the ``segments`` frame and returns one row per device with
points in the day:

- ``gps_km``: Σ ``counted_km`` of the day's segments (drift and stationary jitter dropped; gaps counted
  when plausible); ``incomplete_km``: the part over incomplete segments; ``gap_count``; ``drift_points``.
- ``odo_km``: Σ sane odometer deltas (JT/T 808 item 0x01) over the day's segments whose both ends carry it:
  a delta counts when ``0 <= Δ <= v_max·Δt + 0.5 km``; a negative one (reset, rollover, swapped terminal)
  counts nothing and the chain goes on from the new value; a too-large one counts the segment's GPS distance
  instead. Summing deltas survives a mid-day reset where ``last - first`` does not. ``odo_start_km`` /
  ``odo_end_km``: the first / last odometer reading of the day.
- ``mileage_km`` / ``mileage_source``: the odometer (1) when at least ``odo_min_share`` of the day's points
  carry it and it is within ``odo_ratio_min..odo_ratio_max`` of the GPS mileage (or GPS < 1 km), else
  GPS (2).
- durations (``overspeed_s``) are split at midnight: each segment counts for the part of it inside the
  day.
- ``max_speed_kmh``, ``avg_speed_kmh`` (mean over moving points), ``first_fix_at``, ``last_fix_at``,
  ``overspeed_count`` (episodes of alarm bit 1 starting in the day), ``overspeed_s``.
- ``points`` / ``positioned_points`` / ``odo_points`` need the raw points: ``point_counts(points, window)``.
"""

from __future__ import annotations

import polars as pl

from pipelines.rules import Rules, Window
from pipelines.segments import OVERSPEED_BIT, POSITIONED, QUALITY_TELEPORT, QUALITY_TIME, conform

MILEAGE_ODOMETER, MILEAGE_GPS = 1, 2


def point_counts(points: pl.DataFrame, window: Window) -> pl.DataFrame:
    """(device_id, points, positioned_points, odo_points, teleport_points, max_received_at) of the fixes inside
    the day. A fix flagged implausible (``quality``) is not qualified (not in ``positioned_points``); a
    teleport is a point of its day and a drift point (``teleport_points``); a fix with an implausible time
    is no point of the day it claims (it is counted on its day of receipt, from gps_reject_day)."""
    pts = conform(points)
    t = pl.col("fix_at")
    quality = pl.col("quality").fill_null(0)
    qualified = ((pl.col("status_flags") & POSITIONED) != 0) & (quality == 0)
    return (pts.filter((t >= window.start) & (t < window.end) & ((quality & QUALITY_TIME) == 0))
            .group_by("device_id")
            .agg(points=pl.len().cast(pl.Int64),
                 positioned_points=qualified.sum().cast(pl.Int64),
                 odo_points=(qualified & pl.col("mileage_km").is_not_null()).sum().cast(pl.Int64),
                 teleport_points=((quality & QUALITY_TELEPORT) != 0).sum().cast(pl.Int64),
                 max_received_at=pl.col("received_at").max()))


def vehicle_mileage(seg: pl.DataFrame, window: Window, rules: Rules) -> pl.DataFrame:
    """One row per device with positioned points in the day (module doc)."""
    moving = pl.col("speed_kmh") > rules.motion_kmh
    odo_both = pl.col("mileage_km").is_not_null() & pl.col("prev_mileage_km").is_not_null()
    d_odo = pl.col("mileage_km") - pl.col("prev_mileage_km")
    ceiling = rules.v_max_kmh * pl.col("dt_s") / 3600 + 0.5
    odo_delta = (pl.when(~odo_both | (d_odo < 0)).then(0.0)
                 .when(d_odo <= ceiling).then(d_odo)
                 .otherwise(pl.col("counted_km")))
    bit = (pl.col("alarm_flags") & (1 << OVERSPEED_BIT)) != 0
    prev_bit = ((pl.col("prev_alarm_flags") & (1 << OVERSPEED_BIT)) != 0).fill_null(False)
    day = seg.filter(pl.col("in_day_point"))
    facts = day.with_columns(
        odo_delta=pl.when(pl.col("in_day")).then(odo_delta).otherwise(0.0),
        seg_km=pl.when(pl.col("in_day")).then(pl.col("counted_km")).otherwise(0.0),
        over_start=bit & (~prev_bit | pl.col("gap")),
    ).group_by("device_id").agg(
        gps_km=pl.col("seg_km").sum(),
        incomplete_km=pl.when(pl.col("incomplete")).then(pl.col("seg_km")).otherwise(0.0).sum(),
        gap_count=(pl.col("in_day") & pl.col("gap")).sum().cast(pl.Int64),
        drift_points=(pl.col("in_day") & pl.col("drift")).sum().cast(pl.Int64),
        odo_km=pl.col("odo_delta").sum(),
        odo_start_km=pl.col("mileage_km").drop_nulls().first(),
        odo_end_km=pl.col("mileage_km").drop_nulls().last(),
        odo_share=pl.col("mileage_km").is_not_null().mean(),
        max_speed_kmh=pl.col("speed_kmh").max(),
        avg_speed_kmh=pl.col("speed_kmh").filter(moving).mean(),
        first_fix_at=pl.col("fix_at").min(),
        last_fix_at=pl.col("fix_at").max(),
        overspeed_count=pl.col("over_start").sum().cast(pl.Int64),
    )
    over = seg.filter(prev_bit & ~pl.col("gap") & (pl.col("dt_day_s") > 0)).group_by("device_id").agg(
        overspeed_s=pl.col("dt_day_s").sum())
    facts = facts.join(over, on="device_id", how="left").with_columns(pl.col("overspeed_s").fill_null(0.0))
    ratio = pl.col("odo_km") / pl.col("gps_km")
    use_odo = ((pl.col("odo_share") >= rules.odo_min_share) & pl.col("odo_start_km").is_not_null()
               & ((pl.col("gps_km") < 1.0) | ((ratio >= rules.odo_ratio_min) & (ratio <= rules.odo_ratio_max))))
    return facts.with_columns(
        mileage_source=pl.when(use_odo).then(MILEAGE_ODOMETER).otherwise(MILEAGE_GPS).cast(pl.Int64),
        mileage_km=pl.when(use_odo).then(pl.col("odo_km")).otherwise(pl.col("gps_km")),
        odo_km=pl.when(pl.col("odo_start_km").is_not_null()).then(pl.col("odo_km")),
    ).sort("device_id")
