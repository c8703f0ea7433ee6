"""Inferior platforms (JT/T 809, fleetwatch as the superior) through the real app: the inferiorPlatform entity with
its write-only password and unique user id, the exchange vehicles and positions lists (exchangeCar, exchangeGps),
sending an inspection or a message (queued for the superior service, visible as inferiorRequest), the
``superior`` action, and tenancy."""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask.testing import FlaskClient

from fleet.settings import ExchangeSettings
from tests.integration.api.conftest import Demo, error_text
from tests.integration.api.test_console_api import bearer, make_user
from warehouse.db import connect
from warehouse.queries import exchange_inferior as q

Login = Callable[[str], dict[str, str]]
SECRET = "inf3r!or"
T0 = datetime(2026, 12, 1, 2, 0, tzinfo=UTC)


def new_platform(client: FlaskClient, headers: dict[str, str], **extra: Any) -> dict[str, Any]:
    body = {"name": f"i{uuid.uuid4().hex[:10]}", "userId": random.randint(10**8, 4 * 10**9), "password": SECRET,
            "centreId": 30000001, "version": "2011", **extra}
    reply = client.post("/api/common/inferiorPlatform.json", headers=headers, json=body)
    assert reply.status_code == 200, reply.json
    return reply.json["data"]  # type: ignore[no-any-return,index]


def test_password_is_stored_for_the_login_and_never_returned(client: FlaskClient, login: Login, pg_url: str) -> None:
    headers = login("admin_a")
    created = new_platform(client, headers, allowedHosts=["10.1.2.3"],
                           videoHosts=["10.1.2.0/24", "video.example.cn"])
    assert "password" not in created and created["allowedHosts"] == ["10.1.2.3"]
    assert created["videoHosts"] == ["10.1.2.0/24", "video.example.cn"]
    assert new_platform(client, headers)["videoHosts"] == []  # none: the main link's address only
    detail = client.get(f"/api/common/inferiorPlatform/{created['id']}.json", headers=headers).json["data"]  # type: ignore[index]
    assert "password" not in detail and detail["version"] == "2011"
    rows = client.post("/api/common/query/inferiorPlatform.json?pageSize=1000", headers=headers, json={}).json
    assert created["name"] in str(rows) and SECRET not in str(rows)
    assert client.post("/api/common/query/inferiorPlatform.json?select=password", headers=headers,
                       json={}).status_code == 400
    with connect(pg_url) as conn:
        stored = conn.execute("SELECT password FROM inferior_platform WHERE id = %s", (created["id"],)).fetchone()
    assert stored == (SECRET,)


def test_a_user_id_taken_by_another_platform_is_a_409_and_bad_values_are_400s(client: FlaskClient,
                                                                                login: Login) -> None:
    created = new_platform(client, login("admin_a"))
    reply = client.post("/api/common/inferiorPlatform.json", headers=login("admin_b"), json={
        "name": "dup", "userId": created["userId"], "password": "x", "centreId": 1})
    assert reply.status_code == 409 and reply.json["data"] == {"field": "userId"}  # type: ignore[index]
    for field, value in (("allowedHosts", ["not an address"]), ("version", "2013"), ("password", "123456789"),
                         ("userId", -1), ("videoHosts", ["not a host"]), ("videoHosts", ["0.0.0.0/0"]),
                         ("videoHosts", "10.0.0.1")):
        reply = client.post("/api/common/inferiorPlatform.json", headers=login("admin_a"), json={
            "name": f"x{uuid.uuid4().hex[:6]}", "userId": 12345, "password": "x", "centreId": 1, field: value})
        assert reply.status_code == 400 and field in error_text(reply, "en-US"), (field, reply.json)  # type: ignore[index]


def _vehicle_with_positions(pg_url: str, platform: dict[str, Any], plate: str) -> int:
    with connect(pg_url) as conn:
        vehicle = q.vehicle_id(conn, platform["id"], platform["enterpriseId"], plate, 2)
        q.store_positions(conn, [{"vehicle_id": vehicle, "fix_at": T0 + timedelta(minutes=i), "received_at": T0,
                                  "backfilled": i == 0, "lat": 22.5 + i / 100, "lng": 114.05, "speed_kmh": 50.0,
                                  "direction_deg": 180, "altitude_m": 10, "mileage_km": None, "status": 3,
                                  "alarm": 0} for i in range(3)])
        conn.commit()
    return vehicle


