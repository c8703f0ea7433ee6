"""The fence step's pure parts (streams/fences.py stores what these return).

- ``positions(uplinks, fixes_by_event, wanted)``: the check's input. Only fixes the positions plan kept,
  positioned and plausible (``Fix.quality`` 0: a flagged jump or clock is not a crossing), of devices
  ``wanted`` (bound to a fence, or with a kept pair to forget) become ``Position``s; a 0x0704 item is
  ``late`` (its events are backlog: stored at their own time, never a pop-up); a door status bit (JT/T 808
  status bits 13-17) sets ``door_open``.
- ``episode_of(event, fence_name, fix)``: a FenceEvent as an alarm row of type 4 (key
  ``fence:<id>:<kind>[:segment]``, fleet/alarm_catalog.py), details {fenceId, fenceName, kind, and the
  kind's figures: speedKmh, limitKmh, durationS, segment}.
- ``terminal_items(fix, seq, backlog)``: the terminal's own area alarms (0x0200 items 0x11, 0x12, 0x13) as
  ``TerminalItem``s (key ``tfence:<areaId>:<kind>``): the area id on the wire is the fence's id for the
  fences the platform sent; an unknown id still alarms, named by its id.
- ``driver_text(event, fence_name)``: the TTS sentence of a "to driver" crossing (fence attributes 2 / 4).
"""

from __future__ import annotations

from collections.abc import Collection, Container, Sequence
from dataclasses import dataclass
from typing import Any

from fleet.alarm_catalog import AlarmKind
from fleet.geofence import FenceEvent, Position
from fleet.geofence.rules import ENTER, LEAVE, SEGMENT_LONG, SEGMENT_SHORT
from protocols.jt808.catalogue import BATCH_LOCATION_UPLOAD
from streams.alarm_model import AlarmEpisode
from streams.messages import STATUS_POSITIONED, Fix, PayloadError, Uplink

FENCE = int(AlarmKind.FENCE)
AREA_ITEMS = frozenset(("overspeed_alarm", "area_alarm", "road_section_time_alarm"))  # gps.extras of 0x11-0x13
DOOR_BITS = 0b11111 << 13  # JT/T 808-2019 table 25, status bits 13-17: front, middle, rear, driver, other door
LOCATION_TYPES = {1: "circle", 2: "rectangle", 3: "polygon", 4: "route"}  # items 0x11 / 0x12 location type


def positions(uplinks: Sequence[Uplink | PayloadError], fixes_by_event: Sequence[Sequence[Fix]],
              bound: Container[int], held: Collection[int] = ()) -> tuple[list[Position], dict[int, Fix]]:
    """The check's positions of the devices ``bound`` to a fence or still ``held`` in a fence pair (to be
    forgotten), and the newest fix of each of their devices (the alarm rows' car / enterprise). A device
    in neither costs one look-up per fix (most of a fleet: no geometry, no state)."""
    out: list[Position] = []
    devices: dict[int, Fix] = {}
    for uplink, fixes in zip(uplinks, fixes_by_event, strict=True):
        if not fixes or isinstance(uplink, PayloadError):
            continue
        late = uplink.msg_id == BATCH_LOCATION_UPLOAD
        for fix in fixes:
            if fix.quality or not fix.status_flags & STATUS_POSITIONED:
                continue
            if fix.device_id not in bound and fix.device_id not in held:
                continue
            out.append(Position(fix.device_id, fix.fix_at, fix.lng, fix.lat, fix.speed_kmh, late,
                                bool(fix.status_flags & DOOR_BITS)))
            known = devices.get(fix.device_id)
            if known is None or fix.fix_at > known.fix_at:
                devices[fix.device_id] = fix
    return out, devices


def details_of(event: FenceEvent, fence_name: str) -> dict[str, Any]:
    details: dict[str, Any] = {"fenceId": event.fence_id, "fenceName": fence_name, "kind": event.kind}
    for name, value in (("segment", event.segment), ("speedKmh", event.speed_kmh), ("limitKmh", event.limit_kmh),
                        ("durationS", event.duration_s)):
        if value is not None:
            details[name] = round(value, 1) if isinstance(value, float) else value
    return details


