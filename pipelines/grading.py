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
Grade: the first band (grade, minimum score) the score reaches, the last band otherwise, of the bands in
effect for the subject's enterprise: its own entry of the per-enterprise dictionary type 50 (platform-spec §3,
§9 "Driving behaviour grade"), else its nearest ancestor's, else the system entry ``driving_behavior_grade``
(type 98), else ``DEFAULT_BANDS`` (``bands_in_effect``). Keys without a rule deduct nothing; a subject without alarms
scores 100. ``grade_deductions``: a JSON list ``[{key, count, minutes, points}]`` of the keys that deducted.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

import polars as pl

from fleet.grade_bands import Bands, bands_in_effect
from pipelines.alarms import alarm_episodes
from pipelines.rules import Window

NONE, PER_100_KM, PER_HOUR = 0, 1, 2
RULE_SCHEMA = {"enterprise_id": pl.Int64(), "alarm_key": pl.String(), "per_occurrence": pl.Float64(),
               "per_minute": pl.Float64(), "cap": pl.Float64(), "normalisation": pl.Int64()}
SCORE_COLUMNS = ("grade_score", "grade", "grade_deductions")


BANDS_SCHEMA = {"enterprise_id": pl.Int64(), "grade": pl.String(), "min_score": pl.Float64()}


def effective_bands(own: Mapping[int, Bands], enterprises: pl.DataFrame, fallback: Bands) -> pl.DataFrame:
    """(enterprise_id, grade, min_score) of every enterprise of ``enterprises`` (enterprise_id, enterprise_path):
    the bands in effect for it (``bands_in_effect``)."""
    rows = [(enterprise_id, grade, minimum)
            for enterprise_id, path in enterprises.select("enterprise_id", "enterprise_path").iter_rows()
            for grade, minimum in bands_in_effect(path, own, fallback)[0]]
    return pl.DataFrame(rows, schema=BANDS_SCHEMA, orient="row")


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
                   bands: pl.DataFrame | Sequence[tuple[str, float]]) -> pl.DataFrame:
    """``subjects`` (``subject``, enterprise_id, mileage_km, drive_s) with ``grade_score``, ``grade`` and
    ``grade_deductions``. ``usage``: ``alarm_usage``; ``rules``: ``effective_rules``; ``bands``:
    ``effective_bands``, or one set of bands for every enterprise."""
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
    if not isinstance(bands, pl.DataFrame):
        bands = subjects.select(pl.col("enterprise_id").cast(pl.Int64).unique()).join(
            pl.DataFrame(list(bands), schema=["grade", "min_score"], orient="row"), how="cross")
    return with_grades(scored.drop("deducted"), bands)


def with_grades(scored: pl.DataFrame, bands: pl.DataFrame) -> pl.DataFrame:
    """``scored`` (enterprise_id, grade_score) with ``grade``: the highest band of its enterprise in ``bands``
    (enterprise_id, grade, min_score) whose minimum the score reaches, else that enterprise's lowest band;
    None for an enterprise without bands."""
    keyed = scored.drop("grade", strict=False).with_row_index("_row") \
        .with_columns(_enterprise=pl.col("enterprise_id").cast(pl.Int64))
    bands = bands.select(pl.col("enterprise_id").cast(pl.Int64).alias("_enterprise"), pl.col("grade").cast(pl.String),
                         pl.col("min_score").cast(pl.Float64))
    reached = keyed.select("_row", "_enterprise", "grade_score").join(bands, on="_enterprise", how="inner") \
        .filter(pl.col("grade_score") >= pl.col("min_score")) \
        .sort("min_score", descending=True).group_by("_row", maintain_order=True).agg(pl.col("grade").first())
    lowest = bands.sort("min_score").group_by("_enterprise", maintain_order=True).agg(_lowest=pl.col("grade").first())
    return keyed.join(reached, on="_row", how="left").join(lowest, on="_enterprise", how="left") \
        .with_columns(grade=pl.coalesce("grade", "_lowest")).sort("_row").drop("_row", "_enterprise", "_lowest")


MONTH_DAY_SCHEMA = {"grade_score": pl.Float64(), "drive_s": pl.Int64(), "grade_deductions": pl.String()}


def month_scores(days: pl.DataFrame, subject: str) -> pl.DataFrame:
    """A month's score per subject from its scored days (``subject``, ``grade_score``, ``drive_s``,
    ``grade_deductions`` as JSON text): the days' scores averaged by driving time (a day without driving weighs
    nothing; a subject that never drove in the month weighs its days equally), to one decimal; the deductions per
    key: counts and minutes summed, points averaged with the same weights, so that 100 minus the month's points is
    the month's score (unless a day was floored at 0). ``subject``, ``grade_score``, ``grade_deductions`` (JSON)."""
    schema = {subject: pl.Int64(), "grade_score": pl.Float64(), "grade_deductions": pl.String()}
    days = days.filter(pl.col("grade_score").is_not_null())
    if days.is_empty():
        return pl.DataFrame(schema=schema)
    drove = pl.col("drive_s").fill_null(0).clip(lower_bound=0).cast(pl.Float64)
    days = days.with_columns(
        _weight=pl.when(drove.sum().over(subject) > 0).then(drove).otherwise(1.0))
    totals = days.group_by(subject).agg(_weights=pl.col("_weight").sum(),
                                        grade_score=((pl.col("grade_score") * pl.col("_weight")).sum()
                                                     / pl.col("_weight").sum()).round(1))
    item_type = pl.List(pl.Struct({"key": pl.String(), "count": pl.Int64(), "minutes": pl.Float64(),
                                   "points": pl.Float64()}))
    items = days.select(subject, "_weight", pl.col("grade_deductions").fill_null("[]")
                        .str.json_decode(item_type).alias("_item")).explode("_item") \
        .filter(pl.col("_item").is_not_null()).unnest("_item")
    keys = items.join(totals.select(subject, "_weights"), on=subject).group_by(subject, "key").agg(
        count=pl.col("count").sum(), minutes=pl.col("minutes").sum().round(1),
        points=((pl.col("points") * pl.col("_weight")).sum() / pl.col("_weights").first()).round(2),
    ).filter(pl.col("points") > 0).sort(subject, "key")
    breakdown = {row[0]: row[1] for row in keys.group_by(subject, maintain_order=True).agg(
        items=pl.struct("key", "count", "minutes", "points")).iter_rows()}
    return totals.sort(subject).select(
        pl.col(subject).cast(pl.Int64), "grade_score",
        pl.col(subject).map_elements(lambda s: json.dumps(breakdown.get(s, []), ensure_ascii=False),
                                     return_dtype=pl.String).alias("grade_deductions"))
