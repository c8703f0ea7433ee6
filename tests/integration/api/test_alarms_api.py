"""The alarm API on the real PostgreSQL and Kafka, with alarms inserted directly for a fresh
enterprise (and a subsidiary) of this module: lists, counts, paging and ranges of alarm / safetyAlarm /
myAlarm; confirm (record, 8203 to an online terminal only for a confirmable alarm), ignore, PATCH; tenant
isolation; the device_alarm reports; notices; notification settings; dashboard counts."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.commands import Downlinks
from api.services import DOWNLINKS_KEY
from fleet.alarm_catalog import ALARMS
from protocols.china_time import CHINA_TZ
from tests.integration.api.conftest import ENGLISH, Demo, error_text
from tests.integration.api.test_commands_api import Downlinked, Target, make_vehicle
from tests.integration.api.test_console_api import bearer, make_user
from warehouse.db import connect

ALARM_ACTIONS = {"alarm": ["query", "get", "update", "export"]}
NOW = datetime.now(UTC)


@dataclass(frozen=True)
class Fleet:
    root: int
    child: int
    online: Target
    offline: Target
    child_car: Target
    headers: dict[str, str]
    user_id: int
    user_name: str


def _enterprise(conn: Any, parent: int | None) -> int:
    name = f"报警企业{uuid.uuid4().hex[:8]}"
    eid = conn.execute("INSERT INTO enterprise (parent_id, name, short_name) VALUES (%s, %s, %s) RETURNING id",
                       (parent, name, name[:10])).fetchone()[0]
    conn.execute("UPDATE enterprise SET path = COALESCE((SELECT path FROM enterprise WHERE id = %s), '/')"
                 " || id || '/' WHERE id = %s", (parent, eid))
    return int(eid)


@pytest.fixture(scope="module")
def fleet(pg_url: str, client_module: FlaskClient) -> Fleet:
    with connect(pg_url) as conn:
        root = _enterprise(conn, None)
        child = _enterprise(conn, root)
        conn.commit()
    user = make_user(pg_url, root, {**ALARM_ACTIONS, "enterprise": ["update"]})
    [online] = make_vehicle(pg_url, root, online=True)
    [offline] = make_vehicle(pg_url, root, online=False)
    [child_car] = make_vehicle(pg_url, child, online=True)
    return Fleet(root, child, online, offline, child_car, bearer(client_module, user.name), user.id,
                 user.name)


@pytest.fixture(scope="module")
def client_module(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture(scope="module")
def kafka_app(app: Flask, kafka_bootstrap: str) -> Iterator[Flask]:
    previous = app.extensions.get(DOWNLINKS_KEY)
    app.extensions[DOWNLINKS_KEY] = Downlinks(kafka_bootstrap, 10.0)
    yield app
    app.extensions[DOWNLINKS_KEY].close()
    if previous is None:
        app.extensions.pop(DOWNLINKS_KEY, None)
    else:
        app.extensions[DOWNLINKS_KEY] = previous


def add_alarm(pg_url: str, enterprise_id: int, target: Target, key: str, *, type_: int = 1, level: int | None = None,
              flags: int = 0, seq: int | None = None, minutes_ago: float = 1, state: int = 0,
              at: datetime | None = None) -> int:
    """An alarm ``minutes_ago`` before the module's NOW (collection time), or at ``at``."""
    with connect(pg_url) as conn:
        row = conn.execute(
            "INSERT INTO alarm (enterprise_id, device_id, car_id, plate_number, phone, type, key, level, start_time,"
            " alarm_flags, message_seq, state, lat, lng, speed) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s,"
            " %s, %s, 39.9, 116.4, 60) RETURNING id",
            (enterprise_id, target.device_id, target.car_id, target.plate, target.phone, type_, key, level,
             at or NOW - timedelta(minutes=minutes_ago), flags, seq, state)).fetchone()
        conn.commit()
    assert row is not None
    return int(row[0])


def ok(reply: Any) -> Any:
    assert reply.status_code == 200 and reply.json["code"] == 0, reply.json
    return reply.json["data"]


