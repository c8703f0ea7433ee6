"""The generic routes of every declared writable entity (api/query/entities.py WRITABLE), tested from
the declarations: a new entity is covered by adding it there.

create-then-read, update, delete (soft: row kept with record state 0; for an entity without a record
state the row removed; hidden from query/count/get either way),
another enterprise's id is a 404 for get/update/delete, a role without the action is a 403, unknown
or read-only fields and invalid values are 400s naming the field, a unique clash is a 409, and every
change writes its audit_log row.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

import pytest
from flask.testing import FlaskClient
from psycopg import sql

from api.query.entities import WRITABLE
from api.query.grammar import EntitySpec, FieldSpec
from api.query.records import TENANT_FIELD
from api.query.validators import national_id_check_char
from tests.integration.api.conftest import Demo, error_text
from tests.integration.api.test_console_api import bearer, make_user
from warehouse.db import connect

Login = Callable[[str], dict[str, str]]
ENTITIES = pytest.mark.parametrize("entity", list(WRITABLE.values()), ids=list(WRITABLE))


def sample(spec: FieldSpec, tag: str) -> Any:
    """A valid value of ``spec`` (distinct per ``tag`` for text)."""
    if spec.example is not None:  # the declaration's own (a geometry, a time, a time of day)
        return spec.example
    if spec.enum:
        return spec.enum[0]
    if spec.type == "int" and spec.unique:  # a unique number (an inferior platform's login user id): fresh
        low = int(spec.minimum if spec.minimum is not None else 1)
        high = int(spec.maximum if spec.maximum is not None else 2**31 - 1)
        return low + int(tag[1:], 16) % (high - low + 1)
    if spec.type == "int":
        return int(spec.minimum if spec.minimum is not None else 1)
    if spec.type == "float":
        return float(spec.minimum if spec.minimum is not None else 1)
    if spec.type == "bool":
        return True
    text = tag[: spec.max_length or 32]
    if spec.pattern is not None and not re.fullmatch(spec.pattern, text):
        text = from_pattern(spec.pattern, tag)
        if text.isdigit() and text.startswith("0"):
            # a number (a terminal phone, a SIM) is stored in its canonical form, without leading zeros
            # (fleet/phones.py; test_terminal_identity_api checks that), so a fresh value starts with 1
            text = "1" + text[1:]
    if spec.check is not None and spec.check(text) is not None:
        # the first form the field's own rule takes: JSON text (a dictionary's content), a phone, an email,
        # a national ID, a date, a channel list
        forms = (json.dumps(text), f"13{int(tag[1:], 16) % 10**9:09d}", f"{tag}@example.com", national_id(tag),
                 "2030-06-30", "1,2")
        text = next((form for form in forms if spec.check(form) is None), text)
    return text


def from_pattern(pattern: str, tag: str) -> str:
    """Text matching a pattern made of character classes with counts (``[0-9]{11,20}``: the longest
    form), distinct per ``tag``."""
    number = int(hashlib.sha256(tag.encode()).hexdigest(), 16)
    out = []
    for cls, low, high in re.findall(r"\[([^\]]+)\]\{([0-9]+)(?:,([0-9]+))?\}", pattern):
        chars = [chr(c) for c in range(33, 127) if re.fullmatch(f"[{cls}]", chr(c))]
        for _ in range(int(high or low)):
            number, k = divmod(number, len(chars))
            out.append(chars[k])
    return "".join(out)


def national_id(tag: str) -> str:
    """A valid national ID, distinct per ``tag`` (birth date and sequence from it)."""
    number = int(tag[1:], 16)
    born = date(1950, 1, 1) + timedelta(days=number % 21_900)
    first17 = f"110101{born:%Y%m%d}{number // 21_900 % 1000:03d}"
    return first17 + national_id_check_char(first17)


def valid_body(entity: EntitySpec) -> dict[str, Any]:
    """Every creatable field (the tenant aside) with a valid value; unique text is fresh."""
    tag = f"t{uuid.uuid4().hex[:12]}"
    # virtual fields: the entity's own tests; references and the aliases that name another record by
    # its key (a car's groupName, a creatable expression field) are left out: a fresh record names none
    return {n: sample(f, tag) for n, f in entity.fields.items()
            if f.create and n != TENANT_FIELD and not f.virtual and not f.ref and f.expression is None}


def readable(entity: EntitySpec, values: dict[str, Any]) -> dict[str, Any]:
    """``values`` without the write-only fields (a password is never read back)."""
    return {n: v for n, v in values.items() if not entity.fields[n].secret}


def invalid_values(spec: FieldSpec) -> list[Any]:
    """Values the declaration refuses for ``spec``."""
    wrong_type = "not a number" if spec.type in ("int", "float") else "not a time" if spec.type == "time" else 12345
    # a list is a virtual field's own shape (a car's device ids): its check and hooks decide
    # (and a json field's when its example is one)
    bad: list[Any] = [wrong_type] if spec.virtual or isinstance(spec.example, list) else [wrong_type, [1]]
    if spec.required:
        bad.append(None)
    if spec.max_length is not None:
        bad.append("x" * (spec.max_length + 1))
    if spec.pattern is not None:
        bad += [v for v in (" ", "!", "中文", "a\n") if not re.fullmatch(spec.pattern, v)][:2]
    if spec.minimum is not None:
        bad.append(spec.minimum - 1)
    if spec.maximum is not None:
        bad.append(spec.maximum + 1)
    return bad


def as_stored(entity: EntitySpec, created: dict[str, Any]) -> dict[str, Any]:
    """The create's answer without what only the create answers: a virtual secret (an open platform
    app's secret, shown once; its own tests check it)."""
    return {n: v for n, v in created.items() if not (n in entity.fields and entity.fields[n].virtual
                                                      and entity.fields[n].secret)}


