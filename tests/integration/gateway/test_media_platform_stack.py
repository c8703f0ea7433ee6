"""The media server with its real platform (PostgreSQL + Kafka, gateway/video/platform.py): a simulated
terminal streams, a viewer watches and leaves, and with no heartbeat the stream is stopped through THE
command path: a ``command`` row (0x9102, created by 视频服务) and its jt808.downlink.v1 record; push 14
online then offline on console.events.v1; the viewer's video_log row, closed with its bytes."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import psycopg
import pytest

from fleet.enums import DeviceState
from fleet.topics import CONSOLE_EVENTS, JT808_DOWNLINK
from fleet.video_tokens import sign
from gateway.video.hub import StreamInfo
from gateway.video.platform import PostgresKafkaPlatform
from protocols.jt808 import AvTransmissionControl, decode_body
from simulator.video import MediaSession
from tests.integration.streams.support import TopicReader
from tests.support.media import ThreadedMediaServer, cabin_audio_tone, tiny_clip, watch

pytestmark = pytest.mark.timeout(120)
SECRET = b"media-platform-secret"


def _device(pg_url: str) -> dict[str, Any]:
    tag = uuid.uuid4().int % 10**8
    with psycopg.connect(pg_url, autocommit=True) as conn:
        ent = conn.execute("INSERT INTO enterprise (name, short_name) VALUES (%s, 'mp') RETURNING id",
                           (f"media-{tag}",)).fetchone()[0]  # type: ignore[index]
        conn.execute("UPDATE enterprise SET path = %s WHERE id = %s", (f"/{ent}/", ent))
        car = conn.execute("INSERT INTO car (enterprise_id, plate_number) VALUES (%s, %s) RETURNING id",
                           (ent, f"MP{tag}")).fetchone()[0]  # type: ignore[index]
        phone = f"0158{tag:08d}"
        device = conn.execute(
            "INSERT INTO device (enterprise_id, car_id, phone, device_sn, state, has_video, video_channel)"
            " VALUES (%s, %s, %s, %s, %s, 1, '1,2') RETURNING id",
            (ent, car, phone, f"MP{tag}", int(DeviceState.ONLINE))).fetchone()[0]  # type: ignore[index]
        user = conn.execute("INSERT INTO app_user (enterprise_id, user_name, password_hash, name) VALUES"
                            " (%s, %s, 'x', '值班员') RETURNING id", (ent, f"mp_{tag}")).fetchone()[0]  # type: ignore[index]
    return {"enterprise": ent, "car": car, "device": device, "phone": phone, "user": user, "plate": f"MP{tag}"}


def test_an_idle_stream_is_stopped_with_0x9102_through_the_command_path(pg_url: str, kafka_bootstrap: str) -> None:
    d = _device(pg_url)
    downlinks, events = TopicReader(kafka_bootstrap, JT808_DOWNLINK), TopicReader(kafka_bootstrap, CONSOLE_EVENTS)
    platform = PostgresKafkaPlatform(pg_url, kafka_bootstrap)
    media = ThreadedMediaServer(SECRET, platform, idle_stop_s=0.8)
    try:
        media.submit(platform.open()).result(30)
        info = StreamInfo(f"{d['device']}-2-live", "live", d["phone"], 2, 0, 1, d["enterprise"], d["device"], d["car"],
                          d["plate"], d["phone"], "2013", source_address="127.0.0.1")
        media.call(lambda: media.server.register(info))
        session = MediaSession("127.0.0.1", media.port, d["phone"], 2, tiny_clip(), cabin_audio_tone())
        running = media.submit(session.run())
        token, _ = sign(SECRET, info.stream_id, d["enterprise"], d["user"])
        viewed = asyncio.run(watch(media.port, f"/live/{info.stream_id}.flv?token={token}", 1.5))
        assert viewed.status == 200 and len(viewed.data) > 10_000
        running.result(15)  # the terminal's connection is closed by the idle stop
        assert session.counters.video_frames > 30

        def mine(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
            return [r for r in records if r.get("phone") == d["phone"]]

        sent = mine(downlinks.read_until(lambda found: bool(mine(found)), 30))
        assert len(sent) == 1 and sent[0]["msg_id"] == 0x9102
        assert decode_body(0x9102, bytes.fromhex(sent[0]["body_hex"])) == AvTransmissionControl(2, 0, 0, 0)

        def pushes(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
            return [r["push"]["data"] for r in records if r.get("enterprise_id") == d["enterprise"]]

        found = pushes(events.read_until(lambda rs: len(pushes(rs)) >= 2, 30))
        assert [(p["state"], p["channelId"], p["streamId"]) for p in found] == [(1, 2, info.stream_id), (0, 2, info.stream_id)]
        with psycopg.connect(pg_url) as conn:
            command = conn.execute("SELECT msg_id, created_by_name, payload->>'streamId', id::text FROM command"
                                   " WHERE device_id = %s", (d["device"],)).fetchall()
            assert command == [(0x9102, "视频服务", info.stream_id, sent[0]["command_id"])]
            logged = conn.execute("SELECT user_id, user_name, kind, channel, transport, bytes_sent, end_time IS NOT NULL"
                                  " FROM video_log WHERE device_id = %s", (d["device"],)).fetchall()
        # bytes_sent is what was written to the viewer's socket: all it read, and at most what was in flight
        # when it hung up (the server may have written a frame more than the viewer read)
        assert [row[:5] + row[6:] for row in logged] == [(d["user"], "值班员", "live", 2, "http", True)]
        assert len(viewed.data) <= logged[0][5] <= len(viewed.data) + 256 * 1024
    finally:  # the platform's pool and producer live on the media loop: closed there, before it stops
        media.submit(media.server.close()).result(10)
        media.submit(platform.close()).result(10)
        media.close()
        downlinks.close()
        events.close()
