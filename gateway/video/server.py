"""The media server: one TCP port for terminals' JT/T 1078 media, browsers' HTTP-FLV,
WebSocket-FLV and talk sockets, and the API's internal calls, told apart by the first bytes
(``30 31 63 64`` is a terminal; anything else is HTTP).

Routes (HTTP/1.1; the stream URLs carry a token the API signed, ``fleet/video_tokens.py``):

| route | what |
|---|---|
| ``GET /live/{streamId}.flv?token=`` | HTTP-FLV; with ``Upgrade: websocket`` the same as WebSocket-FLV (binary messages) |
| ``GET /talk/{streamId}?token=`` (WebSocket) | the browser's microphone: ``protocols/jt1078/talk.py`` frames in, G.711A to the terminal |
| ``GET /{plate}.{colour}.{channel}.{avFlag}.{authorisationCode}`` | a superior platform's pull (JT/T 1078-2016 §6.2): the terminal's JT/T 1078 packets (FLV when asked) of the stream the link service registered for that plate, colour and channel, admitted by the code, audio/video flag and (cross-region) position of its 0x9801 / 0x9A01 (``superior.py``) |
| ``GET /healthz`` | 200 ``{ok: true}`` (nothing else: it needs no credentials) |
| ``POST /internal/streams`` | the API (or the JT/T 809 link service, with ``superior``: plate, colour, channel, code) registers a stream before its 0x9101 / 0x9201 (Bearer ``internal_key``), with the terminal's session address; answers ``tcpPort``, the port the 0x9101 / 0x9201 must name; 409 when policy ``address`` and no session address is known. With ``pullUrl`` (the JT/T 809 superior service) the stream is fed by pulling another platform's media server instead (``pull.py``) |
| ``GET /internal/streams/{id}`` | a stream's status |
| ``POST /internal/heartbeat`` | ``{streamIds}``: answers which the server still has (``known``); a heartbeat alone never keeps a stream nobody watches |
| ``POST /internal/streams/{id}/close`` | ``{userId[, superior: true][, force: true]}``: close unless someone else watches (``{closed, viewers}``); ``superior``: a superior platform's stop, its pulls end and its code is revoked whoever else watches; ``force``: closed whoever watches (an inferior platform disabled while we pull its video) |

A token that is missing, malformed, badly signed or expired is a 403; a valid one for another stream (or
another enterprise's) is a 404, as if the stream did not exist. A browser page of another origin than the
console's is a 403 (``httpio.origin_allowed``); CORS names that origin only.

Terminals: a connection is admitted to a stream only as ``admission.py`` says (asked for, unexpired, no
live source, from the terminal asked); else it is refused, logged with both addresses, and closed.
Connections per source IP are capped; a connection that sends no request head or no whole first packet
within ``identify_deadline_s``, and a terminal that goes silent for ``source_idle_s``, are closed.
Viewers and talk sockets end when their user's session is revoked (``sessions.py``).

Stopping (the SIM card's data plan): a stream that nobody watches (no viewer, no open talk socket) for
``idle_stop_s`` since its last viewer left, or since it was last asked for, is stopped: the platform sends
0x9102 close (a playback 0x9202 end) through the command path (``platform.py``), the terminal connection
is closed, push 14 says the channel went offline. The console's heartbeats do not keep such a stream:
the media server knows its viewers, so a page that left its heartbeat running (a hidden tab, a crashed
player) no longer costs the terminal's data plan. A registered stream whose terminal never connects is
dropped after ``connect_timeout_s``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import re
import time
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from fleet.addresses import source_ip
from fleet.settings import MediaServerSettings
from fleet.video_streams import parse_pull_path
from fleet.video_tokens import internal_key
from gateway.video import browsers, httpio, superior
from gateway.video.admission import (
    AddressCounter,
    Arrival,
    BoundedLog,
    OneTimePorts,
    parse_port_range,
    refusal,
    request_open,
    source_alive,
)
from gateway.video.audio import AudioTrack
from gateway.video.httpio import HttpError, Request
from gateway.video.hub import KINDS, Stream, StreamInfo, same_sim, stream_info_of
from gateway.video.platform import NullPlatform, Platform, session_record
from gateway.video.pull import PullSource
from gateway.video.sessions import UserSockets
from gateway.video.terminal import TerminalSource
from protocols.jt1078 import AUDIO, Packet
from protocols.jt1078.packet import MAGIC_BYTES

log = logging.getLogger("gateway.video")

_LIVE = re.compile(r"^/live/([A-Za-z0-9_-]{1,64})\.flv$")
_TALK = re.compile(r"^/talk/([A-Za-z0-9_-]{1,64})$")
_STATUS = re.compile(r"^/internal/streams/([A-Za-z0-9_-]{1,64})$")
_CLOSE = re.compile(r"^/internal/streams/([A-Za-z0-9_-]{1,64})/close$")


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
        self.refused_sources = 0  # asked for, but not from the terminal asked (policy) or expired
        self.second_sources = 0  # a stream that already has a live source
        self.refused_over_cap = 0  # connections of an address at its cap
        self.closed_unidentified = 0
        self.closed_idle_sources = 0
        self.refused_origins = 0


class MediaServer:
    def __init__(self, settings: MediaServerSettings, secret: bytes, platform: Platform | None = None) -> None:
        self.settings = settings
        self.secret = secret
        self.internal_key = internal_key(secret)
        self.platform = platform or NullPlatform()
        self.streams: dict[str, Stream] = {}
        self.superior_pulls: dict[tuple[str, int, int], str] = {}  # (plate, colour, channel) -> stream id
        self.counters = MediaCounters()
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._writers: set[asyncio.StreamWriter] = set()
        self._sweeper: asyncio.Task[None] | None = None
        self._records: set[asyncio.Future[None]] = set()
        self._session_checker: asyncio.Task[None] | None = None
        self.port = settings.port
        self.addresses = AddressCounter(settings.max_connections_per_address)
        self.refusal_log = BoundedLog()
        self.sources: set[TerminalSource | PullSource] = set()
        self.user_sockets = UserSockets()
        self.one_time_ports = OneTimePorts(settings.host, parse_port_range(settings.one_time_ports),
                                           self._on_one_time_connection)

    # -- lifecycle ---------------------------------------------------------------------------------
    async def start(self) -> None:
        self._server = await asyncio.start_server(self._on_connection, self.settings.host, self.settings.port,
                                                  limit=1 << 20, reuse_address=True)
        self.port = self._server.sockets[0].getsockname()[1]
        self._sweeper = asyncio.create_task(self._sweep_forever())
        self._session_checker = asyncio.create_task(self._check_sessions_forever())
        log.info("media server on %s:%s (terminal source policy %s)", self.settings.host, self.port,
                 self.settings.source_policy)

    async def close(self) -> None:
        for task in (self._sweeper, self._session_checker):
            if task:
                task.cancel()
        if self._server:
            self._server.close()
        await self.one_time_ports.close_all()
        for stream in list(self.streams.values()):
            self._drop(stream, "server stopping", notify=False)
        if self._records:  # the live log's last words: each write is short, never wait long
            await asyncio.wait(set(self._records), timeout=2)
        for writer in list(self._writers):
            writer.transport.abort()  # their handlers end on the closed connection
        await asyncio.sleep(0)
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._server:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(2):
                    await self._server.wait_closed()

    def spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("media server task failed: %r", task.exception())

    # -- connections -------------------------------------------------------------------------------
    async def _on_connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                             *, terminals_only: bool = False) -> None:
        peername = writer.get_extra_info("peername") or ("?", 0)
        sockname = writer.get_extra_info("sockname") or ("?", 0)
        arrival = Arrival(source_ip(tuple(peername)), "{}:{}".format(*peername[:2]), int(sockname[1]))
        if not self.addresses.acquire(arrival.ip):
            self.counters.refused_over_cap += 1
            refused = self.refusal_log.due("cap", arrival.ip, time.monotonic())
            if refused:
                log.warning("refused %d connection(s) from %s: %d open from that address (the cap)", refused,
                            arrival.ip, self.addresses.cap)
            writer.transport.abort()
            return
        self._writers.add(writer)
        try:
            try:
                async with asyncio.timeout(self.settings.identify_deadline_s):
                    first = await reader.readexactly(4)
            except TimeoutError:
                self.counters.closed_unidentified += 1
                return
            except (asyncio.IncompleteReadError, ConnectionError):
                return
            if first == MAGIC_BYTES:
                self.counters.terminal_connections += 1
                source = TerminalSource(self, writer, arrival)
                self.sources.add(source)
                try:
                    await source.run(reader, first)
                finally:
                    self.sources.discard(source)
            elif not terminals_only:
                await self._http(reader, writer, first, arrival.peer)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            self._writers.discard(writer)
            self.addresses.release(arrival.ip)
            writer.close()

    async def _on_one_time_connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await self._on_connection(reader, writer, terminals_only=True)

    async def _http(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, first: bytes, peer: str) -> None:
        try:
            request = await httpio.read_request(reader, first, self.settings.identify_deadline_s)
            request.peer = peer
            await self._route(request, reader, writer)
        except HttpError as exc:
            if exc.status == 403:
                self.counters.refused_tokens += 1
            if exc.status == 408:
                self.counters.closed_unidentified += 1
            writer.write(httpio.json_response(exc.status, {"code": exc.status, "message": exc.message}))
            with contextlib.suppress(ConnectionError):
                await writer.drain()

    async def _route(self, request: Request, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        path, method = request.path, request.method
        if path == "/healthz":  # unauthenticated: says nothing an outsider could use
            writer.write(httpio.json_response(200, {"ok": True}))
            return
        if path.startswith("/internal/"):
            self._check_internal(request)
            writer.write(httpio.json_response(200, await self._internal(request)))
            return
        origin = request.headers.get("origin")
        if not httpio.origin_allowed(origin, request.headers.get("host"), self.settings.allowed_origins):
            self.counters.refused_origins += 1
            raise HttpError(403, "origin not allowed")
        request.extra["cors"] = httpio.cors_headers(origin)
        if method == "OPTIONS":
            writer.write(httpio.response_head(204, {"Content-Length": "0", **request.extra["cors"]}))
            return
        if method != "GET":
            raise HttpError(405, "method not allowed")
        match = _LIVE.match(path)
        if match:
            await browsers.serve_viewer(self, request, reader, writer, match.group(1))
            return
        match = _TALK.match(path)
        if match:
            await browsers.serve_talk(self, request, reader, writer, match.group(1))
            return
        try:
            pull = parse_pull_path(path)
        except ValueError:
            raise HttpError(404, "not found") from None
        await superior.serve_superior(self, request, reader, writer, pull)

    # -- internal API (the API's calls) ---------------------------------------------------------------
    def _check_internal(self, request: Request) -> None:
        auth = request.headers.get("authorization", "")
        if not hmac.compare_digest(auth.encode(), f"Bearer {self.internal_key}".encode()):
            raise HttpError(401, "internal calls need the media server's key")

    async def _internal(self, request: Request) -> dict[str, Any]:
        path = request.path
        if path == "/internal/streams" and request.method == "POST":
            try:
                info = stream_info_of(request.json())
            except ValueError as exc:
                raise HttpError(400, f"bad stream registration: {exc}") from None
            if self.settings.source_policy == "address" and info.source_address is None and not info.pulled:
                # no terminal could ever be admitted: say so now rather than let the viewer time out
                raise HttpError(409, "the terminal has no known session address")
            answer = self.register(info)
            return {**answer, "tcpPort": await self._request_port(self.streams[answer["streamId"]])}
        if path == "/internal/heartbeat" and request.method == "POST":
            body = request.json() or {}
            ids = [str(i) for i in body.get("streamIds") or []][:64]
            return {"known": self.heartbeat(ids)}
        match = _CLOSE.match(path)
        if match and request.method == "POST":
            body = request.json() or {}
            return self.release(match.group(1), body.get("userId"), superior=body.get("superior") is True,
                                force=body.get("force") is True)
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
            self._record(stream)
        stream.last_heartbeat = stream.registered_at = time.monotonic()
        if not source_alive(stream):
            stream.source_lost_at = None  # a new request: its terminal gets connect_timeout_s, not the grace left
        if stream.info.source_address != info.source_address:  # asked again: the latest session address counts
            stream.info = replace(stream.info, source_address=info.source_address)
        if info.superior is not None:  # a superior's request: its code admits its pull (gateway/video/superior.py)
            stream.info = replace(stream.info, superior=info.superior)
            self.superior_pulls[superior.pull_key(info.superior.plate, info.superior.plate_colour,
                                                  info.superior.channel)] = info.stream_id
        if info.pull_url is not None and not source_alive(stream):
            self._start_pull(stream, info.pull_url)
        return {**stream.status(), "live": source_alive(stream)}

    def _start_pull(self, stream: Stream, url: str) -> None:
        """Feed ``stream`` from another platform's media server (pull.py) instead of waiting for a terminal."""
        stream.info = replace(stream.info, pull_url=url)
        source = PullSource(self, stream, url)
        stream.source, stream.source_lost_at = source, None
        self.sources.add(source)

        async def pull() -> None:
            try:
                await source.run()
            finally:
                self.sources.discard(source)

        self.spawn(pull())

    async def _request_port(self, stream: Stream) -> int:
        """The TCP port this request's 0x9101 / 0x9201 names: the main port, or under the ``port``
        policy a one-time port for a stream still waiting for its terminal. Raises HttpError 503 when
        the range is exhausted (the API answers "no available live video server")."""
        if self.settings.source_policy != "port" or source_alive(stream):
            return self.port
        if stream.one_time_port is None:
            try:
                stream.one_time_port = await self.one_time_ports.open()
            except OSError as exc:
                log.warning("stream %s: %s", stream.info.stream_id, exc)
                raise HttpError(503, "no free one-time port") from None
        return stream.one_time_port

    def heartbeat(self, stream_ids: list[str]) -> list[str]:
        known = []
        for stream_id in stream_ids:
            stream = self.streams.get(stream_id)
            if stream is not None:
                stream.last_heartbeat = time.monotonic()
                stream.heartbeats += 1
                stream.last_heartbeat_wall = datetime.now(UTC)
                known.append(stream_id)
        return known

    def release(self, stream_id: str, user_id: Any, *, superior: bool = False, force: bool = False) -> dict[str, Any]:
        """A user stops a stream: closed unless other users watch it (then they keep it). ``superior``: a
        superior platform stops it (0x9802, 0x9A02 end): its pulls end and its code no longer admits one,
        whoever else watches. ``force``: closed whoever watches."""
        stream = self.streams.get(stream_id)
        if stream is None:
            return {"closed": True, "viewers": 0, "known": False}
        if force:
            self._drop(stream, "closed: its source is no longer trusted", notify=True)
            return {"closed": True, "viewers": 0, "known": True}
        if superior:
            self._revoke_superior(stream)
            for viewer in [v for v in stream.viewers.values() if not v.user_id]:
                viewer.close("stopped by the superior platform")
        others = [v for v in stream.viewers.values() if v.user_id != user_id and not (superior and not v.user_id)]
        if others:
            return {"closed": False, "viewers": len(others), "known": True}
        self._drop(stream, "stopped by the user", notify=True)
        return {"closed": True, "viewers": 0, "known": True}

    # -- terminals ---------------------------------------------------------------------------------
    def bind_source(self, source: TerminalSource, packet: Packet) -> Stream | None:
        """The stream a new terminal connection feeds, by the rules of ``admission.py``: a registered,
        unexpired request of its SIM and channel with no live source, from the terminal asked (a video
        packet prefers live/playback, audio talk/listen). None: refused and logged; it is closed."""
        now = time.monotonic()
        s = self.settings
        candidates = [st for st in self.streams.values()
                      if same_sim(st.info.sim, packet.sim) and st.info.channel == packet.channel]
        video = packet.data_type < AUDIO
        order = ("live", "playback", "talk", "listen") if video else ("talk", "listen", "live", "playback")
        waiting = sorted((st for st in candidates if not source_alive(st)
                          and request_open(st, now, s.connect_timeout_s, s.source_grace_s)),
                         key=lambda st: (order.index(st.info.kind) if st.info.kind in KINDS else 9, st.created_at))
        reasons = {st.info.stream_id: refusal(st, source.arrival, s.source_policy) for st in waiting}
        stream = next((st for st in waiting if reasons[st.info.stream_id] is None), None)
        if stream is not None:
            stream.source = source
            stream.source_lost_at = None
            self.one_time_ports.close(stream.one_time_port)  # valid for this request only
            stream.one_time_port = None
            log.info("stream %s fed by %s", stream.info.stream_id, source.peer)
            return stream
        ip = source.arrival.ip
        if waiting:
            self.counters.refused_sources += 1
            if n := self.refusal_log.due("policy", ip, now):
                log.warning("refused %d terminal connection(s) from %s, the last %s for SIM %s channel %s: %s", n,
                            ip, source.peer, packet.sim, packet.channel,
                            "; ".join(f"{sid}: {why}" for sid, why in reasons.items()))
        elif any(source_alive(st) for st in candidates):
            self.counters.second_sources += 1
            if n := self.refusal_log.due("second", ip, now):
                live = ", ".join(f"{st.info.stream_id} fed by {st.source.peer}" for st in candidates
                                 if source_alive(st))
                log.warning("refused %d second terminal connection(s) from %s, the last %s for SIM %s channel %s:"
                            " %s", n, ip, source.peer, packet.sim, packet.channel, live)
        else:
            self.counters.rejected_terminals += 1
            if n := self.refusal_log.due("unasked", ip, now):
                log.warning("refused %d terminal connection(s) from %s that no unexpired request waits for, the"
                            " last %s for SIM %s channel %s", n, ip, source.peer, packet.sim, packet.channel)
        return None

    def source_lost(self, stream: Stream, source: TerminalSource | PullSource) -> None:
        if stream.source is not source:
            return
        stream.source = None
        stream.source_lost_at = time.monotonic()
        if stream.online:
            stream.online = False
            self._channel_changed(stream, False)

    def _on_ready(self, stream: Stream) -> None:
        stream.online = True
        self._channel_changed(stream, True)
        self._record(stream)

    def _channel_changed(self, stream: Stream, online: bool) -> None:
        """Push 14 for a channel of one of our terminals (a pulled stream has none: pull.py)."""
        if not stream.info.pulled:
            self.spawn(self.platform.channel_changed(stream.info, online))

    def _record(self, stream: Stream) -> None:
        """The stream's live log row as known now (platform.py ``session_record``); close() waits for these.
        A pulled stream has no device of ours to log against: its request row is its log (pull.py)."""
        if stream.info.pulled:
            return
        task = asyncio.ensure_future(self.platform.session_changed(session_record(stream)))
        self._records.add(task)
        task.add_done_callback(self._records.discard)
        self.spawn(task)

    # -- user sessions -----------------------------------------------------------------------------
    async def _check_sessions_forever(self) -> None:
        while True:
            await asyncio.sleep(self.settings.session_check_s)
            try:
                await self.user_sockets.check(self.platform.user_sessions)
            except Exception:  # never let one check's problem end the checker
                log.exception("session check failed")

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
        self._sweep_sources(now)
        for stream in self.streams.values():
            if stream.one_time_port is not None and stream.source is None \
                    and not request_open(stream, now, s.connect_timeout_s, s.source_grace_s):
                self.one_time_ports.close(stream.one_time_port)  # the request expired: so does its port
                stream.one_time_port = None
        for stream in list(self.streams.values()):
            has_source = stream.source is not None and not stream.source.closed
            if stream.watched:
                continue
            idle = stream.unwatched_for(now)
            if has_source and idle > s.idle_stop_s:
                log.info("stream %s: nobody watched for %.0f s: stopping", stream.info.stream_id, idle)
                self._drop(stream, "idle", notify=True, stop_terminal=True)
            elif not has_source and stream.source_lost_at is None and now - stream.created_at > s.connect_timeout_s \
                    and idle > s.connect_timeout_s:
                self._drop(stream, "the terminal never connected")
        for stream in list(self.streams.values()):
            if stream.source_lost_at is not None and stream.source is None \
                    and now - stream.source_lost_at > s.source_grace_s:
                self._drop(stream, "the terminal left")

    def _sweep_sources(self, now: float) -> None:
        """Close terminal connections that never identified themselves or went silent."""
        for source in list(self.sources):
            why = source.stale(now, self.settings)
            if why is None:
                continue
            if source.stream is None:
                self.counters.closed_unidentified += 1
            else:
                self.counters.closed_idle_sources += 1
            log.info("terminal connection %s: %s; closed", source.peer, why)
            source.close()

    def _revoke_superior(self, stream: Stream) -> None:
        granted = stream.info.superior
        if granted is None:
            return
        key = superior.pull_key(granted.plate, granted.plate_colour, granted.channel)
        if self.superior_pulls.get(key) == stream.info.stream_id:
            del self.superior_pulls[key]
        stream.info = replace(stream.info, superior=None)

    def _drop(self, stream: Stream, why: str, *, notify: bool = True, stop_terminal: bool = False) -> None:
        self.streams.pop(stream.info.stream_id, None)
        self._revoke_superior(stream)
        if stream.ended_at is None:
            stream.ended_at, stream.end_reason = datetime.now(UTC), why
            self._record(stream)
        self.one_time_ports.close(stream.one_time_port)
        stream.close_viewers(why)
        if stop_terminal and not stream.info.pulled:  # a pull ends by closing it: no terminal of ours to stop
            self.counters.stops_sent += 1
            self.spawn(self.platform.stop_terminal(stream.info))
        source = stream.source
        stream.source = None
        if source is not None:
            source.close()
        if stream.online and notify:
            self._channel_changed(stream, False)
        stream.online = False
