"""Settings routes: dictionary look-up with per-enterprise override, the system monitor
against the real Kafka and PostgreSQL, and licences (detail, install, quota, sign-in-free application,
log). Each route: missing permission 403, another enterprise's record 404, bad input 400."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.errors import Conflict
from api.licence import check_vehicle_quota
from fleet.licence import LicenceTerms, generate_keypair, issue
from tests.integration.api.conftest import Demo, error_text
from tests.integration.api.test_console_api import _enterprise, bearer, make_user
from warehouse.db import connect

Login = Callable[[str], dict[str, str]]
LOOKUP = "/api/system/dictionary/dictionary.json"


def lookup(client: FlaskClient, headers: dict[str, str], body: Any) -> Any:
    return client.post(LOOKUP, headers=headers, json=body)


def new_entry(client: FlaskClient, headers: dict[str, str], **fields: Any) -> dict[str, Any]:
    body = {"type": 98, "code": f"c{uuid.uuid4().hex[:10]}", "name": "测试", "content": "{}", **fields}
    reply = client.post("/api/common/dictionary.json", headers=headers, json=body)
    assert reply.status_code == 200, reply.json
    data: dict[str, Any] = reply.json["data"]  # type: ignore[index]
    return data


# --- dictionaries ----------------------------------------------------------------------------------


def test_notify_rule_dictionaries_51_and_52_are_read_from_the_rules_in_force(
        client: FlaskClient, pg_url: str) -> None:
    """Platform-spec §9 ids 51 / 52 through the look-up of §7: the subsidiary reads its parent's alarm notify
    rule and its own vehicle business switches, never rows of the dictionary table."""
    with connect(pg_url) as conn:
        parent = _enterprise(conn, f"字典规则{uuid.uuid4().hex[:6]}", None)
        child = _enterprise(conn, f"字典规则子{uuid.uuid4().hex[:6]}", parent)
        conn.execute("INSERT INTO platform_alarm_notify_rule (enterprise_id, name, alarm_key, window_enable,"
                     " voice_enable, start_hour, end_hour) VALUES (%s, '紧急', 'a0', false, true, 8, 20)", (parent,))
        conn.execute("INSERT INTO enterprise_notify_setting (enterprise_id, car_state_change_window_enable,"
                     " car_resp_cmd_window_enable, upload_file_window_enable) VALUES (%s, false, true, false)", (child,))
        conn.commit()
    auth = bearer(client, make_user(pg_url, child).name)
    [alarm] = lookup(client, auth, {"type.eq": 51, "code.eq": "alarm_notify_rule"}).json["data"]
    assert alarm["type"] == 51 and alarm["enterpriseId"] == child and alarm["name"] == "报警通知规则"
    assert json.loads(alarm["content"]) == {
        "default": {"windowEnable": True, "voiceEnable": False, "startHour": 0, "endHour": 24},
        "rules": {"a0": {"windowEnable": False, "voiceEnable": True, "startHour": 8, "endHour": 20}}}
    english = {**auth, "X-Fleet-Language": "en-US"}
    [car] = lookup(client, english, {"type.eq": "52"}).json["data"]
    assert car["code"] == "car_business_notify_rule" and car["name"] == "Vehicle business notification rule"
    assert json.loads(car["content"]) == {"carStateChangeWindowEnable": False, "carRespCmdWindowEnable": True,
                                          "uploadFileWindowEnable": False}
    [hk] = lookup(client, {**auth, "X-Fleet-Language": "zh-HK"}, {"type.eq": 52}).json["data"]
    assert hk["name"] == "車輛業務通知規則"
    parent_auth = bearer(client, make_user(pg_url, parent).name)  # never set: every switch on
    [own] = lookup(client, parent_auth, {"type.eq": 52}).json["data"]
    assert set(json.loads(own["content"]).values()) == {True}
    assert lookup(client, auth, {"type.eq": 51, "code.eq": "other"}).json["data"] == []


def test_dictionary_entries_of_types_51_and_52_are_refused_the_rules_keep_them(
        client: FlaskClient, login: Login) -> None:
    english = {**login("admin_a"), "X-Fleet-Language": "en-US"}
    body = {"type": 51, "code": f"c{uuid.uuid4().hex[:10]}", "name": "规则", "content": "{}"}
    refused = client.post("/api/common/dictionary.json", headers=english, json=body)
    assert refused.status_code == 400 and refused.json["data"] == {"field": "type"}, refused.json
    assert refused.json["localMessage"].startswith("types 51 and 52 are read from the notification rules")
    entry = new_entry(client, login("admin_a"))
    moved = client.patch(f"/api/common/dictionary/{entry['id']}.json", headers=english, json={"type": 52})
    assert moved.status_code == 400 and moved.json["data"] == {"field": "type"}, moved.json


def test_startup_dictionaries_are_seeded_for_every_enterprise(client: FlaskClient, login: Login) -> None:
    for code in ("car_alarm_desc", "ol_map_config", "device_message_desc", "exchange_message_desc"):
        reply = lookup(client, login("admin_b"), {"type.eq": 98, "code.eq": code})
        assert reply.status_code == 200, reply.json
        entries = reply.json["data"]
        assert entries and entries[0]["code"] == code and entries[0]["system"] == 1
        json.loads(entries[0]["content"])
    alarms = json.loads(lookup(client, login("admin_a"), {"type": 98, "code": "car_alarm_desc"})
                        .json["data"][0]["content"])
    assert [a["bit"] for a in alarms] == list(range(32)) and alarms[0]["name"] == "紧急报警"


def test_lookup_names_follow_the_caller_s_language(client: FlaskClient, login: Login) -> None:
    body = {"type.eq": 98, "code.eq": "car_alarm_desc"}
    read = {language: lookup(client, {**login("admin_a"), "X-Fleet-Language": language}, body).json["data"][0]
            for language in ("zh-CN", "zh-HK", "en-US")}
    assert [read[lang]["name"] for lang in ("zh-CN", "zh-HK", "en-US")] == ["报警位描述", "報警位描述",
                                                                            "Alarm bit descriptions"]
    first = {lang: json.loads(entry["content"])[0] for lang, entry in read.items()}
    assert [first[lang]["name"] for lang in ("zh-CN", "zh-HK", "en-US")] == ["紧急报警", "緊急報警", "Emergency alarm"]
    assert first["en-US"]["bit"] == 0 and first["en-US"]["nameEn"] == "Emergency alarm"  # other keys kept
    messages = lookup(client, {**login("admin_a"), "X-Fleet-Language": "en-US"},
                      {"type.eq": 98, "code.eq": "device_message_desc"}).json["data"][0]
    assert messages["name"] == "Terminal message descriptions"
    assert "Location report" in [m["name"] for m in json.loads(messages["content"])]


def test_an_entry_s_own_name_stays_in_english_and_is_converted_for_hong_kong(client: FlaskClient,
                                                                           login: Login) -> None:
    entry = new_entry(client, login("admin_a"), name="车辆报警", content='[{"name": "终端类型"}, 3]')
    body = {"type.eq": 98, "code.eq": entry["code"]}
    english = lookup(client, {**login("admin_a"), "X-Fleet-Language": "en-US"}, body).json["data"][0]
    assert english["name"] == "车辆报警" and json.loads(english["content"]) == [{"name": "终端类型"}, 3]
    hk = lookup(client, {**login("admin_a"), "X-Fleet-Language": "zh-HK"}, body).json["data"][0]
    assert hk["name"] == "車輛報警" and json.loads(hk["content"]) == [{"name": "終端類型"}, 3]


def test_the_dictionary_list_reads_seeded_names_in_the_caller_s_language(client: FlaskClient,
                                                                        login: Login) -> None:
    def names(language: str) -> dict[str, str]:
        reply = client.post("/api/common/query/dictionary.json", query_string={"countable": "false", "pageSize": 1000},
                            headers={**login("admin"), "X-Fleet-Language": language}, json={"type.eq": 98})
        assert reply.status_code == 200, reply.json
        return {row["code"]: (row["localName"], row["name"]) for row in reply.json["data"]["list"]}

    assert names("en-US")["car_alarm_desc"] == ("Alarm bit descriptions", "报警位描述")  # name: what forms edit
    assert names("zh-HK")["device_message_desc"] == ("終端訊息描述", "终端消息描述")
    assert names("zh-CN")["car_alarm_desc"] == ("报警位描述", "报警位描述")


def test_enterprise_entry_comes_before_the_system_one(client: FlaskClient, login: Login) -> None:
    system = new_entry(client, login("admin"), system=1, content='{"zoom": 5}')
    own = new_entry(client, login("admin_a"), code=system["code"], content='{"zoom": 9}')
    found = lookup(client, login("admin_a"), {"type.eq": 98, "code.eq": system["code"]}).json["data"]
    assert [e["id"] for e in found] == [own["id"], system["id"]]
    other = lookup(client, login("admin_b"), {"type": "98", "code": system["code"]}).json["data"]
    assert [e["id"] for e in other] == [system["id"]]


def test_generic_query_lists_an_enterprise_s_entries_by_type(client: FlaskClient, login: Login,
                                                             demo: Demo) -> None:
    entry = new_entry(client, login("admin_a"), type=50, code="driving_behavior_grade",
                      content='{"grades": [{"grade": "A", "minScore": 0}]}')  # grade bands: fleet/grade_bands.py
    try:
        reply = client.post("/api/common/query/dictionary.json", query_string={"countable": "false", "pageSize": 1000},
                            headers=login("admin_a"), json={"enterpriseId.eq": demo.enterprises["a"], "type.eq": 50})
        assert reply.status_code == 200, reply.json
        assert entry["id"] in [row["id"] for row in reply.json["data"]["list"]]
    finally:
        assert client.delete(f"/api/common/dictionary/{entry['id']}.json", headers=login("admin_a")).status_code == 200


def test_only_a_root_enterprise_user_keeps_system_entries(client: FlaskClient, login: Login, demo: Demo) -> None:
    refused = client.post("/api/common/dictionary.json", headers=login("admin_a"),
                          json={"type": 98, "code": f"c{uuid.uuid4().hex[:8]}", "name": "x", "content": "{}", "system": 1})
    assert refused.status_code == 403 and "根企业" in refused.json["message"]
    system = new_entry(client, login("admin"), system=1)
    # Below the root, a system entry is another enterprise's record.
    for method in ("get", "patch", "delete"):
        reply = getattr(client, method)(f"/api/common/dictionary/{system['id']}.json", headers=login("admin_a"),
                                        **({"json": {"name": "taken"}} if method == "patch" else {}))
        assert reply.status_code == 404, (method, reply.json)
    # A parent may not turn its subsidiary's entry into a system one.
    own = new_entry(client, login("admin_a"))
    reply = client.patch(f"/api/common/dictionary/{own['id']}.json", query_string={"isParent": "true"},
                         headers=login("admin"), json={"system": 1})
    assert reply.status_code == 403


def test_system_codes_are_unique_across_root_enterprises_and_enterprise_codes_within_one(
        client: FlaskClient, login: Login) -> None:
    entry = new_entry(client, login("admin_a"))
    clash = client.post("/api/common/dictionary.json", headers=login("admin_a"),
                        json={"type": 98, "code": entry["code"], "name": "x", "content": "[]"})
    assert clash.status_code == 409 and clash.json["data"]["field"] == "code"
    other_type = new_entry(client, login("admin_a"), code=entry["code"], type=99)
    assert other_type["code"] == entry["code"]


@pytest.mark.parametrize(("body", "field"), [
    ({"content": "{not json"}, "content"),
    ({"content": "x" * 100_001}, "content"),
    ({"type": 97}, "type"),
    ({"code": "bad code!"}, "code"),
    ({"system": 2}, "system"),
])
def test_bad_dictionary_values_are_400_naming_the_field(client: FlaskClient, login: Login, body: dict[str, Any],
                                                        field: str) -> None:
    full = {"type": 98, "code": f"c{uuid.uuid4().hex[:8]}", "name": "x", "content": "{}", **body}
    reply = client.post("/api/common/dictionary.json", headers=login("admin_a"), json=full)
    assert reply.status_code == 400 and reply.json["data"]["field"] == field, reply.json


def test_null_system_flag_means_an_enterprise_entry(client: FlaskClient, login: Login) -> None:
    entry = new_entry(client, login("admin_a"), system=None)
    assert entry["system"] == 0
    reply = client.patch(f"/api/common/dictionary/{entry['id']}.json", headers=login("admin_a"), json={"system": None})
    assert reply.status_code == 200 and reply.json["data"]["system"] == 0


def test_without_a_vendor_key_no_licence_can_be_installed(english_client: FlaskClient, login: Login) -> None:
    reply = install(english_client, login("admin"),
                    "-----BEGIN FLEETWATCH LICENCE-----\nabc.def\n-----END FLEETWATCH LICENCE-----")
    assert reply.status_code == 400 and reply.json["message"] == "未配置厂商公钥，无法安装许可证"
    assert "FLEET_API_LICENSE_PUBLIC_KEY_FILE" in error_text(reply, "en-US")


def test_long_json_content_is_kept_whole(client: FlaskClient, login: Login) -> None:
    content = json.dumps({"items": ["x" * 50] * 1000})
    entry = new_entry(client, login("admin_a"), content=content)
    assert entry["content"] == content


@pytest.mark.parametrize("body", [{}, {"type.eq": 97}, {"type.eq": "abc"}, {"type.eq": 98, "code.eq": ""},
                                  {"type.eq": 98, "name.eq": "x"}, [1], {"type.eq": "098"},
                                  {"conditions": {"type.eq": 98}}])
def test_bad_lookup_is_400(client: FlaskClient, login: Login, body: Any) -> None:
    reply = lookup(client, login("admin_a"), body)
    assert reply.status_code == 400, reply.json


def test_dictionary_routes_need_a_token_and_the_permission(client: FlaskClient, pg_url: str, demo: Demo) -> None:
    assert lookup(client, {}, {"type.eq": 98}).status_code == 401
    user = make_user(pg_url, demo.enterprises["a"], {"car": ["query"]})
    headers = bearer(client, user.name)
    assert lookup(client, headers, {"type.eq": 98, "code.eq": "ol_map_config"}).status_code == 200  # start-up load
    assert client.post("/api/common/query/dictionary.json", headers=headers, json={}).status_code == 403
    assert client.post("/api/common/dictionary.json", headers=headers,
                       json={"type": 98, "code": "x", "name": "x", "content": "{}"}).status_code == 403


# --- system monitor --------------------------------------------------------------------------------


def test_monitor_reports_the_lag_of_a_consumer_group(client: FlaskClient, login: Login, app: Flask,
                                                     kafka_bootstrap: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, TopicPartition
    from kafka.admin import NewTopic
    from kafka.structs import OffsetAndMetadata

    topic, group = f"monitor-test-{uuid.uuid4().hex[:8]}", f"monitor-group-{uuid.uuid4().hex[:8]}"
    admin = KafkaAdminClient(bootstrap_servers=kafka_bootstrap)
    admin.create_topics([NewTopic(topic, num_partitions=2, replication_factor=1)])
    admin.close()
    producer = KafkaProducer(bootstrap_servers=kafka_bootstrap)
    for i in range(10):
        producer.send(topic, value=b"x", partition=i % 2)  # 5 per partition
    producer.flush()
    producer.close()
    consumer = KafkaConsumer(bootstrap_servers=kafka_bootstrap, group_id=group, enable_auto_commit=False)
    consumer.commit({TopicPartition(topic, 0): OffsetAndMetadata(4, "", -1),
                     TopicPartition(topic, 1): OffsetAndMetadata(1, "", -1)})
    consumer.close()
    monkeypatch.setitem(app.config, "FLEET_KAFKA_BOOTSTRAP", kafka_bootstrap)

    reply = client.get("/api/system/monitor.json", headers=login("admin"))
    assert reply.status_code == 200, reply.json
    data = reply.json["data"]
    assert data["kafka"]["available"] is True, data["kafka"]
    rows = [r for r in data["kafka"]["groups"] if r["group"] == group]
    assert rows == [{"group": group, "topic": topic, "partitions": 2, "committedOffset": 5, "endOffset": 10, "lag": 5}]
    assert {"topic": topic, "partitions": 2, "endOffset": 10} in data["kafka"]["topics"]
    database = data["database"]
    assert database["available"] is True and database["sizeBytes"] > 0 and database["tables"]
    assert "gps" in [t["name"] for t in database["tables"]] or len(database["tables"]) == 10
    assert data["gateway"]["available"] is True and data["gateway"]["registered"] >= 1
    assert data["throughput"]["available"] is True and data["throughput"]["windowMinutes"] == 5


def test_monitor_says_which_service_could_not_be_read(client: FlaskClient, login: Login, app: Flask,
                                                      free_port: Callable[[], int],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(app.config, "FLEET_KAFKA_BOOTSTRAP", f"127.0.0.1:{free_port()}")
    monkeypatch.setitem(app.config, "FLEET_API_SETTINGS",
                        app.config["FLEET_API_SETTINGS"].model_copy(update={"monitor_kafka_timeout_s": 1.0}))
    reply = client.get("/api/system/monitor.json", headers=login("admin"))
    assert reply.status_code == 200, reply.json
    data = reply.json["data"]
    assert data["kafka"]["available"] is False and data["kafka"]["error"]
    assert data["database"]["available"] is True


def test_monitor_needs_the_system_permission(client: FlaskClient, pg_url: str, demo: Demo) -> None:
    user = make_user(pg_url, demo.enterprises["parent"], {"dictionary": ["query"]})
    assert client.get("/api/system/monitor.json", headers=bearer(client, user.name)).status_code == 403


# --- licences --------------------------------------------------------------------------------------


@pytest.fixture
def vendor(app: Flask, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pg_url: str) -> Iterator[bytes]:
    """A vendor key pair of this test: the API trusts its public key; the private key is returned.
    Licences installed during the test are removed afterwards (the session database is shared)."""
    private, public = generate_keypair()
    (tmp_path / "vendor-public.pem").write_bytes(public)
    settings = app.config["FLEET_API_SETTINGS"]
    monkeypatch.setitem(app.config, "FLEET_API_SETTINGS",
                        settings.model_copy(update={"license_public_key_file": str(tmp_path / "vendor-public.pem")}))
    with connect(pg_url) as conn:
        before = conn.execute("SELECT coalesce(max(id), 0) FROM licence").fetchone()[0]  # type: ignore[index]
    yield private
    with connect(pg_url) as conn:
        conn.execute("DELETE FROM licence WHERE id > %s", (before,))
        conn.commit()


def terms(**changes: Any) -> LicenceTerms:
    today = date.today()
    base = {"licensee": "示范物流", "enterprise": "示范物流有限公司", "max_vehicles": 100_000,
            "valid_from": today - timedelta(days=10), "valid_to": today + timedelta(days=30)}
    return LicenceTerms(**{**base, **changes})


def install(client: FlaskClient, headers: dict[str, str], text: Any) -> Any:
    return client.post("/api/license/install.json", headers=headers, json={"licence": text})


def test_without_a_licence_the_installation_is_community(client: FlaskClient, login: Login) -> None:
    reply = client.get("/api/license/detail.json", headers=login("admin"))
    assert reply.status_code == 200, reply.json
    data = reply.json["data"]
    assert data["community"] is True and data["licence"] is None and data["vehiclesUsed"] >= 1
    assert len(data["machineCode"]) == 29


def test_installed_licence_shows_its_limits_and_usage(client: FlaskClient, login: Login, vendor: bytes) -> None:
    reply = install(client, login("admin"), issue(vendor, terms()))
    assert reply.status_code == 200, reply.json
    data = client.get("/api/license/detail.json", headers=login("admin")).json["data"]
    assert data["community"] is False and data["daysLeft"] == 30 and data["vehiclesAllowed"] == 100_000
    assert data["licence"]["licensee"] == "示范物流" and data["licence"]["installedBy"] == "admin"
    log = client.post("/api/common/query/licenceLog.json", headers=login("admin"), json={"kind.eq": "install"})
    assert log.status_code == 200 and log.json["data"]["list"][0]["party"] == "示范物流"


@pytest.mark.parametrize(("make", "message"), [
    (lambda key: issue(generate_keypair()[0], terms()), "签名无效"),
    (lambda key: issue(key, terms(valid_to=date.today() - timedelta(days=1),
                                  valid_from=date.today() - timedelta(days=100))), "已过期"),
    (lambda key: issue(key, terms(valid_from=date.today() + timedelta(days=1))), "尚未生效"),
    (lambda key: issue(key, terms(machine_code="AAAAA-BBBBB-CCCCC-DDDDD-EEEEE")), "不属于本机"),
    (lambda key: issue(key, terms()).replace("A", "B", 3), "许可证"),
    (lambda key: "", "不能为空"),
    (lambda key: 12, "不能为空"),
])
def test_a_licence_that_cannot_be_trusted_is_a_clear_400(client: FlaskClient, login: Login, vendor: bytes,
                                                         make: Callable[[bytes], Any], message: str) -> None:
    reply = install(client, login("admin"), make(vendor))
    assert reply.status_code == 400 and message in reply.json["message"], reply.json
    assert client.get("/api/license/detail.json", headers=login("admin")).json["data"]["community"] is True


def test_vehicle_quota_refuses_vehicles_past_the_licence(client: FlaskClient, login: Login, vendor: bytes,
                                                         pg_url: str, demo: Demo) -> None:
    with connect(pg_url) as conn:
        check_vehicle_quota(conn, demo.enterprises["a"])  # community: unlimited
        used = conn.execute("SELECT count(*) FROM car WHERE record_state = 1").fetchone()[0]  # type: ignore[index]
    assert install(client, login("admin"), issue(vendor, terms(max_vehicles=used + 1))).status_code == 200
    with connect(pg_url) as conn:
        check_vehicle_quota(conn, demo.enterprises["a"])
        with pytest.raises(Conflict, match=f"上限 {used + 1}"):
            check_vehicle_quota(conn, demo.enterprises["a"], adding=2)
        with pytest.raises(Conflict, match="已过期"):
            check_vehicle_quota(conn, demo.enterprises["a"], today=date.today() + timedelta(days=31))


def test_licence_routes_need_their_permission(client: FlaskClient, pg_url: str, demo: Demo, vendor: bytes) -> None:
    user = make_user(pg_url, demo.enterprises["parent"], {"license": ["get"]})
    headers = bearer(client, user.name)
    assert client.get("/api/license/detail.json", headers=headers).status_code == 200
    assert install(client, headers, issue(vendor, terms())).status_code == 403
    assert client.post("/api/common/query/licenceLog.json", headers=headers, json={}).status_code == 403
    assert client.get("/api/license/detail.json").status_code == 401


def apply_body(**changes: Any) -> dict[str, Any]:
    return {"company": "示范物流有限公司", "contact": "张三", "phone": "13800000000", "email": "ops@example.com",
            "vehicles": 120, **changes}


def test_application_needs_no_sign_in_and_shows_in_the_log(client: FlaskClient, login: Login) -> None:
    code = client.get("/api/license/machineCode.json").json["data"]["machineCode"]
    company = f"申请单位{uuid.uuid4().hex[:6]}"
    reply = client.post("/api/license/apply.json", json=apply_body(company=company),
                        environ_base={"REMOTE_ADDR": f"10.{uuid.uuid4().int % 250}.7.1"})
    assert reply.status_code == 200, reply.json
    assert reply.json["data"]["machineCode"] == code
    log = client.post("/api/common/query/licenceLog.json", headers=login("admin"), json={"party.eq": company})
    assert [row["kind"] for row in log.json["data"]["list"]] == ["apply"]
    # A subsidiary does not see the installation's applications (another enterprise's records).
    other = client.post("/api/common/query/licenceLog.json", headers=login("admin_a"), json={"party.eq": company})
    assert other.json["data"]["list"] == []


@pytest.mark.parametrize(("changes", "message"), [
    ({"phone": "12345"}, "电话号码格式不正确"),
    ({"company": "bad<company>"}, "请输入汉字、数字、字母、空格、横杠或者下划线"),
    ({"contact": ""}, "不能为空"),
    ({"email": "not-an-email"}, "邮箱格式不正确"),
    ({"vehicles": 0}, "vehicles"),
    ({"vehicles": "10"}, "vehicles"),
    ({"extra": 1}, "extra"),
])
def test_bad_application_is_400_with_the_validator_message(client: FlaskClient, changes: dict[str, Any],
                                                           message: str) -> None:
    reply = client.post("/api/license/apply.json", json=apply_body(**changes),
                        environ_base={"REMOTE_ADDR": "10.250.0.1", "HTTP_X_FLEET_LANGUAGE": "en-US"})
    # the Chinese validator texts are the message; a field name alone is in the English text
    chinese = any("\u4e00" <= char <= "\u9fff" for char in message)
    assert reply.status_code == 400 and message in (reply.json["message"] if chinese else error_text(reply, "en-US"))


def test_applications_are_rate_limited_per_address(client: FlaskClient, app: Flask) -> None:
    per_hour = app.config["FLEET_API_SETTINGS"].license_apply_per_hour
    address = f"10.251.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250}"
    for _ in range(per_hour):
        assert client.post("/api/license/apply.json", json=apply_body(),
                           environ_base={"REMOTE_ADDR": address}).status_code == 200
    refused = client.post("/api/license/apply.json", json=apply_body(), environ_base={"REMOTE_ADDR": address})
    assert refused.status_code == 429 and refused.json["data"] == {"perHour": per_hour}
    other = client.post("/api/license/apply.json", json=apply_body(), environ_base={"REMOTE_ADDR": "10.252.0.9"})
    assert other.status_code == 200
