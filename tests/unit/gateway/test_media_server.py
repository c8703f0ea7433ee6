"""The media server over real loopback sockets (gateway/video; no database: NullPlatform remembers what
it would have told the platform): a simulated terminal streams real H.264 + G.711A; viewers over
HTTP-FLV and WebSocket-FLV; the GOP cache, back-pressure, signed URLs, the idle stop, talk."""

from __future__ import annotations

import asyncio
import math
import socket
import struct
import time
import wave
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from fleet.settings import MediaServerSettings
from fleet.video_tokens import internal_key, sign
from gateway.video import flv, httpio
from gateway.video.hub import StreamInfo
from gateway.video.platform import NullPlatform
from gateway.video.server import MediaServer
from protocols.jt1078.talk import talk_frame
from simulator.video import MediaSession
from simulator.video_clips import Clip
from tests.support.media import busy_clip, cabin_audio_tone, open_viewer, run_async, tiny_clip, watch

pytestmark = pytest.mark.timeout(60)
SECRET = b"test-media-secret"
SIM = "013912345678"


def _info(kind: str = "live", channel: int = 1, data_type: int = 0, enterprise: int = 7) -> StreamInfo:
    # the simulated terminal's JT/T 808 session is on loopback, like its media connection
    return StreamInfo(f"11-{channel}-{kind}", kind, SIM, channel, data_type, 1, enterprise, 11, 21, "京A·00001",
                      SIM, "2013", source_address="127.0.0.1")


@asynccontextmanager
async def media_server(**overrides: Any) -> AsyncIterator[MediaServer]:
    settings = MediaServerSettings(host="127.0.0.1", port=0, **overrides)
    server = MediaServer(settings, SECRET, NullPlatform())
    await server.start()
    try:
        yield server
    finally:
        await server.close()


def _url(info: StreamInfo, *, kind: str = "view", enterprise: int | None = None, ttl: float = 60,
         stream_id: str | None = None) -> str:
    token, _ = sign(SECRET, stream_id or info.stream_id, info.enterprise_id if enterprise is None else enterprise, 5,
                    kind=kind, ttl_s=ttl)
    return f"/{'talk' if kind == 'talk' else 'live'}/{info.stream_id}{'' if kind == 'talk' else '.flv'}?token={token}"


@asynccontextmanager
async def terminal(server: MediaServer, info: StreamInfo, *, audio: bool = True, kind: str = "live",
                   talk_file: Path | None = None, clip: Clip | None = None) -> AsyncIterator[MediaSession]:
    video = None if kind in ("talk", "listen") else clip or tiny_clip()
    session = MediaSession("127.0.0.1", server.port, SIM, info.channel, video,
                           cabin_audio_tone() if audio else None, kind=kind, talk_file=talk_file)
    task = asyncio.create_task(session.run())
    try:
        yield session
    finally:
        session.stop()
        await asyncio.wait_for(task, 5)


def _video(tags: list[flv.Tag]) -> list[flv.Tag]:
    return [t for t in tags if t.tag_type == flv.VIDEO and not t.is_config]


@run_async
async def test_two_viewers_of_one_terminal_get_identical_frames_starting_on_a_key_frame() -> None:
    async with media_server() as server:
        info = _info()
        server.register(info)
        async with terminal(server, info):
            first, second = await asyncio.gather(
                watch(server.port, _url(info), 2.5),
                watch(server.port, _url(info), 2.5, websocket=True))
        assert (first.status, second.status) == (200, 101)
        for result in (first, second):
            has_audio, has_video, tags = flv.parse_flv(bytes(result.data))
            assert has_video and has_audio
            assert tags[0].tag_type == flv.SCRIPT
            assert flv.parse_metadata(tags[0].data)["videocodecid"] == flv.CODEC_AVC
            assert tags[1].tag_type == flv.VIDEO and tags[1].is_config  # AVC sequence header
            assert any(t.tag_type == flv.AUDIO and t.is_config for t in tags[:4])  # AAC sequence header
            video = _video(tags)
            assert video[0].keyframe and len(video) >= 40  # ~25 fps for 2.5 s
            assert [b.timestamp_ms - a.timestamp_ms for a, b in zip(video, video[1:], strict=False)] == [40] * (len(video) - 1)
            assert sum(t.tag_type == flv.AUDIO for t in tags) >= 15  # AAC at 16 kHz: 64 ms a frame
        a = {t.timestamp_ms: t.data for t in _video(first.tags())}
        b = {t.timestamp_ms: t.data for t in _video(second.tags())}
        common = set(a) & set(b)
        assert len(common) >= 40 and all(a[ts] == b[ts] for ts in common)
        assert server.streams[info.stream_id].status()["viewers"] == 0
        assert server.platform.channel_events[0] == (info.stream_id, True)  # type: ignore[attr-defined]


