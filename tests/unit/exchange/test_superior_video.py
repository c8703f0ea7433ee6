"""What fleetwatch as the superior platform sends for an operator's video request (exchange/superior/video.py): the
0x9801 / 0x9A01 with the platform's code, the 0x9802 / 0x9A02 end, the media server's registration of the stream
it pulls (kind and data type by AV_ITEM_TYPE) and the §6.2 URL it pulls, each through the codec and back; which
addresses an answer may send our media server to."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

import pytest

from exchange.superior.addresses import video_address_allowed
from exchange.superior.video import pull_url, registration, start_body, stop_body
from fleet.video_streams import parse_pull_path
from gateway.video.hub import stream_info_of
from protocols.jt809 import messages as m
from protocols.jt809.codec import decode_body

CODE = "A1b2" * 16
START, END = datetime(2026, 12, 6, 1, 0, tzinfo=UTC), datetime(2026, 12, 6, 1, 10, tzinfo=UTC)


def _request(**extra: Any) -> dict[str, Any]:
    return {"id": 41, "enterprise_id": 9, "plate": "粤B·12345", "plate_colour": 2, "kind": "live", "channel": 3,
            "av_type": 0, "start_time": None, "end_time": None, "stream_type": 0, "mem_type": 0, "code": CODE, **extra}


def _round_trip(body: Any) -> Any:
    return decode_body(body.MSG_ID, body.encode("2019"), "2019")


def test_a_live_request_and_its_stop() -> None:
    start = _round_trip(start_body(_request()))
    assert isinstance(start, m.RealVideoDown) and (start.plate, start.plate_colour) == ("粤B·12345", 2)
    assert start.data == m.RealVideoRequest(3, 0, CODE, None)
    stop = _round_trip(stop_body(_request()))
    assert stop.data == m.RealVideoEnd(3, 0)


def test_a_playback_request_carries_its_period_stream_and_storage_and_ends_with_control_2() -> None:
    request = _request(kind="playback", av_type=2, start_time=START, end_time=END, stream_type=1, mem_type=2)
    start = _round_trip(start_body(request))
    assert isinstance(start, m.PlaybackDown)
    assert start.data == m.PlaybackRequest(3, 2, 1, 2, START, END, CODE, None)
    stop = _round_trip(stop_body(request))
    assert isinstance(stop, m.PlaybackDown) and stop.data == m.PlaybackControl(2, 0, None)


@pytest.mark.parametrize(("kind", "av_type", "stream_kind", "data_type", "video", "audio"), [
    ("live", 0, "live", 0, True, True), ("live", 1, "listen", 3, False, True), ("live", 2, "live", 1, True, False),
    ("playback", 0, "playback", 0, True, True), ("playback", 1, "playback", 1, False, True),
    ("playback", 2, "playback", 2, True, False)])
def test_the_pulled_stream_wants_what_the_operator_asked_for(kind: str, av_type: int, stream_kind: str,
                                                             data_type: int, video: bool, audio: bool) -> None:
    request = _request(kind=kind, av_type=av_type, start_time=START, end_time=END)
    info = stream_info_of(registration(request, pull_url("10.0.0.9", 7618, request)))
    assert (info.stream_id, info.kind, info.data_type, info.enterprise_id) == ("exchange-41", stream_kind, data_type, 9)
    assert (info.wants_video, info.wants_audio, info.pulled) == (video, audio, True)


def test_the_pull_url_is_the_standards_with_the_platforms_code() -> None:
    url = pull_url("10.0.0.9", 7618, _request(av_type=2))
    assert url.startswith("http://10.0.0.9:7618/")
    pulled = parse_pull_path(url.removeprefix("http://10.0.0.9:7618").replace("%C2%B7", "·").replace("%E7%B2%A4", "粤"))
    assert (pulled.plate, pulled.plate_colour, pulled.channel, pulled.av_flag, pulled.code) == ("粤B·12345", 2, 3, 2, CODE)
    assert pull_url("fd00::9", 7618, _request()).startswith("http://[fd00::9]:7618/")


@pytest.mark.parametrize(("server_ip", "video_hosts", "link_host", "allowed"), [
    # none configured: only the address the platform's main link comes from
    ("203.0.113.7", (), "203.0.113.7", True),
    ("203.0.113.8", (), "203.0.113.7", False),
    ("127.0.0.1", (), "::ffff:127.0.0.1", True),   # an IPv4 link seen by a dual-stack listener
    ("169.254.169.254", (), "203.0.113.7", False),  # a metadata service
    ("10.0.0.5", (), None, False),                  # no link known: nothing
    # configured: an address, a network it lies in, a host name spelled the same; the link's address no longer counts
    ("10.0.0.5", ("10.0.0.5",), "203.0.113.7", True),
    ("10.0.0.77", ("10.0.0.0/24",), None, True),
    ("10.0.1.77", ("10.0.0.0/24",), None, False),
    ("203.0.113.7", ("10.0.0.0/24",), "203.0.113.7", False),
    ("fd00::9", ("fd00::/64",), None, True),
    ("[fd00::9]", ("fd00::9",), None, True),
    ("Video.Example.cn", ("video.example.cn",), None, True),
    ("video.example.cn.evil.test", ("video.example.cn",), None, False),
    ("video.example.cn", (), "203.0.113.7", False),   # a name is never the link's address
    ("10.0.0.5", ("video.example.cn",), None, False),  # nor an address a name's
    # never a wildcard, multicast or broadcast address, whatever is configured
    ("0.0.0.0", ("0.0.0.0/1",), "0.0.0.0", False),
    ("224.0.0.1", ("224.0.0.0/4",), None, False),
    ("255.255.255.255", ("255.255.255.0/24",), None, False),
    ("", ("10.0.0.0/24",), "10.0.0.1", False),
])
def test_an_answer_may_send_the_media_server_only_to_the_platforms_video_servers(
        server_ip: str, video_hosts: tuple[str, ...], link_host: str | None, allowed: bool) -> None:
    assert video_address_allowed(server_ip, video_hosts, link_host) is allowed


class _Media:
    """The media server as VideoPulls sees it: which streams it has, and what was closed how."""

    def __init__(self, streams: set[str]) -> None:
        self.streams = streams
        self.closed: list[tuple[str, bool]] = []

    def status(self, stream_id: str) -> dict[str, Any] | None:
        return {"streamId": stream_id} if stream_id in self.streams else None

    def release(self, stream_id: str, user_id: int | None, *, superior: bool = False,
                force: bool = False) -> dict[str, Any]:
        self.closed.append((stream_id, force))
        self.streams.discard(stream_id)
        return {"closed": True}


class _Links:
    def __init__(self) -> None:
        self.sent: list[tuple[int, Any]] = []

    def send_request(self, msg_id: int, body: Any) -> tuple[str, int]:
        self.sent.append((msg_id, body))
        return "sub", len(self.sent)


def test_playing_requests_end_when_their_stream_goes_and_a_disabled_platforms_are_closed_whoever_watches() -> None:
    """Platform 1 is enabled and logged in: its request whose stream is gone ends with 0x9802, the one still
    streaming plays on. Platform 2 was disabled meanwhile: its stream is closed (forced: console users watch it)
    and its request ends as platform_disabled, with no 0x9802 (its links are closed)."""
    from exchange.superior.video import VideoPulls
    from warehouse.queries import exchange_inferior as q

    playing = [_request(id=1, platform_id=1, stream_id="exchange-1", state="playing"),
               _request(id=2, platform_id=1, stream_id="exchange-2", state="playing"),
               _request(id=3, platform_id=2, stream_id="exchange-3", state="playing")]
    closed: list[tuple[int, str, str | None]] = []

    def db(fn: Any, *args: Any) -> Any:
        if fn is q.playing_videos:
            return playing
        assert fn is q.video_closed
        closed.append(args[:3])
        return None

    media, links = _Media({"exchange-2", "exchange-3"}), _Links()
    asyncio.run(VideoPulls(db, media).watch({1: links}))  # type: ignore[arg-type]
    assert closed == [(1, "ended", None), (3, "ended", "platform_disabled")]
    assert media.closed == [("exchange-3", True)] and media.streams == {"exchange-2"}
    assert [(msg_id, body.data) for msg_id, body in links.sent] == [(m.RealVideoDown.MSG_ID, m.RealVideoEnd(3, 0))]