def episode_of(event: FenceEvent, fence_name: str, fix: Fix | None) -> AlarmEpisode:
    """The alarm row of an instant or of an episode's start (an end closes the row: ``FenceStep``)."""
    end = event.at if event.phase == "instant" else None
    return AlarmEpisode(
        device_id=event.device_id, key=event.key, kind=FENCE, level=None, start=event.started_at, end=end,
        lat=event.lat, lng=event.lng, speed=event.speed_kmh if event.speed_kmh is not None else
        (fix.speed_kmh if fix is not None else 0.0), altitude=fix.altitude_m if fix is not None else 0.0,
        alarm_flags=fix.alarm_flags if fix is not None else 0, message_seq=None,
        details=details_of(event, fence_name), backlog=event.backlog)


@dataclass(frozen=True, slots=True)
class TerminalItem:
    """One area alarm the terminal reported itself (items 0x11-0x13 of a fix)."""

    area_id: int
    kind: str
    details: dict[str, Any]

    @property
    def key(self) -> str:
        return f"tfence:{self.area_id}:{self.kind}"


def _uint(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def terminal_items(extras: dict[str, Any]) -> list[TerminalItem]:
    """The area alarms of one fix's decoded items (protocols/jt808/extras x11, x12, x13). Malformed items
    (a codec would not yield them, a hand-made record might) are left out."""
    out: list[TerminalItem] = []
    over = extras.get("overspeed_alarm")
    if isinstance(over, dict) and _uint(over.get("location_type")) and _uint(over.get("area_id")) is not None:
        # location type 0: an overspeed with no area (alarm bit 1 covers it)
        out.append(TerminalItem(over["area_id"], "overspeed",
                                {"locationType": LOCATION_TYPES.get(over["location_type"], over["location_type"])}))
    area = extras.get("area_alarm")
    if isinstance(area, dict) and _uint(area.get("area_id")) is not None and area.get("direction") in (0, 1):
        kind = _uint(area.get("location_type"))
        out.append(TerminalItem(area["area_id"], ENTER if area["direction"] == 0 else LEAVE,
                                {"locationType": LOCATION_TYPES.get(kind, kind) if kind is not None else None,
                                 "direction": area["direction"]}))
    section = extras.get("road_section_time_alarm")
    if isinstance(section, dict) and _uint(section.get("section_id")) is not None and section.get("result") in (0, 1):
        out.append(TerminalItem(section["section_id"], SEGMENT_SHORT if section["result"] == 0 else SEGMENT_LONG,
                                {"drivingTimeS": section.get("driving_time_s"), "result": section["result"]}))
    return out


def terminal_episode(item: TerminalItem, fix: Fix, seq: int | None, backlog: bool,
                     fence_name: str | None) -> AlarmEpisode:
    """An instantaneous type-4 alarm at the fix; named after the fence when the id is one of ours."""
    details = {"areaId": item.area_id, **item.details, "kind": item.kind, "source": "terminal"}
    if fence_name is not None:
        details |= {"fenceId": item.area_id, "fenceName": fence_name}
    return AlarmEpisode(
        device_id=fix.device_id, key=item.key, kind=FENCE, level=None, start=fix.fix_at, end=fix.fix_at,
        lat=fix.lat, lng=fix.lng, speed=fix.speed_kmh, altitude=fix.altitude_m, alarm_flags=fix.alarm_flags,
        message_seq=seq, details=details, backlog=backlog)


def driver_text(event: FenceEvent, fence_name: str) -> str:
    """What the terminal reads out to the driver (Chinese: the terminals' TTS speaks Mandarin)."""
    return f"您已驶入{fence_name}" if event.kind == ENTER else f"您已驶出{fence_name}"
