"""Every route of the API is guarded ("the server enforces every action on every route"),
generated from Flask's url_map, so a new route is covered by existing:

- a route declaring ``required_permission`` (api.security.requires) answers 403 with the status
  catalogue's text to a user whose role holds every other action but that one;
- a route without a guard is one of the few that are public or only about the caller;
- a route with an id answers 404 for another enterprise's record (the record of enterprise B asked
  for by A's administrator, with and without isParent), and leaves it untouched.
"""

from __future__ import annotations

import io
import re
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.routing import Rule

from api.auth import EXTENSION_KEY, Principal, TokenCodec
from api.db import get_db
from api.query.entities import WRITABLE
from api.rights import IMPLIED_READS
from api.security import FORBIDDEN_TEXT
from tests.integration.api.conftest import Demo
from tests.integration.api.test_console_api import bearer, make_user
from tests.integration.api.test_entities_api import valid_body
from tests.integration.api.test_media_api import upload
from warehouse.db import connect
from warehouse.seed import PERMISSIONS

Login = Callable[[str], dict[str, str]]

# Routes with no permission code: public (health, contract, sign-in, licence application, the
# console's files, the socket that checks its own token) or about the caller only.
PUBLIC = {"/", "/api/health.json", "/api/openapi.json", "/oauth2/token.json", "/assets/<path:filename>",
          "/wss/stomp", "/wss/stomp/info", "/wss/stomp/<server>/<session>/websocket", "/api/license/apply.json", "/api/license/machineCode.json"}
CALLER_ONLY = {"/api/user/current.json", "/api/user/profile.json", "/api/system/mapConfig.json",
               "/api/notice/overView.json", "/api/system/dictionary/dictionary.json",
               "/api/common/user/<int:user_id>.json",  # own password change, else user:update (test_org_api)
               # the bell's notices: each kind filtered by its own read, an announcement by its audience
               "/api/query/notice.json", "/api/notice/<int:notice_id>/read.json",
               # the built console's logo and manuals (console-spec §7 systemFile): any signed-in user's
               "/api/common/systemFile/<name>.json"}
# Defects found by this test: routes checking permissions by hand instead of requires().
# POST /api/driver/photo.json needs driver:add OR driver:update, which requires() (one action) cannot say.
UNGUARDED_DEFECTS = {"/api/driver/photo.json"}
_ARGUMENT = re.compile(r"<(?:(\w+):)?(\w+)>")


def _method(rule: Rule) -> str:
    return sorted((rule.methods or set()) - {"HEAD", "OPTIONS"})[0]


def _guarded_rules(app: Flask) -> list[tuple[Rule, tuple[str, str]]]:
    found = []
    for rule in app.url_map.iter_rules():
        guard = getattr(app.view_functions[rule.endpoint], "required_permission", None)
        if guard:
            found.append((rule, guard))
    return sorted(found, key=lambda item: (item[0].rule, _method(item[0])))


def _placeholder_url(rule: Rule) -> str:
    samples = {"int": "1", "uuid": str(uuid.UUID(int=1)), "path": "x", "string": "x", None: "x"}
    return _ARGUMENT.sub(lambda m: samples.get(m.group(1), "x"), rule.rule)


def test_every_route_is_guarded_or_known_to_be_open(app: Flask) -> None:
    open_routes = {rule.rule for rule in app.url_map.iter_rules()
                   if not getattr(app.view_functions[rule.endpoint], "required_permission", None)}
    assert open_routes - PUBLIC - CALLER_ONLY - UNGUARDED_DEFECTS == set(), "routes without a permission guard"


