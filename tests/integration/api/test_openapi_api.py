"""The OpenAPI document matches the running app both ways."""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from api.db import get_db
from api.query.entities import QUERYABLE, WRITABLE
from api.query.spreadsheet_contract import IMPORTABLE
from api.query.transfer import import_fields
from api.routes.meta import openapi_document
from tests.integration.api.conftest import Demo
from tests.integration.api.test_entities_api import create
from tests.integration.api.test_media_api import upload

Login = Callable[[str], dict[str, str]]
# Paths of the history logs (EntitySpec.window): their bodies need a vehicle and a time range.
WINDOWED = {f"/api/common/{route}/{name}{suffix}": entity.window for name, entity in QUERYABLE.items()
            if entity.window is not None
            for route, suffix in (("query", ".json"), ("count", ".json"), ("export", ".xlsx"), ("export", ".csv"))}


def app_paths(app: Flask) -> set[str]:
    """Routes as OpenAPI paths: ``<int:car_id>`` -> ``{id}``, ``<string:vin>`` -> ``{vin}``."""
    paths = set()
    for rule in app.url_map.iter_rules():
        if rule.rule.startswith(("/api/", "/oauth2/")):
            paths.add(re.sub(r"<(?:\w+:)?(\w+)>", lambda m: f"{{{m.group(1)}}}" if m.group(1) in ("vin", "channel") else "{id}", rule.rule))
    return paths


def test_every_route_is_documented(app: Flask) -> None:
    documented = set(openapi_document()["paths"])
    missing = app_paths(app) - documented
    assert not missing, f"routes missing from api/openapi.yaml: {sorted(missing)}"


