"""The demo schedule of the regulator in a box (issue section 5): an inspection every few minutes, the
count of positions received every minute, an urging for a real alarm and a message after each login,
and for the vehicle of that first alarm a warning tip (0x9402, 2011), a static information request
(0x9601) and a text to its driver (0x9503, 2011), so a first-time user sees the whole exchange working. Off unless started (``fleet exchange-sim``
starts it; the class alone never sends on its own)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from exchange.regulator.regulator import Regulator
from exchange.regulator.tally import AlarmRecord
from exchange.superior.accounts import Account
from exchange.superior.links import LinkDown
from protocols.jt809 import messages as m

log = logging.getLogger("exchange.regulator")
GREET_POLL_S = 0.2  # how soon after a sub link comes up its greeting goes


@dataclass(frozen=True)
class Schedule:
    inspection_minutes: float = 5.0  # 0: none
    count_minutes: float = 1.0  # 0: none
    urge_alarms: bool = True  # and a message after each login


class Scheduled(Regulator):
    """A Regulator that also follows a Schedule once ``run_schedule()`` runs."""

    def __init__(self, accounts: Iterable[Account], *, schedule: Schedule = Schedule(), **kwargs: Any) -> None:
        super().__init__(accounts, **kwargs)
        self.schedule = schedule
        self._greeted: dict[int, str] = {}
        self._urged_accounts: set[int] = set()

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
                             self._every(GREET_POLL_S, self._greet))

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