def test_exchange_vehicles_and_positions_are_listed_in_a_time_range_and_not_to_another_enterprise(
        client: FlaskClient, login: Login, pg_url: str) -> None:
    headers = login("admin_a")
    platform = new_platform(client, headers)
    plate = f"粤B{uuid.uuid4().hex[:5].upper()}"
    vehicle = _vehicle_with_positions(pg_url, platform, plate)
    cars = client.post("/api/common/query/exchangeCar.json", headers=headers, json={"plate": plate}).json["data"]  # type: ignore[index]
    (car,) = cars["list"]
    assert (car["id"], car["platformName"], car["plateColor"], car["lat"]) == (vehicle, platform["name"], 2, 22.52)
    assert car["lastFixAt"].startswith("2026-12-01")
    body = {"vehicleId": vehicle, "rangeConditions": [{"fieldName": "fixAt", "start": "2026-12-01T02:00:30Z",
                                                        "end": "2026-12-01T02:10:00Z"}]}
    page = client.post("/api/common/query/exchangeGps.json", headers=headers, json=body).json["data"]  # type: ignore[index]
    assert [(p["lat"], p["backfilled"]) for p in page["list"]] == [(22.52, False), (22.51, False)]  # newest first
    other = login("admin_b")
    for entity, condition in (("exchangeCar", {"plate": plate}), ("exchangeGps", {"vehicleId": vehicle})):
        listed = client.post(f"/api/common/query/{entity}.json", headers=other, json=condition).json["data"]  # type: ignore[index]
        assert listed["list"] == [], entity
    assert client.get(f"/api/common/exchangeCar/{vehicle}.json", headers=other).status_code in (404, 405)


def test_an_inspection_and_a_message_are_queued_for_the_superior_service(client: FlaskClient, login: Login,
                                                                          pg_url: str) -> None:
    headers = login("admin_a")
    platform = new_platform(client, headers)
    base = f"/api/exchange/inferiorPlatform/{platform['id']}"
    reply = client.post(f"{base}/inspection.json", headers=headers, json={"content": "请报值班人员", "answerMinutes": 5})
    assert reply.status_code == 200 and reply.json["data"]["state"] == "queued"  # type: ignore[index]
    inspection = reply.json["data"]["id"]  # type: ignore[index]
    message = client.post(f"{base}/message.json", headers=headers, json={"content": "请加强夜间监控"}).json["data"]["id"]  # type: ignore[index]
    with connect(pg_url) as conn:
        queued = q.queued_requests(conn, platform["id"])
    assert [(r["id"], r["kind"], r["content"], r["object_id"], r["answer_minutes"]) for r in queued] == [
        (inspection, "inspection", "请报值班人员", "30000001", 5), (message, "message", "请加强夜间监控", "30000001", None)]
    listed = client.post("/api/common/query/inferiorRequest.json", headers=headers,
                         json={"platformId": platform["id"]}).json["data"]["list"]  # type: ignore[index]
    assert [(r["kind"], r["state"]) for r in listed] == [("message", "queued"), ("inspection", "queued")]
    for body in ({"content": " "}, {"content": "x", "objectType": 9}, {"content": "x", "answerMinutes": 0}, []):
        reply = client.post(f"{base}/inspection.json", headers=headers, json=body)
        assert reply.status_code == 400, body
    assert client.post(f"{base}/inspection.json", headers=login("admin_b"), json={"content": "x"}).status_code == 404
    assert client.get(f"{base}/linkState.json", headers=login("admin_b")).status_code == 404