def test_every_documented_operation_answers(app: Flask, client: FlaskClient, login: Login, demo: Demo,
                                           tmp_path: Path) -> None:
    headers = login("admin_a")
    # a live record of each declared entity for its get / update / delete
    records = {f"/api/common/{name}/{{id}}.json": create(client, headers, entity)["id"]
               for name, entity in WRITABLE.items()}
    for name in ("enterprise", "user"):  # enable / disable (api/routes/org.py), before the delete
        for action in ("enable", "disable"):
            records[f"/api/common/{name}/{{id}}/{action}.json"] = records[f"/api/common/{name}/{{id}}.json"]
    photo = client.post("/api/driver/photo.json", headers=headers, content_type="multipart/form-data",
                        data={"file": (io.BytesIO(b"\x89PNG\r\n\x1a\n"), "p.png")})
    records["/api/driver/photo/{id}.json"] = photo.json["data"]["id"]  # type: ignore[index]
    # the open platform app's secret rotation acts on a live app (the entity record above)
    records["/api/common/openApp/{id}/secret.json"] = records["/api/common/openApp/{id}.json"]
    media_file = upload(client.application, demo.a)  # a terminal media file (test_media_api)
    records["/api/media/download/{id}.json"] = records["/api/media/obs/download/{id}.json"] = media_file.id
    with get_db(client.application).connection() as conn:  # a command to A's terminal for its state
        records["/api/command/{id}/state.json"] = conn.execute(
            "INSERT INTO command (enterprise_id, car_id, device_id, phone, msg_id) SELECT enterprise_id, car_id, id,"
            " phone, 33028 FROM device WHERE id = %s RETURNING id", (demo.a.device_id,)).fetchone()[0]  # type: ignore[index]
        alarm_id = conn.execute(  # an alarm of A's terminal (test_alarms_api)
            "INSERT INTO alarm (enterprise_id, device_id, car_id, phone, type, key, start_time) SELECT enterprise_id,"
            " id, car_id, phone, 1, 'a2', now() FROM device WHERE id = %s RETURNING id", (demo.a.device_id,)
        ).fetchone()[0]  # type: ignore[index]
        # an announcement to A for its read mark (the entity record above is deleted before that path comes)
        records["/api/notice/{id}/read.json"] = conn.execute(
            "INSERT INTO announcement (enterprise_id, title, content) SELECT enterprise_id, 'openapi read', 'x'"
            " FROM device WHERE id = %s RETURNING id", (demo.a.device_id,)).fetchone()[0]  # type: ignore[index]
        # a driver of A of its own for the detail page's read (the entity record above is deleted on its way)
        records["/api/driver/{id}/detail.json"] = conn.execute(
            "INSERT INTO driver (enterprise_id, name) SELECT enterprise_id, 'openapi' FROM device WHERE id = %s"
            " RETURNING id", (demo.a.device_id,)).fetchone()[0]  # type: ignore[index]
        # a fence of A for its bind / unbind (a fence numbered like A's car may be another enterprise's)
        fence_id = conn.execute(
            "INSERT INTO fence (enterprise_id, name, fence_type, business_type, shape, geometry) SELECT enterprise_id,"
            " 'openapi', 1, 1, 'circle', '{\"center\": [116.4, 39.9], \"radius\": 500}' FROM device WHERE id = %s"
            " RETURNING id", (demo.a.device_id,)).fetchone()[0]  # type: ignore[index]
        records["/api/fence/{id}/bind.json"] = records["/api/fence/{id}/unbind.json"] = fence_id
        # a live session of A's terminal for the live log's detail (test_live_log_api)
        records["/api/log/live/{id}.json"] = conn.execute(
            "INSERT INTO live_session (session_key, enterprise_id, device_id, car_id, stream_id, kind, channel,"
            " request_time) SELECT gen_random_uuid(), enterprise_id, id, car_id, id || '-1-live', 'live', 1, now()"
            " FROM device WHERE id = %s RETURNING id", (demo.a.device_id,)).fetchone()[0]  # type: ignore[index]
        # an inspection A's superior platform sent, and that platform's link state (test_exchange_api)
        platform_id = records["/api/common/superiorPlatform/{id}.json"]
        records["/api/exchange/superiorPlatform/{id}/linkState.json"] = platform_id
        records["/api/exchange/inspection/{id}/answer.json"] = conn.execute(
            "INSERT INTO exchange_inspection (platform_id, enterprise_id, object_type, object_id, info_id, source_sn,"
            " question) SELECT id, enterprise_id, 1, 'x', 1, 1, 'q' FROM superior_platform WHERE id = %s RETURNING id",
            (platform_id,)).fetchone()[0]  # type: ignore[index]
        # an exchange vehicle of an inferior platform of A of its own, and a video request about it (the entity
        # record above is deleted on its way)
        vehicle = conn.execute(
            "WITH p AS (INSERT INTO inferior_platform (enterprise_id, name, user_id, password, centre_id) SELECT"
            " enterprise_id, 'openapi video', 4000000001, 'x', 1 FROM device WHERE id = %s"
            " ON CONFLICT (user_id) DO UPDATE SET name = 'openapi video' RETURNING id, enterprise_id)"
            " INSERT INTO exchange_vehicle (inferior_platform_id, enterprise_id, plate, plate_colour) SELECT id,"
            " enterprise_id, 'openapi', 2 FROM p ON CONFLICT (inferior_platform_id, plate, plate_colour) DO UPDATE"
            " SET plate = 'openapi' RETURNING id", (demo.a.device_id,)).fetchone()[0]  # type: ignore[index]
        records["/api/exchange/exchangeCar/{id}/video.json"] = vehicle
        records["/api/exchange/videoPull/{id}.json"] = records["/api/exchange/videoPull/{id}/stop.json"] = conn.execute(
            "INSERT INTO exchange_video_pull (inferior_platform_id, enterprise_id, vehicle_id, channel, av_type,"
            " deadline) SELECT inferior_platform_id, enterprise_id, id, 1, 0, now() + interval '1 minute' FROM"
            " exchange_vehicle WHERE id = %s RETURNING id", (vehicle,)).fetchone()[0]  # type: ignore[index]
    for action in ("linkState", "inspection", "message"):  # an inferior platform of A (test_inferior_api)
        records[f"/api/exchange/inferiorPlatform/{{id}}/{action}.json"] = records[
            "/api/common/inferiorPlatform/{id}.json"]
    records["/api/video/command/{id}/state.json"] = records["/api/command/{id}/state.json"]
    records["/api/video/heartbeat/{id}.json"] = f"{demo.a.device_id}-2-live"  # a stream id of A's terminal
    for suffix in ("", "/confirm", "/ignore"):
        records[f"/api/common/alarm/{{id}}{suffix}.json"] = alarm_id
    # an import job of each importable entity (a file with the header only) for its progress route
    for name, entity in IMPORTABLE.items():
        header = ",".join(import_fields(entity)).encode()
        started = client.post(f"/api/common/import/{name}.json", headers=headers, content_type="multipart/form-data",
                              data={"file": (io.BytesIO(header), "header.csv")})
        records[f"/api/common/import/{name}/{{id}}.json"] = started.json["data"]["jobId"]  # type: ignore[index]
    # a licence application: the installation's root enterprises decide them, so a root administrator asks
    with get_db(client.application).connection() as conn:
        records["/api/license/apply/{id}/approve.json"] = conn.execute(
            "INSERT INTO licence_application (company, contact, phone, email, vehicles, machine_code, address)"
            " VALUES ('c', 'n', '13800000000', 'a@b.cn', 1, 'm', '127.0.0.9') RETURNING id").fetchone()[0]  # type: ignore[index]
    as_root = {"/api/license/apply/{id}/approve.json": login("admin")}
    # a system file of a built console (the repository's dist/ may be being built beside this test)
    (tmp_path / "favicon.svg").write_text("<svg/>")
    records["/api/common/systemFile/{id}.json"] = "logo"
    settings = app.config["FLEET_API_SETTINGS"]
    app.config["FLEET_API_SETTINGS"] = settings.model_copy(update={"console_dir": tmp_path})
    try:
        _answer_every_operation(client, headers, demo, records, as_root)
    finally:
        app.config["FLEET_API_SETTINGS"] = settings


