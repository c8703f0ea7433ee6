"""When a simulated terminal raises alarms, and what it sends for them.

``AlarmSchedule.step(dt_s, sample, fix_at)`` is called once per report and returns the 0x0200 alarm
flags and the additional items (0x64/0x65) of that report. Rates are per vehicle-hour
(``SimulatorSettings.alarm_rate_per_hour``, ``safety_alarm_rate_per_hour``), drawn per report from the
schedule's own seeded random source, so a run is repeatable and the driving model's draws are not
disturbed:

| alarm | when | how long |
|---|---|---|
| bit 0 emergency | ACC on | held until the platform's 0x8203 names bit 0 (or ``EMERGENCY_RELEASE_S``) |
| bit 1 overspeed | driving | an episode of 30-120 s makes the vehicle speed; the bit is set while faster than the street limit |
| bit 2 fatigue | driving | 2-10 min |
| bit 7 main power undervoltage | ACC on | 1-5 min |
| 0x64 ADAS 1/2/3 (forward collision, lane departure, distance too close) | driving | one report |
| 0x65 DSM 1/2/3/4 (fatigue, phone, smoking, distraction) | driving | one report |

An ADAS/DSM event carries an alarm number (terminal id = last 7 characters of the terminal's, the fix
time, a per-second serial, 1-3 attachments). ``attachment_files`` makes those attachments when the
platform's 0x9208 asks for them: JPEGs from ``simulator.camera`` showing plate, alarm text and time, and,
for an event of two or more, the last one a 3 s MP4 clip of that scene (``record_clip``; a photo instead
where PyAV has no libx264).
"""

from __future__ import annotations

import random
from collections import OrderedDict
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from fleet.alarm_catalog import describe
from protocols.jt808 import AlarmNumber
from protocols.jt808.alarm_number import JIANGSU_2017
from simulator.camera import record_clip, take_photo
from simulator.driving import Sample, Vehicle

EMERGENCY, OVERSPEED, FATIGUE, POWER_LOW = 1 << 0, 1 << 1, 1 << 2, 1 << 7
CONFIRMED_BY_8203 = EMERGENCY  # the held bits the simulator releases on 0x8203
EMERGENCY_RELEASE_S = 1800.0  # a driver resets the panic button after half an hour if nobody confirms
DRIVING_KMH = 5.0
# share of terminal-bit episodes per kind
TERMINAL_KINDS: tuple[tuple[str, float], ...] = (("overspeed", 0.5), ("fatigue", 0.2), ("power_low", 0.15),
                                                 ("emergency", 0.15))
DURATIONS_S = {"overspeed": (30.0, 120.0), "fatigue": (120.0, 600.0), "power_low": (60.0, 300.0)}
ADAS_TYPES = (1, 2, 3)
DSM_TYPES = (1, 2, 3, 4)
ADAS_CHANNEL, DSM_CHANNEL = 0x64, 0x65
FILE_PICTURE, FILE_VIDEO = 0, 2  # Jiangsu attachment file types
MAX_REMEMBERED = 64  # events kept for a later 0x9208


@dataclass(frozen=True)
class SafetyEvent:
    """One ADAS/DSM event as reported: the item name (``adas_alarm``/``dsm_alarm``), its value, and the
    alarm number the platform will quote in 0x9208."""

    item: str
    value: dict[str, Any]
    alarm_no: AlarmNumber

    @property
    def channel(self) -> int:
        return ADAS_CHANNEL if self.item == "adas_alarm" else DSM_CHANNEL

    @property
    def key(self) -> str:
        return f"{'adas' if self.item == 'adas_alarm' else 'dsm'}_{self.value['type']}"


@dataclass
class AlarmCounters:
    episodes: int = 0  # terminal-bit episodes started
    safety_events: int = 0
    confirmed: int = 0  # 0x8203 that released a held bit


