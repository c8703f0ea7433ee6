"""Platform parameters (platform-spec §2 settings "param", api/platform_params.py) on real PostgreSQL: the
run-time parameters with their values and defaults (never a start-up setting or a secret), server-side
validation, the permission (system:update of a root enterprise), the audit row, and the change taking effect
in another process without a restart."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from api.app import create_app
from api.db import get_db
from api.platform_params import NAMES
from fleet.licence import issue
from fleet.settings import ApiSettings
from tests.integration.api.conftest import Demo, error_text
from tests.integration.api.test_alarms_api import _enterprise
from tests.integration.api.test_console_api import bearer, make_user
from tests.integration.api.test_notices_api import _car, _day, notices, overview
from tests.integration.api.test_settings_api import install, terms, vendor  # noqa: F401 (vendor: a fixture)
from warehouse.db import connect

Login = Callable[[str], dict[str, str]]
URL = "/api/system/param.json"


def ok(reply: Any) -> Any:
    assert reply.status_code == 200 and reply.json["code"] == 0, reply.json
    return reply.json["data"]


@pytest.fixture(autouse=True)
def configured_values(pg_url: str) -> Iterator[None]:
    """Every parameter back to its configured value after each test (the session database is shared)."""
    yield
    with connect(pg_url) as conn:
        conn.execute("DELETE FROM platform_param")
        conn.commit()


@pytest.fixture
def other_process(pg_url: str, demo: Demo, tmp_path: Path) -> Iterator[FlaskClient]:
    """A second API process on the same database, started before any change (what a restart would renew)."""
    app = create_app(ApiSettings(token_secret="integration-secret"), pg_url, var_dir=tmp_path)
    try:
        yield app.test_client()
    finally:
        get_db(app).close()


def params(client: FlaskClient, headers: dict[str, str]) -> dict[str, dict[str, Any]]:
    return {row["name"]: row for row in ok(client.get(URL, headers=headers))}


def change(client: FlaskClient, headers: dict[str, str], name: str, value: Any) -> Any:
    return client.post(URL, headers=headers, json={"name": name, "value": value})


def test_lists_the_run_time_parameters_with_their_defaults_and_no_start_up_setting(
    client: FlaskClient, login: Login
) -> None:
    rows = params(client, login("admin"))
    assert tuple(rows) == NAMES
    insurance = rows["noticeInsuranceDays"]
    assert (insurance["value"], insurance["default"], insurance["type"], insurance["unit"]) == (30, 30, "int", "day")
    assert (insurance["min"], insurance["max"], insurance["updatedBy"], insurance["updatedAt"]) == (0, 3650, None, None)
    assert (rows["mapCenterLng"]["value"], rows["mapCenterLng"]["min"], rows["mapCenterLng"]["max"]) == (116.39, -180, 180)
    assert rows["mapDefaultBaseLayer"]["options"][:2] == ["blank", "osm"]
    shown = " ".join(rows).lower()
    assert not any(word in shown for word in ("key", "secret", "port", "url", "password", "token"))


@pytest.mark.parametrize(("body", "field", "message"), [
    ({"name": "noticeInsuranceDays", "value": "45"}, "noticeInsuranceDays", "must be an integer"),
    ({"name": "noticeInsuranceDays", "value": 4.5}, "noticeInsuranceDays", "must be an integer"),
    ({"name": "noticeInsuranceDays", "value": True}, "noticeInsuranceDays", "must be an integer"),
    ({"name": "noticeInsuranceDays", "value": 3651}, "noticeInsuranceDays", "between 0 and 3650"),
    ({"name": "licenceWarningDays", "value": -1}, "licenceWarningDays", "between 0 and 3650"),
    ({"name": "mapCenterLat", "value": 91}, "mapCenterLat", "between -90 and 90"),
    ({"name": "mapCenterLng", "value": "east"}, "mapCenterLng", "must be a number"),
    ({"name": "mapDefaultBaseLayer", "value": "satellite"}, "mapDefaultBaseLayer", "must be one of"),
    ({"name": "apiPort", "value": 1}, "name", "unknown parameter"),
    ({"name": "token_secret", "value": "x"}, "name", "unknown parameter"),
    ({"name": "noticeInsuranceDays"}, None, "'name' and 'value'"),
    ([1, 2], None, "'name' and 'value'"),
])
def test_a_wrong_value_is_a_clear_400_and_changes_nothing(client: FlaskClient, login: Login, body: Any,
                                                          field: str | None, message: str) -> None:
    reply = client.post(URL, headers=login("admin"), json=body)
    assert reply.status_code == 400 and message in error_text(reply, "en-US"), reply.json
    assert (reply.json["data"] or {}).get("field") == field
    assert all(row["updatedBy"] is None for row in params(client, login("admin")).values())


def test_changing_needs_system_update_in_a_root_enterprise(client: FlaskClient, login: Login, pg_url: str,
                                                           demo: Demo) -> None:
    reader = bearer(client, make_user(pg_url, demo.enterprises["parent"], {"system": ["query"]}).name)
    assert set(params(client, reader)) == set(NAMES)
    assert change(client, reader, "noticeInsuranceDays", 45).status_code == 403
    stranger = bearer(client, make_user(pg_url, demo.enterprises["parent"], {"dictionary": ["query"]}).name)
    assert client.get(URL, headers=stranger).status_code == 403
    assert change(client, stranger, "noticeInsuranceDays", 45).status_code == 403
    # a subsidiary's administrator holds system:update but the values are platform-wide
    reply = change(client, login("admin_a"), "noticeInsuranceDays", 45)
    assert reply.status_code == 403 and "root enterprise" in error_text(reply, "en-US")
    assert params(client, login("admin"))["noticeInsuranceDays"]["value"] == 30


def test_a_change_is_saved_shown_and_audited(client: FlaskClient, login: Login, pg_url: str) -> None:
    row = ok(change(client, login("admin"), "noticeInsuranceDays", 45))
    assert (row["value"], row["default"], row["updatedBy"]) == (45, 30, "admin") and row["updatedAt"]
    assert params(client, login("admin"))["noticeInsuranceDays"]["value"] == 45
    reset = ok(change(client, login("admin"), "noticeInsuranceDays", None))
    assert (reset["value"], reset["updatedBy"]) == (30, None)
    with connect(pg_url) as conn:
        audits = conn.execute(
            "SELECT user_name, record_id, action, changes FROM audit_log WHERE entity = 'platformParam'"
            " ORDER BY id DESC LIMIT 2").fetchall()
    assert audits == [
        ("admin", 1, "update", {"noticeInsuranceDays": {"before": 45, "after": 30}}),
        ("admin", 1, "update", {"noticeInsuranceDays": {"before": 30, "after": 45}}),
    ]


def test_the_bells_insurance_window_changes_in_another_process_without_a_restart(
    client: FlaskClient, login: Login, pg_url: str, other_process: FlaskClient
) -> None:
    with connect(pg_url) as conn:
        root = _enterprise(conn, None)
        conn.commit()
    car_id = _car(pg_url, root, insurance=_day(40))
    reader = bearer(other_process, make_user(pg_url, root, {"car": ["query"]}).name)
    assert overview(other_process, reader)[2] == 0
    ok(change(client, login("admin"), "noticeInsuranceDays", 45))
    assert overview(other_process, reader)[2] == 1
    [listed] = notices(other_process, reader, **{"bizType.eq": 2})
    assert (listed["carId"], listed["daysLeft"]) == (car_id, 40)
    ok(change(client, login("admin"), "noticeInsuranceDays", 39))
    assert overview(other_process, reader)[2] == 0


def test_the_maps_starting_view_changes_in_another_process_without_a_restart(
    client: FlaskClient, login: Login, other_process: FlaskClient
) -> None:
    headers = bearer(other_process, "admin_a", "Fleet@2026")
    before = ok(other_process.get("/api/system/mapConfig.json", headers=headers))
    assert before["mapCenter"] == {"lng": 116.39, "lat": 39.91} and before["defaultBaseLayer"] == "osm"
    ok(change(client, login("admin"), "mapCenterLng", 121.47))
    ok(change(client, login("admin"), "mapCenterLat", 31.23))
    ok(change(client, login("admin"), "mapDefaultBaseLayer", "blank"))
    after = ok(other_process.get("/api/system/mapConfig.json", headers=headers))
    assert after["mapCenter"] == {"lng": 121.47, "lat": 31.23} and after["defaultBaseLayer"] == "blank"


def test_the_licence_warning_window_decides_whether_the_licence_is_expiring(
    client: FlaskClient, login: Login, vendor: bytes  # noqa: F811 (the fixture imported above)
) -> None:
    assert ok(install(client, login("admin"), issue(vendor, terms())))["expiring"] is True  # 30 days left, window 30
    ok(change(client, login("admin"), "licenceWarningDays", 29))
    detail = ok(client.get("/api/license/detail.json", headers=login("admin")))
    assert (detail["daysLeft"], detail["warningDays"], detail["expiring"], detail["expired"]) == (30, 29, False, False)
    ok(change(client, login("admin"), "licenceWarningDays", 30))
    assert ok(client.get("/api/license/detail.json", headers=login("admin")))["expiring"] is True


@pytest.fixture
def client(english_client: FlaskClient) -> FlaskClient:
    """This module reads error texts in English (``error_text``): its console speaks en-US."""
    return english_client