def test_lists_filter_page_and_describe(client: FlaskClient, fleet: Fleet, pg_url: str) -> None:
    car = fleet.offline  # this test's own vehicle: its alarms only
    a1 = add_alarm(pg_url, fleet.root, car, "a1", flags=2, minutes_ago=30)
    a0 = add_alarm(pg_url, fleet.root, car, "a0", flags=1, minutes_ago=20, state=2)
    adas = add_alarm(pg_url, fleet.root, car, "adas_1", type_=5, level=1, minutes_ago=10)
    dsm = add_alarm(pg_url, fleet.root, car, "dsm_2", type_=6, level=2, minutes_ago=5)
    h = fleet.headers
    cond = {"carId.eq": car.car_id}
    page = ok(client.post("/api/common/query/alarm.json", headers=h, json=cond))
    assert "total" not in page and [r["id"] for r in page["list"]] == [dsm, adas, a0, a1]  # newest first
    assert page["list"][1]["desc"] == "一级 前向碰撞报警" and page["list"][3]["desc"] == "超速报警"
    assert page["list"][1]["plateNumber"] == car.plate and page["list"][1]["state"] == 0
    second = ok(client.post("/api/common/query/alarm.json?countable=true&pageNo=2&pageSize=3", headers=h, json=cond))
    assert second["total"] == 4 and [r["id"] for r in second["list"]] == [a1]
    only = ok(client.post("/api/common/query/alarm.json", headers=h, json={"_id.eq": a0}))
    assert [r["id"] for r in only["list"]] == [a0]
    handled = ok(client.post("/api/common/query/alarm.json", headers=h, json={**cond, "state.eq": 2}))
    assert [r["id"] for r in handled["list"]] == [a0]
    since = (NOW - timedelta(minutes=15)).isoformat()
    recent = ok(client.post("/api/common/query/alarm.json", headers=h, json={**cond, "startTime.gte": since}))
    assert [r["id"] for r in recent["list"]] == [dsm, adas]
    ranged = {**cond, "rangeConditions": [{"fieldName": "type", "start": 5, "end": 8}]}
    assert [r["id"] for r in ok(client.post("/api/common/query/alarm.json", headers=h, json=ranged))["list"]] == [dsm, adas]
    safety = ok(client.post("/api/common/query/safetyAlarm.json", headers=h, json=cond))
    assert [r["id"] for r in safety["list"]] == [dsm, adas]
    assert ok(client.post("/api/common/count/alarm.json", headers=h, json=cond)) == 4
    assert ok(client.post("/api/common/count/safetyAlarm.json", headers=h, json=cond)) == 2
    mine = ok(client.post("/api/common/query/myAlarm.json", headers=h, json=cond))
    assert [r["id"] for r in mine["list"]] == [dsm, adas, a1, a0]  # unhandled first, then newest
    bad = client.post("/api/common/query/alarm.json", headers=h, json={"nope.eq": 1})
    assert bad.status_code == 400
    exported = client.post("/api/common/export/alarm.csv", headers=h, json=cond)
    assert exported.status_code == 200
    lines = exported.data.decode("utf-8-sig").splitlines()
    assert len(lines) == 5 and "报警描述" in lines[0] and "一级 前向碰撞报警" in exported.data.decode("utf-8-sig")


def test_the_fleet_name_is_the_vehicles_group_else_the_enterprise(client: FlaskClient, fleet: Fleet,
                                                                   pg_url: str) -> None:
    grouped, loose = (make_vehicle(pg_url, fleet.root, online=False)[0] for _ in range(2))
    with connect(pg_url) as conn:
        group = f"第三车队{uuid.uuid4().hex[:4]}"
        group_id = conn.execute("INSERT INTO car_group (enterprise_id, name) VALUES (%s, %s) RETURNING id",
                                (fleet.root, group)).fetchone()[0]  # type: ignore[index]
        conn.execute("UPDATE car SET group_id = %s WHERE id = %s", (group_id, grouped.car_id))
        enterprise = conn.execute("SELECT name FROM enterprise WHERE id = %s", (fleet.root,)).fetchone()[0]  # type: ignore[index]
        conn.commit()
    in_group = add_alarm(pg_url, fleet.root, grouped, "dsm_1", type_=6, level=1)
    alone = add_alarm(pg_url, fleet.root, loose, "adas_2", type_=5, level=2)
    h = fleet.headers
    assert ok(client.get(f"/api/common/alarm/{in_group}.json", headers=h))["fleetName"] == group
    assert ok(client.get(f"/api/common/alarm/{alone}.json", headers=h))["fleetName"] == enterprise
    # what the safety dialog reads (fetchAlarm: the alarm list by id)
    listed = ok(client.post("/api/common/query/alarm.json", headers=h, json={"_id.eq": in_group}))["list"]
    assert listed[0]["fleetName"] == group
    with connect(pg_url) as conn:  # a deleted group is no fleet
        conn.execute("UPDATE car_group SET record_state = 0 WHERE id = %s", (group_id,))
        conn.commit()
    assert ok(client.get(f"/api/common/alarm/{in_group}.json", headers=h))["fleetName"] == enterprise


