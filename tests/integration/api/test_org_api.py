"""Enterprises, users, roles and permissions beyond what the generic entity tests
prove: the enterprise tree and its paths, a subsidiary's administrator never seeing its parent or
siblings, disabling an enterprise or a user, password reset, role assignment and grants."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from flask.testing import FlaskClient

from api.query.validators import NAME_INVALID, PASSWORD_INVALID, PHONE_INVALID, USERNAME_INVALID
from api.security import FORBIDDEN_TEXT
from tests.integration.api.conftest import Demo
from tests.integration.api.test_console_api import bearer, make_user, token_of
from warehouse.db import connect

Login = Callable[[str], dict[str, str]]
PASSWORD = "Passw0rd_x"


def tag() -> str:
    return uuid.uuid4().hex[:8]


def ok(reply: Any) -> Any:
    assert reply.status_code == 200 and reply.json["code"] == 0, reply.json
    return reply.json["data"]


def new_enterprise(client: FlaskClient, headers: dict[str, str], **body: Any) -> dict[str, Any]:
    name = f"企业{tag()}"
    return ok(client.post("/api/common/enterprise.json", headers=headers,  # type: ignore[no-any-return]
                          json={"name": name, "shortName": name[:10], **body}))


def new_role(client: FlaskClient, headers: dict[str, str], permissions: list[dict[str, Any]],
             **body: Any) -> dict[str, Any]:
    return ok(client.post("/api/common/role.json", headers=headers,  # type: ignore[no-any-return]
                          json={"name": f"角色{tag()}", "permissions": permissions, **body}))


def new_user(client: FlaskClient, headers: dict[str, str], **body: Any) -> dict[str, Any]:
    return ok(client.post("/api/common/user.json", headers=headers,  # type: ignore[no-any-return]
                          json={"userName": f"u{tag()}", "password": PASSWORD, **body}))


def path_of(pg_url: str, enterprise_id: int) -> str:
    with connect(pg_url) as conn:
        row = conn.execute("SELECT path FROM enterprise WHERE id = %s", (enterprise_id,)).fetchone()
    assert row is not None
    return str(row[0])


# --- enterprises --------------------------------------------------------------------------------


def test_a_subsidiary_gets_the_materialised_path_under_its_parent(
    client: FlaskClient, login: Login, demo: Demo, pg_url: str
) -> None:
    child = new_enterprise(client, login("admin_a"), type=2, contact="张三", phone="13800138000")
    assert child["enterpriseId"] == demo.enterprises["a"] and child["type"] == 2 and child["state"] == 1
    assert path_of(pg_url, child["id"]) == f"{path_of(pg_url, demo.enterprises['a'])}{child['id']}/"
    grandchild = new_enterprise(client, login("admin"), enterpriseId=child["id"])
    assert grandchild["type"] == 3  # an enterprise unless told otherwise
    assert path_of(pg_url, grandchild["id"]) == f"{path_of(pg_url, child['id'])}{grandchild['id']}/"
    tree = ok(client.get("/api/aas/subsidiary.json", headers=login("admin_a"),
                         query_string={"select": "id,shortName,type,children", "enterpriseId": child["id"]}))
    assert tree == [{"id": child["id"], "shortName": child["shortName"], "type": 2,
                     "children": [{"id": grandchild["id"], "shortName": grandchild["shortName"], "type": 3,
                                   "children": []}]}]


def test_an_enterprise_always_keeps_a_type(client: FlaskClient, login: Login) -> None:
    child = new_enterprise(client, login("admin_a"), type=None)
    assert child["type"] == 3
    reply = client.patch(f"/api/common/enterprise/{child['id']}.json", headers=login("admin_a"), json={"type": None},
                         query_string={"isParent": "true"})
    assert reply.status_code == 400 and reply.json["data"] == {"field": "type"}, reply.json


def test_a_subsidiary_administrator_never_sees_its_parent_or_siblings(
    client: FlaskClient, login: Login, demo: Demo
) -> None:
    a = login("admin_a")
    parent, sibling = demo.enterprises["parent"], demo.enterprises["b"]
    mine = new_enterprise(client, a)
    theirs = new_enterprise(client, login("admin_b"))
    for subtree in ({}, {"isParent": "true"}):
        listed = ok(client.post("/api/common/query/enterprise.json", headers=a,
                                query_string={**subtree, "pageSize": 1000}, json={}))["list"]
        ids = {row["id"] for row in listed}
        assert mine["id"] in ids and not ids & {parent, sibling, theirs["id"], demo.enterprises["a"]}
        for foreign in (parent, sibling, theirs["id"]):
            assert ok(client.post("/api/common/count/enterprise.json", headers=a, query_string=subtree,
                                  json={"id": foreign})) == 0
            for method, url in (("GET", f"/api/common/enterprise/{foreign}.json"),
                                ("PATCH", f"/api/common/enterprise/{foreign}.json"),
                                ("DELETE", f"/api/common/enterprise/{foreign}.json"),
                                ("POST", f"/api/common/enterprise/{foreign}/disable.json"),
                                ("POST", f"/api/common/enterprise/{foreign}/enable.json")):
                reply = client.open(url, method=method, headers=a, query_string=subtree,
                                    json={"name": "x"} if method == "PATCH" else None)
                assert reply.status_code == 404, (method, url, reply.json)
        users = ok(client.post("/api/common/query/user.json", headers=a, query_string={**subtree, "pageSize": 1000},
                               json={}))["list"]
        assert {u["enterpriseId"] for u in users} <= {demo.enterprises["a"], mine["id"]}
        roles = ok(client.post("/api/common/query/role.json", headers=a, query_string={**subtree, "pageSize": 1000},
                               json={}))["list"]
        assert {r["enterpriseId"] for r in roles} <= {demo.enterprises["a"], mine["id"]}
    tree = ok(client.get("/api/aas/subsidiary.json", headers=a, query_string={"select": "id,children"}))
    assert [node["id"] for node in tree] == [demo.enterprises["a"]]
    for foreign in (parent, sibling):
        assert client.get("/api/aas/subsidiary.json", headers=a, query_string={"enterpriseId": foreign}).status_code == 404
        reply = client.post("/api/common/enterprise.json", headers=a, json={"name": "x", "shortName": "x",
                                                                            "enterpriseId": foreign})
        assert reply.status_code == 404, reply.json
    # the root's administrator sees the whole tree with isParent
    everything = ok(client.post("/api/common/query/enterprise.json", headers=login("admin"),
                                query_string={"isParent": "true", "pageSize": 1000}, json={}))["list"]
    assert {mine["id"], theirs["id"], demo.enterprises["a"], sibling} <= {row["id"] for row in everything}


def test_a_caller_reads_its_own_enterprise_by_id_but_changes_it_only_from_above(
    client: FlaskClient, login: Login, demo: Demo
) -> None:
    """platform-spec §7: ``GET /api/common/enterprise/{id}.json`` answers the caller's own enterprise
    (the console reads it for its header and forms), while the list shows subsidiaries and writes to the
    own record stay with the parent's administrators."""
    a, own = login("admin_a"), demo.enterprises["a"]
    for subtree in ({}, {"isParent": "true"}):
        record = ok(client.get(f"/api/common/enterprise/{own}.json", headers=a, query_string=subtree))
        assert record["id"] == own and record["enterpriseId"] == demo.enterprises["parent"]
        for method in ("PATCH", "DELETE"):
            reply = client.open(f"/api/common/enterprise/{own}.json", method=method, headers=a,
                                query_string=subtree, json={"name": "x"} if method == "PATCH" else None)
            assert reply.status_code == 404, (method, reply.json)
        listed = ok(client.post("/api/common/query/enterprise.json", headers=a,
                                query_string={**subtree, "pageSize": 1000}, json={}))["list"]
        assert own not in {row["id"] for row in listed}
    # the root enterprise (no parent) reads itself too
    root = login("admin")
    root_id = ok(client.get("/api/aas/subsidiary.json", headers=root, query_string={"select": "id"}))[0]["id"]
    assert ok(client.get(f"/api/common/enterprise/{root_id}.json", headers=root))["id"] == root_id


