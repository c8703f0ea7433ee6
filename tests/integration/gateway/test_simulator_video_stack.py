"""The simulator's terminal with cameras against the real gateway and the media server (
§6): 0x9101 reaches it through the gateway, it answers 0x0001 and streams its H.264 clip and G.711A
audio to the media server, where a viewer reads the clip's frame counter advancing in real time; a talk
session's audio reaches the terminal's file; 0x9205 is answered with 0x1205 recordings; 0x9102 ends
the stream."""

from __future__ import annotations

import asyncio
import math
import random
import struct
import wave
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import av
import pytest

from fleet.settings import MediaServerSettings
from fleet.topics import JT808_UPLINK
from fleet.video_tokens import sign
from gateway.video import flv, httpio
from gateway.video.hub import StreamInfo
from gateway.video.platform import NullPlatform
from gateway.video.server import MediaServer
from protocols.jt808 import AvTransmissionControl, QueryAvResources, RealtimeAvRequest
from protocols.jt1078.talk import talk_frame
from simulator.driving import Vehicle
from simulator.fleet import MemoryAuthStore
from simulator.terminal import TerminalConfig, VirtualTerminal
from simulator.video_clips import FRAME_MS, ClipLibrary, read_stripe, save_clip
from simulator.video_terminal import VideoTerminal
from tests.integration.gateway.support import TopicTail, insert_devices, running_gateway, tail, unique_phones
from tests.support.media import open_viewer, tiny_clip, watch

pytestmark = pytest.mark.timeout(120)
SECRET = b"simulator-video-secret"


def _terminal(port: int, phone: str, code: str, clips: ClipLibrary, talk_dir: Path) -> VirtualTerminal:
    config = TerminalConfig(host="127.0.0.1", port=port, interval_s=5.0, heartbeat_interval_s=30, ack_timeout_s=10,
                            backlog_batch_items=20, reconnect_min_s=0.2, reconnect_max_s=1, reply_timeout_s=10)
    rng = random.Random(phone)
    terminal = VirtualTerminal(index=1, phone=phone, terminal_id=f"SIM{phone[-7:]}", config=config,
                               vehicle=Vehicle(rng, 31.23, 121.47, 5), rng=rng,
                               auth_store=MemoryAuthStore({phone: code}),
                               fix_clock=datetime.now(UTC).replace(microsecond=0), plate="沪A·12345")
    terminal.responder.video = VideoTerminal(phone, "沪A·12345", clips=clips, talk_dir=talk_dir)
    return terminal


async def _until(condition: Callable[[], bool], timeout_s: float = 20.0) -> None:
    async with asyncio.timeout(timeout_s):
        while not condition():
            await asyncio.sleep(0.02)


async def _replies(uplinks: TopicTail, canonical: str, msg_id: int, timeout_s: float = 20) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    async with asyncio.timeout(timeout_s):
        while not found:
            records = await uplinks.records(min_count=1, timeout_s=timeout_s)
            found = [r for r in records if str(r.get("phone", "")).lstrip("0") == canonical and r["msg_id"] == msg_id]
    return found


def _counters(data: bytes) -> list[tuple[int, int]]:
    """(FLV timestamp, stripe counter) of every picture the viewer got, decoded like a browser would."""
    tags = flv.parse_flv(data)[2]
    decoder: Any = av.CodecContext.create("h264", "r")
    config = next(t for t in tags if t.tag_type == flv.VIDEO and t.is_config).data[5:]
    sps_len = int.from_bytes(config[6:8], "big")
    params = [config[8:8 + sps_len], config[8 + sps_len + 3:]]
    out = []
    for tag in (t for t in tags if t.tag_type == flv.VIDEO and not t.is_config):
        units = ([*params] if not out else []) + list(flv.iter_nal_units(tag.data[5:]))
        for picture in decoder.decode(av.Packet(b"".join(b"\x00\x00\x00\x01" + u for u in units))):
            out.append((tag.timestamp_ms, read_stripe(picture.to_image().convert("L"), picture.width, picture.height)))
    return out


