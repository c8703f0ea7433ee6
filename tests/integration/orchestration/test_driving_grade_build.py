"""Driving-behaviour scores written by the daily report build on real PostgreSQL (pipelines/grading.py,
platform-spec §2 drivingGradeRule): the hand-computed day of tests/support/report_world.py with known rules
gives known scores per vehicle, terminal and driver; a rebuild after a rule change rewrites, never adds; the
month's scores of vehicles and drivers are their days' (one scored day here, so the same)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from fleet.settings import ReportSettings
from orchestration.build import ReportsEnv, build_day, build_month
from tests.support.report_world import DAY, World, seed_report_world
from warehouse.db import connect

NOW = datetime(2026, 11, 2, 3, 0, tzinfo=UTC)  # DAY is closed


@pytest.fixture(scope="module")
def world(pg_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[World, ReportsEnv]]:
    from tests.support.databases import create_database, drop_database

    url = create_database(pg_url, "grading")
    world = seed_report_world(url)
    env = ReportsEnv.from_settings(url, ReportSettings(start_date="2026-09-01"))
    env.lake_dir = tmp_path_factory.mktemp("lake")
    parent, sub_a = world.enterprises["parent"], world.a1.enterprise_id
    with connect(url) as conn:
        conn.execute("DELETE FROM driving_grade_rule")  # the demo defaults: replaced by known rules
        # parent: a1 3 points + 1 per minute; adas_1 5 points per hour of driving (a day under 1 h counts 1 h)
        # subsidiary A (car A1's enterprise): its own a1 rule, 4 points capped at 6; adas_1 inherited
        conn.execute("INSERT INTO driving_grade_rule (enterprise_id, name, alarm_key, per_occurrence, per_minute,"
                     " cap, normalisation) VALUES (%s, 'p-a1', 'a1', 3, 1, NULL, 0), (%s, 'p-adas', 'adas_1', 5, 0,"
                     " NULL, 2), (%s, 'a-a1', 'a1', 4, 0, 6, 0)", (parent, parent, sub_a))
        driver = conn.execute("SELECT driver_id FROM car WHERE id = %s", (world.a1.car_id,)).fetchone()
        assert driver is not None and driver[0] is not None
        conn.execute("UPDATE alarm SET driver_id = %s WHERE car_id = %s AND key = 'a1'", (driver[0], world.a1.car_id))
        conn.commit()
    build_day(env, DAY, NOW)
    yield world, env
    drop_database(pg_url, url)


def rows(url: str, query: str, *params: Any) -> list[tuple[Any, ...]]:
    with connect(url) as conn:
        return conn.execute(query, params).fetchall()  # type: ignore[arg-type]


def test_a_vehicle_scores_100_minus_its_capped_and_inherited_deductions(world: tuple[World, ReportsEnv]) -> None:
    w, _env = world
    # a1: two alarms × 4 = 8, capped at 6 (subsidiary A's own rule); adas_1: 5 / max(25 min, 1 h) = 5 (parent's)
    [(score, grade, breakdown)] = rows(w.url, "SELECT grade_score, grade, grade_deductions FROM car_day_report"
                                              " WHERE car_id = %s AND date = %s", w.a1.car_id, 20261015)
    assert (score, grade) == (89.0, "B")
    assert breakdown == [{"key": "a1", "count": 2, "minutes": 4.0, "points": 6.0},
                         {"key": "adas_1", "count": 1, "minutes": 0.0, "points": 5.0}]
    [(device_score, device_grade)] = rows(w.url, "SELECT grade_score, grade FROM device_day_report WHERE device_id = %s"
                                                 " AND date = %s", w.a1.device_id, 20261015)
    assert (device_score, device_grade) == (89.0, "B")


def test_vehicles_without_alarms_score_100(world: tuple[World, ReportsEnv]) -> None:
    w, _env = world
    got = rows(w.url, "SELECT car_id, grade_score, grade FROM car_day_report WHERE car_id IN (%s, %s) AND date = %s"
                      " ORDER BY car_id", w.b2.car_id, w.a3.car_id, 20261015)
    assert sorted(got) == sorted([(w.b2.car_id, 100.0, "A"), (w.a3.car_id, 100.0, "A")])


def test_a_driver_scores_from_the_alarms_attributed_to_them(world: tuple[World, ReportsEnv]) -> None:
    w, _env = world
    [(enterprise_id, score, grade, breakdown)] = rows(
        w.url, "SELECT r.enterprise_id, r.grade_score, r.grade, r.grade_deductions FROM driver_day_report r"
               " JOIN car c ON c.driver_id = r.driver_id WHERE c.id = %s AND r.date = %s", w.a1.car_id, 20261015)
    # the car's driver is of subsidiary A: its own a1 rule (2 × 4 capped at 6); the ADAS alarm is not theirs
    assert enterprise_id == w.a1.enterprise_id
    assert (score, grade) == (94.0, "A")
    assert [item["key"] for item in breakdown] == ["a1"]


def test_a_rebuild_after_a_rule_change_rewrites_the_day_without_duplicates(world: tuple[World, ReportsEnv]) -> None:
    w, env = world
    counts = rows(w.url, "SELECT (SELECT count(*) FROM car_day_report), (SELECT count(*) FROM device_day_report),"
                         " (SELECT count(*) FROM driver_day_report)")
    with connect(w.url) as conn:  # subsidiary A's own a1 rule deleted: the parent's applies again
        conn.execute("UPDATE driving_grade_rule SET record_state = 0 WHERE name = 'a-a1'")
        conn.commit()
    try:
        build_day(env, DAY, NOW)
        build_day(env, DAY, NOW)
        assert rows(w.url, "SELECT (SELECT count(*) FROM car_day_report), (SELECT count(*) FROM device_day_report),"
                           " (SELECT count(*) FROM driver_day_report)") == counts
        [(score, grade, breakdown)] = rows(w.url, "SELECT grade_score, grade, grade_deductions FROM car_day_report"
                                                  " WHERE car_id = %s AND date = %s", w.a1.car_id, 20261015)
        # a1: 2 × 3 + 1 × 4 min = 10 (no cap); adas_1: 5
        assert (score, grade) == (85.0, "B")
        assert json.dumps(breakdown[0], sort_keys=True) == json.dumps(
            {"key": "a1", "count": 2, "minutes": 4.0, "points": 10.0}, sort_keys=True)
    finally:
        with connect(w.url) as conn:
            conn.execute("UPDATE driving_grade_rule SET record_state = 1 WHERE name = 'a-a1'")
            conn.commit()
        build_day(env, DAY, NOW)


def test_each_enterprise_grades_by_its_own_bands_else_its_nearest_ancestors(world: tuple[World, ReportsEnv]) -> None:
    """Grade bands as dictionary entries of type 50 (fleet/grade_bands.py): the parent's for itself and the
    subsidiaries without their own, subsidiary A's own for its vehicles and drivers."""
    w, env = world
    parent, sub_a = w.enterprises["parent"], w.a1.enterprise_id
    assert w.b2.enterprise_id != sub_a
    parents = {"grades": [{"grade": "甲", "minScore": 88}, {"grade": "乙", "minScore": 0}]}
    own = {"grades": [{"grade": "优", "minScore": 95}, {"grade": "良", "minScore": 80}, {"grade": "差", "minScore": 0}]}
    with connect(w.url) as conn:
        conn.execute("INSERT INTO dictionary (enterprise_id, type, code, name, content) VALUES"
                     " (%s, 50, 'driving_behavior_grade', 'parent bands', %s),"
                     " (%s, 50, 'driving_behavior_grade', 'A bands', %s)",
                     (parent, json.dumps(parents), sub_a, json.dumps(own)))
        conn.commit()
    try:
        build_day(env, DAY, NOW)
        got = dict(rows(w.url, "SELECT car_id, grade FROM car_day_report WHERE car_id IN (%s, %s) AND date = %s",
                        w.a1.car_id, w.b2.car_id, 20261015))
        assert got == {w.a1.car_id: "良", w.b2.car_id: "甲"}  # 89 under A's bands; 100 under the parent's
        [(driver_grade,)] = rows(w.url, "SELECT r.grade FROM driver_day_report r JOIN car c ON c.driver_id = r.driver_id"
                                        " WHERE c.id = %s AND r.date = %s", w.a1.car_id, 20261015)
        assert driver_grade == "良"  # the driver (of A) scored 94
        [(device_grade,)] = rows(w.url, "SELECT grade FROM device_day_report WHERE device_id = %s AND date = %s",
                                 w.a1.device_id, 20261015)
        assert device_grade == "良"
    finally:
        with connect(w.url) as conn:
            conn.execute("DELETE FROM dictionary WHERE type = 50")
            conn.commit()
        build_day(env, DAY, NOW)
    assert rows(w.url, "SELECT grade FROM car_day_report WHERE car_id = %s AND date = %s", w.a1.car_id,
                20261015) == [("B",)]


