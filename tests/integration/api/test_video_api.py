"""The video API with a real media server (its own loop thread, NullPlatform) and a
simulated terminal streaming into it: 9101 (answer, reuse, refusals, "no available live video server"),
stream info, heartbeat, 9102 (the stop rules), 9205 / 9201 / 9202, the video command state, videoLog,
and another enterprise's everything as a 404."""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.media import MEDIA_KEY, MediaClient
from api.services import DOWNLINKS_KEY
from fleet.settings import MediaServerSettings
from gateway.video import flv
from gateway.video.platform import PostgresKafkaPlatform
from protocols.jt808 import decode_body
from simulator.video import MediaSession
from tests.integration.api.conftest import Demo
from tests.integration.api.test_commands_api import Target, make_vehicle
from tests.integration.api.test_console_api import bearer, make_user
from tests.support.media import ThreadedMediaServer, cabin_audio_tone, forge, tiny_clip
from warehouse.db import connect

pytestmark = pytest.mark.timeout(120)
SECRET = b"video-api-secret"
VIDEO_USER = {"command": ["cmd", "get", "query"], "videoLog": ["query"]}
NO_SERVER = "无可用的实时视频服务器，请联系系统管理员"


class RecordedDownlinks:
    """Stands in for the Kafka producer: what the API would have put on jt808.downlink.v1."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def send(self, topic: str, key: str, value: bytes) -> None:
        self.sent.append(json.loads(value))

    def close(self) -> None:
        pass


@pytest.fixture(scope="module")
def media() -> Iterator[ThreadedMediaServer]:
    server = ThreadedMediaServer(SECRET)
    try:
        yield server
    finally:
        server.close()


@pytest.fixture(scope="module")
def video_app(app: Flask, media: ThreadedMediaServer) -> Iterator[Flask]:
    saved = {key: app.extensions.get(key) for key in (MEDIA_KEY, DOWNLINKS_KEY)}
    settings = MediaServerSettings(port=media.port, internal_url=f"http://127.0.0.1:{media.port}",
                                   public_host="127.0.0.1")
    app.extensions[MEDIA_KEY] = MediaClient(settings, SECRET)
    app.extensions[DOWNLINKS_KEY] = RecordedDownlinks()
    yield app
    for key, value in saved.items():
        if value is None:
            app.extensions.pop(key, None)
        else:
            app.extensions[key] = value


@pytest.fixture(scope="module")
def tenants(pg_url: str, demo: Demo, video_app: Flask) -> dict[str, Any]:
    client = video_app.test_client()
    a_user, b_user = make_user(pg_url, demo.enterprises["a"], VIDEO_USER), make_user(pg_url, demo.enterprises["b"], VIDEO_USER)
    a_user2 = make_user(pg_url, demo.enterprises["a"], VIDEO_USER)
    car = make_vehicle(pg_url, demo.enterprises["a"], online=True)[0]
    offline = make_vehicle(pg_url, demo.enterprises["a"], online=False)[0]
    with connect(pg_url) as conn:
        conn.execute("UPDATE device SET has_video = 1, video_channel = '1,2,3,4', talk_channel = '36' WHERE id = ANY(%s)",
                     ([car.device_id, offline.device_id],))
        # the online terminal's authenticated JT/T 808 session is on loopback, as its media connections
        conn.execute("UPDATE device SET session_address = '127.0.0.1' WHERE id = %s", (car.device_id,))
        conn.commit()
    return {"a": bearer(client, a_user.name), "a2": bearer(client, a_user2.name), "b": bearer(client, b_user.name),
            "car": car, "offline": offline, "sn": conn_sn(pg_url, car.device_id)}


def conn_sn(pg_url: str, device_id: int) -> str:
    with connect(pg_url) as conn:
        return str(conn.execute("SELECT device_sn FROM device WHERE id = %s", (device_id,)).fetchone()[0])  # type: ignore[index]


def _post(client: FlaskClient, headers: dict[str, str], url: str, body: dict[str, Any]) -> Any:
    return client.post(url, headers=headers, json=body)


def _terminal(media: ThreadedMediaServer, car: Target, channel: int, kind: str = "live") -> tuple[MediaSession, Any]:
    session = MediaSession("127.0.0.1", media.port, car.phone, channel, None if kind == "talk" else tiny_clip(),
                           cabin_audio_tone(), kind=kind)
    return session, media.submit(session.run())


def _until(check: Any, timeout_s: float = 10) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.05)
    raise AssertionError("condition not met in time")


def test_9101_registers_the_stream_sends_the_command_and_answers_signed_urls(
        video_app: Flask, media: ThreadedMediaServer, tenants: dict[str, Any]) -> None:
    client, car = video_app.test_client(), tenants["car"]
    downlinks: RecordedDownlinks = video_app.extensions[DOWNLINKS_KEY]
    reply = _post(client, tenants["a"], f"/api/command/{car.car_id}/9101.json",
                  {"channelId": 2, "dataType": 0, "streamType": 1, "deviceId": car.device_id})
    assert reply.status_code == 200, reply.json
    data = reply.json["data"]
    assert data["streamId"] == f"{car.device_id}-2-live" and data["state"] == "created" and data["msgId"] == 0x9101
    assert data["flvUrl"].startswith(f"http://localhost:{media.port}/live/{car.device_id}-2-live.flv?token=")
    assert data["wsUrl"].startswith("ws://") and data["talkUrl"] is None and data["urlExpiresAt"] > time.time() * 1000
    sent = downlinks.sent[-1]
    assert sent["command_id"] == str(data["id"]) and sent["msg_id"] == 0x9101
    body = decode_body(0x9101, bytes.fromhex(sent["body_hex"]))
    assert (body.server_ip, body.tcp_port, body.channel, body.data_type, body.stream_type) == (  # type: ignore[attr-defined]
        "127.0.0.1", media.port, 2, 0, 1)
    # the terminal connects and streams: stream info says it is up, the URL plays
    session, done = _terminal(media, car, 2)
    try:
        _until(lambda: media.call(lambda: media.server.streams[data["streamId"]].online))
        info = client.get(f"/api/video/{tenants['sn']}/2.json", headers=tenants["a"]).json["data"]
        assert info["streamId"] == data["streamId"] and info["online"] is True
        assert info["currentTime"] - 5000 < info["updateTime"] <= info["currentTime"] + 100
        url = info["flvUrl"].replace("localhost", "127.0.0.1")
        with urllib.request.urlopen(url, timeout=5) as stream:
            head = stream.read(4000)
        _, has_video, tags = flv.parse_flv(head)
        assert has_video and tags[0].tag_type == flv.SCRIPT
        # a second 9101 for the same channel: one more viewer of the same terminal connection
        again = _post(client, tenants["a2"], f"/api/command/{car.car_id}/9101.json", {"channelId": 2})
        assert again.json["data"]["state"] == "reused" and again.json["data"]["id"] is None
        assert len(downlinks.sent) == 1 + downlinks.sent.index(sent)
        # heartbeat: known for its owner, ignored for another enterprise
        beat = client.put(f"/api/video/heartbeat/{data['streamId']},999999-1-live.json", headers=tenants["a"])
        assert beat.json["data"]["known"] == [data["streamId"]]
        other = client.put(f"/api/video/heartbeat/{data['streamId']}.json", headers=tenants["b"])
        assert other.status_code == 404
        assert client.put("/api/video/heartbeat/x.json", headers=tenants["a"]).status_code == 400
    finally:
        session.stop()
        done.result(10)


def test_9102_close_keeps_a_stream_another_user_watches_and_stops_it_otherwise(
        video_app: Flask, media: ThreadedMediaServer, tenants: dict[str, Any]) -> None:
    client, car = video_app.test_client(), tenants["car"]
    downlinks: RecordedDownlinks = video_app.extensions[DOWNLINKS_KEY]
    started = _post(client, tenants["a"], f"/api/command/{car.car_id}/9101.json", {"channelId": 3}).json["data"]
    session, done = _terminal(media, car, 3)
    try:
        _until(lambda: media.call(lambda: media.server.streams[started["streamId"]].online))
        watcher = urllib.request.urlopen(started["flvUrl"].replace("localhost", "127.0.0.1"), timeout=5)
        watcher.read(100)
        # the watcher is user a; a2 asks to close: a still watches, nothing is sent
        kept = _post(client, tenants["a2"], f"/api/command/{car.car_id}/9102.json",
                     {"streamId": started["streamId"], "channelId": 3, "command": 0, "commadType": 0, "streamType": 1})
        assert kept.json["data"]["state"] == "kept" and kept.json["data"]["viewers"] == 1
        watcher.close()
        _until(lambda: media.call(lambda: not media.server.streams[started["streamId"]].viewers))
        before = len(downlinks.sent)
        closed = _post(client, tenants["a2"], f"/api/command/{car.car_id}/9102.json",
                       {"streamId": started["streamId"], "command": 0})
        assert closed.json["data"]["state"] == "created", closed.json
        sent = downlinks.sent[before]
        assert sent["msg_id"] == 0x9102 and sent["body_hex"] == "03000000"  # channel 3, close, all, main
        assert media.call(lambda: started["streamId"] not in media.server.streams)
    finally:
        session.stop()
        done.result(10)


def test_talk_answers_a_talk_url_and_a_second_talk_is_refused(
        video_app: Flask, media: ThreadedMediaServer, tenants: dict[str, Any]) -> None:
    client, car = video_app.test_client(), tenants["car"]
    talk = _post(client, tenants["a"], f"/api/command/{car.car_id}/9101.json",
                 {"channelId": 36, "dataType": 2, "streamType": 1}).json["data"]
    assert talk["kind"] == "talk" and talk["talkUrl"].startswith(f"ws://localhost:{media.port}/talk/{car.device_id}-36-talk?token=")
    session, done = _terminal(media, car, 36, kind="talk")
    try:
        _until(lambda: media.call(lambda: media.server.streams[talk["streamId"]].online))
        busy = _post(client, tenants["a2"], f"/api/command/{car.car_id}/9101.json", {"channelId": 36, "dataType": 2})
        assert busy.status_code == 409 and "只支持一对一进行通话" in busy.json["message"]
        stop = _post(client, tenants["a"], f"/api/command/{car.car_id}/9102.json",
                     {"streamId": talk["streamId"], "channelId": 36, "command": 4, "commadType": 0, "streamType": 1})
        assert stop.json["data"]["state"] == "created" and stop.json["data"]["msgId"] == 0x9102
    finally:
        session.stop()
        done.result(10)


def test_refusals_offline_no_channel_and_no_media_server(
        video_app: Flask, tenants: dict[str, Any], free_port: Any) -> None:
    client, car = video_app.test_client(), tenants["car"]
    offline = _post(client, tenants["a"], f"/api/command/{tenants['offline'].car_id}/9101.json", {"channelId": 1})
    assert offline.status_code == 409 and offline.json["message"].startswith("设备不在线，无法开启实时音视频")
    no_channel = _post(client, tenants["a"], f"/api/command/{car.car_id}/9101.json", {"channelId": 9})
    assert no_channel.status_code == 400 and no_channel.json["data"]["field"] == "channelId"
    bad = _post(client, tenants["a"], f"/api/command/{car.car_id}/9101.json", {"channelId": 1, "dataType": 7})
    assert bad.status_code == 400 and bad.json["data"]["field"] == "dataType"
    saved = video_app.extensions[MEDIA_KEY]
    video_app.extensions[MEDIA_KEY] = MediaClient(MediaServerSettings(internal_url=f"http://127.0.0.1:{free_port()}"),
                                                  SECRET)
    try:
        down = _post(client, tenants["a"], f"/api/command/{car.car_id}/9101.json", {"channelId": 1})
        assert down.status_code == 503 and down.json["message"].startswith(NO_SERVER)
        info = client.get(f"/api/video/{tenants['sn']}/1.json", headers=tenants["a"]).json["data"]
        assert info["serverAvailable"] is False and info["updateTime"] is None
    finally:
        video_app.extensions[MEDIA_KEY] = saved


def test_9205_9201_9202_go_through_the_command_path(video_app: Flask, media: ThreadedMediaServer,
                                                     tenants: dict[str, Any]) -> None:
    client, car = video_app.test_client(), tenants["car"]
    downlinks: RecordedDownlinks = video_app.extensions[DOWNLINKS_KEY]
    search = _post(client, tenants["a"], f"/api/command/{car.car_id}/9205.json",
                   {"channelId": 0, "startTime": "2026-11-20T00:00:00Z", "endTime": "2026-11-20T06:00:00Z"})
    assert search.status_code == 200 and downlinks.sent[-1]["msg_id"] == 0x9205
    query = decode_body(0x9205, bytes.fromhex(downlinks.sent[-1]["body_hex"]))
    assert query.channel == 0 and query.start.hour == 0  # type: ignore[attr-defined]
    play = _post(client, tenants["a"], f"/api/command/{car.car_id}/9201.json",
                 {"channelId": 1, "startTime": "2026-11-20T01:00:00Z", "endTime": "2026-11-20T01:10:00Z"}).json["data"]
    assert play["streamId"] == f"{car.device_id}-1-playback" and play["flvUrl"] and downlinks.sent[-1]["msg_id"] == 0x9201
    state = client.get(f"/api/video/command/{play['id']}/state.json", headers=tenants["a"]).json["data"]
    assert state["msgId"] == 0x9201 and state["streamId"] == play["streamId"] and state["state"] == "created"
    pause = _post(client, tenants["a"], f"/api/command/{car.car_id}/9202.json", {"channelId": 1, "control": 1})
    assert pause.status_code == 200 and downlinks.sent[-1]["body_hex"] == "010100000000000000"
    end = _post(client, tenants["a"], f"/api/command/{car.car_id}/9202.json", {"channelId": 1, "control": 2})
    assert end.status_code == 200
    assert media.call(lambda: play["streamId"] not in media.server.streams)
    seek = _post(client, tenants["a"], f"/api/command/{car.car_id}/9202.json", {"channelId": 1, "control": 5})
    assert seek.status_code == 400 and seek.json["data"]["field"] == "seekTime"


def test_every_playback_speed_is_sent_or_refused_with_a_message(video_app: Flask, media: ThreadedMediaServer,
                                                                  tenants: dict[str, Any]) -> None:
    """0x9202 fast forward (3) and key frames back (4) carry speed 1 (x1) .. 5 (x16): each goes to the
    terminal as asked; without a speed the request is refused with a message, and nothing is sent."""
    client, car = video_app.test_client(), tenants["car"]
    downlinks: RecordedDownlinks = video_app.extensions[DOWNLINKS_KEY]
    play = _post(client, tenants["a"], f"/api/command/{car.car_id}/9201.json",
                 {"channelId": 1, "startTime": "2026-11-20T01:00:00Z", "endTime": "2026-11-20T01:10:00Z"})
    assert play.status_code == 200
    for control in (3, 4):
        for speed in (1, 2, 3, 4, 5):
            reply = _post(client, tenants["a"], f"/api/command/{car.car_id}/9202.json",
                          {"channelId": 1, "control": control, "speed": speed})
            assert reply.status_code == 200 and reply.json["data"]["id"]
            sent = decode_body(0x9202, bytes.fromhex(downlinks.sent[-1]["body_hex"]))
            assert (sent.control, sent.speed) == (control, speed)  # type: ignore[attr-defined]
        count = len(downlinks.sent)
        refused = _post(client, tenants["a"], f"/api/command/{car.car_id}/9202.json",
                        {"channelId": 1, "control": control})
        assert refused.status_code == 400 and refused.json["data"]["field"] == "speed"
        assert "倍速" in refused.json["message"] and len(downlinks.sent) == count
    assert _post(client, tenants["a"], f"/api/command/{car.car_id}/9202.json",
                 {"channelId": 1, "control": 3, "speed": 6}).status_code == 400


def test_another_enterprises_vehicle_stream_and_command_are_404(video_app: Flask, pg_url: str,
                                                                tenants: dict[str, Any]) -> None:
    client, car, b = video_app.test_client(), tenants["car"], tenants["b"]
    for code, body in (("9101", {"channelId": 1}), ("9102", {"command": 0}), ("9205", {}),
                       ("9201", {"startTime": "2026-11-20T01:00:00Z"}), ("9202", {"control": 1})):
        for url in (f"/api/command/{car.car_id}/{code}.json", f"/api/device/{car.device_id}/command/{code}.json"):
            reply = _post(client, b, url, body)
            assert reply.status_code == 404, (url, reply.json)
    assert client.get(f"/api/video/{tenants['sn']}/1.json", headers=b).status_code == 404
    mine = _post(client, tenants["a"], f"/api/command/{car.car_id}/9205.json", {}).json["data"]["id"]
    assert client.get(f"/api/video/command/{mine}/state.json", headers=b).status_code == 404
    assert client.get(f"/api/video/command/{mine}/state.json", headers=tenants["a"]).status_code == 200
    with connect(pg_url) as conn:
        conn.execute("INSERT INTO video_log (enterprise_id, device_id, car_id, user_id, user_name, stream_id, kind,"
                     " channel, transport, bytes_sent) SELECT enterprise_id, id, car_id, NULL, 'it', %s, 'live', 2,"
                     " 'http', 1234 FROM device WHERE id = %s", (f"{car.device_id}-2-live", car.device_id))
        conn.commit()
    rows = client.post("/api/common/query/videoLog.json", headers=tenants["a"],
                       json={"deviceId.eq": car.device_id}).json["data"]
    assert rows["list"][0]["streamId"] == f"{car.device_id}-2-live" and rows["list"][0]["plateNumber"] == car.plate
    assert client.post("/api/common/query/videoLog.json", headers=b,
                       json={"deviceId.eq": car.device_id}).json["data"]["list"] == []


def test_no_video_ability_is_refused(video_app: Flask, pg_url: str, demo: Demo, tenants: dict[str, Any]) -> None:
    client = video_app.test_client()
    plain = make_vehicle(pg_url, demo.enterprises["a"], online=True)[0]
    reply = _post(client, tenants["a"], f"/api/command/{plain.car_id}/9101.json", {"channelId": 1})
    assert reply.status_code == 400 and reply.json["message"].startswith("该车辆没有安装具备该功能的设备")


def _camera_car(pg_url: str, demo: Demo, session_address: str) -> Target:
    car = make_vehicle(pg_url, demo.enterprises["a"], online=True)[0]
    with connect(pg_url) as conn:
        conn.execute("UPDATE device SET has_video = 1, video_channel = '1,2', session_address = %s WHERE id = %s",
                     (session_address, car.device_id))
        conn.commit()
    return car


def test_9101_admits_the_media_connection_only_from_the_terminals_session_address(
        video_app: Flask, media: ThreadedMediaServer, pg_url: str, demo: Demo, tenants: dict[str, Any]) -> None:
    # the terminal's JT/T 808 session came from 127.0.0.2; a client on 127.0.0.1 knows its SIM and channel
    client, car = video_app.test_client(), _camera_car(pg_url, demo, "127.0.0.2")
    started = _post(client, tenants["a"], f"/api/command/{car.car_id}/9101.json", {"channelId": 1}).json["data"]
    assert started["state"] == "created"
    stream = media.call(lambda: media.server.streams[started["streamId"]])
    forged = media.submit(forge(media.port, car.phone, 1, 1.0, local_ip="127.0.0.1", clip=tiny_clip())).result(10)
    assert forged.closed_by_server_after_s is not None and media.call(lambda: stream.source is None)
    assert stream.info.source_address == "127.0.0.2"  # what the API registered
    genuine = media.submit(forge(media.port, car.phone, 1, 1.0, local_ip="127.0.0.2", clip=tiny_clip())).result(10)
    assert genuine.closed_by_server_after_s is None  # admitted: it fed the stream until it stopped
    # every frame it sent reached the stream (how many it sent in its second depends on the machine's load)
    assert genuine.frames_sent >= 5
    deadline = time.monotonic() + 5
    while media.call(lambda: stream.counters.video_frames) < genuine.frames_sent and time.monotonic() < deadline:
        time.sleep(0.05)
    assert media.call(lambda: stream.counters.video_frames) == genuine.frames_sent


def test_a_revoked_users_open_viewer_is_closed(video_app: Flask, pg_url: str, kafka_bootstrap: str, demo: Demo,
                                               tenants: dict[str, Any]) -> None:
    """The viewer's URL was signed with the user's session epoch; disabling the user bumps it (migration
    0004) and the media server, checking its viewers' users in the database, closes the viewer."""
    platform = PostgresKafkaPlatform(pg_url, kafka_bootstrap)
    server = ThreadedMediaServer(SECRET, platform, session_check_s=0.5)
    saved = video_app.extensions[MEDIA_KEY]
    settings = MediaServerSettings(port=server.port, internal_url=f"http://127.0.0.1:{server.port}")
    video_app.extensions[MEDIA_KEY] = MediaClient(settings, SECRET)
    user = make_user(pg_url, demo.enterprises["a"], VIDEO_USER)
    client, car = video_app.test_client(), _camera_car(pg_url, demo, "127.0.0.1")
    session, done = None, None
    try:
        server.submit(platform.open()).result(30)
        started = _post(client, bearer(client, user.name), f"/api/command/{car.car_id}/9101.json",
                        {"channelId": 2}).json["data"]
        session, done = _terminal(server, car, 2)
        _until(lambda: server.call(lambda: server.server.streams[started["streamId"]].online))
        watcher = urllib.request.urlopen(started["flvUrl"].replace("localhost", "127.0.0.1"), timeout=5)
        assert watcher.read(1000)
        time.sleep(1.5)  # three checks: a valid session is left alone
        assert server.call(lambda: len(server.server.streams[started["streamId"]].viewers)) == 1
        with connect(pg_url) as conn:
            conn.execute("UPDATE app_user SET state = 0 WHERE id = %s", (user.id,))
            conn.commit()
        disabled_at = time.monotonic()
        while watcher.read(65536):
            assert time.monotonic() - disabled_at < 5, "the viewer still receives video"
        assert time.monotonic() - disabled_at < 3
        watcher.close()
    finally:
        if session is not None and done is not None:
            session.stop()
            done.result(10)
        video_app.extensions[MEDIA_KEY] = saved
        # the platform's pool and producer live on the media loop: closed there, before it stops
        server.submit(server.server.close()).result(10)
        server.submit(platform.close()).result(10)
        server.close()


