"""Server texts a user reads come in the caller's language (the console's X-Fleet-Language header): alarm
names in the alarm lists, the notices and the dashboard counts, permission names in the role editor's
catalogue, error messages. zh-CN stays the spec's texts; zh-HK is generated from them with Hong Kong
terms (fleet/zh_hk_build.py); en-US is English."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.integration.api.test_alarms_api import add_alarm
from tests.integration.api.test_commands_api import make_vehicle
from tests.integration.api.test_console_api import bearer, make_user
from warehouse.db import connect

CJK_SIMPLIFIED_ONLY = set("报类车辆级紧实时监数终视频设备")  # characters only Simplified Chinese writes


@dataclass(frozen=True)
class Scene:
    headers: dict[str, str]


@pytest.fixture(scope="module")
def scene(pg_url: str, app: Any) -> Scene:
    client = app.test_client()
    name = f"语言企业{uuid.uuid4().hex[:8]}"
    with connect(pg_url) as conn:
        row = conn.execute("INSERT INTO enterprise (name, short_name) VALUES (%s, %s) RETURNING id",
                           (name, name[:10])).fetchone()
        assert row is not None
        enterprise_id = int(row[0])
        conn.execute("UPDATE enterprise SET path = '/' || id || '/' WHERE id = %s", (enterprise_id,))
        conn.commit()
    [car] = make_vehicle(pg_url, enterprise_id, online=False)
    # now, not at collection time: the dashboard counts today (UTC+8), which may have begun since
    at = datetime.now(UTC)
    add_alarm(pg_url, enterprise_id, car, "a0", at=at)
    add_alarm(pg_url, enterprise_id, car, "adas_1", type_=5, level=1, at=at)
    user = make_user(pg_url, enterprise_id, {"alarm": ["query", "get"], "role": ["query"], "dashboard": ["query"]})
    return Scene(bearer(client, user.name))


def _get(client: FlaskClient, scene: Scene, language: str, url: str, **kwargs: Any) -> Any:
    method = kwargs.pop("method", "get")
    reply = getattr(client, method)(url, headers={**scene.headers, "X-Fleet-Language": language}, **kwargs)
    assert reply.status_code == 200 and reply.json["code"] == 0, reply.json
    return reply.json["data"]


def _alarm_names(client: FlaskClient, scene: Scene, language: str, entity: str = "alarm") -> set[str]:
    data = _get(client, scene, language, f"/api/common/query/{entity}.json", method="post",
                query_string={"select": "desc,key", "pageSize": 50}, json={})
    return {row["desc"] for row in data["list"]}


@pytest.mark.parametrize(("language", "names"), [
    ("zh-CN", {"紧急报警", "一级 前向碰撞报警"}),
    ("zh-HK", {"緊急報警", "一級 前向碰撞報警"}),
    ("en-US", {"Emergency alarm", "Level 1 Forward collision warning"}),
])
def test_alarm_list_names_alarms_in_the_callers_language(client: FlaskClient, scene: Scene, language: str,
                                                         names: set[str]) -> None:
    assert _alarm_names(client, scene, language) == names
    assert _alarm_names(client, scene, language, "safetyAlarm") == {n for n in names if "1" in n or "一" in n}


def test_alarm_list_filters_by_the_name_in_the_callers_language(client: FlaskClient, scene: Scene) -> None:
    data = _get(client, scene, "en-US", "/api/common/query/alarm.json", method="post",
                query_string={"select": "desc"}, json={"desc.like": "Emergency"})
    assert [row["desc"] for row in data["list"]] == ["Emergency alarm"]


def test_notices_and_dashboard_counts_name_alarms_in_english(client: FlaskClient, scene: Scene) -> None:
    notices = _get(client, scene, "en-US", "/api/query/notice.json", method="post",
                   query_string={"pageSize": 10}, json={})
    assert {row["title"] for row in notices["list"]} == {"Emergency alarm", "Level 1 Forward collision warning"}
    counts = _get(client, scene, "en-US", "/api/dashboard/alarmCounts.json")
    assert {row["desc"] for row in counts["byType"]} == {"Emergency alarm", "Forward collision warning"}


def test_permission_catalogue_names_rights_in_the_callers_language(client: FlaskClient, scene: Scene) -> None:
    names = {language: {row["code"]: row["name"] for row in _get(client, scene, language, "/api/aas/permission.json")}
             for language in ("zh-CN", "zh-HK", "en-US")}
    assert (names["zh-CN"]["monitor"], names["zh-HK"]["monitor"], names["en-US"]["monitor"]) == \
        ("实时监控", "即時監控", "Live monitoring")
    assert (names["zh-CN"]["alarm"], names["zh-HK"]["alarm"], names["en-US"]["alarm"]) == \
        ("报警管理", "報警管理", "Alarm management")
    assert not [name for name in names["en-US"].values() if any("\u4e00" <= ch <= "\u9fff" for ch in name)]
    assert not [name for name in names["zh-HK"].values() if set(name) & CJK_SIMPLIFIED_ONLY]


def test_zh_hk_error_messages_use_hong_kong_terms(client: FlaskClient) -> None:
    reply = client.get("/api/user/current.json", headers={"Authorization": "Bearer nope", "X-Fleet-Language": "zh-HK"})
    assert reply.status_code == 401 and reply.json is not None
    assert reply.json["localMessage"] == "會話已失效，請重新登入"
