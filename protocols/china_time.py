"""China Standard Time (UTC+8, no daylight saving since 1991), defined once.

It is the clock of JT/T 808 terminals (every BCD[6] time on the wire is GMT+8) and of the operators' day
(the console's local time, "today" on dashboards, report days). Everything else imports it from here.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Final

CHINA_UTC_OFFSET: Final = timedelta(hours=8)
CHINA_TZ: Final = timezone(CHINA_UTC_OFFSET, "CST")


def local_midnight(now: datetime | None = None) -> datetime:
    """Start of ``now``'s day (default: today) in China Standard Time, as an aware datetime.
    ``now`` must be aware: a naive datetime would be read as the host's local time."""
    local = (now or datetime.now(CHINA_TZ)).astimezone(CHINA_TZ)
    return local.replace(hour=0, minute=0, second=0, microsecond=0)
