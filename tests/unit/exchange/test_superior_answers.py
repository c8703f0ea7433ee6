"""fleetwatch as the superior platform matches an inferior's answer only to a request marked sent
(exchange/superior/service.py for inspections, exchange/superior/video.py for 0x9801 / 0x9A01). An inferior on a
fast link answers before that mark is written (the mark is a database call in a thread); the answer must still
find its request instead of leaving it to expire unanswered."""

from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace
from typing import Any

import pytest

from exchange.superior.service import SuperiorService, account_of
from exchange.superior.video import VideoPulls
from fleet.settings import ExchangeSettings
from protocols.jt809 import messages as m
from warehouse.queries import exchange_inferior as q
from warehouse.queries.exchange_inferior import InferiorPlatform

MARK_S = 0.2  # how long writing the sent mark takes: the answer arrives meanwhile
ROW = InferiorPlatform(id=5, enterprise_id=1, user_id=1001, password="s3cret", centre_id=7001, version="2019",
                       encrypted=False, m1=0, ia1=0, ic1=0, encrypt_key=0, allowed_hosts=("10.0.0.8",))


class _Links:
    """Both links up; every request sent is answered by the inferior at once (the answer's task is kept)."""

    def __init__(self, answer: Any) -> None:
        self.account = account_of(ROW)
        self.main = self.sub = SimpleNamespace(state="up")
        self.answer = answer
        self.answers: list[asyncio.Task[Any]] = []

    def send_request(self, msg_id: int, body: Any) -> tuple[str, int]:
        self.answers.append(asyncio.get_running_loop().create_task(self.answer(body)))
        return "sub", 7


def test_a_playback_answered_before_its_request_is_marked_sent_fails_it_with_the_result() -> None:
    request = {"id": 41, "platform_id": 5, "enterprise_id": 1, "vehicle_id": 3, "plate": "粤B12345", "plate_colour": 2,
               "kind": "playback", "channel": 4, "av_type": 2, "start_time": None, "end_time": None, "stream_type": 2,
               "mem_type": 1, "state": "queued", "stream_id": None, "code": "A1b2" * 16}
    state = {"value": "queued"}

    def db(fn: Any, *args: Any) -> Any:  # the statements as PostgreSQL answers them, in the callers' threads
        if fn is q.queued_videos:
            return [request] if state["value"] == "queued" else []
        if fn is q.mark_video_sent:
            time.sleep(MARK_S)
            state["value"] = "sent"
            return None
        if fn is q.answer_video:  # the oldest *sent* unanswered request of that vehicle
            return dict(request) if state["value"] == "sent" else None
        assert fn is q.video_closed
        state["value"] = args[1]
        return None

    pulls = VideoPulls(db, media=None)  # type: ignore[arg-type]  # a refusal never reaches the media server

    async def inferior(body: m.PlaybackDown) -> str:
        answer = m.Playback(body.plate, body.plate_colour, m.PlaybackAnswer.DATA_TYPE, m.PlaybackAnswer(1, "", 0))
        return await pulls.answered(ROW, links, answer)  # type: ignore[arg-type]

    links = _Links(inferior)

    async def run() -> list[str]:
        await pulls.send_queued(ROW.id, links)  # type: ignore[arg-type]
        return list(await asyncio.gather(*links.answers))

    assert asyncio.run(run()) == ["request 41: RESULT 1"]
    assert state["value"] == "failed"


def test_an_inspection_answered_before_its_request_is_marked_sent_is_answered(monkeypatch: pytest.MonkeyPatch) -> None:
    service = SuperiorService("postgresql://unused", ExchangeSettings(), port=0, media=None)  # type: ignore[arg-type]
    service.platforms = {ROW.user_id: ROW}
    row = {"id": 9, "kind": "inspection", "object_type": 1, "object_id": None, "content": "在岗？", "answer_minutes": 5}
    state = {"value": "queued"}
    events: list[str] = []

    def mark_sent(conn: Any, request_id: int, link: str, sn: int, at: Any) -> None:
        time.sleep(MARK_S)
        state["value"] = "sent"

    def answer_request(conn: Any, platform_id: int, kind: str, **answer: Any) -> tuple[int, int] | None:
        if state["value"] != "sent":  # only a sent request of that platform and kind is answered
            return None
        state["value"] = "answered"
        return 9, 12

    monkeypatch.setattr(q, "queued_requests", lambda conn, platform_id: [row] if state["value"] == "queued" else [])
    monkeypatch.setattr(q, "mark_request_sent", mark_sent)
    monkeypatch.setattr(q, "answer_request", answer_request)
    monkeypatch.setattr(q, "queued_videos", lambda conn, platform_id: [])
    monkeypatch.setattr(service, "event", lambda links, kind, text: events.append(f"{kind}: {text}"))
    calls = lambda fn, *args: fn(None, *args)  # noqa: E731  (the pooled connection's calls, without a database)
    service._db = service.videos.db = calls  # type: ignore[assignment]

    async def inferior(body: m.PlatformExchangeDown) -> None:
        await service._answered(links, "inspection", body.data.info_id, 7, "在岗", "张三")  # type: ignore[arg-type]

    links = _Links(inferior)
    service.links = {ROW.user_id: links}  # type: ignore[dict-item]

    async def run() -> None:
        await service._send_requests()
        await asyncio.gather(*links.answers)

    asyncio.run(run())
    assert state["value"] == "answered"
    assert events == ["inspection_answer: request 9 after 12 ms"]
