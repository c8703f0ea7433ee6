"""A day's positions as segments: the one frame mileage, motion and runtime all read (docs/reports.md §3).

``POINT_SCHEMA`` is what the daily read returns (gps columns; ``fix_at`` UTC). ``segments(points, window,
rules)`` keeps positioned plausible fixes (status bit 1, ``quality`` 0: a fix flagged implausible by the
positions step adds no mileage, trip or runtime; ``point_counts`` counts it), sorts them by (device, time), removes drift *spikes* (a
point both reached and left at an implausible speed while its neighbours are plausible to each other:
the classic GPS jump out and back), and gives each remaining point its segment from the previous point of
the same device:

- ``dt_s``, ``dist_km`` (haversine, R = 6,371.0088 km), ``t`` (epoch seconds);
- ``gap``: ``dt_s > gap_s`` (no data: not driving time, ends a trip); ``incomplete``: a gap or a jump
  longer than ``gap_km`` (轨迹完整率: its distance counts in the total, not in the complete mileage);
- ``drift``: the segment is implausible (implied speed > ``v_max_kmh``, or > ``drift_jump_km`` within
  ``drift_jump_s``, or a move without time): its distance is dropped; the point is a drift point;
- ``jitter``: stopped (both ends at most ``motion_kmh``) with ACC off and shorter than ``min_error_m``;
- ``counted_km``: the distance GPS mileage counts (0 for drift and jitter);
- ``in_day``: the segment belongs to the day of its end point (``window.start <= t < window.end``, with a
  predecessor); ``dt_day_s``: its time inside the day (a first segment reaching back before midnight is
  clipped at midnight).

Each point also carries ``spike`` counts per device in a separate frame (``drift_spikes``).
"""

from __future__ import annotations

import polars as pl

from pipelines.rules import EARTH_RADIUS_KM, Rules, Window

POINT_SCHEMA: dict[str, pl.DataType] = {
    "device_id": pl.Int64(), "fix_at": pl.Datetime("us", "UTC"), "lng": pl.Float64(), "lat": pl.Float64(),
    "speed_kmh": pl.Float64(), "mileage_km": pl.Float64(), "status_flags": pl.Int64(), "alarm_flags": pl.Int64(),
    "received_at": pl.Datetime("us", "UTC"), "quality": pl.Int64(),
}
ACC_ON, POSITIONED, OVERSPEED_BIT = 1, 2, 1
# gps.quality bits (migration 0038; streams.validation): a flagged fix is stored but implausible.
QUALITY_TIME, QUALITY_TELEPORT = 1 | 2, 4


def empty_points() -> pl.DataFrame:
    return pl.DataFrame(schema=POINT_SCHEMA)


def conform(points: pl.DataFrame) -> pl.DataFrame:
    """The point columns cast to POINT_SCHEMA (a read may give float32 speeds or naive times)."""
    cols = []
    for name, dtype in POINT_SCHEMA.items():
        col = pl.col(name) if name in points.columns else pl.lit(0 if name == "quality" else None)
        if isinstance(dtype, pl.Datetime) and name in points.columns and points.schema[name] != dtype:
            current = points.schema[name]
            col = col.dt.replace_time_zone("UTC") if getattr(current, "time_zone", None) is None else col
            col = col.dt.convert_time_zone("UTC").dt.cast_time_unit("us")
        cols.append(col.cast(dtype).alias(name))
    return points.select(cols)


def _haversine_km(lat1: pl.Expr, lng1: pl.Expr, lat2: pl.Expr, lng2: pl.Expr) -> pl.Expr:
    p1, p2 = lat1.radians(), lat2.radians()
    dp, dl = (lat2 - lat1).radians(), (lng2 - lng1).radians()
    a = (dp / 2).sin() ** 2 + p1.cos() * p2.cos() * (dl / 2).sin() ** 2
    return 2 * EARTH_RADIUS_KM * a.sqrt().arcsin()


def _implausible(dist_km: pl.Expr, dt_s: pl.Expr, rules: Rules) -> pl.Expr:
    too_fast = pl.when(dt_s > 0).then(dist_km / dt_s * 3600 > rules.v_max_kmh).otherwise(dist_km > 0.05)
    jump = (dt_s <= rules.drift_jump_s) & (dist_km > rules.drift_jump_km)
    return too_fast | jump


def _with_prev(frame: pl.DataFrame) -> pl.DataFrame:
    same = pl.col("device_id") == pl.col("device_id").shift(1)
    prev = {c: pl.when(same).then(pl.col(c).shift(1)).alias(f"prev_{c}")
            for c in ("t", "lat", "lng", "speed_kmh", "mileage_km", "status_flags", "alarm_flags")}
    return frame.with_columns(list(prev.values())).with_columns(
        dt_s=pl.col("t") - pl.col("prev_t"),
        dist_km=_haversine_km(pl.col("prev_lat"), pl.col("prev_lng"), pl.col("lat"), pl.col("lng")),
    )


