"""Seconds per state in a day from transition logs (runtime, online), and from positions when no state
is known (docs/reports.md §4 "runtime", "online").

``state_durations(log, window)``: ``log`` holds transitions ``(device_id, at, state)`` of the day plus, per
device, the last one before the day (the state at midnight). Each state lasts until the next transition,
clipped to ``[window.start, window.clip_end)`` (today's provisional rows stop at now). Time before a
device's first known state is not counted anywhere. Returns per device: ``s_<state>`` seconds for each
state seen, ``entered_<state>`` (transitions into the state inside the day), ``first_<state>_at`` /
``last_<state>_at`` (first / last transition into it inside the day) and ``at_start`` (the state at
midnight, or null).

``runtime_from_logs(acc, biz)`` and ``online_from_log(online)`` name those columns for ``car_day_report``;
``runtime_from_points(seg)`` gives the same columns from the segments when a vehicle has no state log.
"""

from __future__ import annotations

import polars as pl

from pipelines.rules import Rules, Window
from pipelines.segments import ACC_ON

LOG_SCHEMA = {"device_id": pl.Int64(), "at": pl.Datetime("us", "UTC"), "state": pl.Int64()}
BIZ_OFFLINE, BIZ_DRIVING, BIZ_PARKED, BIZ_ENGINE_OFF, BIZ_NO_SIGNAL = 0, 1, 2, 3, 4


def conform_log(log: pl.DataFrame) -> pl.DataFrame:
    if log.is_empty():
        return pl.DataFrame(schema=LOG_SCHEMA)
    at = pl.col("at")
    if log.schema["at"] != pl.Datetime("us", "UTC"):
        at = at.dt.convert_time_zone("UTC").dt.cast_time_unit("us")
    return log.select(pl.col("device_id").cast(pl.Int64), at.alias("at"), pl.col("state").cast(pl.Int64))


def state_durations(log: pl.DataFrame, window: Window, states: tuple[int, ...]) -> pl.DataFrame:
    """Per device with a known state in the day (module doc); ``states`` names the columns made."""
    frame = conform_log(log).sort(["device_id", "at"]).filter(pl.col("at") < window.clip_end)
    start, clip = window.start, window.clip_end
    same_next = pl.col("device_id") == pl.col("device_id").shift(-1)
    frame = frame.with_columns(
        until=pl.when(same_next).then(pl.col("at").shift(-1)).otherwise(pl.lit(clip)),
    ).with_columns(
        lo=pl.max_horizontal(pl.col("at"), pl.lit(start)),
        hi=pl.min_horizontal(pl.col("until"), pl.lit(clip)),
    ).with_columns(
        secs=pl.when(pl.col("hi") > pl.col("lo")).then((pl.col("hi") - pl.col("lo")).dt.total_seconds())
        .otherwise(0),
        inside=pl.col("at") >= start,
    )
    aggs: list[pl.Expr] = [
        pl.col("state").filter(~pl.col("inside")).last().alias("at_start"),
    ]
    for state in states:
        is_state = pl.col("state") == state
        aggs += [
            pl.col("secs").filter(is_state).sum().cast(pl.Int64).alias(f"s_{state}"),
            (is_state & pl.col("inside")).sum().cast(pl.Int64).alias(f"entered_{state}"),
            pl.col("at").filter(is_state & pl.col("inside")).min().alias(f"first_{state}_at"),
            pl.col("at").filter(is_state & pl.col("inside")).max().alias(f"last_{state}_at"),
        ]
    known = frame.filter(pl.col("until") > start)
    return known.group_by("device_id").agg(aggs).sort("device_id")


def runtime_from_logs(acc: pl.DataFrame, biz: pl.DataFrame, window: Window) -> pl.DataFrame:
    """(device_id, acc_on_s, first_acc_on_at, last_acc_off_at, drive_s, idle_s, engine_off_s, no_signal_s)."""
    a = state_durations(acc, window, (0, 1)).select(
        "device_id", pl.col("s_1").alias("acc_on_s"), pl.col("first_1_at").alias("first_acc_on_at"),
        pl.col("last_0_at").alias("last_acc_off_at"))
    b = state_durations(biz, window, (0, 1, 2, 3, 4)).select(
        "device_id", pl.col(f"s_{BIZ_DRIVING}").alias("drive_s"), pl.col(f"s_{BIZ_PARKED}").alias("idle_s"),
        pl.col(f"s_{BIZ_ENGINE_OFF}").alias("engine_off_s"), pl.col(f"s_{BIZ_NO_SIGNAL}").alias("no_signal_s"))
    return a.join(b, on="device_id", how="full", coalesce=True).sort("device_id")


def online_from_log(online: pl.DataFrame, window: Window) -> pl.DataFrame:
    """(device_id, online_s, offline_s, online_sessions, first_online_at, last_offline_at): a session is
    an online transition inside the day, or being online at midnight."""
    d = state_durations(online, window, (0, 1))
    return d.select(
        "device_id", pl.col("s_1").alias("online_s"), pl.col("s_0").alias("offline_s"),
        (pl.col("entered_1") + (pl.col("at_start") == 1).fill_null(False).cast(pl.Int64)).alias("online_sessions"),
        pl.col("first_1_at").alias("first_online_at"), pl.col("last_0_at").alias("last_offline_at"),
    )


def runtime_from_points(seg: pl.DataFrame, rules: Rules) -> pl.DataFrame:
    """The runtime columns from positions (no state log): each segment (not a gap) counts, for its part inside
    the day, for the state of its first point: ACC on and moving = driving, ACC on = idle, ACC off = engine off."""
    acc = (pl.col("prev_status_flags") & ACC_ON) != 0
    moving = pl.col("prev_speed_kmh") > rules.motion_kmh
    day = seg.filter((pl.col("dt_day_s") > 0) & ~pl.col("gap"))
    return day.group_by("device_id").agg(
        acc_on_s=pl.col("dt_day_s").filter(acc).sum().round(0).cast(pl.Int64),
        drive_s=pl.col("dt_day_s").filter(acc & moving).sum().round(0).cast(pl.Int64),
        idle_s=pl.col("dt_day_s").filter(acc & ~moving).sum().round(0).cast(pl.Int64),
        engine_off_s=pl.col("dt_day_s").filter(~acc).sum().round(0).cast(pl.Int64),
    ).sort("device_id")
