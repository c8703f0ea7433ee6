"""Known answers of runtime and online time from state logs, alarm counters and driver attribution."""

from __future__ import annotations

from datetime import timedelta

import polars as pl
import pytest

from pipelines.alarms import alarm_counters
from pipelines.drivers import SOURCE_ASSIGNED, SOURCE_CARD, attribute_trips, driver_days
from pipelines.rules import Window
from pipelines.runtime import online_from_log, runtime_from_logs, runtime_from_points
from pipelines.segments import segments
from tests.unit.pipelines.tracks import DAY, RULES, WINDOW, drive, frame, local

YESTERDAY = DAY - timedelta(days=1)


def log(rows: list[tuple[int, object, int]]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema={"device_id": pl.Int64, "at": pl.Datetime("us", "UTC"), "state": pl.Int64},
                        orient="row")


def test_runtime_from_state_logs_clips_to_the_day_and_sums_to_a_day() -> None:
    biz = log([(1, local(23, day=YESTERDAY), 3), (1, local(8), 1), (1, local(9), 2), (1, local(9, 30), 3)])
    acc = log([(1, local(20, day=YESTERDAY), 0), (1, local(7, 50), 1), (1, local(9, 30), 0)])
    got = runtime_from_logs(acc, biz, WINDOW).to_dicts()[0]
    assert got["drive_s"] == 3600 and got["idle_s"] == 1800
    assert got["engine_off_s"] == 8 * 3600 + 14 * 3600 + 1800
    assert got["drive_s"] + got["idle_s"] + got["engine_off_s"] + got["no_signal_s"] == 86400
    assert got["acc_on_s"] == 100 * 60
    assert (got["first_acc_on_at"], got["last_acc_off_at"]) == (local(7, 50), local(9, 30))


def test_online_time_and_sessions_and_today_stops_at_now() -> None:
    online = log([(2, local(22, day=YESTERDAY), 0), (2, local(7), 1), (2, local(20), 0)])
    got = online_from_log(online, WINDOW).to_dicts()[0]
    assert (got["online_s"], got["offline_s"], got["online_sessions"]) == (13 * 3600, 11 * 3600, 1)
    assert (got["first_online_at"], got["last_offline_at"]) == (local(7), local(20))
    today = Window.of(DAY, now=local(12))
    got = online_from_log(online, today).to_dicts()[0]
    assert (got["online_s"], got["offline_s"]) == (5 * 3600, 7 * 3600)
    midnight = online_from_log(log([(3, local(23, day=YESTERDAY), 1)]), WINDOW).to_dicts()[0]
    assert (midnight["online_s"], midnight["online_sessions"]) == (86400, 1)


def test_runtime_from_positions_when_no_state_is_known() -> None:
    rows = drive(3, local(8), 5) + drive(3, local(10, 5), 5, km0=8.0)
    got = runtime_from_points(segments(frame(rows), WINDOW, RULES), RULES).to_dicts()[0]
    assert got["drive_s"] == 600 and got["acc_on_s"] == 600  # the 2 h gap is no driving time
    assert got["idle_s"] == 0 and got["engine_off_s"] == 0


def test_alarm_counters_per_key_with_totals() -> None:
    alarms = pl.DataFrame([
        (1, "a1", 1, local(8), local(8, 5), 0),
        (1, "a1", 1, local(9), None, 0),  # still open: lasts until the end of the day
        (1, "adas_1", 5, local(10), local(10), 2),
        (1, "a2", 1, local(11), local(11, 30), 0),
        (1, "a1", 1, local(23, day=YESTERDAY), local(23, 5, day=YESTERDAY), 0),  # another day
    ], schema={"device_id": pl.Int64, "key": pl.String, "type": pl.Int64, "start_time": pl.Datetime("us", "UTC"),
               "end_time": pl.Datetime("us", "UTC"), "state": pl.Int64}, orient="row")
    got = alarm_counters(alarms, WINDOW, ["a0", "a1", "a2", "adas_1"]).to_dicts()[0]
    assert {k: got[k] for k in ("a0", "a1", "a2", "adas_1")} == {"a0": 0, "a1": 2, "a2": 1, "adas_1": 1}
    assert got["alarm_total"] == 4
    assert got["alarm_s"] == 300 + 15 * 3600 + 0 + 1800
    assert (got["active_safety"], got["handled"], got["unhandled"]) == (1, 1, 3)
    assert (got["fatigue_s"], got["overspeed_alarms"]) == (1800, 2)


def test_trips_go_to_the_signed_in_driver_else_the_assigned_one() -> None:
    trips = pl.DataFrame({"device_id": [1, 1, 2], "start_at": [local(8), local(15), local(9)],
                          "distance_km": [10.0, 5.0, 7.0], "duration_s": [600, 300, 420],
                          "max_speed_kmh": [60.0, 50.0, 70.0]}).with_columns(
        pl.col("start_at").dt.cast_time_unit("us"))
    events = pl.DataFrame({"device_id": [1, 1], "at": [local(7), local(12)], "status": [1, 2],
                           "driver_id": [7, 7]}).with_columns(pl.col("at").dt.cast_time_unit("us"))
    cars = pl.DataFrame({"car_id": [101, 102], "device_id": [1, 2], "driver_id": [9, None],
                         "plate_number": ["京A·1", "京A·2"]}, schema_overrides={"driver_id": pl.Int64})
    got = attribute_trips(trips, events, cars)
    assert got.select("car_id", "driver_id", "driver_source").rows() == [
        (101, 7, SOURCE_CARD), (101, 9, SOURCE_ASSIGNED), (102, None, None)]
    drivers = pl.DataFrame({"driver_id": [7, 9], "enterprise_id": [1, 1], "enterprise_path": ["/1/", "/1/"],
                            "driver_name": ["张伟", "王芳"]})
    days = driver_days(got, drivers, cars, WINDOW).to_dicts()
    assert [(d["driver_id"], d["trips"], d["mileage_km"], d["drive_s"], d["plate_numbers"], d["driver_source"])
            for d in days] == [(7, 1, 10.0, 600, "京A·1", 1), (9, 1, 5.0, 300, "京A·1", 2)]
    assert days[0]["date"] == 20261015
    assert pytest.approx(days[0]["max_speed_kmh"]) == 60.0
