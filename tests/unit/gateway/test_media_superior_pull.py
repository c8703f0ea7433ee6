"""A superior platform's pull (JT/T 1078-2016 §6.2) over real loopback sockets: a stream registered with a
superior's plate, colour, channel and authorisation code is served as the terminal's JT/T 1078 packets (FLV
when the client asks) at
``/<plate>.<colour>.<channel>.<av flag>.<code>`` to that code only; the regulator in a box's client
(exchange/regulator/video.py) does the pulling."""

from __future__ import annotations

import asyncio
import contextlib
import json
import urllib.error
import urllib.request
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import quote

import pytest

from exchange.regulator.video import pull
from fleet.video_streams import PullLocation, SuperiorPull, pull_path, refusal
from gateway.video.hub import stream_info_of
from protocols.jt1078 import ATOMIC, AUDIO, FIRST, I_FRAME, Packet, PacketReader
from tests.support.media import run_async, watch
from tests.unit.gateway.test_media_server import SIM, _info, _url, media_server, terminal

pytestmark = pytest.mark.timeout(60)
PLATE, CODE = "京A·00001", "a" * 32 + "0123456789" * 3 + "bc"


@run_async
async def test_a_superior_pulls_the_registered_stream_with_its_code_only() -> None:
    async with media_server() as server:
        info = replace(_info(), superior=SuperiorPull(PLATE, 2, 1, 0, CODE))
        server.register(info)
        async with terminal(server, info, audio=False):
            right = await pull("127.0.0.1", server.port, SuperiorPull(PLATE, 2, 1, 0, CODE), 1.5)
            wrong = await pull("127.0.0.1", server.port, SuperiorPull(PLATE, 2, 1, 0, "b" * 64), 0.5)
            other_channel = await pull("127.0.0.1", server.port, SuperiorPull(PLATE, 2, 2, 0, CODE), 0.5)
        assert right["status"] == 200 and right["jt1078"] and right["bytes"] > 10_000
        assert (wrong["status"], wrong["bytes"]) == (403, 0)
        assert (other_channel["status"], other_channel["bytes"]) == (404, 0)
        assert server.counters.refused_tokens == 1


@run_async
async def test_a_stream_registered_without_a_superior_cannot_be_pulled_and_a_dropped_one_is_forgotten() -> None:
    async with media_server() as server:
        server.register(_info())  # the console's: no code admits a pull
        assert (await pull("127.0.0.1", server.port, SuperiorPull(PLATE, 2, 1, 0, CODE), 0.5))["status"] == 404
        info = replace(_info(), superior=SuperiorPull(PLATE, 2, 1, 0, CODE))
        server.register(info)  # the superior asks for the channel the console watches: the same stream
        assert server.streams[info.stream_id].info.superior is not None
        server.release(info.stream_id, None)
        assert server.superior_pulls == {}
        assert (await pull("127.0.0.1", server.port, SuperiorPull(PLATE, 2, 1, 0, CODE), 0.5))["status"] == 404


def test_a_registration_carries_the_superior_and_refuses_a_code_that_is_not_letters_and_digits() -> None:
    body = {"streamId": "11-1-live", "kind": "live", "sim": "13912345678", "channel": 1, "enterpriseId": 7,
            "deviceId": 11, "superior": {"plate": PLATE, "plateColour": 2, "channel": 1, "code": CODE}}
    assert stream_info_of(body).superior == SuperiorPull(PLATE, 2, 1, 0, CODE)
    with pytest.raises(ValueError):
        stream_info_of({**body, "superior": {**body["superior"], "code": "../../x"}})


@run_async
async def test_a_superiors_stop_ends_its_pull_and_revokes_its_code_while_a_console_user_keeps_watching() -> None:
    async with media_server() as server:
        info = replace(_info(), superior=SuperiorPull(PLATE, 2, 1, 0, CODE))
        server.register(info)
        async with terminal(server, info, audio=False):
            console = asyncio.create_task(watch(server.port, _url(info), 2.5))
            superior = asyncio.create_task(pull("127.0.0.1", server.port, SuperiorPull(PLATE, 2, 1, 0, CODE), 2.5))
            await asyncio.sleep(1.0)
            assert server.release(info.stream_id, None, superior=True) == {"closed": False, "viewers": 1,
                                                                           "known": True}
            pulled, watched = await superior, await console
        assert pulled["status"] == 200 and pulled["closed"] and pulled["bytes"] > 0  # ended by the server
        assert watched.status == 200 and len(watched.tags()) > 50  # the console user watched on
        assert info.stream_id in server.streams and server.superior_pulls == {}
        assert (await pull("127.0.0.1", server.port, SuperiorPull(PLATE, 2, 1, 0, CODE), 0.3))["status"] == 404


@run_async
async def test_a_forced_close_ends_the_stream_whoever_watches() -> None:
    """An inferior platform disabled while we pull its video (exchange/superior/video.py): its stream is closed
    even while console users watch it."""
    async with media_server() as server:
        info = _info()
        server.register(info)
        async with terminal(server, info, audio=False):
            console = asyncio.create_task(watch(server.port, _url(info), 3.0))
            await asyncio.sleep(1.0)
            assert server.release(info.stream_id, None)["closed"] is False  # a user watches: kept
            assert server.release(info.stream_id, None, force=True) == {"closed": True, "viewers": 0, "known": True}
            watched = await console
        assert info.stream_id not in server.streams and watched.status == 200 and watched.tags()