@run_async
async def test_a_viewer_that_arrives_late_starts_at_once_on_the_cached_key_frame() -> None:
    async with media_server() as server:
        info = _info()
        server.register(info)
        async with terminal(server, info, audio=False):
            await asyncio.sleep(1.3)  # mid-GOP
            started = time.monotonic()
            result = await watch(server.port, _url(info), 0.6)
        assert result.first_byte_at is not None and result.first_byte_at - started < 0.2
        video = _video(result.tags())
        assert video[0].keyframe
        assert not flv.parse_flv(bytes(result.data))[0]  # a video-only terminal: no audio track announced


@run_async
async def test_a_slow_viewer_skips_ahead_and_never_slows_the_other_or_the_terminal() -> None:
    async with media_server(viewer_queue_bytes=512 * 1024, viewer_lag_drop_s=0.5) as server:
        info = _info()
        server.register(info)
        async with terminal(server, info, clip=busy_clip()) as session:
            # the slow one asks and then reads nothing, with a tiny socket buffer
            stalled = socket.socket()
            stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            stalled.connect(("127.0.0.1", server.port))
            stalled.sendall(f"GET {_url(info)} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            started = time.monotonic()
            fast = await watch(server.port, _url(info), 4.0)
            elapsed = time.monotonic() - started
            for _ in range(40):
                if server.counters.viewers_dropped_slow:
                    break
                await asyncio.sleep(0.1)
            stalled.close()
        video = _video(fast.tags())
        span_s = (video[-1].timestamp_ms - video[0].timestamp_ms) / 1000
        assert len(video) == round(span_s * 25) + 1  # the fast one got every frame, none skipped
        assert span_s >= elapsed - 0.3  # in real time
        assert session.counters.video_frames >= int(elapsed * 25)  # the terminal was not slowed
        assert server.counters.viewers_dropped_slow == 1  # the slow one skipped, then was dropped


@pytest.mark.parametrize(("case", "status"), [
    ("unsigned", 403), ("bad signature", 403), ("expired", 403), ("talk token", 403),
    ("another stream's token", 404), ("another enterprise", 404),
])
@run_async
async def test_refuses_stream_urls_that_are_not_this_streams(case: str, status: int) -> None:
    async with media_server() as server:
        info = _info()
        server.register(info)
        other = _info(channel=2)
        server.register(other)
        path = {
            "unsigned": f"/live/{info.stream_id}.flv",
            "bad signature": _url(info)[:-3] + "AAA",
            "expired": _url(info, ttl=-1),
            "talk token": _url(info, kind="talk").replace("/talk/", "/live/").replace("?", ".flv?"),
            "another stream's token": _url(info, stream_id=other.stream_id),
            "another enterprise": _url(info, enterprise=8),
        }[case]
        result = await watch(server.port, path, 1.0)
        assert result.status == status
        assert not result.data.startswith(b"FLV")


@run_async
async def test_internal_calls_need_the_key() -> None:
    async with media_server() as server:
        for auth in ("", "Bearer wrong"):
            reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
            writer.write(f"GET /internal/streams/x HTTP/1.1\r\nAuthorization: {auth}\r\n\r\n".encode())
            assert (await reader.read(100)).startswith(b"HTTP/1.1 401")
            writer.close()
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(f"GET /internal/streams/x HTTP/1.1\r\nAuthorization: Bearer {internal_key(SECRET)}\r\n\r\n".encode())
        assert (await reader.read(100)).startswith(b"HTTP/1.1 404")
        writer.close()


@run_async
async def test_the_last_viewer_leaving_stops_the_terminal_after_the_grace_whatever_the_heartbeats() -> None:
    async with media_server(idle_stop_s=0.6) as server:
        info = _info()
        server.register(info)
        async with terminal(server, info) as session:
            await watch(server.port, _url(info), 0.8)
            await asyncio.sleep(0.3)
            assert server.platform.stops == []  # type: ignore[attr-defined]  # not yet: within the grace
            server.heartbeat([info.stream_id])  # a page that keeps its heartbeat does not keep the stream
            for _ in range(40):
                if session.stopped or server.platform.stops:  # type: ignore[attr-defined]
                    break
                await asyncio.sleep(0.05)
        assert server.platform.stops == [info.stream_id]  # type: ignore[attr-defined]
        assert info.stream_id not in server.streams
        assert server.platform.channel_events == [(info.stream_id, True), (info.stream_id, False)]  # type: ignore[attr-defined]


@run_async
async def test_an_unrequested_terminal_connection_is_closed() -> None:
    async with media_server() as server:
        session = MediaSession("127.0.0.1", server.port, "013900000000", 1, tiny_clip(), None)
        await asyncio.wait_for(session.run(), 5)  # returns: the server closed it
        assert server.counters.rejected_terminals == 1


@run_async
async def test_talk_audio_reaches_the_terminal_as_g711a_with_the_serial_wrapping(tmp_path: Path) -> None:
    async with media_server() as server:
        info = _info("talk", channel=36, data_type=2)
        server.register(info)
        talk_file = tmp_path / "talk.wav"
        async with terminal(server, info, kind="talk", talk_file=talk_file):
            for _ in range(50):  # the terminal's connection is bound on its first packet
                if server.streams[info.stream_id].source is not None:
                    break
                await asyncio.sleep(0.02)
            reader, writer, status, _ = await open_viewer(server.port, _url(info, kind="talk"), websocket=True)
            assert status == 101
            for n in range(25):  # 1 s of a 440 Hz tone, serials 65530 .. 65535, 0 .. 18
                samples = [round(10000 * math.sin(2 * math.pi * 440 * (n * 320 + i) / 8000)) for i in range(320)]
                writer.write(httpio.ws_client_frame(talk_frame(samples, 65530 + n, n * 40)))
                await writer.drain()
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.3)
            writer.close()
        assert server.counters.talk_frames_in == 25 and server.counters.talk_frames_lost == 0
        with wave.open(str(talk_file)) as recorded:
            pcm = struct.unpack(f"<{recorded.getnframes()}h", recorded.readframes(recorded.getnframes()))
        assert len(pcm) == 25 * 320
        crossings = sum(1 for a, b in zip(pcm, pcm[1:], strict=False) if a < 0 <= b)
        assert 420 <= crossings <= 460  # 440 Hz for 1 s


