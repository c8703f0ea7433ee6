"""The report assets: one daily multi-asset (one gps read per day writes every daily table) and one monthly
multi-asset (the month tables from the daily ones). Data checks are declared as ``check_specs`` and
reported from the asset body (docs/reports.md §7: no preview warnings, they run with every materialisation).
"""

from datetime import UTC, date, datetime

import dagster as dg

from orchestration.build import DAY_TABLES, MONTH_TABLES, Built, ReportsEnv, build_day, build_month
from orchestration.resources import RESOURCE_KEY

DAILY_CHECKS = {  # check name -> the table it is about
    "rows_are_live_vehicles": "car_day_report",
    "durations_within_a_day": "car_day_report",
    "mileage_within_physical_bounds": "car_day_report",
    "no_overlapping_trips": "trip",
    "no_vehicle_in_two_enterprises": "car_day_report",
    "alarm_counters_sum_to_total": "device_day_report",
}


def _metadata(built: Built, table: str) -> dict[str, dg.MetadataValue]:
    meta: dict[str, dg.MetadataValue] = {"rows": dg.MetadataValue.int(built.rows.get(table, 0)),
                                         "provisional": dg.MetadataValue.bool(built.provisional)}
    for name, seconds in built.seconds.items():
        meta[f"{name}_s"] = dg.MetadataValue.float(seconds)
    return meta


def daily_assets(partitions: dg.DailyPartitionsDefinition) -> dg.AssetsDefinition:
    specs = [dg.AssetSpec(table, group_name="reports_daily", partitions_def=partitions,
                          description=f"report table {table}, one local day per partition") for table in DAY_TABLES]
    checks = [dg.AssetCheckSpec(name, asset=table) for name, table in DAILY_CHECKS.items()]

    @dg.multi_asset(specs=specs, check_specs=checks, name="report_day", required_resource_keys={RESOURCE_KEY},
                    can_subset=False)
    def report_day(context: dg.AssetExecutionContext):
        """One local day: positions read once, every daily table rewritten, the day's Parquet files."""
        env: ReportsEnv = getattr(context.resources, RESOURCE_KEY)
        day = date.fromisoformat(context.partition_key)
        built = build_day(env, day, datetime.now(UTC))
        for table in DAY_TABLES:
            yield dg.MaterializeResult(asset_key=table, metadata=_metadata(built, table))
        for check in built.checks:
            yield dg.AssetCheckResult(check_name=check.name, asset_key=DAILY_CHECKS[check.name],
                                      passed=check.passed, metadata={"detail": check.detail})

    return report_day


def monthly_assets(partitions: dg.MonthlyPartitionsDefinition) -> dg.AssetsDefinition:
    specs = [dg.AssetSpec(table, group_name="reports_monthly", partitions_def=partitions,
                          deps=[dg.AssetDep(source)],
                          description=f"month table {table}, rolled up from {source}")
             for table, source in zip(MONTH_TABLES, ("car_day_report", "device_day_report", "driver_day_report",
                                                     "enterprise_day_report", "kpi_vehicle_day"), strict=True)]

    @dg.multi_asset(specs=specs, name="report_month", required_resource_keys={RESOURCE_KEY}, can_subset=False)
    def report_month(context: dg.AssetExecutionContext):
        """One month from the day tables (each month partition depends on the days of its month)."""
        env: ReportsEnv = getattr(context.resources, RESOURCE_KEY)
        built = build_month(env, date.fromisoformat(context.partition_key))
        for table in MONTH_TABLES:
            yield dg.MaterializeResult(asset_key=table, metadata=_metadata(built, table))

    return report_month