@run_async
async def test_the_regulators_status_port_pulls_the_answered_stream_and_names_bad_parameters() -> None:
    from exchange.regulator import Account, Regulator
    from exchange.regulator.status_http import StatusServer

    regulator = Regulator([Account(1001, "secret", 7001)])
    status = StatusServer(regulator, asyncio.get_running_loop())
    status.start()
    base = f"http://127.0.0.1:{status.port}/pull"
    try:
        async with media_server() as server:
            info = replace(_info(), superior=SuperiorPull(PLATE, 2, 1, 0, CODE))
            server.register(info)
            query = f"?plate={quote(PLATE)}&colour=2&channel=1&av=0&seconds=1.5"
            assert (await asyncio.to_thread(_get, base + query))[0] == 409  # nothing answered yet
            regulator.tally.video_answers.append({"account": 1001, "plate": PLATE, "colour": 2, "data_type": 0x1801,
                                                  "result": 0, "server_ip": "127.0.0.1", "server_port": server.port})
            regulator.authorize_codes[1001] = {"platform_id": "7001", "code_1": CODE, "code_2": "x" * 64}
            async with terminal(server, info, audio=False):
                await asyncio.sleep(0.5)
                code, pulled = await asyncio.to_thread(_get, base + query)
                wrong = (await asyncio.to_thread(_get, base + query.replace("1.5", "0.3") + "&code=" + "b" * 64))[1]
        assert code == 200 and pulled["status"] == 200 and pulled["jt1078"] and pulled["bytes"] > 5_000
        assert (wrong["status"], wrong["bytes"]) == (403, 0)
        code, error = await asyncio.to_thread(_get, base + "?plate=x&colour=2&channel=1&av=7&seconds=1")
        assert code == 400 and "av" in error["error"]
    finally:
        status.stop()


def _get(url: str) -> tuple[int, dict[str, Any]]:
    try:
        with urllib.request.urlopen(url, timeout=20) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


@run_async
async def test_a_cross_region_pull_must_name_the_requests_position_and_the_flag_it_asked() -> None:
    """JT/T 1078-2016 §6.2 table 35: the request carried GNSS_DATA, so the pull must name that position in its
    sixth item (at most 5 minutes old), with the audio/video flag the request asked."""
    here = PullLocation(datetime.now(UTC).replace(microsecond=0) - timedelta(seconds=30), 39_900_000, 116_400_000)
    async with media_server() as server:
        info = replace(_info(), superior=SuperiorPull(PLATE, 2, 1, 2, CODE, here))
        server.register(info)
        async with terminal(server, info, audio=False):
            right = await pull("127.0.0.1", server.port, SuperiorPull(PLATE, 2, 1, 2, CODE, here), 1.0)
            bare = await pull("127.0.0.1", server.port, SuperiorPull(PLATE, 2, 1, 2, CODE), 0.3)
            elsewhere = await pull("127.0.0.1", server.port,
                                   SuperiorPull(PLATE, 2, 1, 2, CODE, replace(here, lat_e6=38_000_000)), 0.3)
            audio = await pull("127.0.0.1", server.port, SuperiorPull(PLATE, 2, 1, 0, CODE, here), 0.3)
        assert right["status"] == 200 and right["jt1078"] and right["bytes"] > 0
        assert [r["status"] for r in (bare, elsewhere, audio)] == [403, 403, 403]
        assert server.counters.refused_tokens == 3


def test_the_refusal_names_what_did_not_match() -> None:
    assert refusal(SuperiorPull(PLATE, 2, 1, 2, CODE), SuperiorPull(PLATE, 2, 1, 0, CODE),
                   datetime.now(UTC)) == "audio/video flag 0, the request asked 2"


async def _pull_raw(port: int, path: str, seconds: float, accept: str = "") -> tuple[bytes, bytes]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: x\r\n{accept}Connection: close\r\n\r\n".encode())
    data = b""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(seconds):
            while chunk := await reader.read(65536):
                data += chunk
    writer.close()
    head, _, body = data.partition(b"\r\n\r\n")
    return head, body


@run_async
async def test_a_superior_gets_the_terminals_own_packets_from_an_i_frame_and_flv_only_when_it_asks() -> None:
    """JT/T 1078-2016 §6.1: the client of the superior gets table 18's packets; the console keeps FLV."""
    async with media_server() as server:
        info = replace(_info(), superior=SuperiorPull(PLATE, 2, 1, 0, CODE))
        server.register(info)
        path = pull_path(SuperiorPull(PLATE, 2, 1, 0, CODE))
        async with terminal(server, info, audio=True):
            (head, body), (flv_head, flv_body), watched = await asyncio.gather(
                _pull_raw(server.port, path, 2.0), _pull_raw(server.port, path, 2.0, "Accept: video/x-flv\r\n"),
                watch(server.port, _url(info), 2.0))
    assert b"application/octet-stream" in head and b"video/x-flv" in flv_head and flv_body[:3] == b"FLV"
    assert watched.status == 200 and len(watched.tags()) > 20  # the console's viewer: FLV as before
    packets = [p for p in PacketReader().feed(body) if isinstance(p, Packet)]
    assert len(packets) > 20
    assert all(p.sim.lstrip("0") == SIM.lstrip("0") and p.channel == 1 for p in packets)
    assert packets[0].data_type == I_FRAME and packets[0].subpackage in (ATOMIC, FIRST)
    assert {p.data_type for p in packets} >= {I_FRAME, AUDIO}  # audio and video, as the request asked
