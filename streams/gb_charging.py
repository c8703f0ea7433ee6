"""Charging sessions of GB/T 32960 vehicles (pure; the step "gb_charging" of streams/gb_uplinks.py stores them).

A session starts with a frame whose whole-vehicle charging state is 1 (parked charging) or 2 (driving
charging) and ends with the first later frame whose state is another number (3 not charging, 4 charging
finished; platform-spec §4 "Charging state"); a frame with the state abnormal / invalid changes nothing.
SOC from = the first frame's, SOC to = the last frame's (the ending frame's when it has one). Where = the
session's first valid fix. Energy (kWh) integrates the charging power, total voltage x charging current
(the negative total current: GB/T 32960.3 counts discharge positive), holding each frame's power until
the next frame of the session; an interval longer than ``MAX_GAP_S`` (a terminal silent or a frame lost)
adds nothing, so a gap never invents energy.

Replays and back-fill: each device's frames are applied in collection-time order and only those newer
than its mark (the newest vehicle block stored in nev_state, or the newest session's ``last_at``), so a
replayed or back-filled frame older than that changes no session, and a re-derived session has the same
(device, start) key as the stored one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from streams.gb_frames import GbFrame, number

CHARGING = frozenset((1, 2))
MAX_GAP_S = 300.0


@dataclass(slots=True)
class Session:
    """One charging_session row (migration 0049)."""

    device_id: int
    start_at: datetime
    car_id: int | None
    enterprise_id: int
    vin: str
    charging_state: int
    end_at: datetime | None
    soc_from: int | None
    soc_to: int | None
    energy_kwh: float
    lat: float | None
    lng: float | None
    last_at: datetime
    last_power_kw: float | None

    def row(self) -> tuple[object, ...]:
        """The values in warehouse.queries.gb_states.SESSION_COLUMNS order."""
        return tuple(getattr(self, name) for name in (
            "device_id", "start_at", "car_id", "enterprise_id", "vin", "charging_state", "end_at", "soc_from",
            "soc_to", "energy_kwh", "lat", "lng", "last_at", "last_power_kw"))


@dataclass(slots=True)
class Mark:
    """What is applied of a device so far: frames up to ``applied_at``; its open session, if any."""

    applied_at: datetime | None = None
    open: Session | None = None


def charging_power_kw(voltage_v: object, current_a: object) -> float:
    voltage, current = number(voltage_v), number(current_a)
    if voltage is None or current is None:
        return 0.0
    return max(0.0, -float(current)) * float(voltage) / 1000.0


def _integrate(session: Session, at: datetime) -> None:
    gap_s = (at - session.last_at).total_seconds()
    if 0 < gap_s <= MAX_GAP_S and session.last_power_kw:
        session.energy_kwh += session.last_power_kw * gap_s / 3600.0


def plan_sessions(frames: Iterable[GbFrame], marks: dict[int, Mark]) -> list[Session]:
    """The sessions the frames start, move on or end (each once, in its final state); ``marks`` moved on in
    place. Frames of any order; each device's are applied by collection time."""
    touched: dict[tuple[int, datetime], Session] = {}
    ordered = sorted((f for f in frames if f.collected_at is not None and "vehicle" in f.state),
                     key=lambda f: (f.device_id, f.collected_at))
    for frame in ordered:
        at = frame.collected_at
        assert at is not None
        vehicle = frame.state["vehicle"]
        state = number(vehicle.get("charging_state"))
        mark = marks.setdefault(frame.device_id, Mark())
        if state is None or (mark.applied_at is not None and at <= mark.applied_at):
            continue
        mark.applied_at = at
        soc = number(vehicle.get("soc_pct"))
        soc_pct = int(soc) if soc is not None else None
        power = charging_power_kw(vehicle.get("total_voltage_v"), vehicle.get("total_current_a"))
        fix = frame.fix
        session = mark.open
        if session is not None and not session.vin:  # reloaded from its row: the frame names the vehicle
            session.car_id, session.enterprise_id, session.vin = frame.car_id, frame.enterprise_id, frame.uplink.vin
        if int(state) in CHARGING:
            if session is None:
                session = Session(frame.device_id, at, frame.car_id, frame.enterprise_id, frame.uplink.vin,
                                  int(state), None, soc_pct, soc_pct, 0.0, fix.lat if fix else None,
                                  fix.lng if fix else None, at, power)
                mark.open = session
            else:
                _integrate(session, at)
                session.last_at, session.last_power_kw = at, power
                session.soc_to = soc_pct if soc_pct is not None else session.soc_to
                if session.lat is None and fix is not None:
                    session.lat, session.lng = fix.lat, fix.lng
        elif session is not None:
            _integrate(session, at)
            session.last_at, session.last_power_kw, session.end_at = at, None, at
            session.soc_to = soc_pct if soc_pct is not None else session.soc_to
            mark.open = None
        else:
            continue
        touched[(session.device_id, session.start_at)] = session
    return [dataclasses.replace(s) for s in touched.values()]


def marks_from_rows(rows: Iterable[tuple[Any, ...]]) -> dict[int, Mark]:
    """Marks of ``warehouse.queries.gb_states.charging_marks_async`` rows."""
    marks: dict[int, Mark] = {}
    for (device_id, vehicle_at, start_at, end_at, soc_from, soc_to, energy, lat, lng, last_at, power,
         state) in rows:
        applied = [t for t in (vehicle_at, last_at) if isinstance(t, datetime)]
        mark = Mark(max(applied) if applied else None)
        if isinstance(start_at, datetime) and end_at is None and isinstance(last_at, datetime):
            mark.open = Session(int(device_id), start_at, None, 0, "", int(state), None,
                                soc_from, soc_to, float(energy or 0.0), lat, lng, last_at, power)
        marks[int(device_id)] = mark
    return marks