def test_disabling_an_enterprise_stops_sign_in_of_its_whole_subtree(
    client: FlaskClient, login: Login, pg_url: str
) -> None:
    root = login("admin")
    top = new_enterprise(client, root)
    below = new_enterprise(client, root, enterpriseId=top["id"])
    users = [make_user(pg_url, top["id"], {"monitor": ["query"]}), make_user(pg_url, below["id"], {"monitor": ["query"]})]
    for user in users:
        bearer(client, user.name)
    with connect(pg_url) as conn:
        epochs = dict(conn.execute("SELECT id, session_epoch FROM app_user WHERE id = ANY(%s)",
                                   ([u.id for u in users],)).fetchall())

    disabled = ok(client.post(f"/api/common/enterprise/{top['id']}/disable.json", headers=root,
                              query_string={"isParent": "true"}))
    assert disabled["state"] == 0
    for user in users:
        assert token_of(client, user.name)["code"] == 401  # below a disabled enterprise, too
    with connect(pg_url) as conn:
        after = dict(conn.execute("SELECT id, session_epoch FROM app_user WHERE id = ANY(%s)",
                                  ([u.id for u in users],)).fetchall())
    assert all(after[i] > epochs[i] for i in epochs)  # their sessions end (api.auth revocation)

    ok(client.post(f"/api/common/enterprise/{top['id']}/enable.json", headers=root, query_string={"isParent": "true"}))
    for user in users:
        bearer(client, user.name)


