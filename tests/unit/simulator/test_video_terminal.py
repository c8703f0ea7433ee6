"""How a simulated terminal answers the JT/T 1078 commands without the network (simulator/video_terminal.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from protocols.jt808 import AvResourceList, QueryAvResources, RealtimeAvRequest, TerminalResponse
from simulator.commands import CommandResponder
from simulator.video_terminal import MAX_LISTED, VideoTerminal

NOW = datetime(2026, 11, 20, 8, 34, 12, tzinfo=UTC)


def test_lists_ten_minute_recordings_of_the_asked_channels_and_range() -> None:
    camera = VideoTerminal("013800000001", "京A·00001")
    one = camera.recordings(2, NOW - timedelta(hours=1), NOW, NOW)
    assert {r.channel for r in one} == {2} and len(one) == 6
    assert one[0].end == datetime(2026, 11, 20, 8, 30, tzinfo=UTC) and one[0].start == one[0].end - timedelta(minutes=10)
    every = camera.recordings(0, None, None, NOW)
    assert len(every) == MAX_LISTED and {r.channel for r in every} == {1, 2, 3, 4}


def test_a_terminal_with_cameras_answers_9205_with_1205_and_refuses_a_channel_it_lacks() -> None:
    responder = CommandResponder("013800000001", "京A·00001", video=VideoTerminal("013800000001", "京A·00001"))
    handled = responder.handle(0x9205, 77, QueryAvResources(1, NOW - timedelta(hours=2), NOW), None, NOW)  # type: ignore[arg-type]
    reply = handled.answers[0].body
    assert isinstance(reply, AvResourceList) and reply.reply_seq == 77 and len(reply.items) == 12
    refused = responder.handle(0x9101, 78, RealtimeAvRequest("127.0.0.1", 7612, 0, 9, 0, 1), None, NOW)  # type: ignore[arg-type]
    assert refused.answers[0].body == TerminalResponse(78, 0x9101, 1)


def test_a_terminal_without_cameras_does_not_support_them() -> None:
    responder = CommandResponder("013800000002", "京B·00002")
    handled = responder.handle(0x9101, 5, RealtimeAvRequest("127.0.0.1", 7612, 0, 2, 0, 1), None, NOW)  # type: ignore[arg-type]
    assert handled.answers[0].body == TerminalResponse(5, 0x9101, 3)
