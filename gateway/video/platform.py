"""What the media server tells the rest of the platform (issue 11 §2, §3):

- ``stop_terminal``: 0x9102 through THE command path: a ``command`` row (created_by NULL, created_by_name
  "视频服务") and a ``jt808.downlink.v1`` message shaped like api/routes/commands.py ``send()``; the
  gateway paces and sends it, the streams match the terminal's 0x0001. Live and listen streams get
  command 0 (close audio and video), talk streams command 4 (close two-way talk); a playback 0x9202
  control 2 (end). Nothing is sent to an offline terminal.
- ``channel_changed``: push 14 (video channel online/offline) on ``console.events.v1`` (docs/topics.md):
  ``{deviceId, carId, plateNumber, channelId, streamId, kind, state: 1 | 0, time}``.
- ``viewer_started`` / ``viewer_ended``: a ``video_log`` row per viewer (migration 0025): who watched
  which stream, from when to when, how many bytes.
- ``user_sessions``: the session epoch and state of the users of open viewers and talk sockets
  (``sessions.py`` closes those of revoked sessions), by the rule of the API's session check
  (warehouse/queries/auth.py ``session_state``).

The SQL is written here (the gateway does not import ``warehouse``; gateway/attachments.py does the
same). Failures are logged and never reach a viewer or a terminal.
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

if TYPE_CHECKING:
    from gateway.video.hub import StreamInfo, Viewer

log = logging.getLogger("gateway.video.platform")

CREATED_BY_NAME = "视频服务"


class Platform(Protocol):
    async def stop_terminal(self, info: StreamInfo) -> None: ...

    async def channel_changed(self, info: StreamInfo, online: bool) -> None: ...

    async def viewer_started(self, info: StreamInfo, viewer: Viewer) -> int | None: ...

    async def viewer_ended(self, info: StreamInfo, viewer: Viewer) -> None: ...

    async def user_sessions(self, user_ids: list[int]) -> dict[int, tuple[int, bool]] | None: ...


class NullPlatform:
    """For unit tests and a media server without a database: remembers what it was told."""

    def __init__(self) -> None:
        self.stops: list[str] = []
        self.channel_events: list[tuple[str, bool]] = []
        self.viewers: list[tuple[str, int | None]] = []
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


_INSERT_COMMAND = """INSERT INTO command (enterprise_id, car_id, device_id, phone, msg_id, payload, body_hex,
                                          created_by, created_by_name)
                     SELECT d.enterprise_id, d.car_id, d.id, d.phone, %s, %s::jsonb, %s, NULL, %s
                     FROM device d WHERE d.id = %s AND d.state = %s AND d.record_state = 1
                     RETURNING id, phone, created_at"""
_INSERT_LOG = """INSERT INTO video_log (enterprise_id, device_id, car_id, user_id, user_name, stream_id, kind,
                                       channel, data_type, stream_type, transport, client, start_time)
                 SELECT %s, %s, %s, %s, (SELECT COALESCE(name, user_name) FROM app_user WHERE id = %s), %s, %s,
                        %s, %s, %s, %s, %s, %s
                 RETURNING id"""
# The API's rule (warehouse/queries/auth.py session_state): active while the user and every enterprise
# above it are enabled and not deleted.
_USER_SESSIONS = """SELECT u.id, u.session_epoch, (u.state = 1 AND u.record_state = 1 AND NOT EXISTS (
                        SELECT 1 FROM enterprise a WHERE a.path <> '' AND starts_with(e.path, a.path)
                        AND (a.state <> 1 OR a.record_state <> 1)))
                    FROM app_user u JOIN enterprise e ON e.id = u.enterprise_id WHERE u.id = ANY(%s)"""
_END_LOG = """UPDATE video_log SET end_time = %s, bytes_sent = %s, end_reason = %s,
                     duration_s = GREATEST(0, EXTRACT(EPOCH FROM (%s - start_time)))::integer
              WHERE id = %s"""


class PostgresKafkaPlatform:
    def __init__(self, database_url: str, bootstrap: str, *, pool_max: int = 2, ack_timeout_s: float = 5.0) -> None:
        from psycopg_pool import AsyncConnectionPool

        self._pool = AsyncConnectionPool(database_url, min_size=1, max_size=pool_max, open=False)
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
        await asyncio.wait_for(future, self._ack_timeout_s)

    async def stop_terminal(self, info: StreamInfo) -> None:
        msg_id, body, payload = stop_command(info)
        body_hex = body.encode(info.protocol_version if info.protocol_version in ("2011", "2013", "2019") else "2013").hex()
        try:
            async with self._pool.connection() as conn:
                cur = await conn.execute(_INSERT_COMMAND, (msg_id, orjson.dumps(payload).decode(), body_hex,
                                                           CREATED_BY_NAME, info.device_id, int(DeviceState.ONLINE)))
                row = await cur.fetchone()
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
                cur = await conn.execute("SELECT path FROM enterprise WHERE id = %s", (enterprise_id,))
                row = await cur.fetchone()
            path = self._paths[enterprise_id] = row[0] if row and row[0] else f"/{enterprise_id}/"
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
                cur = await conn.execute(_INSERT_LOG, (
                    info.enterprise_id, info.device_id, info.car_id, viewer.user_id, viewer.user_id, info.stream_id,
                    info.kind, info.channel, info.data_type, info.stream_type, viewer.transport, viewer.peer,
                    viewer.started_at))
                row = await cur.fetchone()
            return None if row is None else int(row[0])
        except Exception as exc:
            log.warning("stream %s: video log not written: %r", info.stream_id, exc)
            return None

    async def viewer_ended(self, info: StreamInfo, viewer: Viewer) -> None:
        if viewer.log_id is None:
            return
        now = datetime.now(UTC)
        try:
            async with self._pool.connection() as conn:
                await conn.execute(_END_LOG, (now, viewer.sent_bytes, (viewer.closed or "left")[:64], now,
                                              viewer.log_id))
        except Exception as exc:
            log.warning("stream %s: video log not closed: %r", info.stream_id, exc)

    async def user_sessions(self, user_ids: list[int]) -> dict[int, tuple[int, bool]] | None:
        """Raises the database's errors (the caller closes nothing then)."""
        async with self._pool.connection() as conn:
            cur = await conn.execute(_USER_SESSIONS, (user_ids,))
            rows = await cur.fetchall()
        return {int(uid): (int(epoch), bool(active)) for uid, epoch, active in rows}
