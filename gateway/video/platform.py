"""What the media server tells the rest of the platform:

- ``stop_terminal``: 0x9102 through THE command path: a ``command`` row (created_by NULL, created_by_name
  "视频服务") and a ``jt808.downlink.v1`` message shaped like api/command_send.py ``send()``; the
  gateway paces and sends it, the streams match the terminal's 0x0001. Live and listen streams get
  command 0 (close audio and video), talk streams command 4 (close two-way talk); a playback 0x9202
  control 2 (end). Nothing is sent to an offline terminal.
- ``channel_changed``: push 14 (video channel online/offline) on ``console.events.v1`` (docs/topics.md):
  ``{deviceId, carId, plateNumber, channelId, streamId, kind, state: 1 | 0, time}``.
- ``viewer_started`` / ``viewer_ended``: a ``video_log`` row per viewer (migration 0025): who watched
  which stream, from when to when, how many bytes.
- ``session_changed``: the stream's ``live_session`` row (migration 0056, the live log), written when it is
  requested, at its first frame and when it is dropped (``session_record``): who asked, the bytes and frames
  the terminal sent, the console's heartbeats, the most viewers at once, and why it ended (``END_REASONS``).
- ``user_sessions``: the session epoch and state of the users of open viewers and talk sockets
  (``sessions.py`` closes those of revoked sessions), by the rule of the API's session check
  (warehouse/queries/auth.py ``session_state``).

The statements are in warehouse/queries (``commands``, ``organisation``, ``video``, ``auth``), run on the
media server's one pool (warehouse/db.py ``async_pool``). Failures are logged and never reach a viewer or
a terminal.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Protocol

import orjson

from fleet.enums import DeviceState, PushType
from fleet.topics import CONSOLE_EVENTS, JT808_DOWNLINK
from protocols.jt808.catalogue import AV_TRANSMISSION_CONTROL, PLAYBACK_CONTROL
from protocols.jt808.messages.t9102_av_transmission_control import (
    COMMAND_CLOSE,
    COMMAND_CLOSE_TALK,
    AvTransmissionControl,
)
from protocols.jt808.messages.t9202_playback_control import CONTROL_END, PlaybackControl
from warehouse.db import async_pool
from warehouse.queries import commands as command_queries
from warehouse.queries import live_sessions as session_queries
from warehouse.queries import video as video_queries
from warehouse.queries.auth import session_states_async
from warehouse.queries.organisation import enterprise_path_of_async

if TYPE_CHECKING:
    from gateway.video.hub import Stream, StreamInfo, Viewer

log = logging.getLogger("gateway.video.platform")

CREATED_BY_NAME = "视频服务"

# Why a stream ended, as server.py ``_drop`` says it -> the live log's end reason (live_session.end_reason):
# the user stopped it (9102 from the console), nobody watched any more (the viewers left or the console's
# heartbeats stopped; the media server then sends 9102 itself), the terminal's media connection went away
# (device offline or its network lost), the terminal never connected after the 9101 (an error on its side),
# the stream was asked for again for another terminal, the media server stopped.
END_REASONS = {"stopped by the user": "user", "idle": "idle", "the terminal left": "terminal_left",
               "the terminal never connected": "never_connected", "re-registered for another terminal": "replaced",
               "server stopping": "server_stopping"}


def session_record(stream: Stream) -> dict[str, Any]:
    """The stream's ``live_session`` row as known now (warehouse/queries/live_sessions.py ``RECORD_KEYS``).
    Its duration runs from the first frame to the end (0 when no frame came)."""
    info = stream.info
    duration = None
    if stream.ended_at is not None:
        start = stream.first_frame_wall
        duration = 0 if start is None else max(0, int((stream.ended_at - start).total_seconds()))
    return {"session_key": stream.session_key, "enterprise_id": info.enterprise_id, "device_id": info.device_id,
            "car_id": info.car_id, "user_id": info.user_id or None, "stream_id": info.stream_id, "kind": info.kind,
            "channel": info.channel, "data_type": info.data_type, "stream_type": info.stream_type,
            "request_time": stream.requested_at, "first_frame_time": stream.first_frame_wall,
            "end_time": stream.ended_at, "duration_s": duration, "bytes_in": stream.counters.bytes_in,
            "frames": stream.counters.frames, "heartbeats": stream.heartbeats,
            "last_heartbeat_time": stream.last_heartbeat_wall, "peak_viewers": stream.peak_viewers,
            "end_reason": None if stream.ended_at is None else END_REASONS.get(stream.end_reason or "", "server_stopping")}


class Platform(Protocol):
    async def stop_terminal(self, info: StreamInfo) -> None: ...

    async def channel_changed(self, info: StreamInfo, online: bool) -> None: ...

    async def viewer_started(self, info: StreamInfo, viewer: Viewer) -> int | None: ...

    async def viewer_ended(self, info: StreamInfo, viewer: Viewer) -> None: ...

    async def session_changed(self, record: dict[str, Any]) -> None: ...

    async def user_sessions(self, user_ids: list[int]) -> dict[int, tuple[int, bool]] | None: ...


class NullPlatform:
    """For unit tests and a media server without a database: remembers what it was told."""

    def __init__(self) -> None:
        self.stops: list[str] = []
        self.channel_events: list[tuple[str, bool]] = []
        self.viewers: list[tuple[str, int | None]] = []
        self.sessions: list[dict[str, Any]] = []  # every session_changed record, in order
        self.users: dict[int, tuple[int, bool]] | None = None  # tests set it: user id -> (epoch, active)

    async def stop_terminal(self, info: StreamInfo) -> None:
        self.stops.append(info.stream_id)

    async def channel_changed(self, info: StreamInfo, online: bool) -> None:
        self.channel_events.append((info.stream_id, online))

    async def viewer_started(self, info: StreamInfo, viewer: Viewer) -> int | None:
        self.viewers.append((info.stream_id, viewer.user_id))
        return None

    async def viewer_ended(self, info: StreamInfo, viewer: Viewer) -> None:
        return None

    async def session_changed(self, record: dict[str, Any]) -> None:
        self.sessions.append(record)

    async def user_sessions(self, user_ids: list[int]) -> dict[int, tuple[int, bool]] | None:
        return None if self.users is None else {u: self.users[u] for u in user_ids if u in self.users}


def stop_command(info: StreamInfo) -> tuple[int, Any, dict[str, Any]]:
    """(msg id, body, payload stored on the command row) that stops ``info``'s stream."""
    if info.kind == "playback":
        return PLAYBACK_CONTROL, PlaybackControl(info.channel, CONTROL_END), {"channelId": info.channel, "playbackControl": 2,
                                                                     "streamId": info.stream_id, "reason": "idle"}
    command = COMMAND_CLOSE_TALK if info.kind == "talk" else COMMAND_CLOSE
    body = AvTransmissionControl(info.channel, command, 0, 0)
    return AV_TRANSMISSION_CONTROL, body, {"channelId": info.channel, "command": command, "commadType": 0, "streamType": 0,
                          "streamId": info.stream_id, "reason": "idle"}