def test_a_role_without_the_routes_action_gets_403_with_the_status_text(
    app: Flask, client: FlaskClient, demo: Demo, pg_url: str
) -> None:
    rules = _guarded_rules(app)
    by_guard: dict[tuple[str, str], list[Rule]] = {}
    for rule, guard in rules:
        by_guard.setdefault(guard, []).append(rule)
    assert len(by_guard) > 20
    user = make_user(pg_url, demo.enterprises["a"])
    bearer(client, user.name)  # a real user, signed in once
    codec: TokenCodec = app.extensions[EXTENSION_KEY]
    with connect(pg_url) as conn:
        row = conn.execute("SELECT session_epoch, path FROM app_user u JOIN enterprise e ON e.id = u.enterprise_id"
                           " WHERE u.id = %s", (user.id,)).fetchone()
    assert row is not None
    for (code, action), guarded in sorted(by_guard.items()):
        # the token of a role holding every action of the catalogue but this one (tokens carry the
        # permissions, so each is issued directly rather than by a sign-in with argon2 per role)
        # A screen code implying this read (api.rights) would allow it too: the role holds none of those.
        granted = {c: {a for a in actions if (c, a) != (code, action)} for c, (_, actions) in PERMISSIONS.items()
                   if (code, action) not in IMPLIED_READS.get(c, frozenset())}
        principal = Principal(user.id, user.name, user.enterprise_id, row[1], {c: a for c, a in granted.items() if a})
        headers = {"Authorization": f"Bearer {codec.issue(principal, row[0])[0]}"}
        for rule in guarded:
            reply = client.open(_placeholder_url(rule), method=_method(rule), headers=headers, json={})
            assert reply.status_code == 403, (rule.rule, reply.status_code, reply.json)
            assert reply.json == {"code": 403, "data": {"permission": f"{code}:{action}"},
                                  "message": FORBIDDEN_TEXT,  # the spec's text, no English suffix
                                  "localMessage": FORBIDDEN_TEXT}  # the caller's language: zh-CN by default


