"""Thresholds of the report rules and the window of one report day (docs/reports.md §3).

``Rules`` holds every threshold (defaults are ``ReportSettings``' defaults, so a test can build one without
the environment); ``Window`` is one local day as UTC instants plus how much more is read around it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from fleet.settings import ReportSettings

EARTH_RADIUS_KM = 6371.0088
DAY_S = 86400


@dataclass(frozen=True, slots=True)
class Rules:
    v_max_kmh: float = 160.0
    drift_jump_km: float = 5.0
    drift_jump_s: float = 60.0
    min_error_m: float = 20.0
    gap_s: float = 3600.0
    gap_km: float = 5.0
    motion_kmh: float = 5.0
    trip_min_s: float = 300.0
    trip_min_m: float = 500.0
    park_min_s: float = 300.0
    idle_min_s: float = 300.0
    odo_min_share: float = 0.8
    odo_ratio_min: float = 0.8
    odo_ratio_max: float = 1.3
    active_day_km: float = 1.0

    @classmethod
    def from_settings(cls, settings: ReportSettings | None = None) -> Rules:
        s = settings or ReportSettings()
        return cls(**{name: getattr(s, name) for name in cls.__slots__})


@dataclass(frozen=True, slots=True)
class Window:
    """One report day: ``[start, end)`` in UTC, the local ``day``, and ``now`` for today's provisional
    rows (durations stop there). ``read_start``/``read_end`` widen the read (lookback / lookahead)."""

    day: date
    start: datetime
    end: datetime
    read_start: datetime
    read_end: datetime
    now: datetime | None = None

    @classmethod
    def of(cls, day: date, tz: str = "Asia/Shanghai", *, lookback_s: int = 3600, lookahead_s: int = 7200,
           now: datetime | None = None) -> Window:
        zone = ZoneInfo(tz)
        start = datetime(day.year, day.month, day.day, tzinfo=zone).astimezone(UTC)
        nxt = day + timedelta(days=1)
        end = datetime(nxt.year, nxt.month, nxt.day, tzinfo=zone).astimezone(UTC)
        current = now if now is not None and now < end else None
        return cls(day, start, end, start - timedelta(seconds=lookback_s), end + timedelta(seconds=lookahead_s),
                   current)

    @property
    def date_key(self) -> int:
        """The spec's ``date``: integer yyyymmdd."""
        return self.day.year * 10000 + self.day.month * 100 + self.day.day

    @property
    def provisional(self) -> bool:
        return self.now is not None

    @property
    def clip_end(self) -> datetime:
        """Where durations of the day stop: its end, or now for today."""
        return self.now if self.now is not None else self.end

    @property
    def start_s(self) -> float:
        return self.start.timestamp()

    @property
    def end_s(self) -> float:
        return self.end.timestamp()

    @property
    def clip_end_s(self) -> float:
        return self.clip_end.timestamp()


def month_key(day: date) -> int:
    return day.year * 100 + day.month
