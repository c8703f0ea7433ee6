"""The report tables of migration 0030 agree with the alarm catalogue (one counter column per key; the
driving-behaviour score columns of migration 0058 besides)."""

from __future__ import annotations

from typing import Any

from fleet.alarm_catalog import ALARMS
from warehouse.reports.columns import ALARM_COUNTERS

FIXED = {
    "device_day_report": {"device_id", "date", "day", "car_id", "enterprise_id", "enterprise_path", "plate_number",
                          "alarm_total", "alarm_s", "active_safety", "handled", "unhandled", "points", "computed_at",
                          "provisional", "grade_score", "grade", "grade_deductions"},  # the vehicle's score, 0058
    "device_month_report": {"device_id", "month", "car_id", "enterprise_id", "enterprise_path", "plate_number",
                            "alarm_total", "alarm_s", "active_safety", "handled", "unhandled", "points",
                            "computed_at"},
    "device_year_report": {"device_id", "year", "car_id", "enterprise_id", "enterprise_path", "plate_number",
                           "alarm_total", "alarm_s", "active_safety", "handled", "unhandled", "points"},
}


def columns(conn: Any, table: str) -> set[str]:
    return {r[0] for r in conn.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_name = %s", (table,))}


def test_device_report_counters_are_exactly_the_alarm_catalogue(pg_conn: Any) -> None:
    assert set(ALARM_COUNTERS) == set(ALARMS)
    for table, fixed in FIXED.items():
        assert columns(pg_conn, table) - fixed == set(ALARMS), table


def test_every_report_table_carries_the_tenancy_snapshot(pg_conn: Any) -> None:
    for table in ("car_day_report", "device_day_report", "driver_day_report", "enterprise_day_report", "trip",
                  "park", "kpi_vehicle_day", "kpi_enterprise_day", "car_month_report", "device_month_report",
                  "driver_month_report", "enterprise_month_report", "kpi_enterprise_month", "car_year_report"):
        assert {"enterprise_id", "enterprise_path"} <= columns(pg_conn, table), table