def test_link_state_shows_what_the_superior_service_saved(client: FlaskClient, login: Login, pg_url: str) -> None:
    headers = login("admin_a")
    platform = new_platform(client, headers)
    url = f"/api/exchange/inferiorPlatform/{platform['id']}/linkState.json"
    assert client.get(url, headers=headers).json["data"] == []  # type: ignore[index]
    with connect(pg_url) as conn:
        q.save_link_state(conn, platform["id"], "main", {
            "state": "up", "since": T0, "peer": "10.1.2.3:40000", "last_heartbeat_at": T0, "sent": 3, "received": 9,
            "positions": 7, "last_error": None})
        conn.commit()
    rows = client.get(url, headers=headers).json["data"]  # type: ignore[index]
    assert [(r["link"], r["state"], r["peer"], r["receivedCount"], r["positionsCount"]) for r in rows] == [
        ("main", "up", "10.1.2.3:40000", 9, 7)]


def test_the_authorisation_codes_a_platform_reported_are_read_with_the_superior_action(
        client: FlaskClient, login: Login, pg_url: str) -> None:
    """0x1701 as the superior service stores it (migration 0065): the row says when and as which platform id, the
    codes only through their route; an older report never replaces a newer one; another enterprise: 404."""
    headers = login("admin_a")
    platform = new_platform(client, headers)
    url = f"/api/exchange/inferiorPlatform/{platform['id']}/authorizeCodes.json"
    assert client.get(url, headers=headers).json["data"] == {  # type: ignore[index]
        "platformCode": None, "code1": None, "code2": None, "reportedAt": None}
    home, cross = "a" * 64, "b" * 64
    with connect(pg_url) as conn:
        q.save_authorize_codes(conn, platform["id"], {"platform_code": "30000001", "code_1": home, "code_2": cross,
                                                      "at": T0})
        q.save_authorize_codes(conn, platform["id"], {"platform_code": "30000001", "code_1": "old", "code_2": "old",
                                                      "at": T0 - timedelta(days=1)})  # late: left out
        conn.commit()
    got = client.get(url, headers=headers).json["data"]  # type: ignore[index]
    assert (got["platformCode"], got["code1"], got["code2"]) == ("30000001", home, cross)
    assert got["reportedAt"].startswith("2026-12-01T02:00:00")
    row = client.get(f"/api/common/inferiorPlatform/{platform['id']}.json", headers=headers).json["data"]  # type: ignore[index]
    assert row["authorizePlatformCode"] == "30000001" and row["authorizeReportedAt"].startswith("2026-12-01T02:00")
    assert home not in str(row)  # the codes are not in the list's rows
    assert client.get(url, headers=login("admin_b")).status_code == 404


def test_a_user_without_the_permission_or_the_superior_action_is_403(client: FlaskClient, demo: Demo,
                                                                       pg_url: str, login: Login) -> None:
    platform = new_platform(client, login("admin_a"))
    stranger = bearer(client, make_user(pg_url, demo.enterprises["a"], {"car": ["query", "get"]}).name)
    for entity in ("inferiorPlatform", "exchangeCar", "exchangeGps", "inferiorRequest"):
        reply = client.post(f"/api/common/query/{entity}.json", headers=stranger, json={})
        assert reply.status_code == 403 and reply.json["data"]["permission"] == "inferiorPlatform:query", entity  # type: ignore[index]
    lister = bearer(client, make_user(pg_url, demo.enterprises["a"], {"inferiorPlatform": ["query", "get"]}).name)
    assert client.post("/api/common/query/exchangeCar.json", headers=lister, json={}).status_code == 200
    base = f"/api/exchange/inferiorPlatform/{platform['id']}"
    for method, url, body in (("GET", f"{base}/linkState.json", None), ("GET", f"{base}/authorizeCodes.json", None),
                              ("POST", f"{base}/inspection.json", {"content": "在岗?"}),
                              ("POST", f"{base}/message.json", {"content": "通知"})):
        reply = client.open(url, method=method, headers=lister, json=body)
        assert reply.status_code == 403 and reply.json["data"]["permission"] == "inferiorPlatform:superior"  # type: ignore[index]