def test_under_the_port_policy_9101_names_a_one_time_port_that_admits_the_terminal_once(
        video_app: Flask, pg_url: str, demo: Demo, tenants: dict[str, Any]) -> None:
    import socket

    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    first = probe.getsockname()[1]
    probe.close()
    server = ThreadedMediaServer(SECRET, source_policy="port", one_time_ports=f"{first}-{first + 3}")
    saved = video_app.extensions[MEDIA_KEY]
    video_app.extensions[MEDIA_KEY] = MediaClient(
        MediaServerSettings(port=server.port, internal_url=f"http://127.0.0.1:{server.port}"), SECRET)
    downlinks: RecordedDownlinks = video_app.extensions[DOWNLINKS_KEY]
    client, car = video_app.test_client(), _camera_car(pg_url, demo, "198.51.100.7")  # NAT: another address
    try:
        started = _post(client, tenants["a"], f"/api/command/{car.car_id}/9101.json", {"channelId": 1}).json["data"]
        body = decode_body(0x9101, bytes.fromhex(downlinks.sent[-1]["body_hex"]))
        port = body.tcp_port  # type: ignore[attr-defined]
        assert first <= port <= first + 3 and port != server.port
        on_main = server.submit(forge(server.port, car.phone, 1, 0.5, clip=tiny_clip())).result(10)
        assert on_main.closed_by_server_after_s is not None  # the main port admits no terminal under this policy
        genuine = server.submit(forge(port, car.phone, 1, 1.0, local_ip="127.0.0.2", clip=tiny_clip())).result(10)
        assert genuine.closed_by_server_after_s is None
        # every frame it sent reached the stream (how many it sent in its second depends on the machine's load)
        stream = server.call(lambda: server.server.streams[started["streamId"]])
        assert genuine.frames_sent >= 5
        deadline = time.monotonic() + 5
        while server.call(lambda: stream.counters.video_frames) < genuine.frames_sent and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.call(lambda: stream.counters.video_frames) == genuine.frames_sent
        with pytest.raises(OSError):  # that request's port is closed once its terminal was bound
            socket.create_connection(("127.0.0.1", port), timeout=2).close()
    finally:
        video_app.extensions[MEDIA_KEY] = saved
        server.close()


def test_9101_for_a_terminal_without_a_known_session_address_is_a_clear_409_and_sends_nothing(
        video_app: Flask, pg_url: str, demo: Demo, tenants: dict[str, Any]) -> None:
    client = video_app.test_client()
    car = make_vehicle(pg_url, demo.enterprises["a"], online=True)[0]  # online, no session address recorded
    with connect(pg_url) as conn:
        conn.execute("UPDATE device SET has_video = 1, video_channel = '1' WHERE id = %s", (car.device_id,))
        conn.commit()
    downlinks: RecordedDownlinks = video_app.extensions[DOWNLINKS_KEY]
    before = len(downlinks.sent)
    reply = _post(client, tenants["a"], f"/api/command/{car.car_id}/9101.json", {"channelId": 1})
    assert reply.status_code == 409 and reply.json["message"].startswith("终端会话尚未就绪")
    assert len(downlinks.sent) == before