class AlarmSchedule:
    def __init__(self, rng: random.Random, terminal_id: str, *, rate_per_hour: float,
                 safety_rate_per_hour: float) -> None:
        self.rng = rng
        self.alarm_terminal_id = terminal_id[-JIANGSU_2017.terminal_id_size:]
        self.rate_per_hour = rate_per_hour
        self.safety_rate_per_hour = safety_rate_per_hour
        self.held = 0  # bits held until confirmed (emergency)
        self._held_s = 0.0
        self._left_s: dict[str, float] = {}  # running episodes: kind -> seconds left
        self._alarm_id = 0
        self._last_second: datetime | None = None
        self._serial = 0
        self.events: OrderedDict[tuple[datetime, int], SafetyEvent] = OrderedDict()
        self.counters = AlarmCounters()

    # ---------------------------------------------------------------- per report

    def step(self, dt_s: float, sample: Sample, fix_at: datetime, vehicle: Vehicle | None = None
             ) -> tuple[int, dict[str, Any]]:
        """(alarm flags, extra items) for the report at ``fix_at``, ``dt_s`` after the previous one.
        ``vehicle`` (optional) is told to speed during an overspeed episode."""
        driving = sample.acc_on and sample.speed_kmh >= DRIVING_KMH
        self._age(dt_s)
        if sample.acc_on and self._draw(self.rate_per_hour, dt_s):
            self._start_episode(driving)
        items: dict[str, Any] = {}
        if driving and self._draw(self.safety_rate_per_hour, dt_s):
            event = self._safety_event(sample, fix_at)
            items[event.item] = event.value
        if vehicle is not None:
            vehicle.speeding = "overspeed" in self._left_s
        flags = self.held
        if "overspeed" in self._left_s and sample.limit_kmh and sample.speed_kmh > sample.limit_kmh:
            flags |= OVERSPEED
        if "fatigue" in self._left_s:
            flags |= FATIGUE
        if "power_low" in self._left_s:
            flags |= POWER_LOW
        return flags, items

    def confirm(self, alarm_type: int) -> int:
        """The platform's 0x8203 for the bits of ``alarm_type``: releases the held ones among them
        and returns the bits released (0 when none was held)."""
        released = self.held & alarm_type & CONFIRMED_BY_8203
        if released:
            self.held &= ~released
            self.counters.confirmed += 1
        return released

    def _draw(self, rate_per_hour: float, dt_s: float) -> bool:
        return rate_per_hour > 0 and self.rng.random() < rate_per_hour * dt_s / 3600.0

    def _age(self, dt_s: float) -> None:
        for kind in list(self._left_s):
            self._left_s[kind] -= dt_s
            if self._left_s[kind] <= 0:
                del self._left_s[kind]
        if self.held:
            self._held_s += dt_s
            if self._held_s >= EMERGENCY_RELEASE_S:
                self.held = 0

    def _start_episode(self, driving: bool) -> None:
        kinds, weights = zip(*TERMINAL_KINDS, strict=True)
        kind = self.rng.choices(kinds, weights=weights)[0]
        if kind in ("overspeed", "fatigue") and not driving:
            return  # only a moving vehicle speeds or tires its driver
        self.counters.episodes += 1
        if kind == "emergency":
            self.held |= EMERGENCY
            self._held_s = 0.0
            return
        self._left_s[kind] = self.rng.uniform(*DURATIONS_S[kind])

    def _safety_event(self, sample: Sample, fix_at: datetime) -> SafetyEvent:
        adas = self.rng.random() < 0.5
        kind = self.rng.choice(ADAS_TYPES if adas else DSM_TYPES)
        level = self.rng.choice((1, 1, 2))
        if fix_at == self._last_second:
            self._serial = (self._serial + 1) & 0xFF
        else:
            self._last_second, self._serial = fix_at, 0
        self._alarm_id = (self._alarm_id + 1) & 0xFFFFFFFF
        number = AlarmNumber(self.alarm_terminal_id, fix_at, self._serial, self.rng.randint(1, 3))
        value: dict[str, Any] = {
            "alarm_id": self._alarm_id, "flag": 0, "type": kind, "level": level,
            "speed_kmh": round(sample.speed_kmh), "altitude_m": sample.altitude_m, "lat": sample.lat,
            "lng": sample.lng, "time": fix_at.isoformat(), "vehicle_status": sample.status_flags,
            "alarm_no": number.to_json(),
        }
        if adas:
            value.update({"front_speed_kmh": max(0, round(sample.speed_kmh) - self.rng.randint(5, 20))
                          if kind in (1, 3) else 0,
                          "headway_s": round(self.rng.uniform(0.5, 2.5), 1) if kind in (1, 3) else 0.0,
                          "deviation_type": self.rng.choice((1, 2)) if kind == 2 else 0,
                          "road_sign_type": 0, "road_sign_data": 0})
        else:
            value["fatigue_degree"] = self.rng.randint(3, 9) if kind == 1 else 0
        event = SafetyEvent("adas_alarm" if adas else "dsm_alarm", value, number)
        self.events[(fix_at, self._serial)] = event
        while len(self.events) > MAX_REMEMBERED:
            self.events.popitem(last=False)
        self.counters.safety_events += 1
        return event

    # ---------------------------------------------------------------- attachments

    def event_for(self, alarm_no: AlarmNumber) -> SafetyEvent | None:
        return self.events.get((alarm_no.time, alarm_no.seq))

    def attachment_files(self, alarm_no: AlarmNumber, alarm_uuid: str, plate: str
                         ) -> list[tuple[str, int, bytes]]:
        """(name, file type, data) for each attachment of the event ``alarm_no`` names, in the Jiangsu
        naming ``<type>_<channel>_<channel><alarm type>_<n>_<uuid>.<jpg|mp4>``: photos, the last of two or
        more a clip (module doc). Unknown event: one photo."""
        event = self.event_for(alarm_no)
        count = alarm_no.attachments or 1
        if event is None:
            channel, kind, caption, caption_en = ADAS_CHANNEL, 0, "报警附件", "Alarm attachment"
        else:
            channel, kind = event.channel, int(event.value["type"])
            level = event.value.get("level")
            caption, caption_en = describe(event.key, level), describe(event.key, level, "en")
        files = []
        for n in range(count):
            if n == count - 1 and count >= 2 and event is not None:
                try:
                    clip = record_clip(plate, alarm_no.time, channel=n + 1, caption=caption, caption_ascii=caption_en)
                except RuntimeError:
                    pass  # no encoder here: a photo in its place
                else:
                    files.append((f"{FILE_VIDEO:02d}_{channel:02x}_{channel:02x}{kind:02d}_{n}_{alarm_uuid}.mp4",
                                  FILE_VIDEO, clip))
                    continue
            name = f"{FILE_PICTURE:02d}_{channel:02x}_{channel:02x}{kind:02d}_{n}_{alarm_uuid}.jpg"
            data = take_photo(plate, alarm_no.time, channel=n + 1, caption=caption, caption_ascii=caption_en)
            files.append((name, FILE_PICTURE, data))
        return files


def with_alarms(sample: Sample, flags: int) -> Sample:
    return replace(sample, alarm_flags=flags)