def _command_rows(pg_url: str, device_id: int) -> list[tuple[Any, ...]]:
    with connect(pg_url) as conn:
        return conn.execute("SELECT id, msg_id, payload FROM command WHERE device_id = %s ORDER BY id",
                            (device_id,)).fetchall()


def _records(pg_url: str, alarm_id: int) -> list[tuple[Any, ...]]:
    with connect(pg_url) as conn:
        return conn.execute(
            "SELECT state, opinion, confirm_user_id, confirm_name, alarm_type, message_seq, command_id"
            " FROM alarm_confirm_record WHERE alarm_id = %s ORDER BY id", (alarm_id,)).fetchall()


def test_confirm_records_and_sends_8203_to_the_online_terminal(kafka_app: Flask, client: FlaskClient, fleet: Fleet,
                                                               pg_url: str, kafka_bootstrap: str) -> None:
    alarm_id = add_alarm(pg_url, fleet.root, fleet.online, "a0", flags=1 | 2, seq=77)
    reader = Downlinked(kafka_bootstrap)
    try:
        reply = client.post(f"/api/common/alarm/{alarm_id}/confirm.json", headers=fleet.headers,
                            json={"state": 1, "opinion": "已联系司机"})
        body = reply.json
        assert reply.status_code == 200 and body["message"] == "保存成功！", body
        command_id = body["data"]["commandId"]
        assert isinstance(command_id, int)
        alarm = body["data"]["alarm"]
        assert (alarm["state"], alarm["opinion"], alarm["confirmUserId"], alarm["confirmName"]) == (
            1, "已联系司机", fleet.user_id, fleet.user_name)
        assert alarm["confirmTime"] is not None
        assert _records(pg_url, alarm_id) == [(1, "已联系司机", fleet.user_id, fleet.user_name, 1, 77, command_id)]
        assert _command_rows(pg_url, fleet.online.device_id)[-1] == (command_id, 0x8203,
                                                                     {"messageSeq": 77, "alarmType": 1})
        [(_, value)] = reader.read({str(command_id)})
        assert value["msg_id"] == 0x8203 and value["body_hex"] == "004d00000001"
    finally:
        reader.consumer.close()


def test_no_8203_for_a_non_confirmable_alarm_or_an_offline_terminal(kafka_app: Flask, client: FlaskClient,
                                                                    fleet: Fleet, pg_url: str) -> None:
    overspeed = add_alarm(pg_url, fleet.root, fleet.online, "a1", flags=2, seq=5)
    before = _command_rows(pg_url, fleet.online.device_id)
    data = ok(client.post(f"/api/common/alarm/{overspeed}/confirm.json", headers=fleet.headers, json={"state": 2}))
    assert data["commandId"] is None and data["alarm"]["state"] == 2
    assert _command_rows(pg_url, fleet.online.device_id) == before
    assert _records(pg_url, overspeed) == [(2, None, fleet.user_id, fleet.user_name, 0, 5, None)]
    emergency = add_alarm(pg_url, fleet.root, fleet.offline, "a0", flags=1, seq=6)
    data = ok(client.post(f"/api/common/alarm/{emergency}/confirm.json", headers=fleet.headers, json={"state": 3}))
    assert data["commandId"] is None and data["alarm"]["state"] == 3
    assert _command_rows(pg_url, fleet.offline.device_id) == []
    assert _records(pg_url, emergency) == [(3, None, fleet.user_id, fleet.user_name, 1, 6, None)]


