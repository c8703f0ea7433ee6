"""Tyre pressure monitoring on a demo vehicle: the 0x66 items (Jiangsu 2017 table 4-18) a terminal with
tyre sensors sends, so the TPMS log and the track's tpmAlarm have data under ``make up``. One model for the
live simulator (simulator.terminal) and the seeded history (warehouse.history), as ``fleet.driving_model``.

A fitted terminal (``fleet.demo_fleet.terminal_has_tpms``) has ``TYRES`` sensors. While the ACC is on it
reports every tyre each ``REPORT_EVERY_S`` seconds of fix time as a timed report (type bit 0): pressure
around ``NOMINAL_KPA``, temperature rising with speed, battery slowly draining. Now and then
(``LEAK_PER_REPORT``) a tyre starts a slow leak; below ``LOW_KPA`` its event also carries bit 2 (pressure
too low), and a sensor under ``BATTERY_LOW_PCT`` bit 7, which the streams record as TPMS alarms. A leaking
tyre is refilled after ``REFILL_AFTER`` reports. Drawn from the terminal's own seeded random source.
Sensors made with ``alarms=False`` (a simulator whose active-safety alarms are off) send the timed reports
only: no leak starts and no event carries an alarm bit.
"""

from __future__ import annotations

import random
from datetime import datetime
from typing import Any

from protocols.jt808 import AlarmNumber

TYRES = 6
REPORT_EVERY_S = 300.0
NOMINAL_KPA = 820
LOW_KPA = 700
LEAK_KPA_PER_REPORT = 40
LEAK_PER_REPORT = 0.02
REFILL_AFTER = 8
BATTERY_LOW_PCT = 20
TIMED, PRESSURE_LOW, BATTERY_LOW = 1 << 0, 1 << 2, 1 << 7


class TyreSensors:
    def __init__(self, rng: random.Random, terminal_id: str, *, alarms: bool = True) -> None:
        self.rng = rng
        self.alarms = alarms
        self.alarm_terminal_id = terminal_id[-7:]
        self.pressure_kpa = [NOMINAL_KPA + rng.randint(-15, 15) for _ in range(TYRES)]
        self.battery_pct = [rng.randint(15, 100) for _ in range(TYRES)]
        self.leaking: dict[int, int] = {}  # tyre -> reports since the leak began
        self.since_report_s = rng.uniform(0, REPORT_EVERY_S)  # terminals do not report in step
        self.alarm_id = 0
        self.reports = 0

    def step(self, dt_s: float, fix_at: datetime, *, acc_on: bool, speed_kmh: float, altitude_m: float, lat: float,
             lng: float, status_flags: int) -> dict[str, Any]:
        """The items of the report at ``fix_at``, ``dt_s`` after the previous one (``{"tpms_alarm": ...}`` when
        one is due, else empty)."""
        self.since_report_s += dt_s
        if not acc_on or self.since_report_s < REPORT_EVERY_S:
            return {}
        self.since_report_s = 0.0
        self._advance()
        events = [self._event(tyre, speed_kmh) for tyre in range(TYRES)]
        self.alarm_id = (self.alarm_id + 1) & 0xFFFFFFFF
        self.reports += 1
        number = AlarmNumber(self.alarm_terminal_id, fix_at, 0, 0)
        return {"tpms_alarm": {
            "alarm_id": self.alarm_id, "flag": 0, "type": events[0]["type"], "level": None,
            "speed_kmh": round(speed_kmh), "altitude_m": round(altitude_m), "lat": lat, "lng": lng,
            "time": fix_at.isoformat(), "vehicle_status": status_flags, "alarm_no": number.to_json(), "events": events}}

    def _advance(self) -> None:
        for tyre in list(self.leaking):
            self.leaking[tyre] += 1
            self.pressure_kpa[tyre] -= LEAK_KPA_PER_REPORT
            if self.leaking[tyre] > REFILL_AFTER:
                del self.leaking[tyre]
                self.pressure_kpa[tyre] = NOMINAL_KPA + self.rng.randint(-15, 15)
        if self.rng.random() < LEAK_PER_REPORT and self.alarms:
            self.leaking.setdefault(self.rng.randrange(TYRES), 0)
        for tyre in range(TYRES):
            if self.rng.random() < 0.05:
                self.battery_pct[tyre] = max(1, self.battery_pct[tyre] - 1)

    def _event(self, tyre: int, speed_kmh: float) -> dict[str, int]:
        pressure = max(0, self.pressure_kpa[tyre] + self.rng.randint(-5, 5))
        kind = TIMED
        if self.alarms:
            kind |= PRESSURE_LOW if pressure < LOW_KPA else 0
            kind |= BATTERY_LOW if self.battery_pct[tyre] < BATTERY_LOW_PCT else 0
        return {"tyre": tyre, "type": kind, "pressure_kpa": pressure,
                "temperature_c": round(25 + speed_kmh / 4 + self.rng.uniform(-2, 2)), "battery_pct": self.battery_pct[tyre]}
