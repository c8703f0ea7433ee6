"""The media server (issue 11 §2): one TCP port for terminals' JT/T 1078 media, browsers' HTTP-FLV,
WebSocket-FLV and talk sockets, and the API's internal calls, told apart by the first bytes
(``30 31 63 64`` is a terminal; anything else is HTTP).

Routes (HTTP/1.1; the stream URLs carry a token the API signed, ``fleet/video_tokens.py``):

| route | what |
|---|---|
| ``GET /live/{streamId}.flv?token=`` | HTTP-FLV; with ``Upgrade: websocket`` the same as WebSocket-FLV (binary messages) |
| ``GET /talk/{streamId}?token=`` (WebSocket) | the browser's microphone: ``protocols/jt1078/talk.py`` frames in, G.711A to the terminal |
| ``GET /healthz`` | 200 |
| ``POST /internal/streams`` | the API registers a stream before its 0x9101 / 0x9201 (Bearer ``internal_key``) |
| ``GET /internal/streams/{id}`` | a stream's status |
| ``POST /internal/heartbeat`` | ``{streamIds}``: the console still wants them |
| ``POST /internal/streams/{id}/close`` | ``{userId}``: close unless someone else watches (``{closed, viewers}``) |

A token that is missing, malformed, badly signed or expired is a 403; a valid one for another stream (or
another enterprise's) is a 404, as if the stream did not exist.

Stopping: a stream with no viewer and no heartbeat for ``idle_stop_s`` is stopped: the platform sends
0x9102 through the command path (``platform.py``), the terminal connection is closed, push 14 says the
channel went offline. A registered stream whose terminal never connects is dropped after
``connect_timeout_s``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import re
import socket
import time
from collections.abc import Callable
from typing import Any

from fleet.settings import MediaServerSettings
from fleet.video_tokens import TokenError, internal_key, verify
from gateway.video import httpio
from gateway.video.audio import AudioTrack
from gateway.video.httpio import HttpError, Request
from gateway.video.hub import KINDS, Stream, StreamInfo, Viewer, same_sim
from gateway.video.platform import NullPlatform, Platform
from protocols.jt1078 import ATOMIC, AUDIO, FrameAssembler, JT1078Error, Packet, PacketReader, encode_packet
from protocols.jt1078.g711 import alaw_encode
from protocols.jt1078.packet import MAGIC_BYTES
from protocols.jt1078.payload_types import G711A
from protocols.jt1078.talk import parse_talk_frame, seq_gap

log = logging.getLogger("gateway.video")

_LIVE = re.compile(r"^/live/([A-Za-z0-9_-]{1,64})\.flv$")
_TALK = re.compile(r"^/talk/([A-Za-z0-9_-]{1,64})$")
_STATUS = re.compile(r"^/internal/streams/([A-Za-z0-9_-]{1,64})$")
_CLOSE = re.compile(r"^/internal/streams/([A-Za-z0-9_-]{1,64})/close$")
FLV_HEADERS = {"Content-Type": "video/x-flv", "Cache-Control": "no-store", "Connection": "close",
               **httpio.CORS}


class MediaCounters:
    def __init__(self) -> None:
        self.terminal_connections = 0
        self.rejected_terminals = 0
        self.viewers_started = 0
        self.viewers_dropped_slow = 0
        self.refused_tokens = 0
        self.stops_sent = 0
        self.talk_frames_in = 0
        self.talk_frames_lost = 0


class TerminalSource:
    """One terminal media connection: packets -> frames -> its stream (bound on the first packet)."""

    def __init__(self, server: MediaServer, writer: asyncio.StreamWriter, peer: str) -> None:
        self.server, self.writer, self.peer = server, writer, peer
        self.reader = PacketReader(max_body=server.settings.max_packet_body)
        self.assembler = FrameAssembler()
        self.stream: Stream | None = None
        self.closed = False
        self.talk_seq = 0
        self.sim: str | None = None

    async def run(self, reader: asyncio.StreamReader, first: bytes) -> None:
        data = first
        try:
            while True:
                if data and not self._feed(data):
                    return
                data = await reader.read(65536)
                if not data:
                    return
        finally:
            self.closed = True
            if self.stream is not None:
                self.server.source_lost(self.stream, self)

    def _feed(self, data: bytes) -> bool:
        for item in self.reader.feed(data):
            if isinstance(item, JT1078Error):
                log.debug("terminal %s: %s", self.peer, item)
                continue
            if self.stream is None:
                self.sim = item.sim
                self.stream = self.server.bind_source(self, item)
                if self.stream is None:
                    return False
            for frame in self.assembler.push(item):
                self.stream.on_frame(frame)
        return True

    def send_talk(self, samples: list[int]) -> None:
        """Browser audio to the terminal: one G.711A audio packet on this connection, with the SIM and
        layout the terminal itself uses."""
        if self.closed or self.stream is None or self.sim is None:
            return
        packet = Packet(G711A, self.talk_seq, self.sim, self.stream.info.channel, AUDIO, ATOMIC, alaw_encode(samples),
                        int(time.time() * 1000), version=self.reader.version or "2016")
        self.talk_seq = (self.talk_seq + 1) & 0xFFFF
        self.writer.write(encode_packet(packet))

    def close(self) -> None:
        self.closed = True
        self.writer.close()


class MediaServer:
    def __init__(self, settings: MediaServerSettings, secret: bytes, platform: Platform | None = None) -> None:
        self.settings = settings
        self.secret = secret
        self.internal_key = internal_key(secret)
        self.platform = platform or NullPlatform()
        self.streams: dict[str, Stream] = {}
        self.counters = MediaCounters()
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._writers: set[asyncio.StreamWriter] = set()
        self._sweeper: asyncio.Task[None] | None = None
        self.port = settings.port

    # -- lifecycle ---------------------------------------------------------------------------------
    async def start(self) -> None:
        self._server = await asyncio.start_server(self._on_connection, self.settings.host, self.settings.port,
                                                  limit=1 << 20, reuse_address=True)
        self.port = self._server.sockets[0].getsockname()[1]
        self._sweeper = asyncio.create_task(self._sweep_forever())
        log.info("media server on %s:%s", self.settings.host, self.port)

    async def close(self) -> None:
        if self._sweeper:
            self._sweeper.cancel()
        if self._server:
            self._server.close()
        for stream in list(self.streams.values()):
            self._drop(stream, "server stopping", notify=False)
        for writer in list(self._writers):
            writer.transport.abort()  # their handlers end on the closed connection
        await asyncio.sleep(0)
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._server:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2)

    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("media server task failed: %r", task.exception())

    # -- connections -------------------------------------------------------------------------------
    async def _on_connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = "{}:{}".format(*(writer.get_extra_info("peername") or ("?", 0))[:2])
        self._writers.add(writer)
        try:
            try:
                first = await asyncio.wait_for(reader.readexactly(4), 10)
            except (TimeoutError, asyncio.IncompleteReadError, ConnectionError):
                return
            if first == MAGIC_BYTES:
                self.counters.terminal_connections += 1
                await TerminalSource(self, writer, peer).run(reader, first)
            else:
                await self._http(reader, writer, first, peer)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            self._writers.discard(writer)
            writer.close()

    async def _http(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, first: bytes, peer: str) -> None:
        try:
            request = await httpio.read_request(reader, first, 10)
            request.peer = peer
            await self._route(request, reader, writer)
        except HttpError as exc:
            if exc.status == 403:
                self.counters.refused_tokens += 1
            writer.write(httpio.json_response(exc.status, {"code": exc.status, "message": exc.message}))
            with contextlib.suppress(ConnectionError):
                await writer.drain()

    async def _route(self, request: Request, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        path, method = request.path, request.method
        if method == "OPTIONS":
            writer.write(httpio.response_head(204, {"Content-Length": "0", **httpio.CORS}))
            return
        if path == "/healthz":
            writer.write(httpio.json_response(200, {"ok": True, "streams": len(self.streams)}))
            return
        if path.startswith("/internal/"):
            self._check_internal(request)
            writer.write(httpio.json_response(200, self._internal(request)))
            return
        if method != "GET":
            raise HttpError(405, "method not allowed")
        match = _LIVE.match(path)
        if match:
            await self._serve_viewer(request, reader, writer, match.group(1))
            return
        match = _TALK.match(path)
        if match:
            await self._serve_talk(request, reader, writer, match.group(1))
            return
        raise HttpError(404, "not found")

    # -- internal API (the API's calls) ---------------------------------------------------------------
    def _check_internal(self, request: Request) -> None:
        auth = request.headers.get("authorization", "")
        if not hmac.compare_digest(auth.encode(), f"Bearer {self.internal_key}".encode()):
            raise HttpError(401, "internal calls need the media server's key")

    def _internal(self, request: Request) -> dict[str, Any]:
        path = request.path
        if path == "/internal/streams" and request.method == "POST":
            return self.register(_stream_info(request.json()))
        if path == "/internal/heartbeat" and request.method == "POST":
            body = request.json() or {}
            ids = [str(i) for i in body.get("streamIds") or []][:64]
            return {"known": self.heartbeat(ids)}
        match = _CLOSE.match(path)
        if match and request.method == "POST":
            body = request.json() or {}
            return self.release(match.group(1), body.get("userId"))
        match = _STATUS.match(path)
        if match and request.method == "GET":
            stream = self.streams.get(match.group(1))
            if stream is None:
                raise HttpError(404, "no such stream")
            return stream.status()
        raise HttpError(404, "not found")

    def register(self, info: StreamInfo) -> dict[str, Any]:
        """Register (or refresh) a stream; answers its status and whether a terminal already feeds it
        (``live``: the API then sends no new 0x9101)."""
        stream = self.streams.get(info.stream_id)
        if stream is not None and stream.info.sim != info.sim:
            self._drop(stream, "re-registered for another terminal")
            stream = None
        if stream is None:
            stream = Stream(info, gop_cache_bytes=self.settings.gop_cache_bytes,
                            audio=AudioTrack(self.settings.aac_sample_rate, self.settings.g726_bit_rate))
            stream.on_ready.append(self._on_ready)
            self.streams[info.stream_id] = stream
        stream.last_heartbeat = time.monotonic()
        return {**stream.status(), "live": stream.source is not None and not stream.source.closed}

    def heartbeat(self, stream_ids: list[str]) -> list[str]:
        known = []
        for stream_id in stream_ids:
            stream = self.streams.get(stream_id)
            if stream is not None:
                stream.last_heartbeat = time.monotonic()
                known.append(stream_id)
        return known

    def release(self, stream_id: str, user_id: Any) -> dict[str, Any]:
        """A user stops a stream: closed unless other users watch it (then they keep it)."""
        stream = self.streams.get(stream_id)
        if stream is None:
            return {"closed": True, "viewers": 0, "known": False}
        others = [v for v in stream.viewers.values() if v.user_id != user_id]
        if others:
            return {"closed": False, "viewers": len(others), "known": True}
        self._drop(stream, "stopped by the user", notify=True)
        return {"closed": True, "viewers": 0, "known": True}

    # -- terminals ---------------------------------------------------------------------------------
    def bind_source(self, source: TerminalSource, packet: Packet) -> Stream | None:
        """The stream a new terminal connection feeds: a registered one of its SIM and channel, waiting
        for its terminal (a video packet prefers live/playback, audio talk/listen), else one it
        replaces (the terminal reconnected). None: nobody asked for it; the connection is closed."""
        candidates = [s for s in self.streams.values()
                      if same_sim(s.info.sim, packet.sim) and s.info.channel == packet.channel]
        video = packet.data_type < AUDIO
        order = ("live", "playback", "talk", "listen") if video else ("talk", "listen", "live", "playback")

        def rank(stream: Stream) -> tuple[int, int, float]:
            waiting = stream.source is None or stream.source.closed
            return (0 if waiting else 1, order.index(stream.info.kind) if stream.info.kind in KINDS else 9,
                    stream.created_at)

        if not candidates:
            self.counters.rejected_terminals += 1
            log.warning("terminal %s sent SIM %s channel %s that no stream waits for; closed", source.peer,
                        packet.sim, packet.channel)
            return None
        stream = min(candidates, key=rank)
        old = stream.source
        if old is not None and old is not source and not old.closed:
            old.close()
        stream.source = source
        stream.source_lost_at = None
        log.info("stream %s fed by %s", stream.info.stream_id, source.peer)
        return stream

    def source_lost(self, stream: Stream, source: TerminalSource) -> None:
        if stream.source is not source:
            return
        stream.source = None
        stream.source_lost_at = time.monotonic()
        if stream.online:
            stream.online = False
            self._spawn(self.platform.channel_changed(stream.info, False))

    def _on_ready(self, stream: Stream) -> None:
        stream.online = True
        self._spawn(self.platform.channel_changed(stream.info, True))

    # -- viewers -----------------------------------------------------------------------------------
    def _authorise(self, request: Request, stream_id: str, kind: str) -> tuple[Stream, int | None]:
        try:
            claims = verify(self.secret, request.query.get("token"), kind=kind)
        except TokenError as exc:
            raise HttpError(403, f"stream URL refused: {exc.reason}") from None
        stream = self.streams.get(stream_id)
        if claims.stream_id != stream_id or stream is None or stream.info.enterprise_id != claims.enterprise_id:
            raise HttpError(404, "no such stream")
        return stream, claims.user_id

    async def _serve_viewer(self, request: Request, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                            stream_id: str) -> None:
        stream, user_id = self._authorise(request, stream_id, "view")
        if len(stream.viewers) >= self.settings.max_viewers:
            raise HttpError(503, "too many viewers of this stream")
        ws = request.wants_websocket
        writer.write(httpio.websocket_handshake(request) if ws else httpio.response_head(200, FLV_HEADERS))
        viewer = Viewer(user_id, "ws" if ws else "http", request.peer, self.settings.viewer_queue_bytes,
                        self.settings.viewer_lag_drop_s)
        sock = writer.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, self.settings.viewer_socket_buffer_bytes)
        viewer.abort = writer.transport.abort
        self.counters.viewers_started += 1
        stream.add_viewer(viewer)
        self._spawn(self._log_viewer(stream, viewer))
        write: Callable[[bytes], None] = (lambda data: writer.write(httpio.ws_frame(data))) if ws else writer.write
        pump = asyncio.create_task(viewer.pump(write, writer.drain))
        watch = asyncio.create_task(self._watch_client(reader, writer, ws, viewer))
        try:
            await asyncio.wait({pump, watch}, return_when=asyncio.FIRST_COMPLETED)
        except ConnectionError:
            pass
        finally:
            viewer.close(viewer.closed or "left")
            if viewer.closed == "too slow":
                self.counters.viewers_dropped_slow += 1
            for task in (pump, watch):
                task.cancel()
            await asyncio.gather(pump, watch, return_exceptions=True)
            stream.remove_viewer(viewer)
            self._spawn(self.platform.viewer_ended(stream.info, viewer))
            writer.transport.abort() if viewer.closed == "too slow" else writer.close()

    async def _log_viewer(self, stream: Stream, viewer: Viewer) -> None:
        viewer.log_id = await self.platform.viewer_started(stream.info, viewer)

    async def _watch_client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, ws: bool,
                            viewer: Viewer) -> None:
        """Until the client goes away (and, for a WebSocket, answering pings)."""
        frames = httpio.WsReader()
        while not viewer.closed:
            data = await reader.read(4096)
            if not data:
                return
            if ws:
                for opcode, payload in frames.feed(data):
                    if opcode == httpio.OP_CLOSE:
                        return
                    if opcode == httpio.OP_PING:
                        writer.write(httpio.ws_frame(payload, httpio.OP_PONG))

    async def _serve_talk(self, request: Request, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                          stream_id: str) -> None:
        stream, user_id = self._authorise(request, stream_id, "talk")
        if stream.info.kind != "talk":
            raise HttpError(404, "not a talk stream")
        if not request.wants_websocket:
            raise HttpError(400, "the talk socket is a WebSocket")
        writer.write(httpio.websocket_handshake(request))
        frames = httpio.WsReader(max_message=8192)
        previous: int | None = None
        while True:
            data = await reader.read(65536)
            if not data:
                return
            for opcode, payload in frames.feed(data):
                if opcode == httpio.OP_CLOSE:
                    writer.write(httpio.ws_frame(b"", httpio.OP_CLOSE))
                    return
                if opcode == httpio.OP_PING:
                    writer.write(httpio.ws_frame(payload, httpio.OP_PONG))
                    continue
                if opcode != httpio.OP_BINARY:
                    continue
                try:
                    seq, samples = parse_talk_frame(payload)
                except JT1078Error as exc:
                    log.debug("talk %s: bad frame: %s", stream_id, exc)
                    continue
                gap = seq_gap(previous, seq)
                if gap < 0:
                    continue  # repeated or late
                self.counters.talk_frames_lost += gap
                previous = seq
                self.counters.talk_frames_in += 1
                stream.last_heartbeat = time.monotonic()
                source = stream.source
                if isinstance(source, TerminalSource):
                    source.send_talk(samples)
            await writer.drain()

    # -- housekeeping ------------------------------------------------------------------------------
    async def _sweep_forever(self) -> None:
        while True:
            await asyncio.sleep(0.25)
            try:
                self.sweep()
            except Exception:  # never let one stream's problem end the sweeper
                log.exception("media sweep failed")

    def sweep(self, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        s = self.settings
        for stream in list(self.streams.values()):
            has_source = stream.source is not None and not stream.source.closed
            if stream.viewers:
                continue
            idle = now - max(stream.last_heartbeat, stream.last_viewer_at)
            if has_source and idle > s.idle_stop_s:
                log.info("stream %s: no viewer and no heartbeat for %.0f s: stopping", stream.info.stream_id, idle)
                self._drop(stream, "idle", notify=True, stop_terminal=True)
            elif not has_source and stream.source_lost_at is None and now - stream.created_at > s.connect_timeout_s \
                    and idle > s.connect_timeout_s:
                self._drop(stream, "the terminal never connected")
        for stream in list(self.streams.values()):
            if stream.source_lost_at is not None and stream.source is None \
                    and now - stream.source_lost_at > s.source_grace_s:
                self._drop(stream, "the terminal left")

    def _drop(self, stream: Stream, why: str, *, notify: bool = True, stop_terminal: bool = False) -> None:
        self.streams.pop(stream.info.stream_id, None)
        stream.close_viewers(why)
        if stop_terminal:
            self.counters.stops_sent += 1
            self._spawn(self.platform.stop_terminal(stream.info))
        source = stream.source
        stream.source = None
        if source is not None:
            source.close()
        if stream.online and notify:
            self._spawn(self.platform.channel_changed(stream.info, False))
        stream.online = False


def _stream_info(body: Any) -> StreamInfo:
    if not isinstance(body, dict):
        raise HttpError(400, "body must be an object")
    try:
        info = StreamInfo(
            stream_id=str(body["streamId"]), kind=str(body["kind"]), sim=str(body["sim"]), channel=int(body["channel"]),
            data_type=int(body.get("dataType", 0)), stream_type=int(body.get("streamType", 0)),
            enterprise_id=int(body["enterpriseId"]), device_id=int(body["deviceId"]),
            car_id=None if body.get("carId") is None else int(body["carId"]), plate_number=body.get("plateNumber"),
            phone=str(body.get("phone") or body["sim"]), protocol_version=str(body.get("protocolVersion") or "2013"))
    except (KeyError, TypeError, ValueError) as exc:
        raise HttpError(400, f"bad stream registration: {exc!r}") from None
    if info.kind not in KINDS or not info.sim.isdigit() or not re.match(r"^[A-Za-z0-9_-]{1,64}$", info.stream_id):
        raise HttpError(400, "bad stream registration")
    return info
