"""fleetwatch as the superior platform watching an inferior platform's vehicle live (JT/T 1078-2016 §8.2: 0x9801 /
0x1801 start, 0x9802 / 0x1802 stop) or a recording of it (§8.5: 0x9A01 / 0x1A01 start, 0x9A02 control 2 / 0x1A02
end); the requests are rows of ``exchange_video_pull``, migration 0066. Below, a playback's messages stand in for
the live ones it names.

| step | what |
|---|---|
| queued (the API) | sent as 0x9801 (CHANNEL_ID, AV_ITEM_TYPE, AUTHORIZE_CODE: the platform's latest AUTHORIZE_CODE_1 from its 0x1701, no GNSS_DATA: we are its home region's superior; a 0x9A01 also its STREAM_TYPE, MEM_TYPE and period) on the sub link, else the main link; a platform that reported no code fails it at once (error `no_code`) |
| 0x1801 | answers the oldest sent request of that vehicle: RESULT 0 registers a stream ``exchange-<id>`` with our media server that pulls ``http://SERVER_IP:SERVER_PORT/<plate>.<colour>.<channel>.<av flag>.<code>`` (gateway/video/pull.py; state playing), else failed with the RESULT kept; a SERVER_IP outside the platform's video addresses (``video_address_allowed``) or a media server that refuses fails it and the platform is told 0x9802 |
| playing | every ``poll_s`` the media server is asked for the stream; once it is gone (nobody watched for its idle time, the operator stopped it, the pull ended) the platform is sent 0x9802 and the request ends; a platform disabled meanwhile has its streams closed whoever watches (error `platform_disabled`) |
| deadline | a request not answered by its deadline expires (a late 0x1801 matches nothing) |

Our media server fetches only what ``video_address_allowed`` admits (exchange/superior/addresses.py): the
platform's configured video addresses (migration 0067 ``video_hosts``: IP addresses, CIDR networks, host names
compared exactly) or, with none configured, the address its main link comes from.

A request whose platform's links are both down stays queued until its deadline; a 0x9802 that cannot be sent
(both links down) is not retried: the inferior's own idle stop ends its stream.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from exchange.superior.addresses import video_address_allowed
from exchange.superior.links import LinkDown, PlatformLinks
from fleet.media_client import MediaClient, MediaUnavailable, NoSessionAddress
from fleet.video_streams import SuperiorPull, pull_path
from protocols.jt809 import messages as m
from warehouse.queries import exchange_inferior as q

log = logging.getLogger("exchange.superior")

# AV_ITEM_TYPE (0 audio and video, 1 audio, 2 video) -> (data type, stream kind) of the media server: a live
# stream's 0x9101 data type, a playback's 0x9201 media type
AV_KINDS = {"live": {0: (0, "live"), 1: (3, "listen"), 2: (1, "live")},
            "playback": {0: (0, "playback"), 1: (1, "playback"), 2: (2, "playback")}}
SUB_STREAM = 1
PLAYBACK_END = 2  # 0x9A02 CONTROL_TYPE: end the playback


def stream_id(request_id: int) -> str:
    return f"exchange-{request_id}"


def pull_url(server_ip: str, server_port: int, request: dict[str, Any]) -> str:
    host = f"[{server_ip}]" if ":" in server_ip else server_ip
    return f"http://{host}:{server_port}" + pull_path(SuperiorPull(
        request["plate"], request["plate_colour"], request["channel"], request["av_type"], request["code"]))


def registration(request: dict[str, Any], url: str) -> dict[str, Any]:
    """The media server's registration of the pulled stream (gateway/video/hub.py ``stream_info_of``)."""
    data_type, kind = AV_KINDS[request["kind"]][request["av_type"]]
    return {"streamId": stream_id(request["id"]), "kind": kind, "sim": "0", "channel": request["channel"],
            "dataType": data_type, "streamType": request["stream_type"] or SUB_STREAM,
            "enterpriseId": request["enterprise_id"],
            "deviceId": 0, "carId": None, "plateNumber": request["plate"], "pullUrl": url}


def start_body(request: dict[str, Any]) -> m.RealVideoDown | m.PlaybackDown:
    """0x9801 for a live request, 0x9A01 for a playback."""
    plate, colour, code = request["plate"], request["plate_colour"], request["code"]
    if request["kind"] == "playback":
        return m.PlaybackDown(plate, colour, m.PlaybackRequest.DATA_TYPE, m.PlaybackRequest(
            request["channel"], request["av_type"], request["stream_type"], request["mem_type"], request["start_time"],
            request["end_time"], code))
    return m.RealVideoDown(plate, colour, m.RealVideoRequest.DATA_TYPE,
                           m.RealVideoRequest(request["channel"], request["av_type"], code))


