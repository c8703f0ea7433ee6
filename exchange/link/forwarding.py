"""What the link service forwards, decided from Kafka records (pure; exchange.link.service sends it).

Positions (``jt808.uplink.v1``, 0x0200 and the items of 0x0704, decoded by fleet.uplink_messages, the streams'
decoder): only of vehicles (a car) of the platform's exchanged enterprises. Per vehicle, at most one position
per ``interval_s`` of fix time (the superior's rate; the rest are counted as thinned). A position whose fix is
older than ``backfill_after_s`` goes as 0x1203 back-fill, up to ``MAX_BACKFILL`` per message and in order per
vehicle (a back-fill is flushed before a real-time position of the same vehicle); the others as 0x1202. The
first position of a vehicle on a link is preceded by its 0x1201 registration.
Alarms (``console.events.v1`` pushes of type 2) -> 0x1402 with the upper-platform alarm type (JT/T 809 WARN_TYPE
1-13, platform-spec §9) of ``UPPER_ALARM_TYPES``; an alarm with no matching type is not forwarded.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from fleet.uplink_messages import Fix, PayloadError, location_bodies, parse_fix, parse_uplink
from protocols.jt808.messages import LocationReport
from protocols.jt809 import messages as m

MAX_BACKFILL = 50  # positions per 0x1203 (the count byte allows 255; 50 keeps a 2019 frame under 6 kB)

# fleetwatch alarm key (fleet/alarm_catalog.py) -> JT/T 809 WARN_TYPE (upper-platform alarm type, 1-13):
# 1 overspeed, 2 fatigue driving, 3 emergency, 4 entering an area, 5 leaving an area, 6 road blocked,
# 7 dangerous road section, 8 out of bounds, 9 theft, 10 robbery, 11 route deviation, 12 vehicle moved,
# 13 driving overtime.
UPPER_ALARM_TYPES: dict[str, int] = {
    "a0": 3, "a1": 1, "a2": 2, "a18": 13, "a23": 11, "a27": 9, "a28": 12,
    "p_overspeed": 1, "p_fatigue": 2,
}
_FENCE_KINDS = {"enter": 4, "leave": 5, "overspeed": 1}


def upper_alarm_type(key: str) -> int | None:
    """The WARN_TYPE of a fleetwatch alarm key, or None when none fits. Fence alarms
    (``fence:<id>:<kind>`` / ``tfence:<id>:<kind>``) map by their kind."""
    if key.startswith(("fence:", "tfence:")):
        parts = key.split(":")
        return _FENCE_KINDS.get(parts[2]) if len(parts) > 2 else None
    return UPPER_ALARM_TYPES.get(key)


@dataclass
class Thinning:
    """At most one position per vehicle per ``interval_s`` of fix time. An older fix than the last kept one
    (a terminal's backlog) starts the chain again from it, so a backlog is thinned at the same rate."""

    interval_s: float
    last: dict[int, datetime] = field(default_factory=dict)

    def keep(self, car_id: int, fix_at: datetime) -> bool:
        if self.interval_s <= 0:
            return True
        last = self.last.get(car_id)
        if last is not None and last <= fix_at < last + timedelta(seconds=self.interval_s):
            return False
        self.last[car_id] = fix_at
        return True


@dataclass(frozen=True)
class Outgoing:
    """One position frame to send: ``positions`` are one fix (0x1202) or 1..MAX_BACKFILL (0x1203)."""

    car_id: int
    device_id: int
    backfill: bool
    fixes: tuple[Fix, ...]


def position_fixes(value: Any, enterprises: frozenset[int]) -> Iterator[Fix]:
    """The fixes of one uplink record value (a single uplink or a batch, already parsed or bytes) of vehicles
    in ``enterprises``, in record order. Values that are not position uplinks yield nothing; a payload that
    does not parse is skipped (the streams dead-letter it)."""
    items = value if isinstance(value, list) else [value]
    for item in items:
        try:
            uplink = parse_uplink(item)
            if uplink.car_id is None or uplink.enterprise_id not in enterprises:
                continue
            bodies = location_bodies(uplink)
            fixes = [parse_fix(uplink, body) for body in bodies]
        except PayloadError:
            continue
        yield from fixes


def plan_positions(fixes: Iterable[Fix], thinning: Thinning, now: datetime,
                   backfill_after_s: float, resend: bool = False) -> tuple[list[Outgoing], int]:
    """Frames to send for ``fixes`` (in order) and how many were thinned. ``resend``: fixes sent before on a
    link that was then lost (exchange.link.resend) all go as 0x1203 back-fill, whatever their age."""
    out: list[Outgoing] = []
    pending: dict[int, list[Fix]] = {}
    thinned = 0
    cutoff = now - timedelta(seconds=backfill_after_s)

    def flush(car_id: int) -> None:
        batch = pending.pop(car_id, [])
        for start in range(0, len(batch), MAX_BACKFILL):
            chunk = tuple(batch[start : start + MAX_BACKFILL])
            out.append(Outgoing(car_id, chunk[0].device_id, True, chunk))

    for fix in fixes:
        assert fix.car_id is not None
        if not thinning.keep(fix.car_id, fix.fix_at):
            thinned += 1
            continue
        if resend or fix.fix_at < cutoff:
            pending.setdefault(fix.car_id, []).append(fix)
            continue
        flush(fix.car_id)
        out.append(Outgoing(fix.car_id, fix.device_id, False, (fix,)))
    for car_id in list(pending):
        flush(car_id)
    return out, thinned


def gnss(fix: Fix, version: str) -> m.Gnss2011 | m.Gnss2019:
    """A fix in the position layout of ``version`` (2011: the 36-byte record; 2019: a 0x0200 body)."""
    if version == "2019":
        location = LocationReport(alarm_flags=fix.alarm_flags, status_flags=fix.status_flags, lat=fix.lat,
                                  lng=fix.lng, altitude_m=int(fix.altitude_m), speed_kmh=fix.speed_kmh,
                                  direction_deg=fix.direction_deg, fix_at=fix.fix_at)
        return m.Gnss2019.from_location(location)
    return m.Gnss2011(fix.fix_at, round(fix.lng * 1e6), round(fix.lat * 1e6), round(fix.speed_kmh),
                      round(fix.speed_kmh), round(fix.mileage_km or 0), fix.direction_deg % 360,
                      max(0, min(int(fix.altitude_m), 0xFFFF)), fix.status_flags & 0xFFFFFFFF,
                      fix.alarm_flags & 0xFFFFFFFF)


def position_body(plate: str, colour: int, outgoing: Outgoing, version: str) -> m.VehicleDynamic:
    positions = tuple(gnss(f, version) for f in outgoing.fixes)
    if outgoing.backfill:
        return m.VehicleDynamic.backfill(plate, colour, positions)
    return m.VehicleDynamic.position(plate, colour, positions[0])


def registration_body(plate: str, colour: int, platform_id: str, phone: str, terminal_id: str,
                      version: str) -> m.VehicleDynamic:
    """0x1201. 2019 is typed by the codec; the 2011 layout (PLATFORM_ID[11], PRODUCER_ID[11],
    TERMINAL_MODEL_TYPE[20], TERMINAL_ID[7], TERMINAL_SIMCODE[12]) is written here as bytes."""
    if version == "2019":
        data: Any = m.VehicleRegistration(platform_id[:11], "", "", "", terminal_id[:30], phone[:13])
    else:
        data = b"".join(text.encode("gbk")[:size].ljust(size, b"\0") for text, size in
                        ((platform_id, 11), ("", 11), ("", 20), (terminal_id, 7), (phone, 12)))
    return m.VehicleDynamic(plate, colour, m.VehicleRegistration.DATA_TYPE, data)


@dataclass(frozen=True)
class AlarmToSend:
    car_id: int
    plate: str
    plate_colour: int
    warn_type: int
    started_at: datetime
    alarm_id: int
    text: str


def alarm_of(event: Any, enterprises: frozenset[int]) -> AlarmToSend | None:
    """An alarm push (console.events.v1 ``kind=push``, ``push.type`` 2) of a vehicle in scope whose key has
    an upper-platform alarm type, else None."""
    if not isinstance(event, dict) or event.get("kind") != "push" or event.get("enterprise_id") not in enterprises:
        return None
    push = event.get("push")
    if not isinstance(push, dict) or push.get("type") != 2 or not isinstance(push.get("data"), dict):
        return None
    data = push["data"]
    warn_type = upper_alarm_type(str(data.get("key") or ""))
    car_id, start = data.get("carId"), data.get("startTime")
    if warn_type is None or not isinstance(car_id, int) or not isinstance(start, int | float):
        return None
    return AlarmToSend(car_id, str(data.get("plateNumber") or ""), 2, warn_type,
                       datetime.fromtimestamp(start / 1000, UTC), int(data.get("alarmId") or 0),
                       str(data.get("desc") or ""))


def alarm_body(alarm: AlarmToSend, colour: int, source_platform: str, version: str) -> m.AlarmExchange:
    """0x1400 / 0x1402 in the platform's layout: 2019 AlarmReport (source platform, plate inside), 2011
    AlarmReport2011 (WARN_SRC 1 terminal, INFO_ID the alarm's id, plate in the family header)."""
    if version == "2019":
        report = m.AlarmReport(source_platform[:11], alarm.warn_type, alarm.started_at, alarm.started_at,
                               alarm.started_at, alarm.plate, colour, "", 0, alarm.text)
        return m.AlarmExchange(m.AlarmReport.DATA_TYPE, report)
    report_2011 = m.AlarmReport2011(1, alarm.warn_type, alarm.started_at, alarm.alarm_id & 0xFFFFFFFF, alarm.text)
    return m.AlarmExchange(m.AlarmReport2011.DATA_TYPE, report_2011, alarm.plate, colour)
