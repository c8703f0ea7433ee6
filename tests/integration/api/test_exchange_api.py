"""Superior platforms (JT/T 809) through the real app: the superiorPlatform entity on the generic routes (its
generic rules also run in test_entities_api.py), the write-only password, the ``superior`` action on the link
operations, and tenancy."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.integration.api.conftest import Demo, error_text
from tests.integration.api.test_console_api import bearer, make_user
from warehouse.db import connect
from warehouse.queries import exchange as q

Login = Callable[[str], dict[str, str]]
SECRET = "s3cr3t!!"


def platform_body(**extra: Any) -> dict[str, Any]:
    return {"name": f"p{uuid.uuid4().hex[:10]}", "host": "127.0.0.1", "port": 18809, "userId": 20180920,
            "password": SECRET, "centreId": 20180920, "version": "2019", "downLinkPort": 18810, **extra}


def new_platform(client: FlaskClient, headers: dict[str, str], **extra: Any) -> dict[str, Any]:
    reply = client.post("/api/common/superiorPlatform.json", headers=headers, json=platform_body(**extra))
    assert reply.status_code == 200, reply.json
    return reply.json["data"]  # type: ignore[no-any-return,index]


def test_password_is_stored_for_the_login_and_never_returned(client: FlaskClient, login: Login, pg_url: str) -> None:
    headers = login("admin_a")
    created = new_platform(client, headers)
    assert "password" not in created
    detail = client.get(f"/api/common/superiorPlatform/{created['id']}.json", headers=headers).json["data"]  # type: ignore[index]
    assert "password" not in detail and detail["centreId"] == 20180920
    # every row, whatever other tests of the session created (the list is paged)
    rows = client.post("/api/common/query/superiorPlatform.json?pageSize=1000", headers=headers,
                       json={}).json["data"]  # type: ignore[index]
    assert created["name"] in str(rows) and SECRET not in str(rows) and "password" not in str(rows)
    reply = client.post("/api/common/query/superiorPlatform.json?select=password", headers=headers, json={})
    assert reply.status_code == 400
    with connect(pg_url) as conn:
        stored = conn.execute("SELECT password FROM superior_platform WHERE id = %s", (created["id"],)).fetchone()
    assert stored == (SECRET,)


def test_another_enterprises_platform_is_invisible(client: FlaskClient, login: Login) -> None:
    created = new_platform(client, login("admin_a"))
    other = login("admin_b")
    assert client.get(f"/api/common/superiorPlatform/{created['id']}.json", headers=other).status_code == 404
    listed = client.post("/api/common/query/superiorPlatform.json", headers=other, json={}).json  # type: ignore[union-attr]
    assert created["name"] not in str(listed)
    reply = client.get(f"/api/exchange/superiorPlatform/{created['id']}/linkState.json", headers=other)
    assert reply.status_code == 404 and reply.json["code"] == 404  # type: ignore[index]


def test_bad_values_are_400s_naming_the_field(client: FlaskClient, login: Login) -> None:
    headers = login("admin_a")
    for field, value in (("port", 70000), ("version", "2013"), ("exchangedEnterpriseIds", ["x"]), ("password", "")):
        reply = client.post("/api/common/superiorPlatform.json", headers=headers, json=platform_body(**{field: value}))
        assert reply.status_code == 400 and field in error_text(reply, "en-US"), (field, reply.json)  # type: ignore[index]


def test_a_user_without_the_permission_or_the_superior_action_is_403(client: FlaskClient, demo: Demo,
                                                                       pg_url: str, login: Login) -> None:
    created = new_platform(client, login("admin_a"))
    stranger = bearer(client, make_user(pg_url, demo.enterprises["a"], {"car": ["query", "get"]}).name)
    reply = client.post("/api/common/query/superiorPlatform.json", headers=stranger, json={})
    assert reply.status_code == 403 and reply.json["data"]["permission"] == "superiorPlatform:query"  # type: ignore[index]
    lister = bearer(client, make_user(pg_url, demo.enterprises["a"], {"superiorPlatform": ["query", "get"]}).name)
    assert client.post("/api/common/query/superiorPlatform.json", headers=lister, json={}).status_code == 200
    for method, url, body in (("GET", f"/api/exchange/superiorPlatform/{created['id']}/linkState.json", None),
                              ("POST", "/api/exchange/inspection/1/answer.json", {"answer": "在岗"})):
        reply = client.open(url, method=method, headers=lister, json=body)
        assert reply.status_code == 403 and reply.json["data"]["permission"] == "superiorPlatform:superior"  # type: ignore[index]


def test_link_state_shows_what_the_link_service_saved(client: FlaskClient, login: Login, pg_url: str) -> None:
    headers = login("admin_a")
    created = new_platform(client, headers)
    url = f"/api/exchange/superiorPlatform/{created['id']}/linkState.json"
    assert client.get(url, headers=headers).json["data"] == []  # type: ignore[index]
    with connect(pg_url) as conn:
        q.save_link_state(conn, created["id"], "main", {
            "state": "connected", "since": datetime.now(UTC), "last_heartbeat_at": None, "sent": 5, "received": 2,
            "backfilled": 3, "thinned": 1, "mismatches": 0, "last_error": None})
    rows = client.get(url, headers=headers).json["data"]  # type: ignore[index]
    assert [(r["link"], r["state"], r["sentCount"], r["backfilledCount"]) for r in rows] == [("main", "connected", 5, 3)]


def test_an_inspection_is_answered_once_and_queued_for_the_link_service(client: FlaskClient, login: Login,
                                                                        pg_url: str, demo: Demo) -> None:
    headers = login("admin_a")
    created = new_platform(client, headers)
    with connect(pg_url) as conn:
        inspection = q.store_inspection(conn, {
            "platform_id": created["id"], "enterprise_id": demo.enterprises["a"], "object_type": 1,
            "object_id": "20180920", "info_id": 7, "source_sn": 99, "question": "值班人员是谁?", "deadline": None})
    url = f"/api/exchange/inspection/{inspection}/answer.json"
    assert client.post(url, headers=login("admin_b"), json={"answer": "x"}).status_code == 404
    assert client.post(url, headers=headers, json={"answer": " "}).status_code == 400
    reply = client.post(url, headers=headers, json={"answer": "张三在岗"})
    assert reply.status_code == 200 and reply.json["data"]["state"] == "answered"  # type: ignore[index]
    assert client.post(url, headers=headers, json={"answer": "again"}).status_code == 409
    with connect(pg_url) as conn:
        queued = q.answered_inspections(conn, created["id"])
    assert [(r["answer"], r["source_sn"]) for r in queued] == [("张三在岗", 99)]


def test_the_demo_superior_platform_is_seeded_once_with_the_regulators_account(pg_url: str, demo: Demo,
                                                                                 client: FlaskClient,
                                                                                 login: Login) -> None:
    from fleet.settings import RegulatorSettings
    from warehouse.exchange_seed import DEMO_NAME, DEMO_PASSWORD, DEMO_USER_ID, seed_superior_platform

    with connect(pg_url) as conn:
        for _ in range(2):
            seed_superior_platform(conn, demo.enterprises["parent"])
        conn.commit()
        rows = conn.execute("SELECT port, user_id, password, enabled FROM superior_platform WHERE name = %s",
                            (DEMO_NAME,)).fetchall()
    assert rows == [(RegulatorSettings().port, DEMO_USER_ID, DEMO_PASSWORD, True)]
    listed = client.post("/api/common/query/superiorPlatform.json?pageSize=1000", headers=login("admin"), json={}).json
    assert DEMO_NAME in str(listed) and DEMO_PASSWORD not in str(listed)


def test_a_null_setting_takes_its_default_on_create_and_is_refused_on_update(client: FlaskClient,
                                                                              login: Login) -> None:
    headers = login("admin_a")
    created = new_platform(client, headers, version=None, enabled=None, ia1=None, exchangedEnterpriseIds=None)
    assert (created["version"], created["enabled"], created["ia1"], created["exchangedEnterpriseIds"]) == \
        ("2019", True, 0, [])
    reply = client.patch(f"/api/common/superiorPlatform/{created['id']}.json", headers=headers, json={"ia1": None})
    assert reply.status_code == 400 and reply.json["data"] == {"field": "ia1"}  # type: ignore[index]


def test_the_superiors_video_requests_are_listed_with_their_result_to_its_enterprise_only(
        client: FlaskClient, login: Login, demo: Demo, pg_url: str) -> None:
    from warehouse.queries import exchange_video as qv

    created = new_platform(client, login("admin_a"))
    with connect(pg_url) as conn:
        request_id = qv.store_video_request(conn, {
            "platform_id": created["id"], "data_type": 0x9A01, "source_sn": 7, "plate": "京A12345", "plate_colour": 2,
            "car_id": None, "channel_id": 2, "av_item_type": 0, "stream_type": 1, "mem_type": 1,
            "start_at": datetime(2026, 12, 1, tzinfo=UTC), "end_at": datetime(2026, 12, 1, 0, 10, tzinfo=UTC),
            "control_type": None})
        qv.mark_video_answered(conn, request_id, 2)
        conn.commit()
    query = {"platformId": created["id"]}
    rows = client.post("/api/common/query/exchangePlayback.json", headers=login("admin_a"), json=query).json["data"]["list"]  # type: ignore[index]
    assert [(r["dataType"], r["plate"], r["channelId"], r["result"], r["startAt"][:10]) for r in rows] == [
        (0x9A01, "京A12345", 2, 2, "2026-12-01")]
    assert client.post("/api/common/query/exchangePlayback.json", headers=login("admin_b"),
                       json=query).json["data"]["list"] == []  # type: ignore[index]
    lister = bearer(client, make_user(pg_url, demo.enterprises["a"], {"superiorPlatform": ["query", "get"]}).name)
    reply = client.post("/api/common/query/exchangePlayback.json", headers=lister, json=query)
    assert reply.status_code == 403 and reply.json["data"]["permission"] == "superiorPlatform:superior"  # type: ignore[index]


def test_the_superiors_messages_and_warning_tips_are_listed_to_their_enterprise_only(
        client: FlaskClient, login: Login, demo: Demo, pg_url: str) -> None:
    created = new_platform(client, login("admin_a"))
    with connect(pg_url) as conn:
        plate, colour = conn.execute("SELECT plate_number, plate_color FROM car WHERE id = %s",
                                     (demo.a.car_id,)).fetchone()  # type: ignore[misc]
        common = {"platform_id": created["id"], "enterprises": [demo.enterprises["a"]], "owner": demo.enterprises["a"],
                  "object_type": None, "object_id": None, "warn_src": None, "warn_type": None, "warn_time": None,
                  "plate": None, "plate_colour": None, "info_id": None}
        message = q.store_notice(conn, {**common, "data_type": 0x9302, "source_sn": 1, "info_id": 77,
                                        "object_type": 1, "object_id": "20180920", "content": "请于今日内上报车辆情况"})
        q.mark_notice_answered(conn, message)
        tip = q.store_notice(conn, {**common, "data_type": 0x9402, "source_sn": 2, "plate": plate,
                                    "plate_colour": colour, "warn_src": 3, "warn_type": 1,
                                    "warn_time": datetime(2026, 12, 1, 8, tzinfo=UTC), "content": "前方路段限速60"})
        conn.commit()
    query = {"platformId": created["id"]}
    rows = client.post("/api/common/query/notifyMessage.json", headers=login("admin_a"),
                       json=query).json["data"]["list"]  # type: ignore[index]
    by_id = {r["id"]: r for r in rows}
    assert set(by_id) == {message, tip}
    assert (by_id[message]["dataType"], by_id[message]["infoId"], by_id[message]["content"],
            by_id[message]["platformName"]) == (0x9302, 77, "请于今日内上报车辆情况", created["name"])
    assert by_id[message]["answeredAt"] is not None and by_id[tip]["answeredAt"] is None
    assert (by_id[tip]["dataType"], by_id[tip]["plate"], by_id[tip]["warnSrc"], by_id[tip]["warnType"],
            by_id[tip]["warnTime"][:13]) == (0x9402, plate, 3, 1, "2026-12-01T08")
    assert client.post("/api/common/query/notifyMessage.json", headers=login("admin_b"),
                       json=query).json["data"]["list"] == []  # type: ignore[index]
    lister = bearer(client, make_user(pg_url, demo.enterprises["a"], {"superiorPlatform": ["query", "get"]}).name)
    reply = client.post("/api/common/query/notifyMessage.json", headers=lister, json=query)
    assert reply.status_code == 403 and reply.json["data"]["permission"] == "superiorPlatform:superior"  # type: ignore[index]


@pytest.fixture
def client(english_client: FlaskClient) -> FlaskClient:
    """This module reads error texts in English (``error_text``): its console speaks en-US."""
    return english_client


def test_the_exchanged_enterprises_are_enterprises_the_caller_can_see(client: FlaskClient, login: Login,
                                                                      demo: Demo) -> None:
    """The parent's platform may forward a subsidiary's vehicles; a subsidiary's administrator cannot name its
    sibling (404 naming the field, as for any reference to a record out of sight)."""
    created = new_platform(client, login("admin"), exchangedEnterpriseIds=[demo.enterprises["a"]])
    assert created["exchangedEnterpriseIds"] == [demo.enterprises["a"]]
    reply = client.post("/api/common/superiorPlatform.json", headers=login("admin_a"),
                        json=platform_body(exchangedEnterpriseIds=[demo.enterprises["b"]]))
    assert reply.status_code == 404 and reply.json["data"] == {"field": "exchangedEnterpriseIds"}  # type: ignore[index]
    meta = client.get("/api/common/meta/superiorPlatform.json", headers=login("admin")).json["data"]  # type: ignore[index]
    assert {f["name"]: f["ref"] for f in meta["fields"]}["exchangedEnterpriseIds"] == "enterprise"  # a multi-select
