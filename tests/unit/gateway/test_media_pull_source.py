"""A stream fed by pulling another platform's media server (gateway/video/pull.py), over real loopback sockets:
fleetwatch as the superior platform registers a stream with the ``pullUrl`` an inferior's 0x1801 named, and a
console user watches it as FLV like a terminal's; a pull the other side refuses, or that is not JT/T 1078, ends
and its stream goes; a pulled stream never sends a 0x9102, a push 14 or a video log row (it has no device of
ours)."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from fleet.video_streams import SuperiorPull, pull_path
from gateway.video import flv
from gateway.video.hub import StreamInfo, stream_info_of
from tests.support.media import run_async, watch
from tests.unit.gateway.test_media_server import _info, _url, media_server, terminal

pytestmark = pytest.mark.timeout(60)
PLATE, CODE = "京A·00001", "c" * 64


def _pulled(port: int, path: str, enterprise: int = 9) -> StreamInfo:
    return stream_info_of({"streamId": "exchange-41", "kind": "live", "sim": "0", "channel": 1, "enterpriseId": enterprise,
                           "deviceId": 0, "plateNumber": PLATE, "pullUrl": f"http://127.0.0.1:{port}{path}"})


@run_async
async def test_a_console_user_watches_a_stream_pulled_from_an_inferior_platforms_media_server() -> None:
    async with media_server(source_grace_s=0.3) as inferior, media_server(source_grace_s=0.5) as ours:
        source = replace(_info(), superior=SuperiorPull(PLATE, 2, 1, 0, CODE))
        inferior.register(source)
        async with terminal(inferior, source, audio=False):
            pulled = _pulled(inferior.port, pull_path(SuperiorPull(PLATE, 2, 1, 0, CODE)))
            answer = ours.register(pulled)
            assert answer["live"]  # fed at once: no terminal to wait for
            watched = await watch(ours.port, _url(pulled), 2.5)
            status = ours.streams[pulled.stream_id].status()
        has_audio, has_video, tags = flv.parse_flv(bytes(watched.data))
        assert watched.status == 200 and has_video
        video = [t for t in tags if t.tag_type == flv.VIDEO and not t.is_config]
        assert video[0].keyframe and len(video) >= 30  # ~25 fps relayed
        assert status["frames"] >= 30 and status["online"]
        # the inferior ended its side (the terminal left): the pull ends, our stream goes after the grace
        for _ in range(40):
            if pulled.stream_id not in ours.streams:
                break
            await asyncio.sleep(0.1)
        assert pulled.stream_id not in ours.streams
        platform = ours.platform
        assert platform.stops == [] and platform.channel_events == [] and platform.viewers == []  # type: ignore[attr-defined]
        assert platform.sessions == []  # type: ignore[attr-defined]


@pytest.mark.parametrize("case", ["wrong code", "not jt1078"])
@run_async
async def test_a_refused_or_foreign_pull_ends_and_its_stream_goes(case: str) -> None:
    async with media_server() as inferior, media_server(source_grace_s=0.3) as ours:
        source = replace(_info(), superior=SuperiorPull(PLATE, 2, 1, 0, CODE))
        inferior.register(source)
        path = pull_path(SuperiorPull(PLATE, 2, 1, 0, "d" * 64)) if case == "wrong code" else "/healthz"
        pulled = _pulled(inferior.port, path)
        ours.register(pulled)
        for _ in range(40):
            if pulled.stream_id not in ours.streams:
                break
            await asyncio.sleep(0.1)
        assert pulled.stream_id not in ours.streams
        assert (await watch(ours.port, _url(pulled), 0.3)).status == 404


def test_a_pull_url_is_http_to_a_host_and_port() -> None:
    body = {"streamId": "exchange-1", "kind": "live", "sim": "0", "channel": 1, "enterpriseId": 9, "deviceId": 0}
    assert stream_info_of({**body, "pullUrl": "http://10.0.0.5:7618/x.2.1.0.c"}).pulled
    assert not stream_info_of(body).pulled
    for bad in ("file:///etc/passwd", "http:///x", "http://h:99999/x", "ftp://h/x", "http://h/" + "x" * 600):
        with pytest.raises(ValueError):
            stream_info_of({**body, "pullUrl": bad})