@run_async
async def test_heartbeats_alone_do_not_keep_a_stream_nobody_watches() -> None:
    async with media_server(idle_stop_s=0.6) as server:
        info = _info()
        server.register(info)
        async with terminal(server, info):
            for _ in range(30):  # a hidden page keeps beating, no player is connected
                server.heartbeat([info.stream_id])
                if server.platform.stops:  # type: ignore[attr-defined]
                    break
                await asyncio.sleep(0.1)
        assert server.platform.stops == [info.stream_id]  # type: ignore[attr-defined]


@run_async
async def test_an_open_talk_socket_keeps_its_talk_stream_past_the_grace() -> None:
    async with media_server(idle_stop_s=0.4) as server:
        info = _info("talk", channel=36, data_type=2)
        server.register(info)
        async with terminal(server, info, kind="talk"):
            _, writer, status, _ = await open_viewer(server.port, _url(info, kind="talk"), websocket=True)
            assert status == 101
            await asyncio.sleep(1.2)  # three graces with the microphone open and silent
            assert server.platform.stops == []  # type: ignore[attr-defined]
            writer.close()
            for _ in range(30):
                if server.platform.stops:  # type: ignore[attr-defined]
                    break
                await asyncio.sleep(0.1)
        assert server.platform.stops == [info.stream_id]  # type: ignore[attr-defined]