def stop_body(request: dict[str, Any]) -> m.RealVideoDown | m.PlaybackDown:
    """0x9802 for a live request, 0x9A02 end for a playback."""
    if request["kind"] == "playback":
        return m.PlaybackDown(request["plate"], request["plate_colour"], m.PlaybackControl.DATA_TYPE,
                              m.PlaybackControl(PLAYBACK_END, 0, None))
    return m.RealVideoDown(request["plate"], request["plate_colour"], m.RealVideoEnd.DATA_TYPE,
                           m.RealVideoEnd(request["channel"], request["av_type"]))


class VideoPulls:
    """The superior service's video requests; ``db(fn, *args)`` runs a statement in a thread."""

    def __init__(self, db: Callable[..., Any], media: MediaClient) -> None:
        self.db = db
        self.media = media
        # An answer matches only a request marked sent, and the inferior may answer before that mark is written:
        # sending a request and marking it is one step, which matching an answer waits for.
        self._sending = asyncio.Lock()

    async def _call(self, fn: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.to_thread(self.db, fn, *args)

    async def send_queued(self, platform_id: int, links: PlatformLinks) -> None:
        for request in await self._call(q.queued_videos, platform_id):
            if not request["code"]:
                await self._call(q.video_closed, request["id"], "failed", q.NO_CODE, datetime.now(UTC))
                continue
            body = start_body(request)
            async with self._sending:
                try:
                    link, sn = links.send_request(body.MSG_ID, body)
                except LinkDown:
                    return  # stays queued until its deadline
                await self._call(q.mark_video_sent, request["id"], link, sn, datetime.now(UTC))

    async def answered(self, platform: q.InferiorPlatform, links: PlatformLinks,
                       body: m.RealVideo | m.Playback) -> str:
        """A 0x1801 or 0x1A01: what happened, for the link's event log."""
        answer: m.RealVideoAnswer | m.PlaybackAnswer = body.data
        kind = "playback" if isinstance(body, m.Playback) else "live"
        async with self._sending:  # its request's sent mark is written first
            request = await self._call(q.answer_video, platform.id, body.plate, body.plate_colour, answer.result,
                                       answer.server_ip, answer.server_port, datetime.now(UTC), kind)
        if request is None:
            return f"0x{body.data_type:04X} for {body.plate} matches no request waiting"
        at = datetime.now(UTC)
        if answer.result != 0:
            await self._call(q.video_closed, request["id"], "failed", None, at)
            return f"request {request['id']}: RESULT {answer.result}"
        if not video_address_allowed(answer.server_ip, platform.video_hosts, links.main_host):
            log.warning("video request %s: inferior platform %s answered %s:%s, not one of its video addresses;"
                        " refused", request["id"], platform.id, answer.server_ip, answer.server_port)
            await self._call(q.video_closed, request["id"], "failed", q.ADDRESS_REFUSED, at)
            self._stop(links, request)
            return f"request {request['id']}: {answer.server_ip}:{answer.server_port} refused (not a video address)"
        url = pull_url(answer.server_ip, answer.server_port, request)
        try:
            await asyncio.to_thread(self.media.register, registration(request, url))
        except (MediaUnavailable, NoSessionAddress) as exc:
            log.warning("video request %s: the media server refused the pull: %s", request["id"], exc)
            await self._call(q.video_closed, request["id"], "failed", q.MEDIA_UNAVAILABLE, at)
            self._stop(links, request)
            return f"request {request['id']}: media server unavailable"
        await self._call(q.video_playing, request["id"], stream_id(request["id"]))
        return f"request {request['id']}: pulling {answer.server_ip}:{answer.server_port}"

    async def watch(self, links_by_platform: dict[int, PlatformLinks | None]) -> None:
        """End (0x9802 when the platform is logged in) the playing requests of ``links_by_platform``'s (the enabled)
        platforms whose stream the media server no longer has. A platform that is not among them was disabled
        while we pulled its video: what we pull from it is no longer trusted, so its streams are closed whoever
        watches and its requests end (no 0x9802: its links are closed)."""
        for request in await self._call(q.playing_videos):
            if request["platform_id"] not in links_by_platform:
                try:
                    await asyncio.to_thread(self.media.release, request["stream_id"], None, force=True)
                except MediaUnavailable:
                    return  # asked again at the next poll
                log.info("video request %s: its platform %s is disabled, its stream closed", request["id"],
                         request["platform_id"])
                await self._call(q.video_closed, request["id"], "ended", q.PLATFORM_DISABLED, datetime.now(UTC))
                continue
            try:
                status = await asyncio.to_thread(self.media.status, request["stream_id"])
            except MediaUnavailable:
                return  # asked again at the next poll
            if status is not None:
                continue
            self._stop(links_by_platform.get(request["platform_id"]), request)
            await self._call(q.video_closed, request["id"], "ended", None, datetime.now(UTC))

    @staticmethod
    def _stop(links: PlatformLinks | None, request: dict[str, Any]) -> None:
        if links is None:
            log.info("video request %s: its stop not sent, the platform is not logged in", request["id"])
            return
        body = stop_body(request)
        try:
            links.send_request(body.MSG_ID, body)
        except LinkDown:
            log.info("video request %s: 0x%04X not sent, both links down", request["id"], body.data_type)