def _foreign_ids(client: FlaskClient, login: Login, demo: Demo) -> Callable[[Rule], dict[str, Any] | None]:
    """For a rule with an id: its arguments naming a record of enterprise B (None: not known here)."""
    made: dict[str, Any] = {}

    def record_of_b(entity: str) -> int:
        """A live record of enterprise B itself: one B has (the seed's), else one made now."""
        if entity not in made:
            b = login("admin_b")
            page = client.post(f"/api/common/query/{entity}.json", headers=b, query_string={"pageSize": 1}, json={})
            assert page.status_code == 200, page.json
            rows = page.json["data"]["list"]  # type: ignore[index]
            if not rows:
                reply = client.post(f"/api/common/{entity}.json", headers=b, json=valid_body(WRITABLE[entity]))
                assert reply.status_code == 200, reply.json
                rows = [reply.json["data"]]  # type: ignore[index]
            made[entity] = rows[0][WRITABLE[entity].id_field]
        return made[entity]

    def arguments(rule: Rule) -> dict[str, Any] | None:
        names = set(rule.arguments)
        entity = re.match(r"/api/common/(\w+)/<int:record_id>", rule.rule)
        if names == {"record_id"} and entity and entity.group(1) in WRITABLE:
            return {"record_id": record_of_b(entity.group(1))}
        if names == {"user_id"}:
            return {"user_id": record_of_b("user")}
        if names == {"driver_id"}:  # the driver detail page's read (api/routes/driver_detail.py)
            return {"driver_id": record_of_b("driver")}
        if names == {"fence_id"}:  # bind / unbind on a fence of B
            return {"fence_id": record_of_b("fence")}
        if names == {"media_id"}:  # a driver photo uploaded by B
            if "media" not in made:
                png = io.BytesIO(b"\x89PNG\r\n\x1a\n" + bytes(64))
                reply = client.post("/api/driver/photo.json", headers=login("admin_b"),
                                    data={"file": (png, "photo.png", "image/png")}, content_type="multipart/form-data")
                assert reply.status_code == 200, reply.json
                made["media"] = reply.json["data"]["id"]  # type: ignore[index]
            return {"media_id": made["media"]}
        if names & {"file_id", "object_key"}:  # a terminal media file of B (tests/integration/api/test_media_api.py)
            if "file" not in made:
                made["file"] = upload(client.application, demo.b)
            stored = made["file"]
            return {"file_id": stored.id} if names == {"file_id"} else {"object_key": stored.key.lstrip("/")}
        if names == {"command_id"}:  # a command to B's terminal (tests/integration/api/test_commands_api.py)
            if "command" not in made:
                with get_db(client.application).connection() as conn:
                    made["command"] = conn.execute(
                        "INSERT INTO command (enterprise_id, car_id, device_id, phone, msg_id) SELECT enterprise_id,"
                        " car_id, id, phone, 33028 FROM device WHERE id = %s RETURNING id", (demo.b.device_id,)
                    ).fetchone()[0]  # type: ignore[index]
            return {"command_id": made["command"]}
        if names == {"alarm_id"}:  # an alarm of B's terminal (tests/integration/api/test_alarms_api.py)
            if "alarm" not in made:
                with get_db(client.application).connection() as conn:
                    made["alarm"] = conn.execute(
                        "INSERT INTO alarm (enterprise_id, device_id, car_id, phone, type, key, start_time, alarm_flags)"
                        " SELECT enterprise_id, id, car_id, phone, 1, 'a0', now(), 1 FROM device WHERE id = %s"
                        " RETURNING id", (demo.b.device_id,)).fetchone()[0]  # type: ignore[index]
            return {"alarm_id": made["alarm"]}
        if names == {"session_id"}:  # a live session of B's terminal (tests/integration/api/test_live_log_api.py)
            if "session" not in made:
                with get_db(client.application).connection() as conn:
                    made["session"] = conn.execute(
                        "INSERT INTO live_session (session_key, enterprise_id, device_id, car_id, stream_id, kind,"
                        " channel, request_time) SELECT gen_random_uuid(), enterprise_id, id, car_id, id || '-2-live',"
                        " 'live', 2, now() FROM device WHERE id = %s RETURNING id", (demo.b.device_id,)
                    ).fetchone()[0]  # type: ignore[index]
            return {"session_id": made["session"]}
        if names == {"application_id"}:  # a licence application: the root enterprises' (tests/integration/api/test_notices_api.py)
            if "application" not in made:
                with get_db(client.application).connection() as conn:
                    made["application"] = conn.execute(
                        "INSERT INTO licence_application (company, contact, phone, email, vehicles, machine_code, address)"
                        " VALUES ('guard', 'guard', '13800138000', 'g@example.com', 1, 'x', 'guard') RETURNING id"
                    ).fetchone()[0]  # type: ignore[index]
            return {"application_id": made["application"]}
        if names == {"platform_id"}:  # a superior platform of B (tests/integration/api/test_exchange_api.py)
            return {"platform_id": record_of_b("superiorPlatform")}
        if names == {"inferior_id"}:  # an inferior platform of B (tests/integration/api/test_inferior_api.py)
            return {"inferior_id": record_of_b("inferiorPlatform")}
        if names & {"vehicle_id", "request_id"}:  # an exchange vehicle of B's inferior platform and a video request of it
            if "exchange_vehicle" not in made:
                with get_db(client.application).connection() as conn:
                    made["exchange_vehicle"] = conn.execute(
                        "INSERT INTO exchange_vehicle (inferior_platform_id, enterprise_id, plate, plate_colour)"
                        " SELECT id, enterprise_id, 'guard', 2 FROM inferior_platform WHERE id = %s"
                        " ON CONFLICT (inferior_platform_id, plate, plate_colour) DO UPDATE SET plate = 'guard'"
                        " RETURNING id", (record_of_b("inferiorPlatform"),)).fetchone()[0]  # type: ignore[index]
                    made["video_pull"] = conn.execute(
                        "INSERT INTO exchange_video_pull (inferior_platform_id, enterprise_id, vehicle_id, channel,"
                        " av_type, deadline) SELECT inferior_platform_id, enterprise_id, id, 1, 0, now() FROM"
                        " exchange_vehicle WHERE id = %s RETURNING id", (made["exchange_vehicle"],)).fetchone()[0]  # type: ignore[index]
            return {"vehicle_id": made["exchange_vehicle"]} if names == {"vehicle_id"} else {"request_id": made["video_pull"]}
        if names == {"inspection_id"}:  # an inspection B's superior platform sent
            if "inspection" not in made:
                with get_db(client.application).connection() as conn:
                    made["inspection"] = conn.execute(
                        "INSERT INTO exchange_inspection (platform_id, enterprise_id, object_type, object_id, info_id,"
                        " source_sn, question) SELECT id, enterprise_id, 1, 'x', 1, 1, 'q' FROM superior_platform"
                        " WHERE id = %s RETURNING id", (record_of_b("superiorPlatform"),)).fetchone()[0]  # type: ignore[index]
            return {"inspection_id": made["inspection"]}
        if names == {"stream_ids"}:  # a stream of B's terminal (tests/integration/api/test_video_api.py)
            return {"stream_ids": f"{demo.b.device_id}-2-live"}
        if names == {"device_sn", "channel"}:  # B's terminal 2 (warehouse.seed: device_sn SIM<index>)
            return {"device_sn": "SIM0000002", "channel": 2}
        # path_id: the 9101 / 9102 paths' id, a car id unless the body names that device (B's car here)
        known = {"car_id": demo.b.car_id, "device_id": demo.b.device_id, "vin": demo.b.vin, "path_id": demo.b.car_id}
        return {n: known[n] for n in names} if names <= set(known) else None

    return arguments