def test_a_simulated_camera_streams_talks_and_lists_recordings_through_gateway_and_media_server(
        pg_url: str, kafka_bootstrap: str, free_port: Callable[[], int], tmp_path: Path) -> None:
    [phone] = unique_phones(1)
    canonical = phone.lstrip("0")
    device_id = insert_devices(pg_url, [canonical], auth_code="SIMVID")[canonical]
    clips = ClipLibrary(tmp_path / "clips", per_plate=False)
    for channel in (1, 2):  # small generic clips, so the test does not render 720p
        save_clip(tiny_clip(channel), tmp_path / "clips" / f"v1-generic-ch{channel}-sub.clip")

    async def main() -> None:
        gateway_port = free_port()
        media = MediaServer(MediaServerSettings(host="127.0.0.1", port=0), SECRET, NullPlatform())
        await media.start()
        async with running_gateway(pg_url, kafka_bootstrap, gateway_port) as gateway, \
                tail(kafka_bootstrap, JT808_UPLINK) as uplinks:
            terminal = _terminal(gateway_port, phone, "SIMVID", clips, tmp_path / "talk")
            stop = asyncio.Event()
            task = asyncio.create_task(terminal.run(stop))
            try:
                await _until(lambda: terminal.counters.authenticated)

                def downlink(body: Any) -> None:
                    gateway.handle_downlink({"phone": phone, "msg_id": body.MSG_ID, "body_hex": body.encode("2013").hex(),
                                             "command_id": f"video-{body.MSG_ID:04x}"})

                # the terminal's JT/T 808 session and its media connections both come from loopback
                live = StreamInfo(f"{device_id}-2-live", "live", canonical, 2, 0, 1, 1, device_id,
                                  source_address="127.0.0.1")
                media.register(live)
                downlink(RealtimeAvRequest("127.0.0.1", media.port, 0, 2, 0, 1))
                acks = await _replies(uplinks, canonical, 0x0001)
                assert acks[0]["message"]["body"]["reply_msg_id"] == 0x9101 and acks[0]["message"]["body"]["result"] == 0
                await _until(lambda: media.streams[live.stream_id].online)
                token, _ = sign(SECRET, live.stream_id, 1, None)
                seen = await watch(media.port, f"/live/{live.stream_id}.flv?token={token}", 2.5)
                counters = _counters(bytes(seen.data))
                assert len(counters) >= 50
                # the counter advances one a frame, wrapping with the 2 s clip, and matches the FLV time
                steps = {(b[1] - a[1]) % 50 for a, b in zip(counters, counters[1:], strict=False)}
                assert steps == {1}
                assert {(b[0] - a[0]) for a, b in zip(counters, counters[1:], strict=False)} == {FRAME_MS}

                # talk: the browser's tone ends up in the terminal's file
                talk = StreamInfo(f"{device_id}-1-talk", "talk", canonical, 1, 2, 1, 1, device_id,
                                  source_address="127.0.0.1")
                media.register(talk)
                downlink(RealtimeAvRequest("127.0.0.1", media.port, 0, 1, 2, 1))
                await _until(lambda: media.streams[talk.stream_id].online)
                talk_token, _ = sign(SECRET, talk.stream_id, 1, None, kind="talk")
                _, writer, status, _ = await open_viewer(media.port, f"/talk/{talk.stream_id}?token={talk_token}",
                                                         websocket=True)
                assert status == 101
                for n in range(25):
                    samples = [round(8000 * math.sin(2 * math.pi * 300 * (n * 320 + i) / 8000)) for i in range(320)]
                    writer.write(httpio.ws_client_frame(talk_frame(samples, 65520 + n, n * 40)))
                    await asyncio.sleep(0.04)
                await _until(lambda: media.counters.talk_frames_in == 25)
                writer.close()
                talk_file = tmp_path / "talk" / f"{phone}-ch1.wav"
                await _until(lambda: talk_file.exists() and talk_file.stat().st_size >= 44 + 25 * 640)

                # recordings
                now = datetime.now(UTC)
                downlink(QueryAvResources(0, now - timedelta(hours=1), now))
                listed = (await _replies(uplinks, canonical, 0x1205))[0]["message"]["body"]
                assert listed["items"] and {item["channel"] for item in listed["items"]} == {1, 2, 3, 4}

                # close: the terminal ends its live connection
                downlink(AvTransmissionControl(2, 0, 0, 0))
                await _until(lambda: (2, "live") not in terminal.responder.video.sessions)  # type: ignore[union-attr]
            finally:
                stop.set()
                terminal.wake()
                await asyncio.wait_for(task, 10)
                await media.close()
        with wave.open(str(tmp_path / "talk" / f"{phone}-ch1.wav")) as recorded:
            pcm = struct.unpack(f"<{recorded.getnframes()}h", recorded.readframes(recorded.getnframes()))
        crossings = sum(1 for a, b in zip(pcm, pcm[1:], strict=False) if a < 0 <= b)
        assert len(pcm) == 25 * 320 and 280 <= crossings <= 320  # 300 Hz for 1 s

    asyncio.run(main())
