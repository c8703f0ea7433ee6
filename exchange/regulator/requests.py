"""The superior's requests to an inferior platform (JT/T 809 sub link messages, §5.3-§5.4):
inspections (0x9301, whose 0x1301 answers are matched back with their latency), urgings (0x9401) of
an alarm the inferior reported, messages (0x9302), warning tips (0x9402), vehicle control (0x9501-0x9505), static
information requests (0x9601) and the count of positions received (0x9101). Each goes on the sub link, or on the main link while the sub link is down
(``PlatformLinks.send_request``), and raises LinkDown when neither is up.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from exchange.superior.links import LinkDown, PlatformLinks, now
from protocols.jt809 import messages as m

if TYPE_CHECKING:
    from exchange.regulator.tally import AlarmRecord


@dataclass
class AskedInspection:
    info_id: int
    user_id: int
    question: str
    sent_at: datetime
    link: str
    sn: int
    answered: bool = False


class Requests:
    """Mixed into Regulator (which provides ``links``, ``tally``, ``positions_in_period``...)."""

    links: dict[int, PlatformLinks]
    positions_in_period: int
    period_start: datetime

    def __init__(self) -> None:
        self._info_ids = itertools.count(1)
        self.asked: dict[tuple[int, int], AskedInspection] = {}  # (user id, info id)
        self._asked_by_sn: dict[tuple[int, int], AskedInspection] = {}  # (user id, SN of the 0x9300)
        self.urged: set[tuple[str, int, int, datetime]] = set()

    def _links(self, user_id: int | None) -> PlatformLinks:
        if user_id is not None:
            found = self.links.get(user_id)
            if found is None:
                raise LinkDown(f"user {user_id} has never logged in")
            return found
        up = [lk for lk in self.links.values() if lk.main.state == "up" or lk.sub.state == "up"]
        if len(up) != 1:
            raise LinkDown(f"name the platform: {len(up)} are connected")
        return up[0]

    def send_inspection(self, question: str, *, object_type: int = 1, object_id: str = "",
                        answer_minutes: int = 10, info_id: int | None = None,
                        user_id: int | None = None) -> dict[str, Any]:
        """0x9301 平台查岗: ``object_type`` 1 the platform (``object_id`` defaults to its centre id),
        2 an operator, 3 a vehicle's enterprise... ``answer_minutes`` is sent in 2019 (ANSWER_TIME)."""
        links = self._links(user_id)
        info_id = next(self._info_ids) if info_id is None else info_id
        request = m.InspectionRequest(object_type, object_id or str(links.account.centre_id), info_id, question,
                                      answer_minutes if links.account.version == "2019" else None)
        link, sn = links.send_request(m.PlatformExchangeDown.MSG_ID,
                                      m.PlatformExchangeDown(m.InspectionRequest.DATA_TYPE, request))
        asked = AskedInspection(info_id, links.account.user_id, question, now(), link, sn)
        self.asked[(asked.user_id, info_id)] = asked
        self._asked_by_sn[(asked.user_id, sn)] = asked
        return {"info_id": info_id, "link": link, "sn": sn}

    def match_inspection(self, user_id: int, answer: m.InspectionAnswer) -> AskedInspection | None:
        """The inspection an answer is for: by INFO_ID (2011) or by the request's SN (2019)."""
        if answer.source_sn is not None:
            asked = self._asked_by_sn.get((user_id, answer.source_sn))
        else:
            asked = self.asked.get((user_id, answer.info_id))
        if asked is not None:
            asked.answered = True
        return asked

    def inspections_json(self) -> list[dict[str, Any]]:
        return [{"info_id": a.info_id, "user_id": a.user_id, "question": a.question, "sent_at": a.sent_at.isoformat(),
                 "link": a.link, "sn": a.sn, "answered": a.answered} for a in self.asked.values()]

    def send_urging(self, alarm: AlarmRecord, *, minutes: int = 60, level: int = 0, supervisor: str = "regulator",
                    tel: str = "", email: str = "") -> dict[str, Any]:
        """0x9401 报警督办 of an alarm the inferior reported: SUPERVISION_ID is the alarm's INFO_ID, the
        deadline ``minutes`` from now. Typed in the 2011 layout only (the codec's); a 2019 link
        raises ValueError."""
        links = self._links(alarm.account)
        if links.account.version != "2011":
            raise ValueError("0x9401 has a typed layout for JT/T 809-2011 only")
        request = m.UrgingRequest(alarm.warn_src or 1, alarm.warn_type, alarm.warn_time, f"{alarm.info_id:08X}",
                                  now() + timedelta(minutes=minutes), level, supervisor, tel, email)
        link, sn = links.send_request(m.AlarmExchangeDown.MSG_ID, m.AlarmExchangeDown(
            m.UrgingRequest.DATA_TYPE, request, alarm.plate, alarm.colour))
        self.urged.add((alarm.plate, alarm.colour, alarm.info_id, alarm.warn_time))
        return {"info_id": alarm.info_id, "link": link, "sn": sn}

    def send_message(self, text: str, *, object_type: int = 1, object_id: str = "", info_id: int | None = None,
                     user_id: int | None = None) -> dict[str, Any]:
        """0x9302 下发平台间报文 to the platform (or its operator, ``object_type``)."""
        links = self._links(user_id)
        info_id = next(self._info_ids) if info_id is None else info_id
        body = m.PlatformMessage(object_type, object_id or str(links.account.centre_id), info_id, text)
        link, sn = links.send_request(m.PlatformExchangeDown.MSG_ID,
                                      m.PlatformExchangeDown(m.PlatformMessage.DATA_TYPE, body))
        return {"info_id": info_id, "link": link, "sn": sn}

    def send_warning(self, plate: str, colour: int, text: str, *, warn_type: int = 1, warn_src: int = 3,
                     warn_time: datetime | None = None, user_id: int | None = None) -> dict[str, Any]:
        """0x9402 报警预警 about a vehicle (2011 layout; ``warn_src`` 3 = the superior platform)."""
        links = self._links(user_id)
        if links.account.version != "2011":
            raise ValueError("0x9402 has a typed layout for JT/T 809-2011 only")
        tip = m.WarningTip(warn_src, warn_type, warn_time or now(), text)
        link, sn = links.send_request(m.AlarmExchangeDown.MSG_ID,
                                      m.AlarmExchangeDown(m.WarningTip.DATA_TYPE, tip, plate, colour))
        return {"link": link, "sn": sn}

    def send_control(self, plate: str, colour: int, request: Any, *, user_id: int | None = None) -> dict[str, Any]:
        """A vehicle control request (0x9501 listen-in, 0x9502 photo, 0x9503 text, 0x9504 travel recorder,
        0x9505 emergency access: ``request`` is the typed body, 2011 layout)."""
        links = self._links(user_id)
        link, sn = links.send_request(m.VehicleControlDown.MSG_ID,
                                      m.VehicleControlDown(plate, colour, request.DATA_TYPE, request))
        return {"link": link, "sn": sn}

    def send_video_request(self, plate: str, colour: int, request: Any, *, user_id: int | None = None) -> dict[str, Any]:
        """A JT/T 1078 video request about a vehicle: ``request`` is the typed data (0x9801 real-time, 0x9802
        stop, 0x9A01 playback, 0x9A02 playback control)."""
        family = m.RealVideoDown if request.DATA_TYPE in (0x9801, 0x9802) else m.PlaybackDown
        links = self._links(user_id)
        link, sn = links.send_request(family.MSG_ID, family(plate, colour, request.DATA_TYPE, request))
        return {"link": link, "sn": sn}

    def send_static_info_request(self, plate: str, colour: int, *, user_id: int | None = None) -> dict[str, Any]:
        """0x9601 补报车辆静态信息请求 about a vehicle (no data: the family header names it)."""
        links = self._links(user_id)
        link, sn = links.send_request(m.StaticInfoDown.MSG_ID, m.StaticInfoDown(plate, colour, 0x9601, b""))
        return {"link": link, "sn": sn}

    def send_position_count(self, user_id: int | None = None) -> dict[str, Any]:
        """0x9101: the positions received (real-time and back-filled, duplicates included) since the
        last 0x9101 (or the start), so the inferior can reconcile with what it sent."""
        links = self._links(user_id)
        start, end, total = self.period_start, now(), self.positions_in_period
        link, sn = links.send_request(m.PositionCount.MSG_ID, m.PositionCount(total, start, end))
        self.period_start, self.positions_in_period = end, 0
        return {"total": total, "start": start.isoformat(), "end": end.isoformat(), "link": link, "sn": sn}

    def alarm_received(self, alarm: AlarmRecord) -> None:
        """Hook of the schedule (an urging for a real alarm); nothing by default."""