def test_a_request_has_a_deadline_and_reads_expired_past_it_unanswered(client: FlaskClient, login: Login,
                                                                        pg_url: str) -> None:
    headers = login("admin_a")
    platform = new_platform(client, headers)
    base = f"/api/exchange/inferiorPlatform/{platform['id']}"
    inspection = client.post(f"{base}/inspection.json", headers=headers,
                             json={"content": "限时查岗", "answerMinutes": 3}).json["data"]["id"]  # type: ignore[index]
    message = client.post(f"{base}/message.json", headers=headers, json={"content": "报文"}).json["data"]["id"]  # type: ignore[index]
    with connect(pg_url) as conn:
        waits = dict(conn.execute("SELECT id, deadline - created_at FROM inferior_request WHERE id IN (%s, %s)",
                                  (inspection, message)).fetchall())
        # the inspection's time passes while nobody answers
        conn.execute("UPDATE inferior_request SET deadline = now() - interval '1 second' WHERE id = %s", (inspection,))
        conn.commit()
    assert waits == {inspection: timedelta(minutes=3), message: timedelta(minutes=q.MESSAGE_WAIT_MINUTES)}
    listed = client.post("/api/common/query/inferiorRequest.json", headers=headers,
                         json={"platformId": platform["id"]}).json["data"]["list"]  # type: ignore[index]
    assert {r["id"]: r["state"] for r in listed} == {inspection: "expired", message: "queued"}
    assert all(r["deadline"] for r in listed)
    expired = client.post("/api/common/query/inferiorRequest.json", headers=headers,
                          json={"platformId": platform["id"], "state": "expired"}).json["data"]["list"]  # type: ignore[index]
    assert [r["id"] for r in expired] == [inspection]
    with connect(pg_url) as conn:
        assert [r["id"] for r in q.queued_requests(conn, platform["id"])] == [message]  # not sent any more


def test_an_inferior_platforms_frames_are_in_the_frame_logs_with_their_kind(client: FlaskClient, login: Login,
                                                                             pg_url: str) -> None:
    platform = new_platform(client, login("admin_a"))
    with connect(pg_url) as conn:
        q.log_messages(conn, [{"platform_id": platform["id"], "direction": "up", "link": "main", "msg_id": 0x1005,
                               "data_type": None, "decoded": {}, "raw_hex": "5b00"}])
        conn.commit()
    for who, seen in (("admin_a", 1), ("admin_b", 0)):
        rows = client.post("/api/common/query/exchangeUpstreamMessage.json", headers=login(who),
                           json={"platformKind": "inferior", "inferiorPlatformId": platform["id"]}).json["data"]["list"]  # type: ignore[index]
        assert len(rows) == seen, who
    assert (rows_a := client.post("/api/common/query/exchangeUpstreamMessage.json", headers=login("admin_a"),
                                  json={"inferiorPlatformId": platform["id"]}).json["data"]["list"])  # type: ignore[index]
    assert [(r["platformKind"], r["platformName"], r["msgId"]) for r in rows_a] == [
        ("inferior", platform["name"], 0x1005)]


@pytest.fixture
def client(english_client: FlaskClient) -> FlaskClient:
    """This module reads error texts in English (``error_text``): its console speaks en-US."""
    return english_client


