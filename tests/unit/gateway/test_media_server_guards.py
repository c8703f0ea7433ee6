"""The media server's guards over real loopback sockets (gateway/video/admission.py, sessions.py): a
terminal connection is admitted only to a stream the platform asked for, from the terminal asked, and
never replaces a live source; talk audio reaches only that source; silent and unidentified connections
are closed; connections per address are capped; the HTTP side has no wildcard CORS, the API's security
headers and a health answer that says nothing; a revoked user's viewer and talk socket are closed.

127.0.0.2 plays "another host" (every loopback address reaches the server on 127.0.0.1)."""

from __future__ import annotations

import asyncio
import json
import math
import socket
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from fleet.settings import MediaServerSettings
from fleet.video_tokens import sign
from gateway.video import flv, httpio
from gateway.video.hub import StreamInfo
from gateway.video.platform import NullPlatform
from gateway.video.server import MediaServer
from protocols.jt1078 import I_FRAME, encode_packet, packetize
from protocols.jt1078.payload_types import H264
from protocols.jt1078.talk import talk_frame
from simulator.video import MediaSession
from simulator.video_clips import render_clip
from tests.support.media import cabin_audio_tone, forge, open_viewer, run_async, tiny_clip, watch

pytestmark = pytest.mark.timeout(60)
SECRET = b"test-media-guards"
SIM = "013912345678"
USER = 5


def _info(kind: str = "live", channel: int = 1, data_type: int = 0, source: str | None = "127.0.0.1") -> StreamInfo:
    return StreamInfo(f"11-{channel}-{kind}", kind, SIM, channel, data_type, 1, 7, 11, 21, "京A·00001", SIM, "2013",
                      source_address=source)


def _url(info: StreamInfo, *, kind: str = "view", epoch: int | None = None) -> str:
    token, _ = sign(SECRET, info.stream_id, info.enterprise_id, USER, kind=kind, ttl_s=60, session_epoch=epoch)
    return f"/{'talk' if kind == 'talk' else 'live'}/{info.stream_id}{'' if kind == 'talk' else '.flv'}?token={token}"


@asynccontextmanager
async def media_server(**overrides: Any) -> AsyncIterator[MediaServer]:
    server = MediaServer(MediaServerSettings(host="127.0.0.1", port=0, **overrides), SECRET, NullPlatform())
    await server.start()
    try:
        yield server
    finally:
        await server.close()


@asynccontextmanager
async def terminal(port: int, info: StreamInfo, *, kind: str = "live", talk_file: Path | None = None
                   ) -> AsyncIterator[MediaSession]:
    session = MediaSession("127.0.0.1", port, SIM, info.channel, None if kind == "talk" else tiny_clip(),
                           cabin_audio_tone(), kind=kind, talk_file=talk_file)
    task = asyncio.create_task(session.run())
    try:
        yield session
    finally:
        session.stop()
        await asyncio.wait_for(task, 5)


async def _until(condition: Any, timeout_s: float = 5.0) -> None:
    async with asyncio.timeout(timeout_s):
        while not condition():
            await asyncio.sleep(0.02)


def _forged_clip() -> Any:
    """Another picture size than the real camera's: its parameter sets would show up as a second AVC
    sequence header in the viewer's FLV."""
    return render_clip("FAKE", 1, "sub", frames=25, size=(160, 96), bit_rate=100_000)


async def _attack_while_watching(server: MediaServer, info: StreamInfo, local_ip: str) -> tuple[Any, Any, Any]:
    async with terminal(server.port, info) as real:
        await _until(lambda: server.streams[info.stream_id].online)
        real_source = server.streams[info.stream_id].source
        viewed, forged = await asyncio.gather(
            watch(server.port, _url(info), 2.5),
            forge(server.port, SIM, info.channel, 1.0, local_ip=local_ip, clip=_forged_clip()))
        assert server.streams[info.stream_id].source is real_source  # still the real camera
        assert not real.stopped and real.counters.video_frames > 0
    return viewed, forged, real


