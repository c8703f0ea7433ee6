"""The regulator in a box: a JT/T 809 superior platform for tests, the benchmark and ``make up``.

It accepts inferior platforms' main links, checks each login against its accounts (0x1002 result
codes of §5.2.1.2), opens the sub link back, checks every frame (CRC, decryption, layout; a failing
frame is counted by kind and logged as hex, never fatal), counts what arrives (``tally``), and sends
the superior's requests (``requests.Requests``). ``status()`` is JSON-able.
"""

from __future__ import annotations

import logging
import time
from collections import Counter, deque
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from exchange.regulator import inbound, video
from exchange.regulator.requests import Requests
from exchange.regulator.tally import AlarmRecord, InspectionRecord, Tally
from exchange.superior.accounts import Account
from exchange.superior.links import PlatformLinks, Timing, now
from exchange.superior.server import LoginResult, MainLinkServer
from protocols.jt809 import Message
from protocols.jt809 import messages as m
from protocols.jt809.catalogue import name_of

log = logging.getLogger("exchange.regulator")
__all__ = ["LoginResult", "Regulator"]


class Regulator(MainLinkServer, Requests):
    def __init__(self, accounts: Iterable[Account], *, host: str = "127.0.0.1", port: int = 0,
                 timing: Timing | None = None, login_timeout_s: float = 30.0, last_messages: int = 50,
                 hex_log_bytes: int = 64, max_platforms: int | None = None) -> None:
        MainLinkServer.__init__(self, accounts, host=host, port=port, timing=timing,
                                login_timeout_s=login_timeout_s, hex_log_bytes=hex_log_bytes,
                                max_platforms=max_platforms)
        if not self.accounts:
            raise ValueError("a regulator needs at least one account")
        self.tally = Tally()
        self.counts: Counter[str] = Counter()
        self.other: Counter[str] = Counter()
        self.frames_by_link: Counter[tuple[int, str, str]] = Counter()  # (user id, main/sub, up/down)
        self.positions_in_period = 0
        self.period_start = now()
        self.messages: deque[tuple[float, int, str, str, int, int | None, int]] = deque(maxlen=last_messages)
        self.events: deque[dict[str, Any]] = deque(maxlen=last_messages)
        self.started_at = now()
        self.authorize_codes: dict[int, dict[str, Any]] = {}  # account -> the latest 0x1701 (regulator/video.py)
        # (plate, colour) -> (account, received at) of the latest position forwarded: whose codes a 0x1702 gets
        self.vehicle_sources: dict[tuple[str, int], tuple[int, datetime]] = {}
        Requests.__init__(self)

    async def start(self) -> None:
        await super().start()
        self.started_at = now()

    # -- records ---------------------------------------------------------------------------------
    async def handle(self, links: PlatformLinks, link: str, message: Message) -> None:
        await inbound.handle(self, links, link, message)

    def record(self, user_id: int, link: str, direction: str, msg_id: int, data_type: int | None, sn: int,
               body: Any = None, raw: bytes = b"") -> None:
        self.counts[f"frames_{direction}"] += 1
        self.frames_by_link[(user_id, link, direction)] += 1
        # kept as read and written out by status(): at 10,000 positions a second, formatting every frame for a
        # list that shows the last 50 cost the regulator a tenth of its CPU
        self.messages.append((time.time(), user_id, link, direction, msg_id, data_type, sn))

    def event(self, links: PlatformLinks | None, kind: str, detail: str) -> None:
        user = links.account.user_id if links is not None else None
        self.events.append({"at": now().isoformat(), "user_id": user, "event": kind, "detail": detail})
        log.info("link event user=%s %s: %s", user, kind, detail)

    def count_error(self, kind: str) -> None:
        if kind == "before_login":
            self.counts["before_login"] += 1
        else:
            self.tally.errors[kind] += 1

    def count_other(self, msg_id: int, data_type: int | None) -> None:
        key = f"0x{msg_id:04X}" + (f"/0x{data_type:04X}" if data_type is not None else "")
        self.other[key] += 1

    def alarm_reported(self, links: PlatformLinks, plate: str, colour: int, warn_type: int, warn_time: datetime,
                       info_id: int, warn_src: int, content: str) -> None:
        self.counts["alarms"] += 1
        record = AlarmRecord(plate, colour, warn_type, warn_time, info_id, warn_src, content,
                             links.account.user_id, now())
        self.tally.alarms.append(record)
        self.alarm_received(record)

    def inspection_answered(self, links: PlatformLinks, answer: m.InspectionAnswer) -> None:
        self.counts["inspection_answers"] += 1
        asked = self.match_inspection(links.account.user_id, answer)
        info_id = asked.info_id if asked is not None else answer.info_id
        latency = (now() - asked.sent_at).total_seconds() if asked is not None else None
        self.tally.inspection_answers.append(InspectionRecord(info_id, answer.content, latency, answer.object_id,
                                                              links.account.user_id, now(), answer.responder))
        self.event(links, "inspection_answer", f"info id {info_id} after {latency}s: {answer.content!r}")

    async def pull_video(self, plate: str, colour: int, channel: int, av_flag: int, seconds: float, *,
                         user_id: int | None = None, code: str | None = None) -> dict[str, Any]:
        """Pull the stream the latest successful 0x1801 / 0x1A01 for the vehicle named (regulator/video.py)."""
        return await video.pull_answered(self, plate, colour, channel, av_flag, seconds, user_id=user_id, code=code)

    # -- status ----------------------------------------------------------------------------------
    def status(self, vehicles: int = 1000) -> dict[str, Any]:
        tally = self.tally
        return {
            "port": self.port,
            "started_at": self.started_at.isoformat(),
            "links": [{"user_id": uid, "centre_id": lk.account.centre_id, "version": lk.account.version,
                       "main": lk.main.as_json(), "sub": {**lk.sub.as_json(), "logins": lk.sub_logins,
                                                            "failures": lk.sub_failures},
                       "handler_errors": lk.handler_errors,
                       "frames": {f"{link}_{d}": self.frames_by_link[(uid, link, d)]
                                  for link in ("main", "sub") for d in ("up", "down")}}
                      for uid, lk in sorted(self.links.items())],
            "counts": {**tally.totals(), **self.counts, "positions_in_period": self.positions_in_period},
            "real_time_lag": tally.lag.as_json(),
            "errors": dict(tally.errors),
            "login_results": dict(self.login_results),
            "other_messages": dict(self.other),
            "vehicles": [v.as_json() for v in list(tally.vehicles.values())[:vehicles]],
            "alarms": [_alarm_json(a) for a in tally.alarms],
            "handling_results": list(tally.handling_results),
            "urging_answers": list(tally.urging_answers),
            "static_answers": list(tally.static_answers),
            "video_answers": list(tally.video_answers),
            "authorize_codes": {str(uid): codes for uid, codes in sorted(self.authorize_codes.items())},
            "control_answers": list(tally.control_answers),
            "inspections": self.inspections_json(),
            "inspection_answers": [_answer_json(a) for a in tally.inspection_answers],
            "events": list(self.events),
            "messages": [_message_json(*kept) for kept in list(self.messages)],
        }


def _alarm_json(a: AlarmRecord) -> dict[str, Any]:
    return {"plate": a.plate, "colour": a.colour, "warn_type": a.warn_type, "warn_time": a.warn_time.isoformat(),
            "info_id": a.info_id, "warn_src": a.warn_src, "content": a.content, "user_id": a.account,
            "received_at": a.received_at.isoformat()}


def _answer_json(a: InspectionRecord) -> dict[str, Any]:
    return {"info_id": a.info_id, "answer": a.answer, "latency_s": a.latency_s, "object_id": a.object_id,
            "user_id": a.account, "responder": a.responder, "received_at": a.received_at.isoformat()}


def _message_json(at: float, user_id: int, link: str, direction: str, msg_id: int, data_type: int | None,
                  sn: int) -> dict[str, Any]:
    return {"at": datetime.fromtimestamp(at, UTC).isoformat(), "user_id": user_id, "link": link,
            "direction": direction, "msg_id": f"0x{msg_id:04X}",
            "data_type": f"0x{data_type:04X}" if data_type is not None else None,
            "name": name_of(msg_id, data_type), "sn": sn}
