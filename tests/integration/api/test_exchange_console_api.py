"""The data-exchange screens' reads through the real app (platform-spec §2 upstreamMessage, downstreamMessage,
inspectMessage, alarmMessage; migration 0046): the JT/T 809 frame logs by direction with a 0x1001's password
never shown, the alarms forwarded and urgings received with their upper-platform alarm type, the inspections
with their expired state, every read behind ``superiorPlatform:superior``, and tenancy."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from flask.testing import FlaskClient

from tests.integration.api.conftest import ENGLISH, Demo, error_text
from tests.integration.api.test_console_api import bearer, make_user
from tests.integration.api.test_exchange_api import SECRET, new_platform
from warehouse.db import connect
from warehouse.queries import exchange as q

Login = Callable[[str], dict[str, str]]
LOGS = ("exchangeUpstreamMessage", "exchangeDownstreamMessage", "inspectMessage", "alarmMessage")


def _frames(platform_id: int) -> list[dict[str, Any]]:
    def row(direction: str, msg_id: int, data_type: int | None, decoded: dict[str, Any], raw_hex: str,
            link: str = "main") -> dict[str, Any]:
        return {"platform_id": platform_id, "direction": direction, "link": link, "msg_id": msg_id,
                "data_type": data_type, "decoded": decoded, "raw_hex": raw_hex}

    alarm_2019 = {"data_type": 0x1402, "plate": None, "plate_colour": None, "data": {
        "source_platform": "7001", "warn_type": 1, "warn_time": "2026-12-02T06:00:00+00:00",
        "start_time": "2026-12-02T06:00:00+00:00", "end_time": "2026-12-02T06:01:00+00:00",
        "plate": "京A12345", "plate_colour": 2, "destination_platform": "0", "line_id": 0, "content": "超速"}}
    urging_2011 = {"data_type": 0x9401, "plate": "京A12345", "plate_colour": 2, "data": {
        "warn_src": 1, "warn_type": 2, "warn_time": "2026-12-02T06:00:00+00:00", "supervision_id": "0000002A",
        "end_time": "2026-12-02T07:00:00+00:00", "level": 1, "supervisor": "王督办", "supervisor_tel": "",
        "supervisor_email": ""}}
    return [
        # a writer that logged the login with its password: the view still hides it
        row("up", 0x1001, None, {"userId": 1001, "password": SECRET}, "5b" + SECRET.encode().hex() + "5d"),
        row("up", 0x1005, None, {}, "5b00000000100500005d"),
        row("up", 0x1400, 0x1402, alarm_2019, "5b1400aa5d"),
        row("down", 0x9400, 0x9401, urging_2011, "5b9400bb5d", link="sub"),
        row("down", 0x9006, None, {}, "5b9006cc5d", link="sub"),
    ]


def _query(client: FlaskClient, headers: dict[str, str], entity: str, body: dict[str, Any] | None = None
           ) -> Any:
    reply = client.post(f"/api/common/query/{entity}.json?countable=true&pageSize=100", headers=headers,
                        json=body or {})
    assert reply.status_code == 200, reply.json
    return reply.json["data"]  # type: ignore[index]


def test_frame_logs_split_by_direction_and_never_show_the_login_password(client: FlaskClient, login: Login,
                                                                          pg_url: str) -> None:
    headers = login("admin_a")
    platform = new_platform(client, headers)
    with connect(pg_url) as conn:
        q.log_messages(conn, _frames(platform["id"]))
    scope = {"platformId.eq": platform["id"]}
    up = _query(client, headers, "exchangeUpstreamMessage", scope)
    down = _query(client, headers, "exchangeDownstreamMessage", scope)
    assert sorted(r["msgIdHex"] for r in up["list"]) == ["0x1001", "0x1005", "0x1400"]
    assert sorted((r["msgIdHex"], r["link"]) for r in down["list"]) == [("0x9006", "sub"), ("0x9400", "sub")]
    assert {r["platformName"] for r in up["list"]} == {platform["name"]}
    login_row = next(r for r in up["list"] if r["msgIdHex"] == "0x1001")
    assert login_row["rawHex"] == "" and "1001" in login_row["decoded"]
    assert SECRET not in str(up) and SECRET.encode().hex() not in str(up)
    export = client.post("/api/common/export/exchangeUpstreamMessage.csv", headers=headers, json=scope)
    assert export.status_code == 200 and SECRET not in export.get_data(as_text=True)
    only_alarm = _query(client, headers, "exchangeUpstreamMessage", {**scope, "msgId.eq": 0x1400})
    assert [r["dataTypeHex"] for r in only_alarm["list"]] == ["0x1402"]


def test_alarm_messages_list_forwarded_alarms_and_urgings_with_their_upper_platform_type(
        client: FlaskClient, login: Login, pg_url: str) -> None:
    headers = login("admin_a")
    platform = new_platform(client, headers)
    with connect(pg_url) as conn:
        q.log_messages(conn, _frames(platform["id"]))
    rows = _query(client, headers, "alarmMessage", {"platformId.eq": platform["id"]})["list"]
    assert sorted((r["direction"], r["dataType"], r["warnType"], r["plateNumber"]) for r in rows) == [
        ("down", 0x9401, 2, "京A12345"), ("up", 0x1402, 1, "京A12345")]
    urging = next(r for r in rows if r["dataType"] == 0x9401)
    assert urging["supervisionId"] == "0000002A" and urging["urgingDeadline"].startswith("2026-12-02T07:00")
    speeding = _query(client, headers, "alarmMessage", {"platformId.eq": platform["id"], "warnType.eq": 1})
    assert [r["info"] for r in speeding["list"]] == ["超速"]


def _inspection(pg_url: str, platform_id: int, enterprise_id: int, deadline: datetime | None) -> int:
    with connect(pg_url) as conn:
        return q.store_inspection(conn, {
            "platform_id": platform_id, "enterprise_id": enterprise_id, "object_type": 1, "object_id": "7001",
            "info_id": 11, "source_sn": 5, "question": "请报告值班人员姓名", "deadline": deadline})


def test_an_inspection_past_its_deadline_is_expired_and_cannot_be_answered(client: FlaskClient, login: Login,
                                                                           pg_url: str, demo: Demo) -> None:
    headers = login("admin_a")
    platform = new_platform(client, headers)
    past = _inspection(pg_url, platform["id"], demo.enterprises["a"], datetime.now(UTC) - timedelta(seconds=1))
    future = _inspection(pg_url, platform["id"], demo.enterprises["a"], datetime.now(UTC) + timedelta(minutes=5))
    listed = _query(client, headers, "inspectMessage", {"platformId.eq": platform["id"]})["list"]
    assert {r["id"]: r["state"] for r in listed} == {past: "expired", future: "open"}
    reply = client.post(f"/api/exchange/inspection/{past}/answer.json", headers={**headers, **ENGLISH},
                        json={"answer": "在岗"})
    assert reply.status_code == 409 and reply.json["data"] == {"state": "expired"}  # type: ignore[index]
    assert reply.json["message"] == "该查岗已过应答截止时间，不能再应答"  # type: ignore[index]
    assert "deadline" in error_text(reply, "en-US")
    # the console's sign-in read: the open ones only
    still_open = _query(client, headers, "inspectMessage", {"platformId.eq": platform["id"], "state.eq": "open"})
    assert [r["id"] for r in still_open["list"]] == [future]


def test_an_answered_inspection_shows_who_answered_and_how_long_it_took(client: FlaskClient, login: Login,
                                                                        pg_url: str, demo: Demo) -> None:
    headers = login("admin_a")
    platform = new_platform(client, headers)
    inspection = _inspection(pg_url, platform["id"], demo.enterprises["a"], datetime.now(UTC) + timedelta(minutes=5))
    with connect(pg_url) as conn:
        conn.execute("UPDATE exchange_inspection SET received_at = now() - interval '42 seconds' WHERE id = %s",
                     (inspection,))
    reply = client.post(f"/api/exchange/inspection/{inspection}/answer.json", headers=headers,
                        json={"answer": "张三在岗"})
    assert reply.status_code == 200
    row = _query(client, headers, "inspectMessage", {"id.eq": inspection})["list"][0]
    assert (row["state"], row["answer"]) == ("answered", "张三在岗")
    assert row["answeredByName"] and 41 <= row["answerLatency"] <= 60


def test_another_enterprise_sees_none_of_the_exchange_logs(client: FlaskClient, login: Login, pg_url: str,
                                                           demo: Demo) -> None:
    headers = login("admin_a")
    platform = new_platform(client, headers)
    with connect(pg_url) as conn:
        q.log_messages(conn, _frames(platform["id"]))
    _inspection(pg_url, platform["id"], demo.enterprises["a"], None)
    other = login("admin_b")
    for entity in LOGS:
        assert _query(client, other, entity, {"platformId.eq": platform["id"]})["list"] == [], entity


def test_every_exchange_log_route_needs_the_superior_action(client: FlaskClient, pg_url: str, demo: Demo) -> None:
    # a role that may list and edit superior platforms but not operate the exchange
    lister = bearer(client, make_user(pg_url, demo.enterprises["a"], {
        "superiorPlatform": ["query", "get", "export", "add", "update"]}).name)
    operator = bearer(client, make_user(pg_url, demo.enterprises["a"], {"superiorPlatform": ["superior", "export"]}).name)
    # the superior action alone reads the logs; an export also needs the export action, as every export does
    reader = bearer(client, make_user(pg_url, demo.enterprises["a"], {"superiorPlatform": ["superior"]}).name)
    for entity in LOGS:
        refused = client.open(f"/api/common/export/{entity}.csv", method="POST", headers=reader, json={})
        assert refused.status_code == 403 and refused.json["data"]["permission"] == "superiorPlatform:export", entity  # type: ignore[index]
        assert client.open(f"/api/common/query/{entity}.json", method="POST", headers=reader, json={}).status_code == 200
        for method, url in (("POST", f"/api/common/query/{entity}.json"), ("POST", f"/api/common/count/{entity}.json"),
                            ("GET", f"/api/common/meta/{entity}.json"),
                            ("POST", f"/api/common/export/{entity}.xlsx")):
            denied = client.open(url, method=method, headers=lister, json={} if method == "POST" else None)
            assert denied.status_code == 403, (url, denied.json)
            assert denied.json["data"]["permission"] == "superiorPlatform:superior"  # type: ignore[index]
            assert client.open(url, method=method, headers=operator,
                               json={} if method == "POST" else None).status_code == 200, url