def test_an_enterprise_in_use_cannot_be_deleted(client: FlaskClient, login: Login, pg_url: str) -> None:
    headers = login("admin_a")
    top = new_enterprise(client, headers)
    make_user(pg_url, top["id"])
    reply = client.delete(f"/api/common/enterprise/{top['id']}.json", headers=headers,
                          query_string={"isParent": "true"})
    assert reply.status_code == 409, reply.json


# --- users ----------------------------------------------------------------------------------------


def test_a_user_gets_roles_of_its_enterprise_and_ancestors_but_no_others(
    client: FlaskClient, login: Login, demo: Demo
) -> None:
    a = login("admin_a")
    child = new_enterprise(client, a)
    own_role = new_role(client, a, [{"code": "monitor", "actions": ["query", "get"]}])
    child_role = new_role(client, a, [{"code": "car", "actions": ["query"]}], enterpriseId=child["id"])
    b_role = new_role(client, login("admin_b"), [{"code": "monitor", "actions": ["query"]}])
    user = new_user(client, a, enterpriseId=child["id"], roles=[own_role["id"], child_role["id"]])
    assert user["roles"] == sorted([own_role["id"], child_role["id"]])
    for foreign in (b_role["id"], 999_999_999):
        reply = client.post("/api/common/user.json", headers=a,
                            json={"userName": f"u{tag()}", "password": PASSWORD, "roles": [foreign]})
        assert reply.status_code == 400 and reply.json["data"] == {"field": "roles"}, reply.json
    # a role of a subsidiary is not assignable to a user of its parent
    reply = client.post("/api/common/user.json", headers=a,
                        json={"userName": f"u{tag()}", "password": PASSWORD, "roles": [child_role["id"]]})
    assert reply.status_code == 400, reply.json
    updated = ok(client.patch(f"/api/common/user/{user['id']}.json", headers=a, query_string={"isParent": "true"},
                              json={"roles": [own_role["id"]]}))
    assert updated["roles"] == [own_role["id"]]
    signed_in = ok(client.get("/api/user/current.json", headers=bearer(client, user["userName"], PASSWORD)))
    assert signed_in["permissions"] == [{"code": "monitor", "actions": ["get", "query"]}]


def test_the_password_is_stored_as_argon2_and_never_shown(
    client: FlaskClient, login: Login, pg_url: str
) -> None:
    user = new_user(client, login("admin_a"))
    assert "password" not in user
    with connect(pg_url) as conn:
        stored = conn.execute("SELECT password_hash FROM app_user WHERE id = %s", (user["id"],)).fetchone()
        audit = conn.execute("SELECT changes FROM audit_log WHERE entity = 'user' AND record_id = %s",
                             (user["id"],)).fetchone()
    assert stored is not None and stored[0].startswith("$argon2id$")
    assert audit is not None and audit[0]["password"] == {"before": None, "after": "***"}
    reply = client.post("/api/common/query/user.json", headers=login("admin_a"), json={"password": PASSWORD})
    assert reply.status_code == 400


def test_validators_answer_the_specs_messages(client: FlaskClient, login: Login) -> None:
    headers = login("admin_a")
    cases = {"userName": ("1abc", USERNAME_INVALID), "password": ("123456", PASSWORD_INVALID),
             "name": ("a!b", NAME_INVALID), "phone": ("12345", PHONE_INVALID)}
    for field, (value, message) in cases.items():
        body = {"userName": f"u{tag()}", "password": PASSWORD, field: value}
        reply = client.post("/api/common/user.json", headers=headers, json=body)
        assert reply.status_code == 400, reply.json
        assert reply.json["message"] == message and reply.json["data"] == {"field": field}  # the spec's text


def test_a_user_name_is_unique_across_the_platform(client: FlaskClient, login: Login) -> None:
    user = new_user(client, login("admin_a"))
    reply = client.post("/api/common/user.json", headers=login("admin_b"),
                        json={"userName": user["userName"], "password": PASSWORD})
    assert reply.status_code == 409 and reply.json["data"] == {"field": "userName"}


