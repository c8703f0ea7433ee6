"""Driving-behaviour grading (platform-spec §2 Settings "drivingGradeRule"): a score per vehicle and per driver
and day from the day's alarms and driving.

Rules (``driving_grade_rule``, one row per enterprise and alarm key): ``effective_rules`` gives each
enterprise, per key, the row of the enterprise itself or else of its nearest ancestor with a row of that key
(a subsidiary inherits its parent's rule of a key unless it has its own, as alarm levels and notification
rules are inherited).

Deduction of one key for one subject (vehicle or driver) and day: ``per_occurrence × count + per_minute ×
minutes`` (minutes: the alarms' durations, an open alarm lasting until the day's clip end, as in
``pipelines.alarms``), capped at ``cap`` when the rule has one, then normalised: 0 none, 1 divided by the
hundreds of km driven, 2 divided by the hours driven, where a day under 100 km / 1 h counts as 100 km / 1 h
(a short day never weighs more than a full one). Score: 100 minus the sum, floored at 0, to one decimal.
Grade: the first band of ``bands`` (grade, minimum score; the dictionary ``driving_behavior_grade``) the
score reaches, the last band otherwise. Keys without a rule deduct nothing; a subject without alarms
scores 100. ``grade_deductions``: a JSON list ``[{key, count, minutes, points}]`` of the keys that deducted.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import polars as pl

from pipelines.alarms import alarm_episodes
from pipelines.rules import Window

NONE, PER_100_KM, PER_HOUR = 0, 1, 2
RULE_SCHEMA = {"enterprise_id": pl.Int64(), "alarm_key": pl.String(), "per_occurrence": pl.Float64(),
               "per_minute": pl.Float64(), "cap": pl.Float64(), "normalisation": pl.Int64()}
DEFAULT_BANDS: tuple[tuple[str, float], ...] = (("A", 90.0), ("B", 80.0), ("C", 60.0), ("D", 0.0))
SCORE_COLUMNS = ("grade_score", "grade", "grade_deductions")


def bands_of(content: object) -> tuple[tuple[str, float], ...]:
    """The bands of the dictionary entry's content (``{"grades": [{grade, minScore}]}``), highest first;
    the default bands when the content has none that are well formed."""
    grades = content.get("grades") if isinstance(content, dict) else None
    bands = [(str(g["grade"]), float(g["minScore"])) for g in grades or ()
             if isinstance(g, dict) and "grade" in g and isinstance(g.get("minScore"), int | float)]
    return tuple(sorted(bands, key=lambda b: -b[1])) or DEFAULT_BANDS


def effective_rules(rules: pl.DataFrame, enterprises: pl.DataFrame) -> pl.DataFrame:
    """Per enterprise of ``enterprises`` (enterprise_id, enterprise_path '/1/3/') and alarm key, the rule in
    effect: its own, else its nearest ancestor's. ``rules``: one row per (enterprise_id, alarm_key)."""
    rules = rules.select([pl.col(c).cast(t) for c, t in RULE_SCHEMA.items()]) if not rules.is_empty() \
        else pl.DataFrame(schema=RULE_SCHEMA)
    chain = enterprises.select(
        "enterprise_id", ancestor=pl.col("enterprise_path").str.strip_chars("/").str.split("/"),
    ).explode("ancestor").filter(pl.col("ancestor") != "").with_columns(
        ancestor=pl.col("ancestor").cast(pl.Int64), depth=pl.int_range(pl.len()).over("enterprise_id"))
    found = chain.join(rules.rename({"enterprise_id": "ancestor"}), on="ancestor", how="inner")
    return found.sort("depth", descending=True).group_by("enterprise_id", "alarm_key", maintain_order=True).first() \
        .drop("ancestor", "depth").sort("enterprise_id", "alarm_key")


def alarm_usage(alarms: pl.DataFrame, window: Window, subject: str) -> pl.DataFrame:
    """(``subject``, alarm_key, count, minutes) of the alarms starting in the day with a non-null ``subject``
    column (``car_id`` or ``driver_id``)."""
    episodes = alarm_episodes(alarms, window, (subject,)).filter(pl.col(subject).is_not_null())
    return episodes.group_by(subject, pl.col("key").alias("alarm_key")).agg(
        count=pl.len().cast(pl.Int64), minutes=(pl.col("secs").sum() / 60.0))


def score_subjects(subjects: pl.DataFrame, usage: pl.DataFrame, rules: pl.DataFrame, subject: str,
                   bands: Sequence[tuple[str, float]]) -> pl.DataFrame:
    """``subjects`` (``subject``, enterprise_id, mileage_km, drive_s) with ``grade_score``, ``grade`` and
    ``grade_deductions``. ``usage``: ``alarm_usage``; ``rules``: ``effective_rules``."""
    basis = subjects.select(subject, "enterprise_id", pl.col("mileage_km").fill_null(0.0).cast(pl.Float64),
                            pl.col("drive_s").fill_null(0).cast(pl.Float64))
    lines = basis.join(usage, on=subject, how="inner").join(rules, on=["enterprise_id", "alarm_key"], how="inner")
    raw = pl.col("per_occurrence") * pl.col("count") + pl.col("per_minute") * pl.col("minutes")
    capped = pl.when(pl.col("cap").is_not_null()).then(pl.min_horizontal(raw, pl.col("cap"))).otherwise(raw)
    factor = pl.when(pl.col("normalisation") == PER_100_KM).then(pl.max_horizontal(pl.col("mileage_km") / 100.0, 1.0)) \
        .when(pl.col("normalisation") == PER_HOUR).then(pl.max_horizontal(pl.col("drive_s") / 3600.0, 1.0)) \
        .otherwise(1.0)
    lines = lines.with_columns(points=(capped / factor)).filter(pl.col("points") > 0)
    per_subject = lines.sort(subject, "alarm_key").group_by(subject, maintain_order=True).agg(
        deducted=pl.col("points").sum(),
        items=pl.struct(pl.col("alarm_key").alias("key"), "count", pl.col("minutes").round(1),
                        pl.col("points").round(2)))
    breakdown = [json.dumps(items, ensure_ascii=False) for items in per_subject["items"].to_list()]
    per_subject = per_subject.drop("items").with_columns(grade_deductions=pl.Series(breakdown, dtype=pl.String))
    scored = subjects.join(per_subject, on=subject, how="left").with_columns(
        grade_score=pl.max_horizontal(100.0 - pl.col("deducted").fill_null(0.0), 0.0).round(1),
        grade_deductions=pl.col("grade_deductions").fill_null("[]"))
    return scored.with_columns(grade=grade_of(pl.col("grade_score"), bands)).drop("deducted")


def grade_of(score: pl.Expr, bands: Sequence[tuple[str, float]]) -> pl.Expr:
    """The first band (highest minimum first) whose minimum ``score`` reaches, else the lowest band."""
    ordered = sorted(bands, key=lambda b: -b[1])
    expr: pl.Expr = pl.lit(ordered[-1][0])
    for grade, minimum in reversed(ordered):
        expr = pl.when(score >= minimum).then(pl.lit(grade)).otherwise(expr)
    return expr
