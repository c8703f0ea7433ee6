"""Alarm counters per terminal and day (docs/reports.md §4 "alarm"): one column per alarm key.

``alarm_counters(alarms, window, keys)``: ``alarms`` holds episodes ``(device_id, key, type, start_time,
end_time, state)``; those starting in the day count. Per device: one count per key of ``keys`` (the
catalogue: every column present, zeros included), ``alarm_total``, ``alarm_s`` (Σ duration, an open episode
lasting until the day's clip end), ``active_safety`` (types 5-8), ``handled`` (state > 0), ``unhandled``,
``fatigue_s`` (a2 and p_fatigue episodes) and ``overspeed_alarms`` (a1 and p_overspeed).
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from pipelines.rules import Window

ALARM_SCHEMA = {"device_id": pl.Int64(), "key": pl.String(), "type": pl.Int64(),
                "start_time": pl.Datetime("us", "UTC"), "end_time": pl.Datetime("us", "UTC"), "state": pl.Int64()}
FATIGUE_KEYS = ("a2", "p_fatigue")
OVERSPEED_KEYS = ("a1", "p_overspeed")


def alarm_episodes(alarms: pl.DataFrame, window: Window, extra: Sequence[str] = ()) -> pl.DataFrame:
    """The episodes starting in the day with ``secs`` (their duration clipped to the day's clip end); ``extra``:
    more Int64 id columns to keep (``car_id``, ``driver_id``), null when ``alarms`` lacks them."""
    schema = {**ALARM_SCHEMA, **{c: pl.Int64() for c in extra}}
    frame = alarms.select([(pl.col(c) if c in alarms.columns else pl.lit(None)).cast(t).alias(c)
                           for c, t in schema.items()]) if not alarms.is_empty() else pl.DataFrame(schema=schema)
    frame = frame.filter((pl.col("start_time") >= window.start) & (pl.col("start_time") < window.end))
    ends = pl.min_horizontal(pl.col("end_time").fill_null(pl.lit(window.clip_end)), pl.lit(window.clip_end))
    return frame.with_columns(
        secs=pl.max_horizontal((pl.max_horizontal(ends, pl.col("start_time")) - pl.col("start_time"))
                               .dt.total_seconds(), pl.lit(0)))


def alarm_counters(alarms: pl.DataFrame, window: Window, keys: Sequence[str]) -> pl.DataFrame:
    frame = alarm_episodes(alarms, window)
    return frame.group_by("device_id").agg(
        *[(pl.col("key") == key).sum().cast(pl.Int64).alias(key) for key in keys],
        alarm_total=pl.len().cast(pl.Int64),
        alarm_s=pl.col("secs").sum().cast(pl.Int64),
        active_safety=pl.col("type").is_between(5, 8).sum().cast(pl.Int64),
        handled=(pl.col("state") > 0).sum().cast(pl.Int64),
        unhandled=(pl.col("state") == 0).sum().cast(pl.Int64),
        fatigue_s=pl.col("secs").filter(pl.col("key").is_in(FATIGUE_KEYS)).sum().cast(pl.Int64),
        overspeed_alarms=pl.col("key").is_in(OVERSPEED_KEYS).sum().cast(pl.Int64),
    ).sort("device_id")
