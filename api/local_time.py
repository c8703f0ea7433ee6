"""The API's calendar: days, "today" and ranges start at midnight China Standard Time (UTC+8; the product's
one time zone, no daylight saving since 1991)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

CHINA_TZ = timezone(timedelta(hours=8), "CST")


def local_midnight(now: datetime) -> datetime:
    """Start of ``now``'s day in China Standard Time, as an aware datetime."""
    local = now.astimezone(CHINA_TZ)
    return local.replace(hour=0, minute=0, second=0, microsecond=0)
