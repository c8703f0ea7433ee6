"""A superior's JT/T 1078 video requests over JT/T 809 (platform-spec §2 data exchange "playback"; JT/T 1078-2016
§6.2, §8.1, §8.2, §8.5): 0x9801 real-time audio/video, 0x9802 stop, 0x9A01 remote playback, 0x9A02 playback
control, each stored (exchange_video_request, migrations 0051 and 0059, the console's playback screen) and
answered once (0x1801 / 0x1802 / 0x1A01 / 0x1A02) with JT/T 1078's RESULT (0 success, 1 failure, 4 wrong
authorisation code).

| request | what happens | answer |
|---|---|---|
| 0x9801 | the authorisation code checked (one this platform reported by 0x1701 today or yesterday, authorize.py); the stream ``<device>-<channel>-live`` (``listen`` for audio only) registered with the media server with the plate, colour, channel and that code; 0x9101 (sub stream) to the terminal through the one command path (control_commands.py) | once the terminal answered: 0 with SERVER_IP / SERVER_PORT (``FLEET_EXCHANGE_VIDEO_HOST`` / ``_PORT``, else the media server's public host and port), else 1; 0 at once when the terminal already feeds that stream (a console user watches it) |
| 0x9A01 | as 0x9801 for ``<device>-<channel>-playback`` (a previous playback of the channel released) with 0x9201 (the request's period, stream and storage type; normal playback) | as 0x9801 |
| 0x9802 | the stream released (the superior's pulls end and its code is revoked at once); 0x9102 close sent when no console user still watches it | 0 once the terminal answered (1 if it refused); 0 at once when nothing had to be sent |
| 0x9A02 | 0x9202 with the control, FAST_TIME as the speed and the drag position (an end also releases the stream), for the channel of the vehicle's last 0x9A01 (exchange_video_request) | the terminal's outcome; 1 at once without an earlier 0x9A01 |

A vehicle this platform does not exchange, or whose terminal is offline: 1 at once (a stop: 0). A code that is not
ours: 4 at once. The media server down or refusing the registration: 1 at once.

The superior then pulls ``http://SERVER_IP:SERVER_PORT/<plate>.<colour>.<channel>.<av flag>.<code>`` (JT/T
1078-2016 §6.2's URL, fleet/video_streams.py); the media server admits it with the registered code only
(gateway/video/superior.py), with the audio/video flag the request asked and, when the request carried
GNSS_DATA (a cross-region request), the sixth URL item naming that position (fleet/video_streams.refusal);
it serves the terminal's JT/T 1078 packets (FLV when asked). GNSS_DATA that does not decode: 1 at once.

``immediate_result`` and ``answer`` are pure; ``VideoRequests`` does the registering, sending and storing.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from exchange.link import authorize
from exchange.link.control_commands import ControlCommands
from exchange.link.links import LinkDown, Links
from fleet import video_streams as vs
from fleet.enums import DeviceState
from fleet.media_client import MediaClient, MediaUnavailable, NoSessionAddress
from fleet.settings import ExchangeSettings, MediaServerSettings
from protocols.jt809 import messages as m
from warehouse.queries import exchange as q
from warehouse.queries import exchange_video as qv
from warehouse.queries.terminal_session import terminal_session_address

log = logging.getLogger(__name__)
SUCCESS, FAILURE, NOT_SUPPORTED, WRONG_CODE = 0, 1, 2, 4
REQUESTS = (m.RealVideoDown, m.PlaybackDown)
STARTS = (m.RealVideoRequest.DATA_TYPE, m.PlaybackRequest.DATA_TYPE)
SUB_STREAM = 1  # 0x9101 stream type of a superior's live request (0x9801 names none): the sub stream, as the console
# 0x9801 AV_ITEM_TYPE (0 audio and video, 1 audio, 2 video) -> (0x9101 data type, stream kind)
LIVE_OF_AV = {0: (0, "live"), 1: (3, "listen"), 2: (1, "live")}
WILDCARDS = ("", "0.0.0.0", "::", "[::]")


def video_address(exchange: ExchangeSettings, media: MediaServerSettings) -> tuple[str, int]:
    """(SERVER_IP, SERVER_PORT) a superior pulls from. Raises ValueError naming the setting when the address
    would be a wildcard (nothing a superior could reach)."""
    host = exchange.video_host or media.public_host
    if host.strip() in WILDCARDS:
        raise ValueError("FLEET_EXCHANGE_VIDEO_HOST (or FLEET_MEDIA_SERVER_PUBLIC_HOST) must be an address a "
                         f"superior platform can reach, got {host!r}")
    return host.strip(), exchange.video_port or media.port


def immediate_result(data_type: int, target: dict[str, Any] | None, code_ok: bool) -> int | None:
    """The RESULT answered at once, or None when the request goes to the media server and the terminal."""
    online = target is not None and target["state"] == DeviceState.ONLINE
    if data_type == m.RealVideoEnd.DATA_TYPE:
        return None if online else SUCCESS  # nothing of an offline or unknown vehicle streams to the superior
    if not online:
        return FAILURE
    if data_type in STARTS and not code_ok:
        return WRONG_CODE
    return None


def outcome_result(command_state: str, result: int | None) -> int | None:
    """RESULT of a request whose terminal command has an outcome (None while it is on its way)."""
    if command_state == "answered":
        return SUCCESS if result == 0 else FAILURE
    if command_state in ("timed_out", "failed"):
        return FAILURE
    return None


def answer(plate: str, colour: int, data_type: int, result: int, server: tuple[str, int]) -> tuple[int, Any]:
    """(message id, body) of the answer to a request of ``data_type``; a start's success names ``server``."""
    ip, port = server if result == SUCCESS else ("", 0)
    if data_type == m.RealVideoRequest.DATA_TYPE:
        return m.RealVideo.MSG_ID, m.RealVideo(plate, colour, m.RealVideoAnswer.DATA_TYPE,
                                               m.RealVideoAnswer(result, ip, port))
    if data_type == m.RealVideoEnd.DATA_TYPE:
        return m.RealVideo.MSG_ID, m.RealVideo(plate, colour, m.RealVideoEndAnswer.DATA_TYPE,
                                               m.RealVideoEndAnswer(result))
    if data_type == m.PlaybackRequest.DATA_TYPE:
        return m.Playback.MSG_ID, m.Playback(plate, colour, m.PlaybackAnswer.DATA_TYPE,
                                             m.PlaybackAnswer(result, ip, port))
    return m.Playback.MSG_ID, m.Playback(plate, colour, m.PlaybackControlAnswer.DATA_TYPE,
                                         m.PlaybackControlAnswer(result))


