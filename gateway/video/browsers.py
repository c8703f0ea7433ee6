"""The browser side of the media server: viewers (HTTP-FLV, WebSocket-FLV) and the talk socket.

A viewer or talk socket opens with a URL the API signed (fleet/video_tokens.py) and is registered with
the server's ``UserSockets``, which ends it when its user's session is revoked (sessions.py). Talk audio
goes to the stream's admitted terminal connection only (admission.py)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from fleet.video_tokens import StreamClaims, TokenError, verify
from gateway.video import httpio
from gateway.video.httpio import HttpError, Request
from gateway.video.hub import Stream, Viewer
from gateway.video.terminal import TerminalSource
from protocols.jt1078 import JT1078Error
from protocols.jt1078.talk import parse_talk_frame, seq_gap

if TYPE_CHECKING:
    from gateway.video.server import MediaServer

log = logging.getLogger("gateway.video")

FLV_HEADERS = {"Content-Type": "video/x-flv", "Cache-Control": "no-store", "Connection": "close"}
# a superior's pull of the terminal's own JT/T 1078 packets (JT/T 1078-2016 §6.1, table 18): no registered type
PACKET_HEADERS = {"Content-Type": "application/octet-stream", "Cache-Control": "no-store", "Connection": "close"}


def authorise(server: MediaServer, request: Request, stream_id: str, kind: str) -> tuple[Stream, StreamClaims]:
    try:
        claims = verify(server.secret, request.query.get("token"), kind=kind)
    except TokenError as exc:
        raise HttpError(403, f"stream URL refused: {exc.reason}") from None
    stream = server.streams.get(stream_id)
    if claims.stream_id != stream_id or stream is None or stream.info.enterprise_id != claims.enterprise_id:
        raise HttpError(404, "no such stream")
    return stream, claims


async def serve_viewer(server: MediaServer, request: Request, reader: asyncio.StreamReader,
                       writer: asyncio.StreamWriter, stream_id: str) -> None:
    stream, claims = authorise(server, request, stream_id, "view")
    await serve_stream(server, request, reader, writer, stream, claims.user_id, claims.session_epoch)


async def serve_stream(server: MediaServer, request: Request, reader: asyncio.StreamReader,
                       writer: asyncio.StreamWriter, stream: Stream, user_id: int | None,
                       session_epoch: int | None, *, packets: bool = False) -> None:
    """FLV of ``stream`` to an admitted viewer (a console user's, or a superior platform's with no user);
    ``packets``: the terminal's JT/T 1078 packets instead (a superior's plain HTTP pull)."""
    if len(stream.viewers) >= server.settings.max_viewers:
        raise HttpError(503, "too many viewers of this stream")
    ws = request.wants_websocket
    headers = PACKET_HEADERS if packets else FLV_HEADERS
    writer.write(httpio.websocket_handshake(request) if ws
                 else httpio.response_head(200, {**headers, **request.extra.get("cors", {})}))
    viewer = Viewer(user_id, "ws" if ws else "http", request.peer, server.settings.viewer_queue_bytes,
                    server.settings.viewer_lag_drop_s, packets=packets)
    sock = writer.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, server.settings.viewer_socket_buffer_bytes)
    viewer.abort = writer.transport.abort
    server.counters.viewers_started += 1
    user_socket = server.user_sockets.add(user_id, session_epoch, viewer.close, "viewer")
    stream.add_viewer(viewer)
    server.spawn(log_viewer(server, stream, viewer))
    write: Callable[[bytes], None] = (lambda data: writer.write(httpio.ws_frame(data))) if ws else writer.write
    pump = asyncio.create_task(viewer.pump(write, writer.drain))
    watch = asyncio.create_task(watch_client(reader, writer, ws, viewer))
    try:
        await asyncio.wait({pump, watch}, return_when=asyncio.FIRST_COMPLETED)
    except ConnectionError:
        pass
    finally:
        server.user_sockets.discard(user_socket)
        viewer.close(viewer.closed or "left")
        if viewer.closed == "too slow":
            server.counters.viewers_dropped_slow += 1
        for task in (pump, watch):
            task.cancel()
        await asyncio.gather(pump, watch, return_exceptions=True)
        stream.remove_viewer(viewer)
        if not stream.info.pulled:  # the video log is per device of ours (pull.py)
            server.spawn(server.platform.viewer_ended(stream.info, viewer))
        writer.transport.abort() if viewer.closed == "too slow" else writer.close()


async def log_viewer(server: MediaServer, stream: Stream, viewer: Viewer) -> None:
    if not stream.info.pulled:
        viewer.log_id = await server.platform.viewer_started(stream.info, viewer)


async def watch_client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, ws: bool,
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


async def serve_talk(server: MediaServer, request: Request, reader: asyncio.StreamReader,
                     writer: asyncio.StreamWriter, stream_id: str) -> None:
    stream, claims = authorise(server, request, stream_id, "talk")
    if stream.info.kind != "talk":
        raise HttpError(404, "not a talk stream")
    if not request.wants_websocket:
        raise HttpError(400, "the talk socket is a WebSocket")
    writer.write(httpio.websocket_handshake(request))

    def end(why: str) -> None:  # the user's session was revoked: the microphone is cut at once
        writer.transport.abort()

    user_socket = server.user_sockets.add(claims.user_id, claims.session_epoch, end, "talk socket")
    stream.talk_sockets += 1  # an open microphone watches the talk stream as a viewer does
    try:
        await relay_talk(server, reader, writer, stream, stream_id)
    finally:
        stream.talk_sockets -= 1
        stream.last_viewer_at = time.monotonic()
        server.user_sockets.discard(user_socket)


async def relay_talk(server: MediaServer, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                     stream: Stream, stream_id: str) -> None:
    """The browser's microphone frames to the stream's admitted terminal connection, and to nobody else."""
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
            server.counters.talk_frames_lost += gap
            previous = seq
            server.counters.talk_frames_in += 1
            stream.last_heartbeat = time.monotonic()
            source = stream.source
            if isinstance(source, TerminalSource):
                source.send_talk(samples)
        await writer.drain()

# -- housekeeping ------------------------------------------------------------------------------