@run_async
async def test_refuses_a_terminal_connection_from_another_address_and_the_real_feed_keeps_flowing() -> None:
    async with media_server() as server:
        info = _info()
        server.register(info)
        viewed, forged, _ = await _attack_while_watching(server, info, "127.0.0.2")
        assert forged.closed_by_server_after_s is not None and forged.closed_by_server_after_s < 0.5
        tags = viewed.tags()
        configs = [t.data for t in tags if t.tag_type == flv.VIDEO and t.is_config]
        assert len(set(configs)) == 1  # only the real camera's parameter sets: 0 forged frames
        video = [t for t in tags if t.tag_type == flv.VIDEO and not t.is_config]
        assert len(video) >= 50  # 2.5 s at 25 fps: the real feed never stopped
        assert server.counters.second_sources == 1


@run_async
async def test_a_forger_from_another_address_that_is_first_to_connect_is_refused_and_the_terminal_admitted() -> None:
    async with media_server() as server:
        info = _info()
        server.register(info)  # 0x9101 sent: the stream waits for its terminal
        forged = await forge(server.port, SIM, info.channel, 0.5, local_ip="127.0.0.2", clip=_forged_clip())
        assert forged.closed_by_server_after_s is not None and forged.closed_by_server_after_s < 0.5
        assert server.streams[info.stream_id].source is None and server.counters.refused_sources == 1
        async with terminal(server.port, info):
            await _until(lambda: server.streams[info.stream_id].online)
            viewed = await watch(server.port, _url(info), 1.0)
        assert len({t.data for t in viewed.tags() if t.tag_type == flv.VIDEO and t.is_config}) == 1


@run_async
async def test_a_second_connection_from_the_same_address_does_not_replace_the_live_source() -> None:
    async with media_server() as server:
        info = _info()
        server.register(info)
        viewed, forged, _ = await _attack_while_watching(server, info, "127.0.0.1")
        assert forged.closed_by_server_after_s is not None and forged.closed_by_server_after_s < 0.5
        configs = {t.data for t in viewed.tags() if t.tag_type == flv.VIDEO and t.is_config}
        assert len(configs) == 1
        assert server.counters.second_sources == 1


@run_async
async def test_a_terminal_connection_after_the_request_expired_is_refused() -> None:
    clip = tiny_clip()
    async with media_server(connect_timeout_s=0.3) as server:
        info = _info()
        server.register(info)

        # a viewer waiting for the picture keeps the stream, never the request
        _, viewer, status, _ = await open_viewer(server.port, _url(info))
        assert status == 200
        await asyncio.sleep(0.5)
        forged = await forge(server.port, SIM, info.channel, 1.0, clip=clip)
        viewer.close()
        assert forged.closed_by_server_after_s is not None
        assert server.streams[info.stream_id].source is None  # still registered, refused as expired


@run_async
async def test_after_a_talk_request_a_client_that_is_not_the_source_receives_no_microphone_frames(
        tmp_path: Path) -> None:
    async with media_server() as server:
        info = _info("talk", channel=36, data_type=2)
        server.register(info)
        talk_file = tmp_path / "talk.wav"
        async with terminal(server.port, info, kind="talk", talk_file=talk_file):
            await _until(lambda: server.streams[info.stream_id].source is not None)
            eavesdroppers = [asyncio.create_task(forge(server.port, SIM, 36, 1.5, local_ip=ip, audio=True))
                             for ip in ("127.0.0.1", "127.0.0.2")]
            await asyncio.sleep(0.1)
            reader, writer, status, _ = await open_viewer(server.port, _url(info, kind="talk"), websocket=True)
            assert status == 101
            for n in range(25):
                samples = [round(8000 * math.sin(2 * math.pi * 440 * (n * 320 + i) / 8000)) for i in range(320)]
                writer.write(httpio.ws_client_frame(talk_frame(samples, n, n * 40)))
                await writer.drain()
                await asyncio.sleep(0.02)
            results = await asyncio.gather(*eavesdroppers)
            writer.close()
        assert [r.packets_received for r in results] == [0, 0]
        assert server.counters.talk_frames_in == 25
        assert talk_file.stat().st_size >= 44 + 25 * 640  # the real terminal heard all of it