def row_of(platform_id: int, sn: int, body: m.RealVideoDown | m.PlaybackDown, car_id: int | None) -> dict[str, Any]:
    data = body.data
    return {"platform_id": platform_id, "data_type": body.data_type, "source_sn": sn, "plate": body.plate,
            "plate_colour": body.plate_colour, "car_id": car_id,
            "channel_id": getattr(data, "channel_id", None), "av_item_type": getattr(data, "av_item_type", None),
            "stream_type": getattr(data, "stream_type", None), "mem_type": getattr(data, "mem_type", None),
            "start_at": getattr(data, "start", None), "end_at": getattr(data, "end", None),
            "control_type": getattr(data, "control_type", None), "command_id": None, "stream_id": None}


class VideoRequests:
    """One platform's video requests. ``db(fn, *args)`` runs a query function in a connection (blocking)."""

    def __init__(self, platform: q.SuperiorPlatform, links: Links, db: Callable[..., Any],
                 commands: ControlCommands, media: MediaClient, server: tuple[str, int]) -> None:
        self.platform = platform
        self.links = links
        self.db = db
        self.commands = commands
        self.media = media
        self.server = server
        self.reported_day: Any = None  # the day whose codes the superior has (None: report at the next poll)

    # --- 0x1701 ---------------------------------------------------------------------------------

    async def report_codes(self) -> None:
        """0x1701 with the day's codes after each login and when the day changes (raises LinkDown)."""
        day = authorize.day_of(datetime.now(UTC))
        if day == self.reported_day:
            return
        await self.links.send(m.Authorize.MSG_ID, authorize.report(self.media.secret, self.platform.id,
                                                                   self.platform.centre_id, day))
        self.reported_day = day
        log.info("platform %s: authorisation codes of %s reported (0x1701)", self.platform.id, day)

    # --- requests -------------------------------------------------------------------------------

    async def handle(self, sn: int, body: m.RealVideoDown | m.PlaybackDown, enterprises: frozenset[int]) -> None:
        if isinstance(body.data, bytes | bytearray):  # a data type of these families without a typed layout
            log.warning("platform %s: video request 0x%04X for %s not handled", self.platform.id, body.data_type,
                        body.plate)
            return
        target = await asyncio.to_thread(self.db, q.control_target, sorted(enterprises), body.plate,
                                         body.plate_colour)
        code = getattr(body.data, "authorize_code", "")
        code_ok = bool(code) and authorize.accepted(self.media.secret, self.platform.id, code, datetime.now(UTC))
        row = row_of(self.platform.id, sn, body, None if target is None else int(target["carId"]))
        result = immediate_result(body.data_type, target, code_ok)
        if result is None and target is not None:
            result = await self._run(body, target, row)
        request_id = await asyncio.to_thread(self.db, qv.store_video_request, row)
        if result is not None:
            await self._answer(request_id, body.plate, body.plate_colour, body.data_type, result)

    async def _run(self, body: m.RealVideoDown | m.PlaybackDown, target: dict[str, Any],
                   row: dict[str, Any]) -> int | None:
        """Register / release the stream and send the terminal command; sets the row's stream and command.
        None: answered once the terminal has; else the RESULT now."""
        data, device_id = body.data, int(target["deviceId"])
        if isinstance(data, m.RealVideoRequest | m.PlaybackRequest):
            return await self._start(body.plate, body.plate_colour, data, target, row)
        if isinstance(data, m.RealVideoEnd):
            kind = LIVE_OF_AV.get(data.av_item_type, (0, "live"))[1]
            row["stream_id"] = sid = vs.stream_id(device_id, data.channel_id, kind)
            if not await self._release(sid):
                return SUCCESS  # a console user still watches it: the superior's pull ends, the terminal streams on
            close_type = data.av_item_type if data.av_item_type in (0, 1, 2) else 0
            terminal: Any = vs.close_body(data.channel_id, 0, close_type, 0)
            shown: dict[str, Any] = {"channelId": data.channel_id, "command": 0, "commadType": close_type,
                                     "streamId": sid}
        else:
            channel = await asyncio.to_thread(self.db, qv.last_playback_channel, self.platform.id, body.plate,
                                              body.plate_colour)
            if channel is None:
                return FAILURE  # no playback of this vehicle to control
            row["channel_id"], row["stream_id"] = channel, (sid := vs.stream_id(device_id, channel, "playback"))
            speed = data.fast_time if data.control_type in (3, 4) else 0
            terminal = vs.playback_control_body(channel, data.control_type, speed, data.drag_position)
            shown = {"channelId": channel, "control": data.control_type, "speed": speed, "streamId": sid}
            if data.control_type == 2:
                await self._release(sid)
        return await self._send(target, terminal, shown, body.data_type, row)

    async def _start(self, plate: str, colour: int, data: m.RealVideoRequest | m.PlaybackRequest,
                     target: dict[str, Any], row: dict[str, Any]) -> int | None:
        device_id, channel = int(target["deviceId"]), data.channel_id
        try:  # a cross-region request's position: its pull must name it (fleet/video_streams.refusal)
            location = None if data.gnss_hex is None else vs.location_of_gnss(data.gnss_hex)
        except ValueError:
            log.warning("platform %s: GNSS_DATA of a video request for %s does not decode", self.platform.id, plate)
            return FAILURE
        pull = vs.SuperiorPull(plate, colour, channel, data.av_item_type, data.authorize_code, location)
        if isinstance(data, m.RealVideoRequest):
            data_type, kind = LIVE_OF_AV.get(data.av_item_type, (0, "live"))
            stream_type = SUB_STREAM
        else:
            data_type, kind, stream_type = data.av_item_type, "playback", data.stream_type
        row["stream_id"] = sid = vs.stream_id(device_id, channel, kind)
        if kind == "playback":
            await self._release(sid)  # a new playback of the channel replaces the previous one
        address = await asyncio.to_thread(self.db, terminal_session_address, device_id)
        registration = vs.registration(target, sid, kind, channel, data_type, stream_type, address, None, pull)
        try:
            registered = await asyncio.to_thread(self.media.register, registration)
        except (MediaUnavailable, NoSessionAddress) as exc:
            log.warning("platform %s: stream %s not registered: %r", self.platform.id, sid, exc)
            return FAILURE
        if registered.get("live"):
            return SUCCESS  # the terminal already feeds it: the superior pulls what the console watches
        ip, port = self.media.settings.public_host, int(registered.get("tcpPort") or self.media.settings.port)
        terminal: Any
        if isinstance(data, m.RealVideoRequest):
            terminal = vs.realtime_body(ip, port, channel, data_type, stream_type)
            shown: dict[str, Any] = {"channelId": channel, "dataType": data_type, "streamType": stream_type}
        else:
            terminal = vs.playback_body(ip, port, channel, data.av_item_type, data.stream_type, data.mem_type, 0, 0,
                                        data.start, data.end)
            shown = {"channelId": channel, "mediaType": data.av_item_type, "streamType": data.stream_type,
                     "storageType": data.mem_type, "startTime": data.start.isoformat(),
                     "endTime": data.end.isoformat()}
        return await self._send(target, terminal, {**shown, "serverIp": ip, "tcpPort": port, "streamId": sid},
                                data.DATA_TYPE, row)

    async def _send(self, target: dict[str, Any], terminal: Any, shown: dict[str, Any], request_type: int,
                    row: dict[str, Any]) -> int | None:
        row["command_id"], taken = await self.commands.send_terminal(target, terminal, shown, request_type)
        return None if taken else FAILURE

    async def _release(self, sid: str) -> bool:
        """Whether the stream is closed (or unknown); False when a console user still watches it. The
        superior's own pulls of it end either way."""
        try:
            released = await asyncio.to_thread(functools.partial(self.media.release, sid, None, superior=True))
        except MediaUnavailable:
            return True
        return bool(released.get("closed", True))

    async def _answer(self, request_id: int, plate: str, colour: int, data_type: int, result: int) -> None:
        msg_id, reply = answer(plate, colour, data_type, result, self.server)
        try:
            await self.links.send(msg_id, reply)
        except LinkDown:  # stored unanswered; the superior asks again
            log.warning("platform %s: answer to video request %s not sent: both links down", self.platform.id,
                        request_id)
            return
        await asyncio.to_thread(self.db, qv.mark_video_answered, request_id, result)

    async def answer_done(self, rows: list[dict[str, Any]]) -> None:
        """Answer the requests whose terminal command has an outcome (``rows``: videos_to_answer)."""
        for row in rows:
            result = outcome_result(row["state"], row["result"])
            if result is not None:
                await self._answer(int(row["id"]), row["plate"], row["plate_colour"], int(row["data_type"]), result)