def test_an_administrator_resets_a_password_and_the_users_sessions_end(
    client: FlaskClient, login: Login, pg_url: str
) -> None:
    a = login("admin_a")
    user = new_user(client, a)
    bearer(client, user["userName"], PASSWORD)
    with connect(pg_url) as conn:
        epoch = conn.execute("SELECT session_epoch FROM app_user WHERE id = %s", (user["id"],)).fetchone()
    ok(client.patch(f"/api/common/user/{user['id']}.json", headers=a, json={"password": "N3w_secret"}))
    assert token_of(client, user["userName"], PASSWORD)["code"] == 401
    bearer(client, user["userName"], "N3w_secret")
    with connect(pg_url) as conn:
        after = conn.execute("SELECT session_epoch FROM app_user WHERE id = %s", (user["id"],)).fetchone()
    assert after is not None and epoch is not None and after[0] > epoch[0]


def test_the_generic_user_update_needs_user_update_but_the_own_password_change_does_not(
    client: FlaskClient, demo: Demo, pg_url: str
) -> None:
    user = make_user(pg_url, demo.enterprises["a"], {"monitor": ["query"]})
    headers = bearer(client, user.name)
    reply = client.patch(f"/api/common/user/{user.id}.json", headers=headers, json={"nickName": "x"})
    assert reply.status_code == 403 and reply.json["message"] == FORBIDDEN_TEXT, reply.json
    assert reply.json["data"] == {"permission": "user:update"}
    reply = client.patch(f"/api/common/user/{user.id}.json", headers=headers,
                         json={"oldPassword": "right-pass-1", "password": "Other_pass1", "confirmPassword": "Other_pass1"})
    assert reply.status_code == 200, reply.json


def test_disabling_a_user_stops_sign_in_until_enabled(client: FlaskClient, login: Login) -> None:
    a = login("admin_a")
    user = new_user(client, a)
    assert ok(client.post(f"/api/common/user/{user['id']}/disable.json", headers=a))["state"] == 0
    assert token_of(client, user["userName"], PASSWORD)["code"] == 401
    assert ok(client.post(f"/api/common/user/{user['id']}/enable.json", headers=a))["state"] == 1
    bearer(client, user["userName"], PASSWORD)


def test_a_deleted_user_cannot_sign_in_and_the_name_is_free_again(client: FlaskClient, login: Login) -> None:
    a = login("admin_a")
    user = new_user(client, a)
    ok(client.delete(f"/api/common/user/{user['id']}.json", headers=a))
    assert token_of(client, user["userName"], PASSWORD)["code"] == 401
    again = new_user(client, a, userName=user["userName"])
    bearer(client, again["userName"], PASSWORD)


# --- roles and permissions ---------------------------------------------------------------------


def test_a_role_holds_known_permissions_with_offered_actions_only(client: FlaskClient, login: Login) -> None:
    a = login("admin_a")
    role = new_role(client, a, [{"code": "car", "actions": ["query", "get"]}, {"code": "monitor", "actions": ["query"]}])
    assert role["permissions"] == [{"code": "car", "actions": ["get", "query"]},
                                   {"code": "monitor", "actions": ["query"]}]
    assert ok(client.get(f"/api/common/role/{role['id']}.json", headers=a))["permissions"] == role["permissions"]
    for bad in ([{"code": "nope", "actions": ["query"]}], [{"code": "car", "actions": ["fly"]}],
                [{"code": "car"}], "car:query"):
        reply = client.patch(f"/api/common/role/{role['id']}.json", headers=a, json={"permissions": bad})
        assert reply.status_code == 400 and reply.json["data"] == {"field": "permissions"}, (bad, reply.json)
    changed = ok(client.patch(f"/api/common/role/{role['id']}.json", headers=a,
                              json={"permissions": [{"code": "monitor", "actions": ["get"]}]}))
    assert changed["permissions"] == [{"code": "monitor", "actions": ["get"]}]


def test_an_administrator_grants_only_what_it_holds(client: FlaskClient, demo: Demo, pg_url: str) -> None:
    admin = make_user(pg_url, demo.enterprises["a"], {"role": ["add", "update", "get", "query"], "monitor": ["query"]})
    headers = bearer(client, admin.name)
    new_role(client, headers, [{"code": "monitor", "actions": ["query"]}])
    reply = client.post("/api/common/role.json", headers=headers,
                        json={"name": "r", "permissions": [{"code": "monitor", "actions": ["query", "cmd"]}]})
    assert reply.status_code == 403 and reply.json["data"]["permission"] == "monitor:cmd", reply.json


def test_the_permission_catalogue_lists_codes_with_their_actions(client: FlaskClient, login: Login) -> None:
    catalogue = {p["code"]: p for p in ok(client.get("/api/aas/permission.json", headers=login("admin_a")))}
    assert {"enterprise", "user", "role", "monitor"} <= set(catalogue)
    assert {"enable", "disable"} <= set(catalogue["user"]["actions"]) and catalogue["user"]["name"]

