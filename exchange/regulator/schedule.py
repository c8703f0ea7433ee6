"""The demo schedule of the regulator in a box (issue section 5): an inspection every few minutes, the
count of positions received every minute, an urging for a real alarm and a message after each login,
and for the vehicle of that first alarm a warning tip (0x9402, 2011), a static information request
(0x9601) and a text to its driver (0x9503, 2011), so a first-time user sees the whole exchange working. Off unless started (``fleet exchange-sim``
starts it; the class alone never sends on its own).

Video (JT/T 1078-2016 §8.2, with ``video_minutes``): a minute after the schedule starts and then every
``video_minutes``, a live video request (0x9801, channel 1, audio and video, the platform's home-region code of
its 0x1701) for a vehicle forwarded in the last 5 minutes (online), the most recently forwarded first; a
vehicle answered with a failure (no camera, offline) is skipped from then on and the next one tried, up to
``VIDEO_TRIES`` a round. On RESULT 0 the regulator pulls ``VIDEO_PULL_S`` seconds at the address answered and
stops the video (0x9802), so the superiorPlatform and playback screens show real traffic on first start."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from exchange.regulator.regulator import Regulator
from exchange.regulator.tally import AlarmRecord
from exchange.regulator.video import AUTHORIZE_WINDOW_S
from exchange.superior.accounts import Account
from exchange.superior.links import LinkDown, now
from protocols.jt809 import messages as m

log = logging.getLogger("exchange.regulator")
GREET_POLL_S = 0.2  # how soon after a sub link comes up its greeting goes
VIDEO_FIRST_S = 60.0  # the first video request this long after the schedule starts (positions and codes in)
VIDEO_CHANNEL = 1
VIDEO_ANSWER_S = 30.0  # longest wait for the 0x1801 (the inferior answers once its terminal has)
VIDEO_PULL_S = 5.0
VIDEO_TRIES = 5  # vehicles asked per round before giving up until the next


@dataclass(frozen=True)
class Schedule:
    inspection_minutes: float = 5.0  # 0: none
    count_minutes: float = 1.0  # 0: none
    urge_alarms: bool = True  # and a message after each login
    video_minutes: float = 0.0  # a live video request and a few seconds pulled (0: none; the command: 10)


class Scheduled(Regulator):
    """A Regulator that also follows a Schedule once ``run_schedule()`` runs."""

    def __init__(self, accounts: Iterable[Account], *, schedule: Schedule = Schedule(), **kwargs: Any) -> None:
        super().__init__(accounts, **kwargs)
        self.schedule = schedule
        self._greeted: dict[int, str] = {}
        self._urged_accounts: set[int] = set()
        self.video_first_s = VIDEO_FIRST_S
        self.no_video: set[tuple[str, int]] = set()  # vehicles whose live video was refused

    def alarm_received(self, alarm: AlarmRecord) -> None:
        if not self.schedule.urge_alarms or alarm.account in self._urged_accounts:
            return
        self._urged_accounts.add(alarm.account)
        for what, send in (
                ("urging", lambda: self.send_urging(alarm)),
                ("warning tip", lambda: self.send_warning(alarm.plate, alarm.colour, "监管提示：请注意安全驾驶",
                                                          user_id=alarm.account)),
                ("static information request", lambda: self.send_static_info_request(
                    alarm.plate, alarm.colour, user_id=alarm.account)),
                ("text to the driver", lambda: self._text_driver(alarm))):
            try:
                send()
                self.event(self.links.get(alarm.account), f"{what.replace(' ', '_')}_sent",
                           f"{alarm.plate} info id {alarm.info_id}")
            except (LinkDown, ValueError) as exc:
                log.info("no %s for %s: %s", what, alarm.plate, exc)

    def _text_driver(self, alarm: AlarmRecord) -> None:
        """0x9503 to the alarm's vehicle; typed in the 2011 layout only (ValueError on a 2019 link)."""
        if self._links(alarm.account).account.version != "2011":
            raise ValueError("0x9503 has a typed layout for JT/T 809-2011 only")
        self.send_control(alarm.plate, alarm.colour, m.TextRequest(alarm.info_id, 1, "监管平台：请规范驾驶"),
                          user_id=alarm.account)

    async def run_schedule(self) -> None:
        await asyncio.gather(self._every(self.schedule.inspection_minutes * 60, self._inspect),
                             self._every(self.schedule.count_minutes * 60, self._count),
                             self._every(GREET_POLL_S, self._greet), self._video_rounds())

    async def _video_rounds(self) -> None:
        if self.schedule.video_minutes <= 0:
            return
        await asyncio.sleep(self.video_first_s)
        while True:
            try:
                await self.watch_video()
            except (LinkDown, LookupError, ValueError, OSError) as exc:
                log.info("video round ended: %r", exc)
            await asyncio.sleep(self.schedule.video_minutes * 60)

    def video_candidates(self, at: datetime) -> list[tuple[str, int, int]]:
        """(plate, colour, account) of the vehicles forwarded within the code window whose account reported
        codes, the most recently forwarded first, without those refused before."""
        recent = sorted(((received, plate, colour, uid) for (plate, colour), (uid, received)
                         in self.vehicle_sources.items()
                         if (at - received).total_seconds() <= AUTHORIZE_WINDOW_S and uid in self.authorize_codes
                         and (plate, colour) not in self.no_video), reverse=True)
        return [(plate, colour, uid) for _, plate, colour, uid in recent]

    async def watch_video(self) -> dict[str, Any] | None:
        """One round: ask, pull and stop the live video of the first candidate that answers 0; what was
        pulled (regulator/video.py's pull), or None when no candidate did."""
        for plate, colour, uid in self.video_candidates(now())[:VIDEO_TRIES]:
            links = self.links.get(uid)
            code = str(self.authorize_codes[uid]["code_1"])
            asked_at = now()
            self.send_video_request(plate, colour, m.RealVideoRequest(VIDEO_CHANNEL, 0, code), user_id=uid)
            self.event(links, "video_requested", f"0x9801 {plate} channel {VIDEO_CHANNEL}")
            answer = await self._video_answer(plate, colour, uid, asked_at)
            if answer is None or answer["result"] != 0:
                self.no_video.add((plate, colour))
                self.event(links, "video_refused",
                           f"{plate}: " + ("no 0x1801" if answer is None else f"0x1801 RESULT {answer['result']}"))
                continue
            try:
                pulled = await self.pull_video(plate, colour, VIDEO_CHANNEL, 0, VIDEO_PULL_S, user_id=uid)
            finally:
                self.send_video_request(plate, colour, m.RealVideoEnd(VIDEO_CHANNEL, 0), user_id=uid)
            self.event(links, "video_pulled", f"{plate}: HTTP {pulled['status']}, {pulled['bytes']} bytes"
                       + (" of JT/T 1078 packets" if pulled["jt1078"] else " of FLV" if pulled["flv"] else ""))
            return pulled
        return None

    async def _video_answer(self, plate: str, colour: int, uid: int, since: datetime) -> dict[str, Any] | None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + VIDEO_ANSWER_S
        while loop.time() < deadline:
            for answer in reversed(self.tally.video_answers):
                if (answer["account"], answer["plate"], answer["colour"], answer["data_type"]) == (
                        uid, plate, colour, m.RealVideoAnswer.DATA_TYPE) \
                        and datetime.fromisoformat(answer["received_at"]) >= since:
                    return answer
            await asyncio.sleep(0.1)
        return None

    async def _every(self, seconds: float, action: Callable[[], None]) -> None:
        if seconds <= 0:
            return
        while True:
            await asyncio.sleep(seconds)
            with contextlib.suppress(LinkDown, ValueError, OSError):
                action()

    def _logged_in(self) -> list[int]:
        return [uid for uid, lk in self.links.items() if lk.main.state == "up" or lk.sub.state == "up"]

    def _inspect(self) -> None:
        for uid in self._logged_in():
            sent = self.send_inspection("平台查岗：请值班人员回答", user_id=uid)
            self.event(self.links[uid], "inspection_sent", f"info id {sent['info_id']} on the {sent['link']} link")

    def _count(self) -> None:
        for uid in self._logged_in():
            sent = self.send_position_count(user_id=uid)
            self.event(self.links[uid], "count_sent", f"{sent['total']} positions {sent['start']}..{sent['end']}")

    def _greet(self) -> None:
        """A message (0x9302) once the sub link of a new login is up."""
        if not self.schedule.urge_alarms:
            return
        for uid, lk in self.links.items():
            since = lk.sub.since.isoformat()
            if lk.sub.state == "up" and self._greeted.get(uid) != since:
                self._greeted[uid] = since
                self.send_message("欢迎接入监管平台（fleetwatch 监管模拟）", user_id=uid)