def _answer_every_operation(client: FlaskClient, headers: dict[str, str], demo: Demo, records: dict[str, Any],
                            headers_of: dict[str, dict[str, str]]) -> None:
    for path, operations in openapi_document()["paths"].items():
        url = path.replace("{id}", str(demo.a.device_id if "device" in path.lower() else demo.a.car_id))
        if path in records:
            url = path.replace("{id}", str(records[path]))
        url = url.replace("{vin}", demo.a.vin)
        if path.startswith("/api/video/") and "{channel}" in path:  # stream info: a device serial and a channel
            url = path.replace("{id}", "SIM0000001").replace("{channel}", "2")  # A's terminal 1 (warehouse.seed)
        for method in operations:
            body: dict[str, object] | None = {} if method == "post" else None
            windowed = WINDOWED.get(path)
            if windowed is not None and body is not None:  # a history log needs a vehicle and a range
                body = {f"{windowed.key}.eq": demo.a.car_id, "rangeConditions": [
                    {"fieldName": windowed.time, "start": "2026-03-01T00:00:00Z", "end": "2026-03-02T00:00:00Z"}]}
            query: dict[str, str] | None = None
            if "oauth2" in path:
                query = {"grant_type": "password", "username": "openapi_nobody", "password": "x"}
            elif "/track." in path:  # a track or its export needs a time range
                query = {"start": "2026-03-01T00:00:00Z", "end": "2026-03-02T00:00:00Z"}
            reply = client.open(url, method=method.upper(), headers=headers_of.get(path, headers), json=body,
                                query_string=query)
            assert reply.status_code not in (404, 405), f"{method.upper()} {url}: {reply.status_code} {reply.json}"
            files = set(operations[method]["responses"]["200"].get("content", {})) - {"application/json"}
            if files:  # a spreadsheet download
                assert reply.status_code == 200 and reply.mimetype in files, (url, reply.status_code, reply.mimetype)
                assert reply.get_data()  # a streamed export read to its end and closed, in this request's order
                reply.close()
                continue
            assert reply.json is not None
            if path != "/api/openapi.json":
                envelope_keys = {"code", "message", "data"} | ({"localMessage"} if reply.json.get("code") else set())
                assert set(reply.json) == envelope_keys, f"{method.upper()} {url} is not enveloped"


def _operations(app: Flask) -> dict[tuple[str, str], object]:
    """(OpenAPI path, method) -> view function of every API route."""
    views = {}
    for rule in app.url_map.iter_rules():
        if rule.rule.startswith(("/api/", "/oauth2/")):
            path = re.sub(r"<(?:\w+:)?(\w+)>", lambda m: f"{{{m.group(1)}}}" if m.group(1) in ("vin", "channel") else "{id}", rule.rule)
            for method in rule.methods or ():
                if method not in ("HEAD", "OPTIONS"):
                    views[(path, method.lower())] = app.view_functions[rule.endpoint]
    return views


def test_every_operation_documents_the_errors_it_can_answer(app: Flask) -> None:
    """400 everywhere (NUL / bad UTF-8 are checked before routing), 401 and 503 where a token or
    the database is involved, 403 behind a permission, 413 for a body."""
    document = openapi_document()
    missing = []
    for (path, method), view in _operations(app).items():
        operation = document["paths"][path][method]
        documented = set(operation["responses"])
        expected = {"200", "400"}
        if operation.get("security", document["security"]):
            expected |= {"401", "503"}
        if getattr(view, "required_permission", None):
            expected.add("403")
        if method in ("post", "put", "patch"):
            expected |= {"413", "503"}
        if path == "/oauth2/token.json":
            expected |= {"401", "429"}
        if expected - documented:
            missing.append(f"{method.upper()} {path}: {sorted(expected - documented)}")
    assert not missing, "undocumented statuses:\n" + "\n".join(missing)


def test_every_documented_operation_exists_with_that_method(app: Flask) -> None:
    routes = set(_operations(app))
    documented = {(path, method) for path, item in openapi_document()["paths"].items() for method in item}
    assert documented <= routes, sorted(documented - routes)