def push_14(info: StreamInfo, online: bool, enterprise_path: str, at: datetime) -> dict[str, Any]:
    return {"kind": "push", "enterprise_id": info.enterprise_id, "enterprise_path": enterprise_path,
            "push": {"type": int(PushType.VIDEO_CHANNEL), "data": {
                "deviceId": info.device_id, "carId": info.car_id, "plateNumber": info.plate_number,
                "channelId": info.channel, "streamId": info.stream_id, "kind": info.kind, "state": 1 if online else 0,
                "time": at.astimezone(UTC).isoformat().replace("+00:00", "Z")}}}


class PostgresKafkaPlatform:
    def __init__(self, database_url: str, bootstrap: str, *, pool_max: int = 2, ack_timeout_s: float = 5.0) -> None:
        self._pool = async_pool(database_url, min_size=1, max_size=pool_max, name="media-server")
        self._bootstrap = bootstrap
        self._ack_timeout_s = ack_timeout_s
        self._producer: Any = None
        self._paths: dict[int, str] = {}

    async def open(self) -> None:
        from aiokafka import AIOKafkaProducer

        from fleet.kafka_clients import aiokafka_options

        await self._pool.open()
        self._producer = AIOKafkaProducer(bootstrap_servers=self._bootstrap, acks="all", enable_idempotence=True,
                                          linger_ms=0, client_id="fleet-media-server", **aiokafka_options())
        await self._producer.start()

    async def close(self) -> None:
        if self._producer is not None:
            await self._producer.stop()
        await self._pool.close()

    async def _send(self, topic: str, key: str, value: dict[str, Any]) -> None:
        import asyncio

        future = await self._producer.send(topic, orjson.dumps(value), key=key.encode())
        async with asyncio.timeout(self._ack_timeout_s):
            await future

    async def stop_terminal(self, info: StreamInfo) -> None:
        msg_id, body, payload = stop_command(info)
        body_hex = body.encode(info.protocol_version if info.protocol_version in ("2011", "2013", "2019") else "2013").hex()
        try:
            async with self._pool.connection() as conn:
                row = await command_queries.insert_for_online_device_async(
                    conn, info.device_id, int(DeviceState.ONLINE), msg_id=msg_id, payload=payload, body_hex=body_hex,
                    created_by_name=CREATED_BY_NAME)
            if row is None:
                log.info("stream %s: terminal offline or gone, no %04X sent", info.stream_id, msg_id)
                return
            command_id, phone, created_at = row
            await self._send(JT808_DOWNLINK, phone, {
                "phone": phone, "msg_id": msg_id, "body_hex": body_hex, "command_id": str(command_id),
                "created_at": created_at.astimezone(UTC).isoformat().replace("+00:00", "Z")})
            log.info("stream %s: %04X sent as command %s", info.stream_id, msg_id, command_id)
        except Exception as exc:
            log.warning("stream %s: stop command not sent: %r", info.stream_id, exc)

    async def _path(self, enterprise_id: int) -> str:
        path = self._paths.get(enterprise_id)
        if path is None:
            async with self._pool.connection() as conn:
                found = await enterprise_path_of_async(conn, enterprise_id)
            path = self._paths[enterprise_id] = found or f"/{enterprise_id}/"
        return path

    async def channel_changed(self, info: StreamInfo, online: bool) -> None:
        try:
            event = push_14(info, online, await self._path(info.enterprise_id), datetime.now(UTC))
            await self._send(CONSOLE_EVENTS, str(info.enterprise_id), event)
        except Exception as exc:
            log.warning("stream %s: push 14 not sent: %r", info.stream_id, exc)

    async def viewer_started(self, info: StreamInfo, viewer: Viewer) -> int | None:
        try:
            async with self._pool.connection() as conn:
                return await video_queries.start_log_async(
                    conn, enterprise_id=info.enterprise_id, device_id=info.device_id, car_id=info.car_id,
                    user_id=viewer.user_id, stream_id=info.stream_id, kind=info.kind, channel=info.channel,
                    data_type=info.data_type, stream_type=info.stream_type, transport=viewer.transport,
                    client=viewer.peer, start_time=viewer.started_at, session_key=viewer.session_key)
        except Exception as exc:
            log.warning("stream %s: video log not written: %r", info.stream_id, exc)
            return None

    async def viewer_ended(self, info: StreamInfo, viewer: Viewer) -> None:
        if viewer.log_id is None:
            return
        now = datetime.now(UTC)
        try:
            async with self._pool.connection() as conn:
                await video_queries.end_log_async(conn, viewer.log_id, end_time=now, bytes_sent=viewer.sent_bytes,
                                                  reason=viewer.closed or "left")
        except Exception as exc:
            log.warning("stream %s: video log not closed: %r", info.stream_id, exc)

    async def session_changed(self, record: dict[str, Any]) -> None:
        try:
            async with self._pool.connection() as conn:
                await session_queries.record_async(conn, record)
        except Exception as exc:
            log.warning("stream %s: live log not written: %r", record.get("stream_id"), exc)

    async def user_sessions(self, user_ids: list[int]) -> dict[int, tuple[int, bool]] | None:
        """Raises the database's errors (the caller closes nothing then)."""
        async with self._pool.connection() as conn:
            return await session_states_async(conn, user_ids)