def create(client: FlaskClient, headers: dict[str, str], entity: EntitySpec, **extra: Any) -> dict[str, Any]:
    reply = client.post(f"/api/common/{entity.name}.json", headers=headers, json={**valid_body(entity), **extra})
    assert reply.status_code == 200, reply.json
    return as_stored(entity, reply.json["data"])  # type: ignore[index]


def audit_rows(pg_url: str, entity: EntitySpec, record_id: int) -> list[tuple[Any, ...]]:
    with connect(pg_url) as conn:
        return conn.execute(
            "SELECT action, user_name, enterprise_id, changes FROM audit_log WHERE entity = %s AND record_id = %s"
            " ORDER BY id", (entity.name, record_id)).fetchall()


@ENTITIES
def test_create_then_read_update_and_audit(
    client: FlaskClient, login: Login, demo: Demo, pg_url: str, entity: EntitySpec
) -> None:
    headers = login("admin_a")
    body = valid_body(entity)
    reply = client.post(f"/api/common/{entity.name}.json", headers=headers, json=body)
    assert reply.status_code == 200, reply.json
    created = as_stored(entity, reply.json["data"])  # type: ignore[index]
    assert {k: created[k] for k in readable(entity, body)} == readable(entity, body)
    assert created[TENANT_FIELD] == demo.enterprises["a"]  # from the caller, not the body
    item = f"/api/common/{entity.name}/{created['id']}.json"
    assert client.get(item, headers=headers).json["data"] == created  # type: ignore[index]

    changes = {n: v for n, v in valid_body(entity).items() if entity.fields[n].update}
    reply = client.patch(item, headers=headers, json=changes)
    assert reply.status_code == 200, reply.json
    read = client.get(item, headers=headers).json["data"]  # type: ignore[index]
    assert {k: read[k] for k in readable(entity, changes)} == readable(entity, changes)

    rows = audit_rows(pg_url, entity, created["id"])
    assert [(r[0], r[1], r[2]) for r in rows] == [("create", "admin_a", demo.enterprises["a"]),
                                                  ("update", "admin_a", demo.enterprises["a"])]
    assert rows[1][3] == {n: {"before": "***", "after": "***"} if entity.fields[n].secret  # never in clear
                          else {"before": body[n], "after": v} for n, v in changes.items() if body[n] != v}