def test_every_route_with_an_id_answers_404_for_another_enterprises_record(
    app: Flask, client: FlaskClient, login: Login, demo: Demo
) -> None:
    a = login("admin_a")
    resolve = _foreign_ids(client, login, demo)
    unknown, checked = [], 0
    for rule, _ in _guarded_rules(app):
        if not rule.arguments:
            continue
        if "<uuid:" in rule.rule:
            continue  # import jobs: per-job ids, proven by the import tests (another enterprise's job is a 404)
        if rule.rule.startswith("/api/common/geoMapData/"):
            continue  # an adcode: a region's outline, no enterprise's record (test_fences_api.py)
        if rule.rule.startswith("/api/analysis/notebooks/"):
            continue  # a notebook's name, no enterprise's record: root enterprise only (test_analysis_api.py)
        arguments = resolve(rule)
        if arguments is None:
            unknown.append(rule.rule)
            continue
        url = rule.rule
        for name, value in arguments.items():
            url = re.sub(rf"<(?:\w+:)?{name}>", str(value), url)
        for subtree in ({}, {"isParent": "true"}):
            reply = client.open(url, method=_method(rule), headers=a, query_string=subtree,
                                json={} if _method(rule) in ("PATCH", "POST", "PUT") else None)
            assert reply.status_code == 404, (_method(rule), url, reply.json)
            checked += 1
    assert unknown == [], "routes with an id this test cannot give another enterprise's record for"
    assert checked > 20
    # untouched: B still reads its records
    for entity in ("enterprise", "user", "role"):
        assert client.post(f"/api/common/count/{entity}.json", headers=login("admin_b"), json={}).json["data"] > 0  # type: ignore[index]


@pytest.mark.parametrize("action", ["enable", "disable"])
def test_enable_and_disable_need_their_own_action(
    client: FlaskClient, login: Login, demo: Demo, pg_url: str, action: str
) -> None:
    """Holding ``update`` is not enough to change a user's state."""
    target = client.post("/api/common/user.json", headers=login("admin_a"),
                         json={"userName": f"g{uuid.uuid4().hex[:8]}", "password": "Passw0rd_x"}).json["data"]  # type: ignore[index]
    editor = make_user(pg_url, demo.enterprises["a"], {"user": ["query", "get", "update"]})
    reply = client.post(f"/api/common/user/{target['id']}/{action}.json", headers=bearer(client, editor.name))
    assert reply.status_code == 403 and reply.json["data"]["permission"] == f"user:{action}"  # type: ignore[index]