def _sorted_positioned(points: pl.DataFrame) -> pl.DataFrame:
    """Positioned fixes by (device, time), a repeated (device, time) kept once (the first: stable sort; a
    neighbour comparison costs a third of ``unique`` on a day of 1,000 vehicles)."""
    frame = (conform(points)
             .filter(((pl.col("status_flags") & POSITIONED) != 0) & (pl.col("quality").fill_null(0) == 0))
             .sort(["device_id", "fix_at"], maintain_order=True))
    repeat = (pl.col("device_id") == pl.col("device_id").shift(1)) & (pl.col("fix_at") == pl.col("fix_at").shift(1))
    return frame.filter(~repeat.fill_null(False)).with_columns(
        t=pl.col("fix_at").dt.epoch("us").cast(pl.Float64) / 1e6)


def _spikes(frame: pl.DataFrame, rules: Rules) -> pl.Series:
    """Per point: reached and left implausibly while its neighbours are plausible to each other."""
    same_next = pl.col("device_id") == pl.col("device_id").shift(-1)
    bad_in = _implausible(pl.col("dist_km"), pl.col("dt_s"), rules).fill_null(False)
    next_dist = pl.when(same_next).then(pl.col("dist_km").shift(-1))
    next_dt = pl.when(same_next).then(pl.col("dt_s").shift(-1))
    bad_out = _implausible(next_dist, next_dt, rules).fill_null(False)
    bypass = _haversine_km(pl.col("prev_lat"), pl.col("prev_lng"),
                           pl.when(same_next).then(pl.col("lat").shift(-1)),
                           pl.when(same_next).then(pl.col("lng").shift(-1)))
    bypass_dt = pl.when(same_next).then(pl.col("t").shift(-1)) - pl.col("prev_t")
    bypass_ok = (~_implausible(bypass, bypass_dt, rules)).fill_null(False)
    return frame.select((bad_in & bad_out & bypass_ok).alias("spike")).to_series()


def segments(points: pl.DataFrame, window: Window, rules: Rules) -> pl.DataFrame:
    """Point frame (POINT_SCHEMA) -> one row per kept point with its incoming segment (see module doc)."""
    return segments_and_spikes(points, window, rules)[0]


def segments_and_spikes(points: pl.DataFrame, window: Window, rules: Rules) -> tuple[pl.DataFrame, pl.DataFrame]:
    """``segments`` and ``drift_spikes`` from one sort of the points (what a report day uses)."""
    frame = _with_prev(_sorted_positioned(points))
    spike = _spikes(frame, rules)
    in_day = (pl.col("t") >= window.start_s) & (pl.col("t") < window.end_s)
    spikes = (frame.select("device_id", "t").with_columns(spike=spike).filter(pl.col("spike") & in_day)
              .group_by("device_id").agg(spikes=pl.len().cast(pl.Int64)))
    frame = _with_prev(frame.filter(~spike).select(_base_columns()))
    stopped_ends = ((pl.col("prev_speed_kmh") <= rules.motion_kmh) & (pl.col("speed_kmh") <= rules.motion_kmh)
                    & ((pl.col("status_flags") & ACC_ON) == 0))
    drift = _implausible(pl.col("dist_km"), pl.col("dt_s"), rules).fill_null(False)
    jitter = (stopped_ends & (pl.col("dist_km") * 1000 < rules.min_error_m)).fill_null(False)
    has_prev = pl.col("prev_t").is_not_null()
    in_day = (pl.col("t") >= window.start_s) & (pl.col("t") < window.end_s)
    frame = frame.with_columns(
        drift=drift,
        jitter=jitter,
        gap=(pl.col("dt_s") > rules.gap_s).fill_null(False),
        incomplete=((pl.col("dt_s") > rules.gap_s) | (pl.col("dist_km") > rules.gap_km)).fill_null(False),
        in_day_point=in_day,
        in_day=in_day & has_prev,
        dt_day_s=pl.when(has_prev).then(
            pl.min_horizontal(pl.col("t"), pl.lit(window.clip_end_s))
            - pl.max_horizontal(pl.col("prev_t"), pl.lit(window.start_s))).otherwise(0.0).clip(0.0),
    )
    frame = frame.with_columns(
        counted_km=pl.when(pl.col("drift") | pl.col("jitter") | ~has_prev).then(0.0).otherwise(pl.col("dist_km")),
    )
    return frame, spikes


def drift_spikes(points: pl.DataFrame, window: Window, rules: Rules) -> pl.DataFrame:
    """(device_id, spikes): drift spikes removed by ``segments`` among the day's points."""
    return segments_and_spikes(points, window, rules)[1]


def _base_columns() -> list[str]:
    return [*POINT_SCHEMA, "t"]