def test_confirm_validation_and_ignore(client: FlaskClient, fleet: Fleet, pg_url: str) -> None:
    alarm_id = add_alarm(pg_url, fleet.root, fleet.offline, "a2", flags=4)
    url = f"/api/common/alarm/{alarm_id}/confirm.json"
    too_long = client.post(url, headers={**fleet.headers, **ENGLISH}, json={"state": 1, "opinion": "长" * 251})
    assert too_long.status_code == 400 and "250" in error_text(too_long, "en-US")
    for state in (0, 5, "1", True, None):
        assert client.post(url, headers=fleet.headers, json={"state": state}).status_code == 400
    assert _records(pg_url, alarm_id) == []
    ok(client.post(url, headers=fleet.headers, json={"state": 4, "opinion": "长" * 250}))
    ignored = ok(client.post(f"/api/common/alarm/{alarm_id}/ignore.json", headers=fleet.headers))
    assert (ignored["alarm"]["state"], ignored["alarm"]["opinion"], ignored["commandId"]) == (2, "告警已忽略", None)
    other = add_alarm(pg_url, fleet.root, fleet.offline, "a2", flags=4, minutes_ago=2)
    said = ok(client.post(f"/api/common/alarm/{other}/ignore.json", headers=fleet.headers, json={"opinion": "误报"}))
    assert said["alarm"]["opinion"] == "误报"
    patched = ok(client.patch(f"/api/common/alarm/{other}.json", headers=fleet.headers,
                              json={"state": 1, "opinion": "复核"}))
    assert (patched["state"], patched["opinion"], patched["confirmName"]) == (1, "复核", fleet.user_name)
    assert client.patch(f"/api/common/alarm/{other}.json", headers=fleet.headers,
                        json={"plateNumber": "X"}).status_code == 400


def test_another_enterprises_alarm_does_not_exist(client: FlaskClient, fleet: Fleet, pg_url: str, demo: Demo,
                                                   login: Any) -> None:
    mine = add_alarm(pg_url, fleet.root, fleet.offline, "a3", flags=8)
    h = login("admin_a")
    for reply in (client.post(f"/api/common/alarm/{mine}/confirm.json", headers=h, json={"state": 1}),
                  client.post(f"/api/common/alarm/{mine}/ignore.json", headers=h),
                  client.patch(f"/api/common/alarm/{mine}.json", headers=h, json={"state": 1}),
                  client.get(f"/api/common/alarm/{mine}.json", headers=h)):
        assert reply.status_code == 404, reply.json
    assert _records(pg_url, mine) == []
    assert ok(client.post("/api/common/query/alarm.json", headers=h, json={"_id.eq": mine}))["list"] == []
    # the subsidiary's alarm: seen by the parent, unless it asks for its own enterprise only
    theirs = add_alarm(pg_url, fleet.child, fleet.child_car, "a3", flags=8)
    assert client.get(f"/api/common/alarm/{theirs}.json?isParent=false", headers=fleet.headers).status_code == 404
    assert ok(client.get(f"/api/common/alarm/{theirs}.json", headers=fleet.headers))["id"] == theirs


