"""Driving-behaviour grading (pipelines/grading.py, fleet/grade_bands.py): hand-computed scores, caps,
normalisation, bands (an enterprise's own, inherited, the system's) and the inheritance of an ancestor's rule per
key."""

from __future__ import annotations

import json
from datetime import timedelta

import polars as pl

from fleet.grade_bands import DEFAULT_BANDS, bands_in_effect, bands_of, bands_problem
from pipelines.grading import (
    NONE,
    PER_100_KM,
    PER_HOUR,
    alarm_usage,
    effective_bands,
    effective_rules,
    month_scores,
    score_subjects,
)
from tests.unit.pipelines.tracks import WINDOW, local

ALARM_SCHEMA = {"device_id": pl.Int64, "car_id": pl.Int64, "driver_id": pl.Int64, "key": pl.String,
                "type": pl.Int64, "start_time": pl.Datetime("us", "UTC"), "end_time": pl.Datetime("us", "UTC"),
                "state": pl.Int64}
RULE_SCHEMA = {"enterprise_id": pl.Int64, "alarm_key": pl.String, "per_occurrence": pl.Float64,
               "per_minute": pl.Float64, "cap": pl.Float64, "normalisation": pl.Int64}
ENTERPRISES = pl.DataFrame({"enterprise_id": [1, 3, 4], "enterprise_path": ["/1/", "/1/3/", "/1/3/4/"]})


def rules(rows: list[tuple[int, str, float, float, float | None, int]]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=RULE_SCHEMA, orient="row")


def alarms(rows: list[tuple[int, str, object, object]]) -> pl.DataFrame:
    """(car_id, key, start, end) of terminal 1 with driver 7."""
    return pl.DataFrame([(1, car, 7, key, 1, start, end, 0) for car, key, start, end in rows],
                        schema=ALARM_SCHEMA, orient="row")


def cars(km: float = 50.0, drive_s: int = 1800, enterprise_id: int = 1) -> pl.DataFrame:
    return pl.DataFrame({"car_id": [10], "enterprise_id": [enterprise_id], "mileage_km": [km], "drive_s": [drive_s]})


def score(alarm_rows: pl.DataFrame, rule_rows: pl.DataFrame, subjects: pl.DataFrame) -> dict[str, object]:
    usage = alarm_usage(alarm_rows, WINDOW, "car_id")
    return score_subjects(subjects, usage, effective_rules(rule_rows, ENTERPRISES), "car_id", DEFAULT_BANDS).to_dicts()[0]


def test_per_occurrence_and_per_minute_deductions_sum_to_the_score() -> None:
    got = score(alarms([(10, "a1", local(8), local(8, 5)), (10, "a1", local(9), local(9, 1)),
                        (10, "a2", local(10), local(10, 30))]),
                rules([(1, "a1", 2.0, 0.0, None, NONE), (1, "a2", 3.0, 0.1, None, NONE)]), cars())
    # a1: 2 × 2 = 4; a2: 3 × 1 + 0.1 × 30 min = 6 -> 100 - 10
    assert got["grade_score"] == 90.0
    assert got["grade"] == "A"
    assert json.loads(str(got["grade_deductions"])) == [
        {"key": "a1", "count": 2, "minutes": 6.0, "points": 4.0},
        {"key": "a2", "count": 1, "minutes": 30.0, "points": 6.0}]


def test_a_cap_limits_one_keys_deduction() -> None:
    many = alarms([(10, "a1", local(8, m), local(8, m)) for m in range(20)])
    got = score(many, rules([(1, "a1", 2.0, 0.0, 15.0, NONE)]), cars())
    assert got["grade_score"] == 85.0  # 20 × 2 = 40, capped at 15
    assert got["grade"] == "B"


def test_per_100_km_normalisation_divides_by_the_hundreds_of_km_and_a_short_day_counts_as_100_km() -> None:
    rows = alarms([(10, "a1", local(8, m), local(8, m)) for m in range(10)])  # 10 × 3 = 30 points raw
    rule = rules([(1, "a1", 3.0, 0.0, None, PER_100_KM)])
    assert score(rows, rule, cars(km=300.0))["grade_score"] == 90.0  # 30 / 3
    assert score(rows, rule, cars(km=40.0))["grade_score"] == 70.0  # under 100 km: 30 / 1


