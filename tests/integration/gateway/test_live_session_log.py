"""The live log's recording (migration 0056) by the media server with its real platform (PostgreSQL + Kafka):
a stream asked for by a user, fed by a simulated terminal, watched once with a console heartbeat, then stopped
by nobody watching, leaves one ``live_session`` row with the database's own account of it: who asked, the
request, the first frame, the end and why (``idle``), the terminal's bytes and frames, one heartbeat, one viewer
at most; the viewer's ``video_log`` row names the session."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import psycopg
import pytest

from fleet.video_tokens import sign
from gateway.video.hub import StreamInfo
from gateway.video.platform import PostgresKafkaPlatform
from simulator.video import MediaSession
from tests.integration.gateway.test_media_platform_stack import SECRET, _device
from tests.support.media import ThreadedMediaServer, cabin_audio_tone, tiny_clip, watch

pytestmark = pytest.mark.timeout(120)


def _session(pg_url: str, device_id: int) -> list[tuple[Any, ...]]:
    with psycopg.connect(pg_url) as conn:
        return conn.execute(
            "SELECT session_key::text, user_id, user_name, kind, channel, request_time, first_frame_time, end_time,"
            " duration_s, bytes_in, frames, heartbeats, last_heartbeat_time IS NOT NULL, peak_viewers, end_reason"
            " FROM live_session WHERE device_id = %s", (device_id,)).fetchall()


def test_a_stream_nobody_watches_any_more_is_logged_with_its_user_data_and_end(pg_url: str,
                                                                               kafka_bootstrap: str) -> None:
    d = _device(pg_url)
    platform = PostgresKafkaPlatform(pg_url, kafka_bootstrap)
    media = ThreadedMediaServer(SECRET, platform, idle_stop_s=0.8)
    try:
        media.submit(platform.open()).result(30)
        info = StreamInfo(f"{d['device']}-2-live", "live", d["phone"], 2, 0, 1, d["enterprise"], d["device"], d["car"],
                          d["plate"], d["phone"], "2013", source_address="127.0.0.1", user_id=d["user"])
        media.call(lambda: media.server.register(info))
        media.call(lambda: media.server.register(info))  # asked again while waiting: the same session
        session = MediaSession("127.0.0.1", media.port, d["phone"], 2, tiny_clip(), cabin_audio_tone())
        running = media.submit(session.run())
        token, _ = sign(SECRET, info.stream_id, d["enterprise"], d["user"])
        media.call(lambda: media.server.heartbeat([info.stream_id]))
        viewed = asyncio.run(watch(media.port, f"/live/{info.stream_id}.flv?token={token}", 1.5))
        assert viewed.status == 200 and len(viewed.data) > 10_000
        running.result(15)  # closed by the idle stop

        def ended() -> bool:
            rows = _session(pg_url, d["device"])
            return len(rows) == 1 and rows[0][7] is not None

        for _ in range(100):
            if ended():
                break
            time.sleep(0.1)
        rows = _session(pg_url, d["device"])
        assert len(rows) == 1
        (key, user_id, user_name, kind, channel, requested, first_frame, end, duration_s, bytes_in, frames,
         heartbeats, heartbeat_seen, peak, reason) = rows[0]
        assert (user_id, user_name, kind, channel) == (d["user"], "值班员", "live", 2)
        assert requested <= first_frame <= end
        assert duration_s == int((end - first_frame).total_seconds())
        assert reason == "idle" and heartbeats == 1 and heartbeat_seen and peak == 1
        assert frames > 30 and bytes_in > 10_000  # the tiny clip's frames, with their media bytes
        with psycopg.connect(pg_url) as conn:
            viewers = conn.execute("SELECT session_key::text, bytes_sent FROM video_log WHERE device_id = %s",
                                   (d["device"],)).fetchall()
        # what was written to the viewer's socket: all it read, and at most what was in flight when it hung up
        assert [k for k, _ in viewers] == [key]
        assert len(viewed.data) <= viewers[0][1] <= len(viewed.data) + 256 * 1024
    finally:
        media.submit(media.server.close()).result(10)
        media.submit(platform.close()).result(10)
        media.close()
