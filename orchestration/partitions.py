"""Daily and monthly partitions of the reports, in the report time zone (a report day is a local day).

``end_offset=1`` makes today's day (provisional, rebuilt intraday) and the current month partitions exist.
"""

from datetime import date

import dagster as dg

from fleet.settings import ReportSettings


def daily(settings: ReportSettings) -> dg.DailyPartitionsDefinition:
    return dg.DailyPartitionsDefinition(start_date=settings.start_date, timezone=settings.tz, end_offset=1)


def monthly(settings: ReportSettings) -> dg.MonthlyPartitionsDefinition:
    first = date.fromisoformat(settings.start_date).replace(day=1)
    return dg.MonthlyPartitionsDefinition(start_date=first.isoformat(), timezone=settings.tz, end_offset=1)


def month_of(day_key: str) -> str:
    """The monthly partition key (first day of the month) of a daily key."""
    return date.fromisoformat(day_key).replace(day=1).isoformat()