def test_per_hour_normalisation_divides_by_the_hours_driven() -> None:
    rows = alarms([(10, "a3", local(8, m), local(8, m)) for m in range(8)])  # 8 × 5 = 40 raw
    rule = rules([(1, "a3", 5.0, 0.0, None, PER_HOUR)])
    assert score(rows, rule, cars(drive_s=4 * 3600))["grade_score"] == 90.0  # 40 / 4 h
    assert score(rows, rule, cars(drive_s=600))["grade_score"] == 60.0  # under an hour: 40 / 1
    assert score(rows, rule, cars(drive_s=600))["grade"] == "C"


def test_the_score_is_floored_at_zero_and_graded_d() -> None:
    rows = alarms([(10, "a0", local(8, m), local(8, m)) for m in range(30)])
    got = score(rows, rules([(1, "a0", 10.0, 0.0, None, NONE)]), cars())
    assert (got["grade_score"], got["grade"]) == (0.0, "D")


def test_keys_without_a_rule_and_other_days_deduct_nothing() -> None:
    rows = alarms([(10, "a5", local(8), local(8, 1)), (10, "a1", local(8) - timedelta(days=1), local(8))])
    got = score(rows, rules([(1, "a1", 5.0, 0.0, None, NONE)]), cars())
    assert (got["grade_score"], got["grade"], got["grade_deductions"]) == (100.0, "A", "[]")


def test_a_subsidiary_inherits_its_parents_rule_per_key_unless_it_has_its_own() -> None:
    rule_rows = rules([(1, "a1", 2.0, 0.0, None, NONE), (1, "a2", 4.0, 0.0, None, NONE),
                       (3, "a1", 5.0, 0.0, None, NONE)])
    got = effective_rules(rule_rows, ENTERPRISES).select("enterprise_id", "alarm_key", "per_occurrence").rows()
    assert got == [(1, "a1", 2.0), (1, "a2", 4.0), (3, "a1", 5.0), (3, "a2", 4.0), (4, "a1", 5.0), (4, "a2", 4.0)]
    rows = alarms([(10, "a1", local(8), local(8)), (10, "a2", local(9), local(9))])
    assert score(rows, rule_rows, cars(enterprise_id=4))["grade_score"] == 91.0  # 5 (own parent's) + 4 (root's)


def test_bands_come_from_the_dictionary_content_highest_first() -> None:
    content = {"grades": [{"grade": "C", "minScore": 50}, {"grade": "A", "minScore": 95}, {"grade": "B", "minScore": 75},
                          {"grade": "X"}]}
    assert bands_of(content) == (("A", 95.0), ("B", 75.0), ("C", 50.0))
    assert bands_of({"deductions": {}}) == DEFAULT_BANDS
    rows = alarms([(10, "a1", local(8), local(8))])
    usage = alarm_usage(rows, WINDOW, "car_id")
    rule = effective_rules(rules([(1, "a1", 30.0, 0.0, None, NONE)]), ENTERPRISES)
    got = score_subjects(cars(), usage, rule, "car_id", bands_of(content)).to_dicts()[0]
    assert (got["grade_score"], got["grade"]) == (70.0, "C")  # under the lowest band's minimum: the lowest band


def test_drivers_are_scored_from_the_alarms_attributed_to_them() -> None:
    rows = alarms([(10, "a1", local(8), local(8)), (11, "a1", local(9), local(9))])
    usage = alarm_usage(rows, WINDOW, "driver_id")
    drivers = pl.DataFrame({"driver_id": [7, 8], "enterprise_id": [1, 1], "mileage_km": [10.0, 5.0],
                            "drive_s": [600, 600]})
    got = score_subjects(drivers, usage, effective_rules(rules([(1, "a1", 2.0, 0.0, None, NONE)]), ENTERPRISES),
                         "driver_id", DEFAULT_BANDS).sort("driver_id").select("driver_id", "grade_score").rows()
    assert got == [(7, 96.0), (8, 100.0)]


