"""The report assets: one daily multi-asset (one gps read per day writes every daily table) and one monthly
multi-asset (the month tables from the daily ones). Data checks are declared as ``check_specs`` and
reported from the asset body (docs/reports.md §7: no preview warnings, they run with every materialisation).

Both take a backfill as one run over a range of partitions (``BackfillPolicy.single_run()``: the body loops
over ``context.partition_keys``, one process instead of one per day; docs/reports.md §7 "Backfills"); a
scheduled or sensor run is the same code with a range of one.
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


def _summed(builts: list[Built]) -> Built:
    """The builts of a range of partitions as one (row counts and timings summed; provisional if any is)."""
    if len(builts) == 1:
        return builts[0]
    total = Built(provisional=any(b.provisional for b in builts))
    for built in builts:
        for table, rows in built.rows.items():
            total.rows[table] = total.rows.get(table, 0) + rows
        for name, seconds in built.seconds.items():
            total.seconds[name] = round(total.seconds.get(name, 0.0) + seconds, 3)
    return total


def _range_checks(keys: list[str], builts: list[Built]) -> list[tuple[str, bool, str]]:
    """One result per check for the whole range (a check runs once per step): passed when every day passed;
    the detail names the failing days, or the single day's detail."""
    results = []
    for name in DAILY_CHECKS:
        per_day = [(key, check) for key, built in zip(keys, builts, strict=True) for check in built.checks
                   if check.name == name]
        failed = [f"{key}: {check.detail}" for key, check in per_day if not check.passed]
        detail = per_day[0][1].detail if len(per_day) == 1 else ("; ".join(failed) or f"{len(per_day)} days passed")
        results.append((name, not failed, detail))
    return results


def daily_assets(partitions: dg.DailyPartitionsDefinition) -> dg.AssetsDefinition:
    specs = [dg.AssetSpec(table, group_name="reports_daily", partitions_def=partitions,
                          description=f"report table {table}, one local day per partition") for table in DAY_TABLES]
    checks = [dg.AssetCheckSpec(name, asset=table) for name, table in DAILY_CHECKS.items()]

    @dg.multi_asset(specs=specs, check_specs=checks, name="report_day", required_resource_keys={RESOURCE_KEY},
                    can_subset=False, backfill_policy=dg.BackfillPolicy.single_run())
    def report_day(context: dg.AssetExecutionContext):
        """Each local day of the run: positions read once, every daily table rewritten, the day's Parquet."""
        env: ReportsEnv = getattr(context.resources, RESOURCE_KEY)
        keys = list(context.partition_keys)
        builts = []
        for key in keys:
            builts.append(build_day(env, date.fromisoformat(key), datetime.now(UTC)))
            context.log.info(f"report day {key} built")
        built = _summed(builts)
        for table in DAY_TABLES:
            yield dg.MaterializeResult(asset_key=table, metadata=_metadata(built, table))
        for name, passed, detail in _range_checks(keys, builts):
            yield dg.AssetCheckResult(check_name=name, asset_key=DAILY_CHECKS[name], passed=passed,
                                      metadata={"detail": detail})

    return report_day


def monthly_assets(partitions: dg.MonthlyPartitionsDefinition) -> dg.AssetsDefinition:
    specs = [dg.AssetSpec(table, group_name="reports_monthly", partitions_def=partitions,
                          deps=[dg.AssetDep(source)],
                          description=f"month table {table}, rolled up from {source}")
             for table, source in zip(MONTH_TABLES, ("car_day_report", "device_day_report", "driver_day_report",
                                                     "enterprise_day_report", "kpi_vehicle_day"), strict=True)]

    @dg.multi_asset(specs=specs, name="report_month", required_resource_keys={RESOURCE_KEY}, can_subset=False,
                    backfill_policy=dg.BackfillPolicy.single_run())
    def report_month(context: dg.AssetExecutionContext):
        """Each month of the run from the day tables (a month partition depends on the days of its month)."""
        env: ReportsEnv = getattr(context.resources, RESOURCE_KEY)
        built = _summed([build_month(env, date.fromisoformat(key)) for key in context.partition_keys])
        for table in MONTH_TABLES:
            yield dg.MaterializeResult(asset_key=table, metadata=_metadata(built, table))

    return report_month
