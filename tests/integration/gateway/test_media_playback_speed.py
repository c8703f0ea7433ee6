"""Playback speeds (JT/T 1078 0x9202: control 3 fast forward with speed 1 x1, 2 x2, 3 x4, 4 x8, 5 x16; the
console's rates 0.7 / 1 / 1.5 / 2 ask x1 or x2): the simulator's terminal with cameras plays a recording to
the real media server, a viewer reads it as a browser would, the platform sends 0x9202 fast forward, and
the pictures go on: frame times strictly increasing (a repeated time is a frozen picture), advancing at
the asked speed, with no silence on the wire."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from fleet.settings import MediaServerSettings
from fleet.video_tokens import sign
from gateway.video import flv
from gateway.video.hub import StreamInfo
from gateway.video.platform import NullPlatform
from gateway.video.server import MediaServer
from protocols.jt808 import PlaybackControl, PlaybackRequest
from protocols.jt808.messages.t9201_playback_request import SPEED_FACTORS
from simulator.video_clips import ClipLibrary, save_clip
from simulator.video_terminal import VideoTerminal
from tests.support.media import open_viewer, tiny_clip

pytestmark = pytest.mark.timeout(120)
SECRET = b"playback-speed-secret"
PHONE = "013912345678"
FAST_FORWARD = 3


async def _read_video(reader: asyncio.StreamReader, parser: flv.FlvReader, seconds: float) -> list[tuple[float, int]]:
    """(arrival, FLV timestamp) of each picture a viewer gets for ``seconds``."""
    out: list[tuple[float, int]] = []
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        try:
            chunk = await asyncio.wait_for(reader.read(65536), left)
        except TimeoutError:
            break
        if not chunk:
            break
        now = time.monotonic()
        out += [(now, tag.timestamp_ms) for tag in parser.feed(chunk) if tag.tag_type == flv.VIDEO and not tag.is_config]
    return out


@pytest.mark.parametrize("speed_code", [1, 2, 3, 4, 5])
def test_each_fast_forward_speed_plays_on_without_freezing(speed_code: int, tmp_path: Path) -> None:
    factor = SPEED_FACTORS[speed_code]
    clips = ClipLibrary(tmp_path / "clips", per_plate=False)
    save_clip(tiny_clip(1), tmp_path / "clips" / "v1-generic-ch1-main.clip")  # 2 s: it loops often

    async def main() -> None:
        media = MediaServer(MediaServerSettings(host="127.0.0.1", port=0), SECRET, NullPlatform())
        await media.start()
        camera = VideoTerminal(PHONE, "沪A·S0001", clips=clips)
        try:
            info = StreamInfo("5-1-playback", "playback", PHONE.lstrip("0"), 1, 0, 0, 1, 5,
                              source_address="127.0.0.1")
            media.register(info)
            start = datetime.now(UTC) - timedelta(hours=1)
            camera.answer(PlaybackRequest("127.0.0.1", media.port, 0, 1, 0, 0, 0, 0, 0, start,
                                          start + timedelta(minutes=10)), 1, datetime.now(UTC))
            token, _ = sign(SECRET, info.stream_id, 1, None)
            reader, writer, status, _ = await open_viewer(media.port, f"/live/{info.stream_id}.flv?token={token}")
            assert status == 200
            parser = flv.FlvReader()
            before = await _read_video(reader, parser, 1.5)
            assert len(before) >= 25  # x1: 25 pictures a second

            assert camera.answer(PlaybackControl(1, FAST_FORWARD, speed_code), 2, datetime.now(UTC)) == (0, None)
            after = await _read_video(reader, parser, 3.0)
            writer.close()
            times = [ts for _, ts in before + after]
            assert all(b > a for a, b in zip(times, times[1:], strict=False)), f"a picture's time repeated: frozen {times}"
            gaps = [b - a for (a, _), (b, _) in zip(after, after[1:], strict=False)]
            assert max(gaps) < 0.5, f"the wire went silent for {max(gaps):.2f} s after the 0x9202"
            settled = [item for item in after if item[0] - after[0][0] >= 0.5]
            wall = settled[-1][0] - settled[0][0]
            rate = (settled[-1][1] - settled[0][1]) / 1000 / wall
            assert 0.75 * factor <= rate <= 1.25 * factor, f"x{factor} played at x{rate:.2f}"
        finally:
            camera.stop_all()
            await media.close()

    asyncio.run(main())