@run_async
async def test_silent_and_never_identified_connections_are_closed_within_the_deadline() -> None:
    async with media_server(identify_deadline_s=0.5, source_idle_s=0.6) as server:
        started = time.monotonic()
        silent = await asyncio.open_connection("127.0.0.1", server.port)
        magic_only = await asyncio.open_connection("127.0.0.1", server.port)
        magic_only[1].write(b"\x30\x31\x63\x64\x81")  # a terminal's first bytes, then nothing
        half_http = await asyncio.open_connection("127.0.0.1", server.port)
        half_http[1].write(b"GET /healthz HTTP/1.1\r\n")
        for reader, _writer in (silent, magic_only, half_http):
            await asyncio.wait_for(reader.read(), 3)  # EOF (the HTTP one after a 408)
            assert time.monotonic() - started < 1.5
        assert server.counters.closed_unidentified == 3


@run_async
async def test_a_bound_terminal_that_goes_silent_is_closed() -> None:
    async with media_server(source_idle_s=0.5) as server:
        info = _info()
        server.register(info)
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        frame = tiny_clip().frames[0][0]
        for packet in packetize(H264, SIM, 1, I_FRAME, frame, seq=0, timestamp_ms=0):
            writer.write(encode_packet(packet))
        await writer.drain()
        await _until(lambda: server.streams[info.stream_id].source is not None)
        started = time.monotonic()
        assert await asyncio.wait_for(reader.read(), 3) == b""
        assert 0.4 < time.monotonic() - started < 1.5
        assert server.counters.closed_idle_sources == 1


@run_async
async def test_connections_per_address_are_capped() -> None:
    async with media_server(max_connections_per_address=3, identify_deadline_s=5) as server:
        held = [await asyncio.open_connection("127.0.0.1", server.port) for _ in range(3)]
        await asyncio.sleep(0.1)
        reader, _ = await asyncio.open_connection("127.0.0.1", server.port)
        assert await asyncio.wait_for(reader.read(), 2) == b""  # the fourth is closed at once
        other, other_writer = await asyncio.open_connection("127.0.0.1", server.port, local_addr=("127.0.0.2", 0))
        other_writer.write(b"GET /healthz HTTP/1.1\r\n\r\n")
        assert (await asyncio.wait_for(other.read(), 2)).startswith(b"HTTP/1.1 200")  # another address is not
        held[0][1].close()
        await asyncio.sleep(0.2)
        again, again_writer = await asyncio.open_connection("127.0.0.1", server.port)
        again_writer.write(b"GET /healthz HTTP/1.1\r\n\r\n")
        assert (await asyncio.wait_for(again.read(), 2)).startswith(b"HTTP/1.1 200")
        assert server.counters.refused_over_cap == 1
        for _, writer in held[1:]:
            writer.close()


async def _http(port: int, head: str) -> tuple[int, dict[str, str], bytes]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(head.encode())
    raw = await asyncio.wait_for(reader.read(65536), 3)
    writer.close()
    top, _, body = raw.partition(b"\r\n\r\n")
    lines = top.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    return int(lines[0].split(" ")[1]), headers, body


