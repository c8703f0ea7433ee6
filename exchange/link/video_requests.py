"""A superior's JT/T 1078 video requests over JT/T 809 (platform-spec §2 data exchange "playback"): 0x9801
real-time audio/video, 0x9802 stop, 0x9A01 remote playback, 0x9A02 playback control.

Each request is stored (exchange_video_request, migration 0051, the console's playback screen) and answered
once with the RESULT codes of JT/T 1078 (0 success, 1 failure, 2 not supported):
- a vehicle this platform does not exchange, or whose terminal is offline: 1 (failure), at once;
- a start (0x9801, 0x9A01) for an exchanged, online vehicle: 2 (not supported). The stream a superior would
  pull needs the media server's stream registration and signed URL (api/media.py, fleet/video_tokens.py), which
  the API owns; until that client is shared with the link service, the answer says so instead of naming an
  address nothing serves;
- a stop (0x9802) or a control (0x9A02): 0 for a stop (nothing streams to the superior), 2 for a control.
``answer(...)`` is pure; ``VideoRequests.handle`` does the storing and sending.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from exchange.link.links import LinkDown, Links
from fleet.enums import DeviceState
from protocols.jt809 import messages as m
from warehouse.queries import exchange as q
from warehouse.queries import exchange_video as qv

log = logging.getLogger(__name__)
SUCCESS, FAILURE, NOT_SUPPORTED = 0, 1, 2
REQUESTS = (m.RealVideoDown, m.PlaybackDown)


def result_of(data_type: int, target: dict[str, Any] | None) -> int:
    """The RESULT for a request about a vehicle (``target``: its device row, None when not exchanged)."""
    if data_type == m.RealVideoEnd.DATA_TYPE:
        return SUCCESS
    if target is None or target["state"] != DeviceState.ONLINE:
        return FAILURE
    return NOT_SUPPORTED


def answer(body: m.RealVideoDown | m.PlaybackDown, result: int) -> tuple[int, Any]:
    """(message id, body) of the answer to ``body``."""
    plate, colour = body.plate, body.plate_colour
    if body.data_type == m.RealVideoRequest.DATA_TYPE:
        return m.RealVideo.MSG_ID, m.RealVideo(plate, colour, m.RealVideoAnswer.DATA_TYPE,
                                               m.RealVideoAnswer(result, "", 0))
    if body.data_type == m.RealVideoEnd.DATA_TYPE:
        return m.RealVideo.MSG_ID, m.RealVideo(plate, colour, m.RealVideoEndAnswer.DATA_TYPE,
                                               m.RealVideoEndAnswer(result))
    if body.data_type == m.PlaybackRequest.DATA_TYPE:
        return m.Playback.MSG_ID, m.Playback(plate, colour, m.PlaybackAnswer.DATA_TYPE, m.PlaybackAnswer(result, "", 0))
    return m.Playback.MSG_ID, m.Playback(plate, colour, m.PlaybackControlAnswer.DATA_TYPE,
                                         m.PlaybackControlAnswer(result))


def row_of(platform_id: int, sn: int, body: m.RealVideoDown | m.PlaybackDown, car_id: int | None) -> dict[str, Any]:
    data = body.data
    return {"platform_id": platform_id, "data_type": body.data_type, "source_sn": sn, "plate": body.plate,
            "plate_colour": body.plate_colour, "car_id": car_id,
            "channel_id": getattr(data, "channel_id", None), "av_item_type": getattr(data, "av_item_type", None),
            "stream_type": getattr(data, "stream_type", None), "mem_type": getattr(data, "mem_type", None),
            "start_at": getattr(data, "start", None), "end_at": getattr(data, "end", None),
            "control_type": getattr(data, "control_type", None)}


class VideoRequests:
    """One platform's video requests. ``db(fn, *args)`` runs a query function in a connection (blocking)."""

    def __init__(self, platform: q.SuperiorPlatform, links: Links, db: Callable[..., Any]) -> None:
        self.platform = platform
        self.links = links
        self.db = db

    async def handle(self, sn: int, body: m.RealVideoDown | m.PlaybackDown, enterprises: frozenset[int]) -> None:
        if isinstance(body.data, bytes | bytearray):  # a data type of these families without a typed layout
            log.warning("platform %s: video request 0x%04X for %s not handled", self.platform.id, body.data_type,
                        body.plate)
            return
        target = await asyncio.to_thread(self.db, q.control_target, sorted(enterprises), body.plate,
                                         body.plate_colour)
        request_id = await asyncio.to_thread(self.db, qv.store_video_request, row_of(
            self.platform.id, sn, body, None if target is None else int(target["carId"])))
        result = result_of(body.data_type, target)
        msg_id, reply = answer(body, result)
        try:
            await self.links.send(msg_id, reply)
        except LinkDown:  # stored unanswered; the superior asks again
            log.warning("platform %s: answer to video request %s not sent: both links down", self.platform.id,
                        request_id)
            return
        await asyncio.to_thread(self.db, qv.mark_video_answered, request_id, result)
