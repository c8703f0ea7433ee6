"""Platform fences: what a fence is (platform-spec §9) and what a vehicle's fixes do to it.

Fence types (platform-spec §9): 1 stay-in-place, 2 fence alarm, 3 overspeed, 4 route fence. Fence
attributes are the bits of JT/T 808's area attribute word (platform-spec §9 numbers them so):

- 1 speed limit: overspeed inside the area (also implied by type 3; route segments carry their own limit);
- 2 / 3 entering the area: to the driver (a TTS through the command path) / to the platform (an alarm);
- 4 / 5 leaving the area: to the driver / to the platform;
- 8 no door opening: a door opening inside the area is an episode;
- 14 close the comms module, 15 collect GNSS detail inside: the terminal's own actions, for terminal
  fences (business type 2); the platform check has nothing to watch for them and ignores them.

The episode rules, per (vehicle, fence), each fix in time order (fleet.geofence.episodes applies them):

- enter / leave: at the boundary crossing, interpolated along the straight move between the two fixes
  (time in proportion), only while the time window is open;
- overspeed: inside, faster than the limit on every fix for at least ``overspeed_s`` -> an episode starting at
  the first such fix, ending at the first fix not faster (or on leaving); at night (``night_hours``,
  Beijing time, 2019's night speed limit) the night limit applies and the episode is ``night_overspeed``;
- route deviation (type 4): leaving every segment's corridor starts it (at the crossing), returning ends it;
- segment time too short / too long (type 4): the time from entering a segment to leaving it, judged when
  the vehicle leaves it; a segment the vehicle was first seen on (entry unknown) is not judged;
- stay-in-place (type 1): inside and standing (speed at most ``standing_kmh``) for at least
  ``stay_limit_s``, ending when it moves or leaves.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, time
from enum import IntEnum

from fleet.geofence.shapes import Shape
from fleet.motion import DRIVING_MIN_SPEED_KMH
from protocols.china_time import CHINA_TZ


class FenceType(IntEnum):
    STAY = 1
    ALARM = 2
    OVERSPEED = 3
    ROUTE = 4


class Attr(IntEnum):
    """Bits of the JT/T 808 area attribute word that platform-spec §9 lists."""

    SPEED_LIMIT = 1
    IN_TO_DRIVER = 2
    IN_TO_PLATFORM = 3
    OUT_TO_DRIVER = 4
    OUT_TO_PLATFORM = 5
    NO_DOOR_OPENING = 8
    CLOSE_COMMS = 14
    COLLECT_GNSS_DETAIL = 15


# Event kinds (the alarm key's suffix).
ENTER, LEAVE = "enter", "leave"
OVERSPEED, NIGHT_OVERSPEED = "overspeed", "night_overspeed"
DEVIATION, SEGMENT_SHORT, SEGMENT_LONG = "deviation", "segment_short", "segment_long"
STAY, DOOR_OPEN = "stay", "door_open"


@dataclass(frozen=True)
class TimeWindow:
    """When the fence is watched. Times of day (Beijing) repeat daily and may wrap midnight; datetimes
    (timezone-aware) are one absolute window. Both ends included."""

    start: datetime | time
    end: datetime | time

    def __post_init__(self) -> None:
        if isinstance(self.start, datetime) != isinstance(self.end, datetime):
            raise ValueError("a time window is two datetimes or two times of day")
        if isinstance(self.start, datetime) and (self.start.tzinfo is None or self.end.tzinfo is None):
            raise ValueError("a time window's datetimes must be timezone-aware")

    def open_at(self, at: datetime) -> bool:
        if isinstance(self.start, datetime) and isinstance(self.end, datetime):
            return self.start <= at <= self.end
        clock = at.astimezone(CHINA_TZ).time().replace(tzinfo=None)
        start, end = self.start, self.end
        assert isinstance(start, time) and isinstance(end, time)
        return start <= clock <= end if start <= end else (clock >= start or clock <= end)


@dataclass(frozen=True)
class Fence:
    fence_id: int
    name: str
    fence_type: FenceType
    shape: Shape
    attributes: frozenset[int] = frozenset()
    time_window: TimeWindow | None = None
    speed_limit_kmh: float | None = None
    overspeed_s: float = 0.0
    night_speed_limit_kmh: float | None = None
    night_hours: tuple[int, int] = (22, 6)  # [start, end) o'clock, Beijing time
    stay_limit_s: float | None = None
    standing_kmh: float = DRIVING_MIN_SPEED_KMH

    def watched_at(self, at: datetime) -> bool:
        return self.time_window is None or self.time_window.open_at(at)

    def is_night(self, at: datetime) -> bool:
        start, end = self.night_hours
        hour = at.astimezone(CHINA_TZ).hour
        return start <= hour < end if start <= end else (hour >= start or hour < end)

    @property
    def watches_speed(self) -> bool:
        return self.fence_type is FenceType.OVERSPEED or Attr.SPEED_LIMIT in self.attributes


@dataclass(slots=True)  # not frozen: a frozen dataclass's __init__ costs ~1 us more per fix (treat it as a value)
class Position:
    """One valid fix of a vehicle, as the fence step hands it over.

    ``late``: the fix is a backlog (a 0x0704 blind-area upload): its events are marked ``backlog`` (stored,
    no pop-up as if new). ``door_open``: any door status bit (JT/T 808 status bits 13-17) set."""

    device_id: int
    at: datetime
    lng: float
    lat: float
    speed_kmh: float = 0.0
    late: bool = False
    door_open: bool = False


@dataclass(frozen=True, slots=True)
class FenceEvent:
    """An instant (enter, leave, segment time) or one end of an episode (phase start / end).

    ``key`` and ``started_at`` identify the alarm episode (stable on replay). ``supersedes``: a backlog
    crossing that refines one the live chain interpolated across the gap the backlog filled (that event's
    ``started_at``), for the sink to correct rather than add."""

    device_id: int
    fence_id: int
    kind: str
    phase: str  # "instant", "start" or "end"
    at: datetime
    lng: float
    lat: float
    started_at: datetime
    segment: int | None = None
    speed_kmh: float | None = None
    limit_kmh: float | None = None
    duration_s: float | None = None
    to_platform: bool = True
    to_driver: bool = False
    backlog: bool = False
    supersedes: datetime | None = None

    @property
    def key(self) -> str:
        suffix = "" if self.segment is None else f":{self.segment}"
        return f"fence:{self.fence_id}:{self.kind}{suffix}"


@dataclass(slots=True)
class FenceState:
    """One (vehicle, fence) pair's state between fixes; times are epoch seconds. Only a pair that is not
    idle (inside, or an episode open) is kept: absent means outside with nothing open. Treated as a value:
    the rules change a copy (fleet.geofence.episodes.advance)."""

    inside: bool = False
    segment: int | None = None
    segment_since: float | None = None  # when the vehicle entered ``segment`` (None: not seen entering)
    over_since: float | None = None  # first fix of the current run above the limit
    over_kind: str | None = None  # the overspeed episode raised for that run, if any
    stand_since: float | None = None
    stay_open: bool = False
    door_since: float | None = None
    deviating_since: float | None = None

    @property
    def idle(self) -> bool:
        return not self.inside and self.deviating_since is None and self.over_kind is None \
            and not self.stay_open and self.door_since is None

    def copy(self) -> FenceState:
        return FenceState(self.inside, self.segment, self.segment_since, self.over_since, self.over_kind,
                          self.stand_since, self.stay_open, self.door_since, self.deviating_since)

    def to_json(self) -> dict[str, object]:
        return {k: getattr(self, k) for k in self.__slots__ if getattr(self, k) not in (None, False)}

    @classmethod
    def from_json(cls, value: dict[str, object]) -> FenceState:
        return cls(**value)  # type: ignore[arg-type]


def utc(epoch_s: float) -> datetime:
    return datetime.fromtimestamp(epoch_s, UTC)


@dataclass(slots=True)
class Emitter:
    """Appends one vehicle's events for one fence to ``events`` (the batch's list)."""

    device_id: int
    fence: Fence
    backlog: bool
    events: list[FenceEvent]

    def emit(self, kind: str, phase: str, at: float, lng: float, lat: float, started: float | None = None,
             **details: object) -> None:
        self.events.append(FenceEvent(self.device_id, self.fence.fence_id, kind, phase, utc(at), lng, lat,
                                      utc(at if started is None else started), backlog=self.backlog,
                                      **details))  # type: ignore[arg-type]