def test_reports_notices_and_dashboard(client: FlaskClient, pg_url: str, client_module: FlaskClient) -> None:
    with connect(pg_url) as conn:
        root = _enterprise(conn, None)
        child = _enterprise(conn, root)
        conn.commit()
    user = make_user(pg_url, root, ALARM_ACTIONS)
    h = bearer(client_module, user.name)
    [one], [two], [sub] = (make_vehicle(pg_url, e, online=False) for e in (root, root, child))
    add_alarm(pg_url, root, one, "a0", flags=1, minutes_ago=1)
    first = add_alarm(pg_url, root, one, "a1", flags=2, minutes_ago=2)
    add_alarm(pg_url, root, two, "a1", flags=2, minutes_ago=3, state=2)
    add_alarm(pg_url, root, two, "adas_1", type_=5, level=1, minutes_ago=4)
    add_alarm(pg_url, child, sub, "a1", flags=2, minutes_ago=5)
    add_alarm(pg_url, root, one, "a1", flags=2, minutes_ago=60 * 24 * 40)  # long ago
    today = (NOW - timedelta(hours=6)).isoformat()
    url = "/api/report/distinctCount/device_alarm.json?distinct=deviceId"
    assert ok(client.post(url + "&isParent=false", headers=h, json={"startTime.gte": today})) == 2
    assert ok(client.post(url + "&isParent=true", headers=h, json={"startTime.gte": today})) == 3
    assert ok(client.post(url, headers=h, json={"startTime.gte": today})) == 3  # the subtree by default
    assert ok(client.post(url, headers=h, json={"conditions": {"startTime.gte": today, "a0.exists": True}})) == 1
    assert ok(client.post(url + f"&enterpriseId={child}", headers=h, json={"startTime.gte": today})) == 1
    assert client.post(url + "&enterpriseId=1", headers=h, json={}).status_code == 404
    assert client.post(url, headers=h, json={"nope.exists": True}).status_code == 400
    sums = "/api/report/sum/device_alarm.json?select=a0,a1,adas_1,a5"
    own = ok(client.post(sums + "&isParent=false", headers=h, json={"startTime.gte": today}))
    assert own == {"a0": 1, "a1": 2, "adas_1": 1, "a5": 0}
    assert ok(client.post(sums + "&isParent=true", headers=h, json={"startTime.gte": today}))["a1"] == 3
    assert ok(client.post(sums + "&isParent=false", headers=h, json={}))["a1"] == 3
    assert ok(client.post(sums, headers=h, json={}))["a1"] == 4
    assert client.post("/api/report/sum/device_alarm.json?select=zz", headers=h, json={}).status_code == 400

    overview = {e["bizType"]: e["total"] for e in ok(client.get("/api/notice/overView.json", headers=h))}
    assert overview[6] == 5 and overview[1] == 0  # the group's unhandled alarms: 4 of its own, 1 of the subsidiary
    notices = ok(client.post("/api/query/notice.json?countable=true&pageNo=1&pageSize=3", headers=h, json={}))
    assert notices["total"] == 5 and len(notices["list"]) == 3
    assert notices["list"][0]["bizType"] == 6 and notices["list"][0]["title"] == "紧急报警"
    assert notices["list"][0]["content"] == f"{one.plate} 紧急报警"

    counts = ok(client.get("/api/dashboard/alarmCounts.json?range=today&isParent=false", headers=h))
    wide = ok(client.get("/api/dashboard/alarmCounts.json?range=month&isParent=true", headers=h))
    if (NOW - timedelta(minutes=5)).astimezone(CHINA_TZ).date() == NOW.astimezone(CHINA_TZ).date():  # same day
        # unhandled is the bell's figure whatever the range: every alarm of the scope nobody handled yet
        assert counts["alarmingVehicles"] == 2 and counts["unhandled"] == 4 and counts["activeSafety"] == 1
        assert counts["byType"][0] == {"key": "a1", "desc": "超速报警", "count": 2}
        assert counts["byType"][1:] == [{"key": "a0", "desc": "紧急报警", "count": 1},
                                        {"key": "adas_1", "desc": "前向碰撞报警", "count": 1}]
        assert (wide["alarmingVehicles"], wide["unhandled"]) == (3, overview[6])  # the 40-day-old vehicle is out
        ok(client.post(f"/api/common/alarm/{first}/ignore.json", headers=h))
        after = ok(client.get("/api/dashboard/alarmCounts.json?range=today&isParent=false", headers=h))
        assert after["unhandled"] == 3 and after["byType"] == counts["byType"]
    assert client.get("/api/dashboard/alarmCounts.json?range=year", headers=h).status_code == 400
    assert client.get("/api/dashboard/alarmCounts.json?range=", headers=h).status_code == 400  # empty is no range