def test_the_month_carries_the_vehicles_and_drivers_scores_of_its_days(world: tuple[World, ReportsEnv]) -> None:
    w, env = world
    build_month(env, DAY)
    build_month(env, DAY)  # a rebuild replaces the month
    month = DAY.year * 100 + DAY.month
    [(score, grade, breakdown)] = rows(w.url, "SELECT grade_score, grade, grade_deductions FROM car_month_report"
                                              " WHERE car_id = %s AND month = %s", w.a1.car_id, month)
    assert (score, grade) == (89.0, "B")  # the one scored day of the month (the day test above)
    assert breakdown == [{"key": "a1", "count": 2, "minutes": 4.0, "points": 6.0},
                         {"key": "adas_1", "count": 1, "minutes": 0.0, "points": 5.0}]
    unscored = rows(w.url, "SELECT count(*) FROM car_month_report m WHERE month = %s AND grade_score IS NULL"
                           " AND EXISTS (SELECT 1 FROM car_day_report d WHERE d.car_id = m.car_id AND d.date / 100 = %s"
                           " AND d.grade_score IS NOT NULL)", month, month)
    assert unscored == [(0,)]
    [(driver_score, driver_grade)] = rows(
        w.url, "SELECT r.grade_score, r.grade FROM driver_month_report r JOIN car c ON c.driver_id = r.driver_id"
               " WHERE c.id = %s AND r.month = %s", w.a1.car_id, month)
    assert (driver_score, driver_grade) == (94.0, "A")
