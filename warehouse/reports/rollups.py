"""The month tables as SQL over the day tables (docs/reports.md §7: 6-9 ms for 1,000 vehicles).

``rollup_month(conn, month)`` replaces the month's rows of ``car_month_report``, ``device_month_report``,
``driver_month_report`` and ``enterprise_month_report`` (``kpi_enterprise_month`` needs the KPI rule of
``pipelines.kpi``: orchestration/build.py). The vehicle's enterprise and plate are those of its latest day
in the month. The caller commits.
"""

from __future__ import annotations

from typing import Any

from psycopg import Connection

from warehouse.reports.columns import ALARM_COUNTERS

_COUNTERS = ", ".join(ALARM_COUNTERS)
_COUNTER_SUMS = ", ".join(f"sum({k})" for k in ALARM_COUNTERS)

CAR_MONTH = """
INSERT INTO car_month_report (car_id, month, enterprise_id, enterprise_path, group_id, plate_number, days,
    active_days, online_days, points, rejected_points, mileage_km, odo_km, gps_km, drive_s, acc_on_s, idle_s,
    online_s, offline_s, trips, parks, overspeed_count, overspeed_s, max_speed_kmh, avg_km_per_active_day)
SELECT car_id, %(month)s, (array_agg(enterprise_id ORDER BY date DESC))[1],
       (array_agg(enterprise_path ORDER BY date DESC))[1], (array_agg(group_id ORDER BY date DESC))[1],
       (array_agg(plate_number ORDER BY date DESC))[1], count(*) FILTER (WHERE points > 0),
       count(*) FILTER (WHERE active), count(*) FILTER (WHERE online), sum(points), sum(rejected_points),
       coalesce(sum(mileage_km), 0), sum(odo_km), sum(gps_km), sum(drive_s), sum(acc_on_s), sum(idle_s),
       sum(online_s), sum(offline_s), sum(trips), sum(parks), sum(overspeed_count), sum(overspeed_s),
       max(max_speed_kmh),
       sum(mileage_km) FILTER (WHERE active) / nullif(count(*) FILTER (WHERE active), 0)
  FROM car_day_report WHERE date BETWEEN %(month)s * 100 + 1 AND %(month)s * 100 + 31
 GROUP BY car_id"""

DEVICE_MONTH = f"""
INSERT INTO device_month_report (device_id, month, car_id, enterprise_id, enterprise_path, plate_number,
    {_COUNTERS}, alarm_total, alarm_s, active_safety, handled, unhandled, points)
SELECT device_id, %(month)s, (array_agg(car_id ORDER BY date DESC))[1],
       (array_agg(enterprise_id ORDER BY date DESC))[1], (array_agg(enterprise_path ORDER BY date DESC))[1],
       (array_agg(plate_number ORDER BY date DESC))[1],
       {_COUNTER_SUMS}, sum(alarm_total), sum(alarm_s), sum(active_safety), sum(handled), sum(unhandled),
       sum(points)
  FROM device_day_report WHERE date BETWEEN %(month)s * 100 + 1 AND %(month)s * 100 + 31
 GROUP BY device_id"""  # noqa: S608 (column names from the alarm catalogue, never input)

DRIVER_MONTH = """
INSERT INTO driver_month_report (driver_id, month, enterprise_id, enterprise_path, driver_name, days, mileage_km,
    drive_s, trips)
SELECT driver_id, %(month)s, (array_agg(enterprise_id ORDER BY date DESC))[1],
       (array_agg(enterprise_path ORDER BY date DESC))[1], (array_agg(driver_name ORDER BY date DESC))[1],
       count(*), sum(mileage_km), sum(drive_s), sum(trips)
  FROM driver_day_report WHERE date BETWEEN %(month)s * 100 + 1 AND %(month)s * 100 + 31
 GROUP BY driver_id"""

ENTERPRISE_MONTH = """
INSERT INTO enterprise_month_report (enterprise_id, month, enterprise_path, enterprise_name, vehicles,
    active_vehicles, vehicle_days, active_vehicle_days, mileage_km, drive_s, trips, alarms)
SELECT e.enterprise_id, %(month)s, e.enterprise_path, e.enterprise_name, e.vehicles,
       coalesce(c.active_vehicles, 0), e.vehicle_days, e.active_vehicle_days, e.mileage_km, e.drive_s, e.trips,
       e.alarms
  FROM (SELECT enterprise_id, (array_agg(enterprise_path ORDER BY date DESC))[1] AS enterprise_path,
               (array_agg(enterprise_name ORDER BY date DESC))[1] AS enterprise_name,
               max(vehicles) AS vehicles, sum(vehicles) AS vehicle_days, sum(active_vehicles) AS active_vehicle_days,
               sum(mileage_km) AS mileage_km, sum(drive_s) AS drive_s, sum(trips) AS trips, sum(alarms) AS alarms
          FROM enterprise_day_report WHERE date BETWEEN %(month)s * 100 + 1 AND %(month)s * 100 + 31
         GROUP BY enterprise_id) e
  LEFT JOIN (SELECT enterprise_id, count(DISTINCT car_id) AS active_vehicles FROM car_day_report
              WHERE date BETWEEN %(month)s * 100 + 1 AND %(month)s * 100 + 31 AND active
              GROUP BY enterprise_id) c ON c.enterprise_id = e.enterprise_id"""

ROLLUPS = {"car_month_report": CAR_MONTH, "device_month_report": DEVICE_MONTH, "driver_month_report": DRIVER_MONTH,
           "enterprise_month_report": ENTERPRISE_MONTH}


def rollup_month(conn: Connection[Any], month: int) -> dict[str, int]:
    """Replace ``month`` (yyyymm) in the four month tables; returns the rows written per table."""
    written = {}
    for table, statement in ROLLUPS.items():
        conn.execute(f"DELETE FROM {table} WHERE month = %s", (month,))  # noqa: S608 (table from ROLLUPS)
        written[table] = conn.execute(statement, {"month": month}).rowcount
    return written