@run_async
async def test_healthz_says_only_ok() -> None:
    async with media_server() as server:
        server.register(_info())
        status, _, body = await _http(server.port, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        assert status == 200 and json.loads(body) == {"ok": True}


@run_async
async def test_no_wildcard_cors_the_consoles_origin_only_and_the_apis_security_headers() -> None:
    from api.security import STATIC_HEADERS

    async with media_server() as server:
        info = _info()
        server.register(info)
        host = f"Host: 127.0.0.1:{server.port}\r\n"
        status, headers, _ = await _http(server.port, f"OPTIONS {_url(info)} HTTP/1.1\r\n{host}"
                                                      "Origin: http://127.0.0.1:8080\r\n\r\n")
        assert status == 204 and headers["access-control-allow-origin"] == "http://127.0.0.1:8080"
        status, headers, _ = await _http(server.port, f"OPTIONS {_url(info)} HTTP/1.1\r\n{host}"
                                                      "Origin: https://evil.example\r\n\r\n")
        assert status == 403 and "access-control-allow-origin" not in headers
        evil = await _http(server.port, f"GET {_url(info)} HTTP/1.1\r\n{host}Origin: https://evil.example\r\n\r\n")
        assert evil[0] == 403 and not evil[2].startswith(b"FLV")
        for head in (f"GET /healthz HTTP/1.1\r\n{host}\r\n", f"GET /nothing HTTP/1.1\r\n{host}\r\n",
                     f"GET /healthz HTTP/1.1\r\n{host}Origin: http://127.0.0.1:8080\r\n\r\n"):
            status, headers, _ = await _http(server.port, head)
            assert headers.get("access-control-allow-origin") != "*"
            for name, value in STATIC_HEADERS.items():
                assert headers[name.lower()] == value
            assert "frame-ancestors 'none'" in headers["content-security-policy"]


@run_async
async def test_configured_origins_are_the_only_ones_allowed() -> None:
    async with media_server(allowed_origins=["https://console.example.com"]) as server:
        info = _info()
        server.register(info)
        host = f"Host: 127.0.0.1:{server.port}\r\n"
        ok = await _http(server.port, f"OPTIONS {_url(info)} HTTP/1.1\r\n{host}Origin: https://console.example.com\r\n\r\n")
        same_host = await _http(server.port, f"OPTIONS {_url(info)} HTTP/1.1\r\n{host}Origin: http://127.0.0.1:8080\r\n\r\n")
        assert ok[0] == 204 and ok[1]["access-control-allow-origin"] == "https://console.example.com"
        assert same_host[0] == 403


@run_async
async def test_a_revoked_users_open_viewer_and_talk_socket_are_closed() -> None:
    async with media_server(session_check_s=0.2) as server:
        platform = server.platform
        assert isinstance(platform, NullPlatform)
        platform.users = {USER: (4, True)}
        live, talk = _info(), _info("talk", channel=36, data_type=2)
        server.register(live)
        server.register(talk)
        async with terminal(server.port, live), terminal(server.port, talk, kind="talk"):
            await _until(lambda: server.streams[live.stream_id].online)
            viewer, viewer_writer, status, _ = await open_viewer(server.port, _url(live, epoch=4))
            talker, talker_writer, talk_status, _ = await open_viewer(server.port, _url(talk, kind="talk", epoch=4),
                                                                      websocket=True)
            assert (status, talk_status) == (200, 101)
            assert await asyncio.wait_for(viewer.read(1000), 2)  # streaming
            await asyncio.sleep(0.5)
            assert len(server.streams[live.stream_id].viewers) == 1  # a valid session is left alone
            platform.users = {USER: (5, True)}  # password changed / sessions revoked: the epoch moves on
            started = time.monotonic()

            async def until_eof(reader: asyncio.StreamReader) -> None:
                while await reader.read(65536):
                    pass

            await asyncio.wait_for(asyncio.gather(until_eof(viewer), until_eof(talker)), 3)
            assert time.monotonic() - started < 1.5
            viewer_writer.close()
            talker_writer.close()
        assert server.user_sockets.closed_revoked == 2


@run_async
async def test_a_disabled_or_deleted_user_is_revoked_whatever_the_epoch() -> None:
    async with media_server(session_check_s=0.2) as server:
        platform = server.platform
        assert isinstance(platform, NullPlatform)
        info = _info()
        server.register(info)
        async with terminal(server.port, info):
            await _until(lambda: server.streams[info.stream_id].online)
            for users in ({USER: (0, False)}, {}):  # disabled, then deleted
                platform.users = {USER: (0, True)}
                reader, writer, status, _ = await open_viewer(server.port, _url(info))  # a URL without an epoch
                assert status == 200 and await asyncio.wait_for(reader.read(100), 2)
                platform.users = users
                async with asyncio.timeout(3):
                    while await reader.read(65536):
                        pass
                writer.close()


def test_one_time_port_range_parses() -> None:
    from gateway.video.admission import parse_port_range

    assert parse_port_range("7620-7622") == range(7620, 7623)
    assert parse_port_range("7630") == range(7630, 7631)
    for bad in ("0-10", "9-1", "x", "70000"):
        with pytest.raises(ValueError):
            parse_port_range(bad)


def _free_port_range(size: int) -> str:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    first = sock.getsockname()[1]
    sock.close()
    return f"{first}-{first + size - 1}"


@run_async
async def test_port_policy_admits_only_the_one_time_port_of_the_request_from_any_address() -> None:
    async with media_server(source_policy="port", one_time_ports=_free_port_range(4)) as server:
        info = _info(source=None)  # carrier NAT: the session address says nothing
        answer = server.register(info)
        assert answer["live"] is False
        port = await server._request_port(server.streams[info.stream_id])
        assert port != server.port
        on_main = await forge(server.port, SIM, 1, 0.5, clip=tiny_clip())
        assert on_main.closed_by_server_after_s is not None  # the main port admits nobody under this policy
        session = MediaSession("127.0.0.1", port, SIM, 1, tiny_clip(), None)
        running = asyncio.create_task(session.run())
        try:
            await _until(lambda: server.streams[info.stream_id].online)
            with pytest.raises(OSError):  # valid for that request only: closed once the terminal is bound
                await asyncio.open_connection("127.0.0.1", port)
        finally:
            session.stop()
            await asyncio.wait_for(running, 5)


@run_async
async def test_a_one_time_port_closes_when_its_request_expires() -> None:
    async with media_server(source_policy="port", one_time_ports=_free_port_range(2), connect_timeout_s=0.3) as server:
        info = _info(source=None)
        server.register(info)
        port = await server._request_port(server.streams[info.stream_id])
        reader, writer = await asyncio.open_connection("127.0.0.1", port)  # listening while the request stands
        writer.close()
        await asyncio.sleep(0.7)  # expired (and the stream dropped: its terminal never connected)
        with pytest.raises(OSError):
            await asyncio.open_connection("127.0.0.1", port)



def test_a_socket_without_a_user_is_not_checked() -> None:
    from gateway.video.sessions import UserSockets

    sockets = UserSockets()
    assert sockets.add(None, None, lambda why: None, "viewer") is None
    assert sockets.add(0, None, lambda why: None, "viewer") is None  # an open platform app's token
    assert not sockets.open


@run_async
async def test_the_terminal_reconnecting_within_the_grace_time_feeds_its_stream_again() -> None:
    clip = tiny_clip()  # rendered before the request's clock starts
    async with media_server(connect_timeout_s=0.3, source_grace_s=5) as server:
        info = _info()
        server.register(info)
        first = await forge(server.port, SIM, 1, 0.3, clip=clip)
        assert first.closed_by_server_after_s is None
        await asyncio.sleep(0.5)  # past connect_timeout_s: only the grace time lets it back
        again = await forge(server.port, SIM, 1, 0.3, clip=clip)
        assert again.closed_by_server_after_s is None
        stranger = await forge(server.port, SIM, 1, 0.3, local_ip="127.0.0.2", clip=clip)
        assert stranger.closed_by_server_after_s is not None  # the grace is the terminal's, not anyone's


def test_cap_refusals_are_logged_at_a_bounded_rate_and_counted_exactly() -> None:
    from gateway.video.admission import AddressCounter, BoundedLog

    counter = AddressCounter(1)
    assert counter.acquire("10.0.0.1") and not counter.acquire("10.0.0.1")
    refusals = BoundedLog(every_s=10)
    reported = [refusals.due("cap", "10.0.0.1", t / 10) for t in range(150)]  # 15 s of refusals, 10 a second
    assert reported[0] == 1 and sum(1 for n in reported if n) == 2 and sum(reported) == 101  # the rest still pending
    assert refusals.due("cap", "10.0.0.2", 14.9) == 1 and refusals.due("policy", "10.0.0.1", 14.9) == 1