def test_every_alarm_count_answers_0_for_a_key_vehicle_or_day_without_alarms(
        client: FlaskClient, pg_url: str) -> None:
    """Platform-spec §8: alarm counts fall back to 0, never null or a missing key (§7 alarm counts and sums)."""
    with connect(pg_url) as conn:
        quiet = _enterprise(conn, None)
        conn.commit()
    h = bearer(client, make_user(pg_url, quiet, ALARM_ACTIONS | {"report": ["query"]}).name)
    [target] = make_vehicle(pg_url, quiet, online=False)
    add_alarm(pg_url, quiet, target, "a0", flags=1, minutes_ago=60 * 24 * 40)  # an alarm, but not today's
    today = (NOW - timedelta(hours=1)).isoformat()
    sums = ok(client.post("/api/report/sum/device_alarm.json", headers=h, json={"startTime.gte": today}))
    assert set(ALARMS) <= set(sums) and set(sums.values()) == {0}  # every key, each 0
    assert ok(client.post("/api/report/sum/device_alarm.json", headers=h, json={}))["a0"] == 1
    assert ok(client.post("/api/report/distinctCount/device_alarm.json?distinct=carId", headers=h,
                          json={"startTime.gte": today, "a1.exists": True})) == 0
    yesterday = (NOW.astimezone(CHINA_TZ) - timedelta(days=1)).date()
    assert ok(client.post("/api/report/count/device_day_report.json", headers=h,
                          json={"date.eq": int(yesterday.strftime("%Y%m%d")), "a0.gt": 0})) == 0
    assert ok(client.post("/api/report/distinctCount/device_month_report.json", headers=h,
                          json={"month.eq": int(yesterday.strftime("%Y%m")), "a0.gt": 0})) == 0
    assert ok(client.post("/api/report/distinctCount/device_year_report.json", headers=h,
                          json={"year.eq": yesterday.year, "a0.gt": 0})) == 0
    assert ok(client.post("/api/common/count/alarm.json", headers=h, json={"key.eq": "a1"})) == 0


def test_notify_settings_round_trip(client: FlaskClient, fleet: Fleet, pg_url: str, client_module: FlaskClient) -> None:
    url = "/api/alarm/notify/settings.json"
    start = ok(client.get(url, headers=fleet.headers))
    assert start == {"alarmRule": {}, "carStateChangeWindowEnable": True, "carRespCmdWindowEnable": True,
                     "uploadFileWindowEnable": True}
    rule = {"disabled": False, "windowEnable": True, "voiceEnable": True, "voice": "叮", "startHour": 8, "endHour": 20}
    saved = ok(client.put(url, headers=fleet.headers, json={"alarmRule": {"a0": rule, "adas_1": {"disabled": True}},
                                                            "uploadFileWindowEnable": False}))
    assert saved["alarmRule"]["a0"] == {**rule, "source": "user"} and saved["alarmRule"]["adas_1"]["disabled"] is True
    assert saved["uploadFileWindowEnable"] is False
    assert ok(client.get(url, headers=fleet.headers)) == saved
    removed = ok(client.put(url, headers=fleet.headers, json={"alarmRule": {"adas_1": None}}))
    assert set(removed["alarmRule"]) == {"a0"}
    for bad in ({"alarmRule": {"zz": rule}}, {"alarmRule": {"a0": {**rule, "startHour": 21}}},
                {"alarmRule": {"a0": {"endHour": 25}}}, {"other": 1}):
        assert client.put(url, headers=fleet.headers, json=bad).status_code == 400
    plain = make_user(pg_url, fleet.root, ALARM_ACTIONS)  # no enterprise:update
    ph = bearer(client_module, plain.name)
    assert client.put(url, headers=ph, json={"uploadFileWindowEnable": True}).status_code == 403
    assert ok(client.put(url, headers=ph, json={"uploadFileWindowEnable": False}))["alarmRule"] == {}


