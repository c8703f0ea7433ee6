"""The SIM card's data plan: a stream whose last viewer left is stopped after the grace
(``FLEET_MEDIA_SERVER_IDLE_STOP_S``), whatever the browser's heartbeats say. The whole chain is real: the
simulator's terminal with cameras behind the JT/T 808 gateway, the media server with its PostgreSQL + Kafka
platform; the 0x9102 goes through the command path (a ``command`` row, ``jt808.downlink.v1``, the gateway)
and the test reads when the terminal got it."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg
import pytest

from fleet.enums import DeviceState
from fleet.settings import MediaServerSettings
from fleet.video_tokens import sign
from gateway.video.hub import StreamInfo
from gateway.video.platform import PostgresKafkaPlatform
from gateway.video.server import MediaServer
from protocols.jt808 import AvTransmissionControl, RealtimeAvRequest
from simulator.driving import Vehicle
from simulator.fleet import MemoryAuthStore
from simulator.terminal import TerminalConfig, VirtualTerminal
from simulator.video_clips import ClipLibrary, save_clip
from simulator.video_terminal import VideoTerminal
from tests.integration.gateway.support import insert_devices, running_gateway, unique_phones
from tests.support.media import tiny_clip, watch

pytestmark = pytest.mark.timeout(120)
SECRET = b"viewer-grace-secret"
GRACE_S = 3.0


class RecordingVideoTerminal(VideoTerminal):
    """The simulator's camera terminal, noting when each JT/T 1078 command reached it."""

    received: list[tuple[float, Any]]

    def answer(self, body: Any, seq: int, now: datetime) -> tuple[int, Any]:
        self.received.append((time.monotonic(), body))
        return super().answer(body, seq, now)


async def _until(condition: Callable[[], bool], timeout_s: float = 20.0) -> None:
    async with asyncio.timeout(timeout_s):
        while not condition():
            await asyncio.sleep(0.02)


def test_a_stream_whose_last_viewer_left_gets_0x9102_after_the_grace_and_not_before(
        pg_url: str, kafka_bootstrap: str, free_port: Callable[[], int], tmp_path: Path) -> None:
    [phone] = unique_phones(1)
    canonical = phone.lstrip("0")
    device_id = insert_devices(pg_url, [canonical], auth_code="GRACE1")[canonical]
    with psycopg.connect(pg_url, autocommit=True) as conn:  # the streams worker's part: the terminal is online
        conn.execute("UPDATE device SET state = %s, has_video = 1, video_channel = '1,2' WHERE id = %s",
                     (int(DeviceState.ONLINE), device_id))
        enterprise = conn.execute("SELECT enterprise_id FROM device WHERE id = %s", (device_id,)).fetchone()[0]  # type: ignore[index]
    clips = ClipLibrary(tmp_path / "clips", per_plate=False)
    save_clip(tiny_clip(2), tmp_path / "clips" / "v1-generic-ch2-sub.clip")

    async def main() -> None:
        gateway_port = free_port()
        platform = PostgresKafkaPlatform(pg_url, kafka_bootstrap)
        await platform.open()
        media = MediaServer(MediaServerSettings(host="127.0.0.1", port=0, idle_stop_s=GRACE_S), SECRET, platform)
        await media.start()
        async with running_gateway(pg_url, kafka_bootstrap, gateway_port) as gateway:
            config = TerminalConfig(host="127.0.0.1", port=gateway_port, interval_s=5.0, heartbeat_interval_s=30,
                                    ack_timeout_s=10, backlog_batch_items=20, reconnect_min_s=0.2, reconnect_max_s=1,
                                    reply_timeout_s=10)
            rng = random.Random(phone)
            terminal = VirtualTerminal(index=1, phone=phone, terminal_id=f"SIM{phone[-7:]}", config=config,
                                       vehicle=Vehicle(rng, 31.23, 121.47, 5), rng=rng,
                                       auth_store=MemoryAuthStore({phone: "GRACE1"}),
                                       fix_clock=datetime.now(UTC).replace(microsecond=0), plate="沪A·G0001")
            camera = RecordingVideoTerminal(phone, "沪A·G0001", clips=clips)
            camera.received = []
            terminal.responder.video = camera
            stop = asyncio.Event()
            task = asyncio.create_task(terminal.run(stop))
            try:
                await _until(lambda: terminal.counters.authenticated)
                await asyncio.wait_for(gateway.downlinks_ready.wait(), 30)
                live = StreamInfo(f"{device_id}-2-live", "live", canonical, 2, 0, 1, enterprise, device_id,
                                  phone=canonical, source_address="127.0.0.1")
                media.register(live)
                gateway.handle_downlink({"phone": phone, "msg_id": 0x9101, "command_id": "grace-9101",
                                         "body_hex": RealtimeAvRequest("127.0.0.1", media.port, 0, 2, 0, 1)
                                         .encode("2013").hex()})
                await _until(lambda: live.stream_id in media.streams and media.streams[live.stream_id].online)
                token, _ = sign(SECRET, live.stream_id, enterprise, None)
                seen = await watch(media.port, f"/live/{live.stream_id}.flv?token={token}", 1.0)
                assert len(seen.data) > 10_000
                left_at = time.monotonic()

                def stops() -> list[float]:
                    return [at for at, body in camera.received if isinstance(body, AvTransmissionControl)
                            and body.channel == 2 and body.command == 0]

                # the page still beats for the stream (a hidden tab): the beats do not keep it
                while not stops() and time.monotonic() - left_at < GRACE_S + 10:
                    media.heartbeat([live.stream_id])
                    await asyncio.sleep(0.2)
                [stopped_at] = stops()
                assert GRACE_S <= stopped_at - left_at <= GRACE_S + 5, stopped_at - left_at
                await _until(lambda: (2, "live") not in camera.sessions)  # its media connection ended
                assert live.stream_id not in media.streams
            finally:
                stop.set()
                terminal.wake()
                await asyncio.wait_for(task, 10)
                await media.close()
                await platform.close()
        with psycopg.connect(pg_url) as conn:
            rows = conn.execute("SELECT msg_id, created_by_name, payload->>'streamId' FROM command"
                                " WHERE device_id = %s", (device_id,)).fetchall()
        assert rows == [(0x9102, "视频服务", live.stream_id)]

    asyncio.run(main())