@ENTITIES
def test_delete_hides_the_row_and_keeps_or_removes_it(
    client: FlaskClient, login: Login, pg_url: str, entity: EntitySpec
) -> None:
    headers = login("admin_a")
    created = create(client, headers, entity)
    item = f"/api/common/{entity.name}/{created['id']}.json"
    reply = client.delete(item, headers=headers)
    assert reply.status_code == 200, reply.json
    assert reply.json["data"] == {"id": created["id"]}  # type: ignore[index]

    assert client.get(item, headers=headers).status_code == 404
    assert client.patch(item, headers=headers, json={}).status_code == 404
    assert client.delete(item, headers=headers).status_code == 404
    page = client.post(f"/api/common/query/{entity.name}.json", headers=headers, json={"id": created["id"]})
    assert page.json["data"]["list"] == []  # type: ignore[index]
    count = client.post(f"/api/common/count/{entity.name}.json", headers=headers, json={"id": created["id"]})
    assert count.json["data"] == 0  # type: ignore[index]
    with connect(pg_url) as conn:
        kept = sql.Identifier(entity.record_state_column) if entity.record_state_column else sql.SQL("0")
        statement = sql.SQL("SELECT {} FROM {} WHERE id = %s").format(kept, sql.Identifier(entity.table))
        state = conn.execute(statement, (created["id"],)).fetchone()
    # soft delete: the row and its history stay; an entity without a record state (a fence) removes it
    assert state == ((0,) if entity.record_state_column else None)
    assert [r[0] for r in audit_rows(pg_url, entity, created["id"])] == ["create", "delete"]


@ENTITIES
def test_live_rows_are_listed_and_counted(client: FlaskClient, login: Login, entity: EntitySpec) -> None:
    headers = login("admin_a")
    created = create(client, headers, entity)
    page = client.post(f"/api/common/query/{entity.name}.json", headers=headers, json={"id": created["id"]})
    # the list row is the detail's columns (the detail may add what is not a column, e.g. a user's roles)
    assert page.json["data"]["list"] == [{k: created[k] for k in entity.listable}]  # type: ignore[index]
    count = client.post(f"/api/common/count/{entity.name}.json", headers=headers, json={"id": created["id"]})
    assert count.json["data"] == 1  # type: ignore[index]


@ENTITIES
def test_another_enterprises_record_is_404(
    client: FlaskClient, login: Login, demo: Demo, entity: EntitySpec
) -> None:
    created = create(client, login("admin_b"), entity)
    item = f"/api/common/{entity.name}/{created['id']}.json"
    a = login("admin_a")
    for subtree in ({}, {"isParent": "true"}):
        assert client.get(item, headers=a, query_string=subtree).status_code == 404
        assert client.patch(item, headers=a, query_string=subtree, json={}).status_code == 404
        assert client.delete(item, headers=a, query_string=subtree).status_code == 404
    # untouched, and the parent's administrator reaches it through its subtree (not when it asks for its own only)
    parent = login("admin")
    assert client.get(item, headers=parent, query_string={"isParent": "false"}).status_code == 404
    assert client.get(item, headers=parent).json["data"] == created  # type: ignore[index]


@ENTITIES
def test_tenant_comes_from_the_callers_subtree(
    client: FlaskClient, login: Login, demo: Demo, entity: EntitySpec
) -> None:
    ids = demo.enterprises
    made = create(client, login("admin"), entity, **{TENANT_FIELD: ids["a"]})
    assert made[TENANT_FIELD] == ids["a"]  # a subsidiary of the caller
    for foreign in (ids["b"], ids["parent"], 999_999_999):  # a sibling, the parent, nobody
        body = {**valid_body(entity), TENANT_FIELD: foreign}
        reply = client.post(f"/api/common/{entity.name}.json", headers=login("admin_a"), json=body)
        assert reply.status_code == 404, reply.json


@ENTITIES
def test_a_role_without_the_action_is_403(
    client: FlaskClient, login: Login, demo: Demo, pg_url: str, entity: EntitySpec
) -> None:
    record = create(client, login("admin_a"), entity)
    item = f"/api/common/{entity.name}/{record['id']}.json"
    reader = make_user(pg_url, demo.enterprises["a"], {entity.permission: ["query"]})
    headers = bearer(client, reader.name)
    assert client.post(f"/api/common/query/{entity.name}.json", headers=headers, json={}).status_code == 200
    calls = [("POST", f"/api/common/{entity.name}.json", "add"), ("GET", item, "get"),
             ("PATCH", item, "update"), ("DELETE", item, "delete")]
    for method, url, action in calls:
        reply = client.open(url, method=method, headers=headers, json=valid_body(entity) if method == "POST" else None)
        assert reply.status_code == 403, (method, reply.json)
        assert reply.json["data"]["permission"] == f"{entity.permission}:{action}"  # type: ignore[index]
    assert client.get(item, headers=login("admin_a")).json["data"] == record  # type: ignore[index]