def test_an_enterprise_reads_its_own_bands_else_its_nearest_ancestors_else_the_systems() -> None:
    strict = (("A", 98.0), ("B", 90.0), ("C", 0.0))
    lenient = (("优", 60.0), ("差", 0.0))
    own = {3: strict, 4: lenient}
    fallback = (("S", 50.0), ("T", 0.0))
    assert bands_in_effect("/1/3/4/", own, fallback) == (lenient, 4)
    assert bands_in_effect("/1/3/5/", own, fallback) == (strict, 3)  # 5 has none: its parent's
    assert bands_in_effect("/1/", own, fallback) == (fallback, None)
    enterprises = pl.DataFrame({"enterprise_id": [1, 3, 4], "enterprise_path": ["/1/", "/1/3/", "/1/3/4/"]})
    bands = effective_bands(own, enterprises, fallback)
    # three cars with the same 95 points, one in each enterprise, graded by the bands of their enterprise
    subjects = pl.DataFrame({"car_id": [10, 11, 12], "enterprise_id": [1, 3, 4], "mileage_km": [50.0] * 3,
                             "drive_s": [1800] * 3})
    rows = alarms([(car, "a1", local(8), local(8)) for car in (10, 11, 12)])
    rule = effective_rules(rules([(1, "a1", 5.0, 0.0, None, NONE)]), ENTERPRISES)
    got = score_subjects(subjects, alarm_usage(rows, WINDOW, "car_id"), rule, "car_id", bands)
    assert got.select("car_id", "grade_score", "grade").rows() == [(10, 95.0, "S"), (11, 95.0, "B"), (12, 95.0, "优")]


def test_bands_an_administrator_writes_are_checked_before_they_are_kept() -> None:
    assert bands_problem({"grades": [{"grade": "A", "minScore": 90}, {"grade": "B", "minScore": 0}]}) is None
    assert bands_problem({"grades": [{"grade": "A", "minScore": 90.5}, {"grade": "B", "minScore": 0.0}]}) is None
    problems = {
        "grades list": {"grades": []},
        "not an object": [{"grade": "A", "minScore": 0}],
        "eleven bands": {"grades": [{"grade": str(i), "minScore": i} for i in range(11)]},
        "empty grade": {"grades": [{"grade": "", "minScore": 0}]},
        "long grade": {"grades": [{"grade": "ABCDEFGHI", "minScore": 0}]},
        "padded grade": {"grades": [{"grade": " A", "minScore": 0}]},
        "score over 100": {"grades": [{"grade": "A", "minScore": 101}, {"grade": "B", "minScore": 0}]},
        "boolean score": {"grades": [{"grade": "A", "minScore": True}, {"grade": "B", "minScore": 0}]},
        "text score": {"grades": [{"grade": "A", "minScore": "90"}, {"grade": "B", "minScore": 0}]},
        "same grade twice": {"grades": [{"grade": "A", "minScore": 90}, {"grade": "A", "minScore": 0}]},
        "same minimum twice": {"grades": [{"grade": "A", "minScore": 0}, {"grade": "B", "minScore": 0.0}]},
        "no band from 0": {"grades": [{"grade": "A", "minScore": 90}, {"grade": "B", "minScore": 10}]},
    }
    for case, content in problems.items():
        assert bands_problem(content), case


def test_a_months_score_is_its_days_averaged_by_driving_time() -> None:
    def items(*rows: tuple[str, int, float, float]) -> str:
        return json.dumps([{"key": k, "count": c, "minutes": m, "points": p} for k, c, m, p in rows])

    days = pl.DataFrame({
        "car_id": [1, 1, 1, 2, 2],
        "grade_score": [90.0, 80.0, 100.0, 95.0, 85.0],
        "drive_s": [3600, 1800, 0, 0, 0],  # car 2 never drove: its days weigh the same
        "grade_deductions": [items(("a1", 2, 1.0, 10.0)), items(("a1", 1, 0.5, 5.0), ("a2", 1, 2.0, 15.0)), "[]",
                             items(("a2", 1, 0.0, 5.0)), items(("a2", 3, 0.0, 15.0))],
    })
    got = {row["car_id"]: row for row in month_scores(days, "car_id").to_dicts()}
    # car 1: (90 × 1 h + 80 × 0.5 h) / 1.5 h; the idle day counts nothing
    assert got[1]["grade_score"] == 86.7
    assert json.loads(got[1]["grade_deductions"]) == [
        {"key": "a1", "count": 3, "minutes": 1.5, "points": 8.33},  # (10 × 1 + 5 × 0.5) / 1.5
        {"key": "a2", "count": 1, "minutes": 2.0, "points": 5.0}]   # 15 × 0.5 / 1.5: 100 - 13.33 = 86.7
    assert got[2]["grade_score"] == 90.0
    assert json.loads(got[2]["grade_deductions"]) == [{"key": "a2", "count": 4, "minutes": 0.0, "points": 10.0}]
    assert month_scores(days.clear(), "car_id").is_empty()