def test_live_video_of_an_exchange_vehicle_is_requested_answered_played_and_stopped(client: FlaskClient, login: Login,
                                                                                    pg_url: str, demo: Demo) -> None:
    """The operator's side of 0x9801 / 0x1801 (the superior service's statements run here as it runs them)."""
    headers = login("admin_a")
    platform = new_platform(client, headers)
    plate = f"粤V{uuid.uuid4().hex[:5].upper()}"
    vehicle = _vehicle_with_positions(pg_url, platform, plate)
    base = f"/api/exchange/exchangeCar/{vehicle}/video.json"
    first = client.post(base, headers=headers, json={"channelId": 3, "avItemType": 2}).json["data"]  # type: ignore[index]
    second = client.post(base, headers=headers, json={}).json["data"]  # type: ignore[index]
    assert first["state"] == second["state"] == "queued"
    read = client.get(f"/api/exchange/videoPull/{first['id']}.json", headers=headers).json["data"]  # type: ignore[index]
    assert (read["plate"], read["channelId"], read["avItemType"], read["state"]) == (plate, 3, 2, "queued")
    assert "wsUrl" not in read
    with connect(pg_url) as conn:
        queued = q.queued_videos(conn, platform["id"])
        assert [(r["id"], r["channel"], r["av_type"], r["plate_colour"], r["code"]) for r in queued] == [
            (first["id"], 3, 2, 2, None), (second["id"], 1, 0, 2, None)]  # no 0x1701 yet: nothing to present
        for request in queued:
            q.mark_video_sent(conn, request["id"], "sub", 7, datetime.now(UTC))
        # a 0x1801 names no request: the oldest sent one of that vehicle is answered
        answered = q.answer_video(conn, platform["id"], plate, 2, 0, "10.0.0.9", 7618, datetime.now(UTC))
        assert answered is not None and answered["id"] == first["id"]
        q.video_playing(conn, first["id"], f"exchange-{first['id']}")
        refused = q.answer_video(conn, platform["id"], plate, 2, 2, "", 0, datetime.now(UTC))
        assert refused is not None and refused["id"] == second["id"]
        q.video_closed(conn, second["id"], "failed", None, datetime.now(UTC))
        assert q.answer_video(conn, platform["id"], plate, 2, 0, "10.0.0.9", 7618, datetime.now(UTC)) is None
        conn.commit()
    playing = client.get(f"/api/exchange/videoPull/{first['id']}.json", headers=headers).json["data"]  # type: ignore[index]
    assert playing["state"] == "playing" and playing["streamId"] == f"exchange-{first['id']}"
    assert f"/live/exchange-{first['id']}.flv?token=" in playing["wsUrl"] and playing["urlExpiresAt"] > 0
    failed = client.get(f"/api/exchange/videoPull/{second['id']}.json", headers=headers).json["data"]  # type: ignore[index]
    assert (failed["state"], failed["result"], failed["error"], failed["serverIp"]) == ("failed", 2, None, "")
    # a request still waiting is ended at once by the operator's stop
    third = client.post(base, headers=headers, json={"channelId": 2}).json["data"]  # type: ignore[index]
    stopped = client.post(f"/api/exchange/videoPull/{third['id']}/stop.json", headers=headers).json["data"]  # type: ignore[index]
    assert (stopped["state"], stopped["error"]) == ("ended", "stopped")
    with connect(pg_url) as conn:
        assert q.queued_videos(conn, platform["id"]) == []
    # the list of what was asked (entity inferiorVideoRequest): newest first, who asked, the answer
    listed = client.post("/api/common/query/inferiorVideoRequest.json", headers=headers,
                         json={"plate": plate}).json["data"]["list"]  # type: ignore[index]
    assert [(r["id"], r["kind"], r["channelId"], r["state"], r["result"]) for r in listed] == [
        (third["id"], "live", 2, "ended", None), (second["id"], "live", 1, "failed", 2),
        (first["id"], "live", 3, "playing", 0)]
    assert listed[2]["platformName"] == platform["name"] and listed[2]["latencyMs"] >= 0
    assert (listed[2]["serverAddress"], listed[0]["error"]) == ("10.0.0.9:7618", "stopped")
    assert {r["createdByName"] for r in listed} == {listed[0]["createdByName"]} and listed[0]["createdByName"]
    assert client.post("/api/common/query/inferiorVideoRequest.json", headers=login("admin_b"),
                       json={"plate": plate}).json["data"]["list"] == []  # type: ignore[index]

    for body in ({"channelId": 0}, {"channelId": 256}, {"channelId": "1"}, {"avItemType": 3}, {"avItemType": True}, []):
        reply = client.post(base, headers=headers, json=body)
        assert reply.status_code == 400, body
    other = login("admin_b")
    assert client.post(base, headers=other, json={}).status_code == 404
    assert client.get(f"/api/exchange/videoPull/{first['id']}.json", headers=other).status_code == 404
    assert client.post(f"/api/exchange/videoPull/{first['id']}/stop.json", headers=other).status_code == 404
    lister = bearer(client, make_user(pg_url, demo.enterprises["a"], {"inferiorPlatform": ["query", "get"]}).name)
    for method, url in (("POST", base), ("GET", f"/api/exchange/videoPull/{first['id']}.json"),
                        ("POST", f"/api/exchange/videoPull/{first['id']}/stop.json")):
        reply = client.open(url, method=method, headers=lister, json={})
        assert reply.status_code == 403 and reply.json["data"]["permission"] == "inferiorPlatform:superior"  # type: ignore[index]


