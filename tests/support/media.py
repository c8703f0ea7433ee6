"""Helpers for media server tests: a viewer over HTTP-FLV or WebSocket-FLV, a talk client, tiny clips."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import functools
import os
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from gateway.video import flv, httpio
from simulator.video_clips import Clip, render_clip


def run_async(fn: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
    """A coroutine test as a plain one (the suite has no asyncio plugin): ``asyncio.run`` per test."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        asyncio.run(fn(*args, **kwargs))

    return wrapper


@cache
def tiny_clip(channel: int = 1, frames: int = 50) -> Clip:
    """A 320x180 clip of ``frames`` frames (2 GOPs by default): quick to make, real H.264."""
    return render_clip("TEST", channel, "sub", frames=frames, size=(320, 180), bit_rate=200_000)


@cache
def busy_clip() -> Clip:
    """960x540 at about 2.7 Mbit/s, 2 s: enough bytes to fill a stalled viewer's buffers quickly."""
    return render_clip("TEST", 1, "sub", frames=50, size=(960, 540), bit_rate=3_000_000)


def cabin_audio_tone(seconds: float = 2.0) -> bytes:
    import math

    from protocols.jt1078.g711 import alaw_encode

    return alaw_encode([round(5000 * math.sin(2 * math.pi * 500 * n / 8000)) for n in range(int(8000 * seconds))])


@dataclass
class ViewerResult:
    status: int = 0
    head: bytes = b""
    data: bytearray = field(default_factory=bytearray)
    first_byte_at: float | None = None

    def tags(self) -> list[flv.Tag]:
        return flv.parse_flv(bytes(self.data))[2]


async def open_viewer(port: int, path: str, *, websocket: bool = False) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, int, bytes]:
    """Connect and send the request; (reader, writer, status, body bytes already read)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    headers = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
    if websocket:
        key = base64.b64encode(os.urandom(16)).decode()
        headers += f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
    writer.write((headers + "\r\n").encode())
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head.split(b" ")[1])
    return reader, writer, status, b""


async def watch(port: int, path: str, seconds: float, *, websocket: bool = False) -> ViewerResult:
    """Read a stream for ``seconds``; WebSocket messages are unwrapped into the FLV bytes."""
    loop = asyncio.get_running_loop()
    result = ViewerResult()
    reader, writer, result.status, _ = await open_viewer(port, path, websocket=websocket)
    frames = httpio.WsReader(max_message=1 << 24, require_mask=False)
    deadline = loop.time() + seconds
    try:
        while result.status in (101, 200):
            left = deadline - loop.time()
            if left <= 0:
                break
            try:
                chunk = await asyncio.wait_for(reader.read(65536), left)
            except TimeoutError:
                break
            if not chunk:
                break
            if result.first_byte_at is None:
                result.first_byte_at = loop.time()
            if websocket:
                for _opcode, payload in frames.feed(chunk):
                    result.data += payload
            else:
                result.data += chunk
        if result.status not in (101, 200):
            with contextlib.suppress(Exception):
                result.data += await asyncio.wait_for(reader.read(65536), 2)
    finally:
        writer.close()
    return result


class ThreadedMediaServer:
    """A media server on its own event loop thread (for tests whose client is synchronous: Flask's
    test client). ``submit(coro)`` runs a coroutine on that loop and returns its concurrent future."""

    def __init__(self, secret: bytes, platform: Any = None, **settings: Any) -> None:
        import threading

        from fleet.settings import MediaServerSettings
        from gateway.video.server import MediaServer

        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="media-server", daemon=True)
        self._thread.start()
        self.server = MediaServer(MediaServerSettings(host="127.0.0.1", port=0, **settings), secret, platform)
        self.submit(self.server.start()).result(10)
        self.port = self.server.port

    def submit(self, coro: Coroutine[Any, Any, Any]) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def call(self, fn: Callable[[], Any]) -> Any:
        """Run a plain function on the loop (server state is only touched there)."""
        async def run() -> Any:
            return fn()

        return self.submit(run()).result(10)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.submit(self.server.close()).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(5)


@dataclass
class ForgerResult:
    frames_sent: int = 0
    packets_received: int = 0  # what the server sent back (talk audio meant for the terminal)
    closed_by_server_after_s: float | None = None


async def forge(port: int, sim: str, channel: int, seconds: float, *, local_ip: str = "127.0.0.1",
                clip: Clip | None = None, audio: bool = False) -> ForgerResult:
    """An unauthenticated client that sends JT/T 1078 packets with a terminal's SIM and channel (H.264 of
    ``clip``, or G.711A silence with ``audio``) at 25 a second for ``seconds``, from ``local_ip`` (a loopback
    address: 127.0.0.2 is "another host"), and counts the packets the server sends it."""
    from protocols.jt1078 import AUDIO, I_FRAME, P_FRAME, PacketReader, encode_packet, packetize
    from protocols.jt1078.payload_types import G711A, H264

    loop = asyncio.get_running_loop()
    result = ForgerResult()
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(local_ip, 0))
    started = loop.time()
    packets = PacketReader()

    async def listen() -> None:
        while True:
            try:
                data = await reader.read(65536)
            except ConnectionError:  # the server reset it (a write of ours hit the closed socket)
                data = b""
            if not data:
                result.closed_by_server_after_s = loop.time() - started
                return
            result.packets_received += sum(1 for item in packets.feed(data) if not isinstance(item, Exception))

    listening = asyncio.create_task(listen())
    seq = 0
    try:
        n = 0
        while loop.time() - started < seconds and not listening.done():
            if audio or clip is None:
                frame, data_type, payload_type = bytes(320), AUDIO, G711A
            else:
                frame, key = clip.frames[n % len(clip.frames)]
                data_type, payload_type = (I_FRAME if key else P_FRAME), H264
            for packet in packetize(payload_type, sim.zfill(12), channel, data_type, frame, seq=seq,
                                    timestamp_ms=int(started * 1000) + 40 * n):
                writer.write(encode_packet(packet))
                seq = (seq + 1) & 0xFFFF
            with contextlib.suppress(ConnectionError):
                await writer.drain()
            result.frames_sent += 1
            n += 1
            await asyncio.sleep(0.04)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(listening), 0.3)
    finally:
        listening.cancel()
        await asyncio.gather(listening, return_exceptions=True)
        writer.close()
    return result