def test_a_superior_platforms_messages_and_warning_tips_are_notices_of_biz_type_5(
        client: FlaskClient, pg_url: str, client_module: FlaskClient) -> None:
    with connect(pg_url) as conn:
        root = _enterprise(conn, None)
        child = _enterprise(conn, root)
        other = _enterprise(conn, None)
        conn.commit()
    [sub] = make_vehicle(pg_url, child, online=False)
    with connect(pg_url) as conn:
        platform = conn.execute(
            "INSERT INTO superior_platform (enterprise_id, name, host, port, user_id, password, centre_id, "
            "down_link_port) VALUES (%s, 'regulator', '127.0.0.1', 7809, 1, 'pw', 1, 7810) RETURNING id",
            (root,)).fetchone()[0]  # type: ignore[index]
        # what the link service stores (warehouse.queries.exchange.store_notice): a tip about the child's vehicle
        # belongs to the child, a message to the platform's owner; one of another group, one too old to show
        for enterprise, data_type, plate, content, days_ago in (
                (root, 0x9302, None, "请加强夜间值守", 0), (child, 0x9402, sub.plate, "前方路段结冰", 0),
                (other, 0x9302, None, "另一集团的消息", 0), (root, 0x9302, None, "上周的消息", 8)):
            conn.execute("INSERT INTO exchange_notice (platform_id, enterprise_id, data_type, source_sn, plate, content,"
                         " received_at) VALUES (%s, %s, %s, 1, %s, %s, now() - make_interval(days => %s))",
                         (platform, enterprise, data_type, plate, content, days_ago))
        conn.commit()
    add_alarm(pg_url, child, sub, "a0", flags=1, minutes_ago=10)
    user = make_user(pg_url, root, ALARM_ACTIONS)
    h = bearer(client_module, user.name)
    overview = {e["bizType"]: e["total"] for e in ok(client.get("/api/notice/overView.json", headers=h))}
    assert (overview[5], overview[6]) == (2, 1)
    notices = ok(client.post("/api/query/notice.json?countable=true&pageNo=1&pageSize=10", headers=h, json={}))
    assert notices["total"] == 3
    shown = [(n["bizType"], n["title"], n["content"]) for n in notices["list"]]
    assert shown == [(5, "上级平台预警", f"{sub.plate} 前方路段结冰"), (5, "上级平台消息", "请加强夜间值守"),
                     (6, "紧急报警", f"{sub.plate} 紧急报警")]  # newest first
    english = ok(client.post("/api/query/notice.json?pageNo=1&pageSize=10", json={},
                             headers={**h, "Accept-Language": "en-US"}))
    assert english["list"][1]["title"] == "Message from the superior platform"
    child_user = make_user(pg_url, child, ALARM_ACTIONS)  # the subsidiary sees its vehicle's tip, not the group's
    mine = ok(client.post("/api/query/notice.json?pageNo=1&pageSize=10", json={},
                          headers=bearer(client_module, child_user.name)))
    assert [(n["bizType"], n["content"]) for n in mine["list"]] == [(5, f"{sub.plate} 前方路段结冰"),
                                                                    (6, f"{sub.plate} 紧急报警")]


def test_an_alarm_a_superior_platform_urged_carries_the_urgings_deadline(
        client: FlaskClient, fleet: Fleet, pg_url: str) -> None:
    urged = add_alarm(pg_url, fleet.root, fleet.online, "a1", flags=2, minutes_ago=7)
    other = add_alarm(pg_url, fleet.root, fleet.online, "a0", flags=1, minutes_ago=6)
    deadline = NOW.replace(microsecond=0) + timedelta(minutes=30)
    with connect(pg_url) as conn:
        platform = conn.execute(
            "INSERT INTO superior_platform (enterprise_id, name, host, port, user_id, password, centre_id, "
            "down_link_port, enabled) VALUES (%s, %s, '127.0.0.1', 7809, 1, 'pw', 1, 7810, false) RETURNING id",
            (fleet.root, f"urging {urged}")).fetchone()[0]  # type: ignore[index]
        conn.execute(  # what the link service stores for a 0x9401 (exchange/link/service.py)
            "INSERT INTO exchange_urging (platform_id, enterprise_id, alarm_id, source_sn, supervision_id, plate, "
            "plate_colour, warn_src, warn_type, warn_time, deadline, level) VALUES (%s, %s, %s, 1, '00000001', 'x', 2,"
            " 1, 1, now(), %s, 0)", (platform, fleet.root, urged, deadline))
        conn.commit()
    shown = ok(client.get(f"/api/common/alarm/{urged}.json", headers=fleet.headers))["urgingDeadline"]
    assert datetime.fromisoformat(shown) == deadline
    assert ok(client.get(f"/api/common/alarm/{other}.json", headers=fleet.headers))["urgingDeadline"] is None
    listed = ok(client.post("/api/common/query/alarm.json?pageNo=1&pageSize=50", headers=fleet.headers, json={}))
    by_id = {row["id"]: row for row in listed["list"]}
    assert by_id[urged]["urgingDeadline"] == shown and by_id[other]["urgingDeadline"] is None