def test_a_video_request_unanswered_at_its_deadline_expires_and_a_late_answer_matches_nothing(
        client: FlaskClient, login: Login, pg_url: str) -> None:
    headers = login("admin_a")
    platform = new_platform(client, headers)
    plate = f"粤W{uuid.uuid4().hex[:5].upper()}"
    vehicle = _vehicle_with_positions(pg_url, platform, plate)
    request = client.post(f"/api/exchange/exchangeCar/{vehicle}/video.json", headers=headers,
                          json={}).json["data"]["id"]  # type: ignore[index]
    with connect(pg_url) as conn:
        wait = conn.execute("SELECT deadline - created_at FROM exchange_video_pull WHERE id = %s", (request,)).fetchone()
        q.mark_video_sent(conn, request, "main", 3, datetime.now(UTC))
        conn.execute("UPDATE exchange_video_pull SET deadline = now() - interval '1 second' WHERE id = %s", (request,))
        assert request in q.expire_videos(conn, datetime.now(UTC))
        assert q.answer_video(conn, platform["id"], plate, 2, 0, "10.0.0.9", 7618, datetime.now(UTC)) is None
        conn.commit()
    assert wait == (timedelta(seconds=ExchangeSettings().superior_video_wait_s),)
    read = client.get(f"/api/exchange/videoPull/{request}.json", headers=headers).json["data"]  # type: ignore[index]
    assert read["state"] == "expired" and read["result"] is None


def test_a_recording_is_asked_for_with_its_period_and_answered_by_a_0x1a01_only(client: FlaskClient, login: Login,
                                                                                pg_url: str) -> None:
    headers = login("admin_a")
    platform = new_platform(client, headers)
    plate = f"粤X{uuid.uuid4().hex[:5].upper()}"
    vehicle = _vehicle_with_positions(pg_url, platform, plate)
    base = f"/api/exchange/exchangeCar/{vehicle}/video.json"
    period = {"startTime": "2026-12-06T01:00:00Z", "endTime": "2026-12-06T01:10:00Z"}
    reply = client.post(base, headers=headers, json={"kind": "playback", "channelId": 2, "avItemType": 2,
                                                     "streamType": 1, "memType": 2, **period})
    assert reply.status_code == 200, reply.json
    request = reply.json["data"]["id"]  # type: ignore[index]
    read = client.get(f"/api/exchange/videoPull/{request}.json", headers=headers).json["data"]  # type: ignore[index]
    assert (read["kind"], read["streamType"], read["memType"]) == ("playback", 1, 2)
    assert (read["startTime"], read["endTime"]) == ("2026-12-06T01:00:00+00:00", "2026-12-06T01:10:00+00:00")
    with connect(pg_url) as conn:
        (queued,) = q.queued_videos(conn, platform["id"])
        assert (queued["kind"], queued["start_time"], queued["end_time"]) == (
            "playback", datetime(2026, 12, 6, 1, 0, tzinfo=UTC), datetime(2026, 12, 6, 1, 10, tzinfo=UTC))
        q.mark_video_sent(conn, request, "sub", 8, datetime.now(UTC))
        # a 0x1801 (live) answers no playback; the 0x1A01 does
        assert q.answer_video(conn, platform["id"], plate, 2, 0, "10.0.0.9", 7618, datetime.now(UTC)) is None
        answered = q.answer_video(conn, platform["id"], plate, 2, 0, "10.0.0.9", 7618, datetime.now(UTC), "playback")
        assert answered is not None and answered["id"] == request
        conn.commit()
    for body in ({"kind": "playback"}, {"kind": "playback", "startTime": period["endTime"], "endTime": period["startTime"]},
                 {"kind": "playback", "startTime": "2026-12-05T00:00:00Z", "endTime": "2026-12-06T01:00:00Z"},
                 {"kind": "playback", **period, "streamType": 3}, {"kind": "playback", **period, "memType": -1},
                 {"kind": "download"}):
        reply = client.post(base, headers=headers, json=body)
        assert reply.status_code == 400, body
