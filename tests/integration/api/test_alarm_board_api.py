"""The alarm dashboard's figures (GET /api/dashboard/alarmBoard.json) on the real PostgreSQL: levels, handled /
unhandled, the hourly / daily trend, top vehicles and enterprises of a parent's group, an enterprise of the tree
picked by id, another enterprise's id refused, and the total equal to the dashboard index's alarm counts."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from flask.testing import FlaskClient

from protocols.china_time import CHINA_TZ, local_midnight
from tests.integration.api.test_alarms_api import _enterprise, ok
from tests.integration.api.test_commands_api import Target, make_vehicle
from tests.integration.api.test_console_api import bearer, make_user
from warehouse.db import connect

URL = "/api/dashboard/alarmBoard.json"


def _alarm(conn: Any, enterprise_id: int, car: Target, key: str, at: datetime, *, type_: int = 1,
           level: int | None = None, state: int = 0) -> None:
    conn.execute(
        "INSERT INTO alarm (enterprise_id, device_id, car_id, plate_number, phone, type, key, level, start_time, state)"
        " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
        (enterprise_id, car.device_id, car.car_id, car.plate, car.phone, type_, key, level, at, state))


def test_alarm_board_counts_the_group_and_refuses_another_enterprise(client: FlaskClient, pg_url: str) -> None:
    with connect(pg_url) as conn:
        root = _enterprise(conn, None)
        child = _enterprise(conn, root)
        other = _enterprise(conn, None)
        conn.commit()
    [own] = make_vehicle(pg_url, root, online=False)
    [sub] = make_vehicle(pg_url, child, online=False)
    [foreign] = make_vehicle(pg_url, other, online=False)
    now = datetime.now(UTC)
    midnight = local_midnight(now.astimezone(CHINA_TZ))
    at = midnight + (now - midnight) / 2  # today (UTC+8) whatever the hour the test runs
    with connect(pg_url) as conn:
        _alarm(conn, root, own, "a1", at)
        _alarm(conn, root, own, "adas_1", at + timedelta(seconds=1), type_=5, level=1)
        _alarm(conn, root, own, "dsm_2", at + timedelta(seconds=2), type_=6, level=2, state=2)
        _alarm(conn, root, own, "a0", now - timedelta(days=40))  # outside every range
        _alarm(conn, child, sub, "adas_2", at, type_=5, level=1)
        _alarm(conn, child, sub, "a0", at + timedelta(seconds=1))
        _alarm(conn, other, foreign, "a0", at)
        conn.commit()
    user = make_user(pg_url, root, {"alarm": ["query"]})
    h = bearer(client, user.name)

    board = ok(client.get(URL, headers=h, query_string={"range": "today"}))
    assert (board["total"], board["unhandled"], board["handled"]) == (5, 4, 1)
    assert board["byLevel"] == [{"level": 1, "count": 2}, {"level": 2, "count": 1}, {"level": None, "count": 2}]
    assert [(r["carId"], r["plateNumber"], r["count"], r["unhandled"]) for r in board["topVehicles"]] == [
        (own.car_id, own.plate, 3, 2), (sub.car_id, sub.plate, 2, 2)]
    assert [(r["enterpriseId"], r["count"]) for r in board["topEnterprises"]] == [(root, 3), (child, 2)]
    assert board["topEnterprises"][0]["enterpriseName"].startswith("报警企业")
    hour = at.astimezone(CHINA_TZ).strftime("%Y-%m-%d %H:00")
    trend = {b["at"]: b["count"] for b in board["trend"]}
    assert trend[hour] == 5 and sum(trend.values()) == 5
    assert board["trend"][0]["at"] == midnight.strftime("%Y-%m-%d %H:00")  # every hour since midnight, 0 included

    # one figure per concept: the total is the dashboard index's alarms of the range
    counts = ok(client.get("/api/dashboard/alarmCounts.json", headers=h, query_string={"range": "today"}))
    assert sum(t["count"] for t in counts["byType"]) == board["total"]

    own_only = ok(client.get(URL, headers=h, query_string={"range": "today", "isParent": "false"}))
    assert (own_only["total"], own_only["unhandled"]) == (3, 2)
    picked = ok(client.get(URL, headers=h, query_string={"range": "week", "enterpriseId": child}))
    assert picked["total"] == 2 and [r["enterpriseId"] for r in picked["topEnterprises"]] == [child]
    assert picked["trend"][-1] == {"at": midnight.strftime("%Y-%m-%d"), "count": 2}
    assert len(picked["trend"]) == midnight.weekday() + 1  # every day since Monday
    month = ok(client.get(URL, headers=h, query_string={"range": "month"}))
    assert month["total"] == 5 and len(month["trend"]) == midnight.day

    assert client.get(URL, headers=h, query_string={"enterpriseId": other}).status_code == 404
    assert client.get(URL, headers=h, query_string={"range": "year"}).status_code == 400
    assert client.get(URL, headers=h, query_string={"range": ""}).status_code == 400
    stranger = make_user(pg_url, other, {"alarm": ["query"]})
    theirs = ok(client.get(URL, headers=bearer(client, stranger.name)))
    assert theirs["total"] == 1 and theirs["topVehicles"][0]["carId"] == foreign.car_id
    no_right = make_user(pg_url, root, {"car": ["query"]})
    assert client.get(URL, headers=bearer(client, no_right.name)).status_code == 403