@ENTITIES
def test_unknown_and_read_only_fields_are_400_naming_them(
    client: FlaskClient, login: Login, entity: EntitySpec
) -> None:
    headers = login("admin_a")
    reply = client.post(f"/api/common/{entity.name}.json", headers=headers, json={**valid_body(entity), "bogus": 1})
    assert reply.status_code == 400 and "bogus" in error_text(reply, "en-US")  # type: ignore[index]
    record = create(client, headers, entity)
    item = f"/api/common/{entity.name}/{record['id']}.json"
    for name, spec in entity.fields.items():
        if not spec.update:
            reply = client.patch(item, headers=headers, json={name: record.get(name)})  # a secret is never read
            assert reply.status_code == 400, (name, reply.json)
            assert name in error_text(reply, "en-US")  # type: ignore[index]
    assert client.get(item, headers=headers).json["data"] == record  # type: ignore[index]


@ENTITIES
def test_invalid_values_are_400_naming_the_field(
    client: FlaskClient, login: Login, entity: EntitySpec
) -> None:
    headers = login("admin_a")
    record = create(client, headers, entity)
    item = f"/api/common/{entity.name}/{record['id']}.json"
    checked = 0
    for name, spec in entity.fields.items():
        for value in invalid_values(spec):
            if spec.create and name != TENANT_FIELD:
                reply = client.post(f"/api/common/{entity.name}.json", headers=headers,
                                    json={**valid_body(entity), name: value})
                assert reply.status_code == 400, (name, value, reply.json)
                assert f"'{name}'" in error_text(reply, "en-US"), reply.json  # type: ignore[index]
                checked += 1
            if spec.update:
                reply = client.patch(item, headers=headers, json={name: value})
                assert reply.status_code == 400, (name, value, reply.json)
                assert f"'{name}'" in error_text(reply, "en-US"), reply.json  # type: ignore[index]
    required = [n for n, f in entity.fields.items() if f.required and f.create]
    for name in required:
        body = {k: v for k, v in valid_body(entity).items() if k != name}
        reply = client.post(f"/api/common/{entity.name}.json", headers=headers, json=body)
        assert reply.status_code == 400 and name in error_text(reply, "en-US")  # type: ignore[index]
    assert checked > 0
    assert client.get(item, headers=headers).json["data"] == record  # type: ignore[index]


def unique_per_enterprise(pg_url: str, entity: EntitySpec, name: str) -> bool:
    """Whether the unique index of field ``name`` (``<table>_<column>_uniq``) includes the tenant column."""
    with connect(pg_url) as conn:
        row = conn.execute("SELECT indexdef FROM pg_indexes WHERE indexname = %s",
                           (f"{entity.table}_{entity.fields[name].column}_uniq",)).fetchone()
    assert row is not None, f"{entity.name}.{name} is declared unique but has no index"
    return f"({entity.tenant_column}," in row[0]


@ENTITIES
def test_unique_clash_is_409_naming_the_field(client: FlaskClient, login: Login, pg_url: str,
                                              entity: EntitySpec) -> None:
    headers = login("admin_a")
    unique = [n for n, f in entity.fields.items() if f.unique]
    assert unique, f"{entity.name} declares no unique field"
    first = create(client, headers, entity)
    second = create(client, headers, entity)
    for name in unique:
        reply = client.post(f"/api/common/{entity.name}.json", headers=headers,
                            json={**valid_body(entity), name: first[name]})
        assert reply.status_code == 409, reply.json
        assert reply.json["data"] == {"field": name}  # type: ignore[index]
        reply = client.patch(f"/api/common/{entity.name}/{second['id']}.json", headers=headers,
                             json={name: first[name]})
        assert reply.status_code == 409 and reply.json["data"] == {"field": name}  # type: ignore[index]
    # unique within an enterprise (platform-wide when its index leaves out the tenant: a user name),
    # among live rows: another enterprise and a deleted row do not clash
    per_enterprise = [n for n in unique if unique_per_enterprise(pg_url, entity, n)]
    create(client, login("admin_b"), entity, **{n: first[n] for n in per_enterprise})
    for name in set(unique) - set(per_enterprise):
        reply = client.post(f"/api/common/{entity.name}.json", headers=login("admin_b"),
                            json={**valid_body(entity), name: first[name]})
        assert reply.status_code == 409 and reply.json["data"] == {"field": name}  # type: ignore[index]
    assert client.delete(f"/api/common/{entity.name}/{first['id']}.json", headers=headers).status_code == 200
    create(client, headers, entity, **{n: first[n] for n in unique})


@pytest.fixture
def client(english_client: FlaskClient) -> FlaskClient:
    """This module reads error texts in English (``error_text``): its console speaks en-US."""
    return english_client
