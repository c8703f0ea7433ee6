"""When a simulated terminal raises alarms, and what it sends for them.

``AlarmSchedule.step(dt_s, sample, fix_at)`` is called once per report and returns the 0x0200 alarm
flags and the additional items (0x64/0x65) of that report. Which alarms and when is
``fleet.driving_model.AlarmMix``, the rules the seeded history follows too (the same mix live and seeded).
Rates are per vehicle-hour (``SimulatorSettings.alarm_rate_per_hour``, ``safety_alarm_rate_per_hour``),
drawn per report from the schedule's own seeded random source, so a run is repeatable and the driving
model's draws are not disturbed:

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
from fleet.driving_model import DRIVING_KMH, AlarmCounts, AlarmMix, DrivingModel, SafetyDraw
from fleet.driving_model import EMERGENCY as EMERGENCY
from fleet.driving_model import OVERSPEED as OVERSPEED
from protocols.jt808 import AlarmNumber
from protocols.jt808.alarm_number import JIANGSU_2017
from simulator.camera import record_clip, take_photo
from simulator.driving import Sample, Vehicle

CONFIRMED_BY_8203 = EMERGENCY  # the held bits the simulator releases on 0x8203
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
class AlarmCounters(AlarmCounts):
    confirmed: int = 0  # 0x8203 that released a held bit


class AlarmSchedule:
    """The simulator's side of ``fleet.driving_model.AlarmMix`` (which alarms, when: the seeds' rules):
    alarm numbers, the 0x64/0x65 items, attachments and the platform's 0x8203."""

    def __init__(self, rng: random.Random, terminal_id: str, *, rate_per_hour: float,
                 safety_rate_per_hour: float) -> None:
        self.rng = rng
        self.alarm_terminal_id = terminal_id[-JIANGSU_2017.terminal_id_size:]
        self.mix = AlarmMix(rng, DrivingModel(alarm_rate_per_hour=rate_per_hour,
                                              safety_alarm_rate_per_hour=safety_rate_per_hour))
        self._alarm_id = 0
        self._last_second: datetime | None = None
        self._serial = 0
        self.events: OrderedDict[tuple[datetime, int], SafetyEvent] = OrderedDict()
        self.counters = AlarmCounters()

    @property
    def held(self) -> int:
        """Bits held until confirmed (emergency)."""
        return self.mix.held

    # ---------------------------------------------------------------- per report

    def step(self, dt_s: float, sample: Sample, fix_at: datetime, vehicle: Vehicle | None = None
             ) -> tuple[int, dict[str, Any]]:
        """(alarm flags, extra items) for the report at ``fix_at``, ``dt_s`` after the previous one.
        ``vehicle`` (optional) is told to speed during an overspeed episode."""
        driving = sample.acc_on and sample.speed_kmh >= DRIVING_KMH
        draw = self.mix.step(dt_s, sample.acc_on, driving)
        items: dict[str, Any] = {}
        if draw is not None:
            event = self._safety_event(sample, fix_at, draw)
            items[event.item] = event.value
        if vehicle is not None:
            vehicle.speeding = self.mix.speeding
        self.counters.episodes = self.mix.counts.episodes
        return self.mix.flags(sample.speed_kmh, sample.limit_kmh), items

    def confirm(self, alarm_type: int) -> int:
        """The platform's 0x8203 for the bits of ``alarm_type``: releases the held ones among them
        and returns the bits released (0 when none was held)."""
        released = self.mix.confirm(alarm_type & CONFIRMED_BY_8203)
        if released:
            self.counters.confirmed += 1
        return released

    def _safety_event(self, sample: Sample, fix_at: datetime, draw: SafetyDraw) -> SafetyEvent:
        adas, kind, level = draw.adas, draw.type, draw.level
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
