"""Spreadsheet export and import (api/routes/spreadsheets.py), generated over the declared entities
with exportable / importable fields: a new entity is covered by flagging its fields.

Export -> delete -> import round trip in XLSX and CSV (same rows back, audited); refused rows
reported with row number, field and reason while the others are applied; the template; a role
without ``export`` / ``import`` gets 403; another enterprise's job is a 404; malformed files, unknown
columns and too many rows are 400s before anything is applied; a job whose process died is failed.
"""

from __future__ import annotations

import csv
import io
import re
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from flask.testing import FlaskClient
from openpyxl import Workbook, load_workbook

from api.query import display, transfer
from api.query.entities import PERMISSION_OF
from api.query.grammar import EntitySpec
from api.query.spreadsheet_contract import EXPORTABLE, IMPORTABLE
from fleet.zh_hk import to_hk
from tests.integration.api.conftest import Demo, error_text
from tests.integration.api.test_console_api import bearer, make_user
from tests.integration.api.test_entities_api import create, invalid_values, valid_body
from warehouse.db import connect

Login = Callable[[str], dict[str, str]]
CHINESE = re.compile("[\u4e00-\u9fff]")
IMPORTS = pytest.mark.parametrize("entity", list(IMPORTABLE.values()), ids=list(IMPORTABLE))
EXPORTS = pytest.mark.parametrize("entity", list(EXPORTABLE.values()), ids=list(EXPORTABLE))
FORMATS = pytest.mark.parametrize("fmt", ["xlsx", "csv"])


def test_the_declared_catalogues_are_covered() -> None:
    assert {"carModel", "dictionary"} <= set(IMPORTABLE)
    assert {"carModel", "dictionary", "auditLog"} <= set(EXPORTABLE)


def key_field(entity: EntitySpec) -> str:
    """An importable unique field (rows are found by it); every importable entity declares one."""
    unique = [n for n in transfer.import_fields(entity) if entity.fields[n].unique]
    assert unique, f"{entity.name}: no importable unique field"
    return unique[0]


def labels(entity: EntitySpec, names: list[str]) -> list[str]:
    return [entity.fields[n].label or n for n in names]


def as_cell(entity: EntitySpec, name: str, value: Any) -> str:
    """A value as a reader of the sheet compares it: a number by its value (0 and 0.0 are the same points)."""
    if value is None:
        return ""
    if entity.fields[name].type == "float" and not entity.fields[name].choices:
        return repr(float(value))
    return str(value)


def read_file(content: bytes, fmt: str) -> list[list[Any]]:
    if fmt == "csv":
        assert content.startswith("\ufeff".encode())  # BOM: Excel reads the text as UTF-8
        return [list(r) for r in csv.reader(io.StringIO(content.decode("utf-8-sig")))]
    book = load_workbook(io.BytesIO(content), read_only=True)
    return [["" if v is None else v for v in row] for row in book.worksheets[0].iter_rows(values_only=True)]


def make_file(rows: list[list[Any]], fmt: str) -> bytes:
    if fmt == "csv":
        text = io.StringIO()
        csv.writer(text).writerows(rows)
        return text.getvalue().encode("utf-8-sig")
    book = Workbook()
    for row in rows:
        book.active.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def upload(client: FlaskClient, headers: dict[str, str], entity: EntitySpec, content: bytes,
           name: str = "rows.xlsx") -> Any:
    return client.post(f"/api/common/import/{entity.name}.json", headers=headers,
                       data={"file": (io.BytesIO(content), name)}, content_type="multipart/form-data")


def finished(client: FlaskClient, headers: dict[str, str], entity: EntitySpec, job_id: str) -> dict[str, Any]:
    """The job once it is no longer running (polled; fails after 60 s)."""
    deadline = time.monotonic() + 60
    while True:
        reply = client.get(f"/api/common/import/{entity.name}/{job_id}.json", headers=headers)
        assert reply.status_code == 200, reply.json
        job: dict[str, Any] = reply.json["data"]  # type: ignore[index]
        if job["state"] != "running":
            return job
        assert time.monotonic() < deadline, job
        time.sleep(0.05)


def export(client: FlaskClient, headers: dict[str, str], entity: EntitySpec, fmt: str, body: Any,
           **params: str) -> Any:
    return client.post(f"/api/common/export/{entity.name}.{fmt}", headers=headers, json=body, query_string=params)


def any_rows(entity: EntitySpec, demo: Demo) -> dict[str, Any]:
    """The least body the entity's export accepts: {} or, for a history log, a vehicle and a day."""
    if entity.window is None:
        return {}
    return {f"{entity.window.key}.eq": demo.a.car_id, "rangeConditions": [
        {"fieldName": entity.window.time, "start": "2026-03-01T00:00:00Z", "end": "2026-03-02T00:00:00Z"}]}


@IMPORTS
@FORMATS
def test_export_delete_import_round_trip(client: FlaskClient, login: Login, demo: Demo, pg_url: str,
                                         entity: EntitySpec, fmt: str) -> None:
    headers = login("admin_a")
    made = [create(client, headers, entity) for _ in range(3)]
    ids = [r["id"] for r in made]
    reply = export(client, headers, entity, fmt, {"id.in": ids}, orderBy="id", desc="true")
    assert reply.status_code == 200, reply.data[:300]
    rows = read_file(reply.data, fmt)
    names = transfer.export_fields(entity)
    assert rows[0] == labels(entity, names)
    assert len(rows) == 4  # header + the three rows, newest first
    importable = transfer.import_fields(entity)
    for row, record in zip(rows[1:], reversed(made), strict=True):
        shown = dict(zip(names, row, strict=True))
        assert {n: as_cell(entity, n, shown[n]) for n in importable if n in names} == \
            {n: as_cell(entity, n, display.shown("", entity.fields[n].choices, record[n]))
             for n in importable if n in names}
    for record_id in ids:
        assert client.delete(f"/api/common/{entity.name}/{record_id}.json", headers=headers).status_code == 200

    reply = upload(client, headers, entity, reply.data, f"export.{fmt}")
    assert reply.status_code == 200, reply.json
    assert reply.json["data"]["total"] == 3  # type: ignore[index]
    job = finished(client, headers, entity, reply.json["data"]["jobId"])  # type: ignore[index]
    assert (job["state"], job["processed"], job["created"], job["failed"], job["errors"]) == ("done", 3, 3, 0, [])

    unique = key_field(entity)
    page = client.post(f"/api/common/query/{entity.name}.json", headers=headers,
                       json={f"{unique}.in": [r[unique] for r in made]}).json["data"]["list"]  # type: ignore[index]
    assert sorted(tuple(str(r[n]) for n in importable) for r in page) == \
        sorted(tuple(str(r[n]) for n in importable) for r in made)
    assert {r["enterpriseId"] for r in page} == {demo.enterprises["a"]}
    with connect(pg_url) as conn:
        audited = conn.execute("SELECT count(*) FROM audit_log WHERE entity = %s AND action = 'create'"
                               " AND user_name = 'admin_a' AND record_id = ANY(%s)",
                               (entity.name, [r["id"] for r in page])).fetchone()
    assert audited == (3,)  # every imported row audited like a created one


@IMPORTS
@FORMATS
def test_refused_rows_are_reported_and_the_others_applied(client: FlaskClient, login: Login,
                                                          entity: EntitySpec, fmt: str) -> None:
    headers = login("admin_a")
    names = transfer.import_fields(entity)
    existing = create(client, headers, entity)

    def row(body: dict[str, Any]) -> list[Any]:
        return [body.get(n, "") for n in names]

    good = [valid_body(entity) for _ in range(2)]
    required = next(n for n in names if entity.fields[n].required)
    unique = key_field(entity)
    invalid = next((n, v) for n in names for v in invalid_values(entity.fields[n])
                   if isinstance(v, str) and v.strip() and not isinstance(v, list))
    sheet = [
        labels(entity, names),
        row(good[0]),                                           # row 2: created
        row({**valid_body(entity), required: ""}),              # row 3: required field empty
        row({**valid_body(entity), unique: existing[unique]}),  # row 4: unique clash with a live record
        [],                                                     # an empty row: skipped, not counted
        row({**valid_body(entity), invalid[0]: invalid[1]}),    # row 6: a value the declaration refuses
        row(good[1]),                                           # row 7: created
    ]
    reply = upload(client, headers, entity, make_file(sheet, fmt), f"rows.{fmt}")
    assert reply.status_code == 200, reply.json
    job = finished(client, headers, entity, reply.json["data"]["jobId"])  # type: ignore[index]
    assert (job["state"], job["total"], job["processed"], job["created"], job["failed"]) == ("done", 5, 5, 2, 3)
    assert [(e["row"], e["field"]) for e in job["errors"]] == [(3, None), (4, unique), (6, invalid[0])]
    # each reason as an error reply gives it (platform-spec §8): message the Chinese text, localMessage the
    # caller's language (this client's is en-US)
    assert required in job["errors"][0]["localMessage"]
    for error in job["errors"]:
        assert CHINESE.search(error["message"]) and "(" not in error["message"], error
        assert not CHINESE.search(error["localMessage"]), error
    for language in ("zh-CN", "zh-HK"):
        again = client.get(f"/api/common/import/{entity.name}/{job['jobId']}.json",
                           headers={**headers, "X-Fleet-Language": language}).json["data"]  # type: ignore[index]
        assert [e["message"] for e in again["errors"]] == [e["message"] for e in job["errors"]]
        locals_ = [e["localMessage"] for e in again["errors"]]
        assert locals_ == [to_hk(e["message"]) if language == "zh-HK" else e["message"] for e in job["errors"]]
    page = client.post(f"/api/common/query/{entity.name}.json", headers=headers,
                       json={f"{unique}.in": [g[unique] for g in good]}).json["data"]["list"]  # type: ignore[index]
    assert len(page) == 2


@IMPORTS
def test_template_lists_and_describes_the_importable_fields(client: FlaskClient, login: Login,
                                                            entity: EntitySpec) -> None:
    reply = client.get(f"/api/common/import/{entity.name}/template.xlsx", headers=login("admin_a"))
    assert reply.status_code == 200
    book = load_workbook(io.BytesIO(reply.data), read_only=True)
    head, described = book.worksheets
    names = transfer.import_fields(entity)
    assert [list(r) for r in head.iter_rows(values_only=True)] == [labels(entity, names)]
    rows = [list(r) for r in described.iter_rows(values_only=True)][1:]
    assert [r[1] for r in rows] == names
    for r in rows:
        spec = entity.fields[r[1]]
        assert r[2].startswith("是" if spec.required else "否")
        if spec.enum:
            assert r[4] == ", ".join(map(str, spec.enum))


@IMPORTS
def test_headers_match_names_or_labels_case_insensitively(client: FlaskClient, login: Login,
                                                          entity: EntitySpec) -> None:
    headers = login("admin_a")
    names = transfer.import_fields(entity)
    body = valid_body(entity)
    head = [n.upper() if i % 2 else f" {entity.fields[n].label or n} " for i, n in enumerate(names)]
    reply = upload(client, headers, entity, make_file([head, [body.get(n, "") for n in names]], "csv"), "rows.csv")
    assert reply.status_code == 200, reply.json
    job = finished(client, headers, entity, reply.json["data"]["jobId"])  # type: ignore[index]
    assert (job["created"], job["errors"]) == (1, [])


@IMPORTS
def test_bad_files_are_400_before_anything_is_applied(client: FlaskClient, login: Login, pg_url: str,
                                                      entity: EntitySpec) -> None:
    headers = login("admin_a")
    names = transfer.import_fields(entity)
    with connect(pg_url) as conn:
        jobs_before = conn.execute("SELECT count(*) FROM import_job").fetchone()
    cases = {
        "not a workbook": (b"PK\x03\x04 this is not a zip", "unreadable.xlsx", "XLSX"),
        "binary junk": (b"\x00\x01\x02", "junk.csv", "neither"),
        "empty": (b"", "empty.csv", "empty"),
        "unknown column": (make_file([[*labels(entity, names), "bogusColumn"], [1]], "xlsx"), "x.xlsx", "bogusColumn"),
        "no header": (make_file([], "xlsx"), "x.xlsx", "header"),
    }
    for case, (content, name, expected) in cases.items():
        reply = upload(client, headers, entity, content, name)
        assert reply.status_code == 400, (case, reply.json)
        assert expected in error_text(reply, "en-US"), (case, reply.json)  # type: ignore[index]
    required = [n for n in names if entity.fields[n].required]
    reply = upload(client, headers, entity, make_file([labels(entity, [n for n in names if n != required[0]])], "csv"))
    assert reply.status_code == 400 and (entity.fields[required[0]].label or required[0]) in error_text(reply, "en-US")  # type: ignore[index]
    reply = client.post(f"/api/common/import/{entity.name}.json", headers=headers, data={},
                        content_type="multipart/form-data")
    assert reply.status_code == 400 and "'file'" in error_text(reply, "en-US")  # type: ignore[index]
    too_many = "\n".join([",".join(names), *(["x"] * 20_001)]).encode()
    reply = upload(client, headers, entity, too_many, "many.csv")
    assert reply.status_code == 400 and "20000" in error_text(reply, "en-US")  # type: ignore[index]
    with connect(pg_url) as conn:
        assert conn.execute("SELECT count(*) FROM import_job").fetchone() == jobs_before


@IMPORTS
def test_another_enterprises_job_is_404(client: FlaskClient, login: Login, entity: EntitySpec) -> None:
    a = login("admin_a")
    names = transfer.import_fields(entity)
    body = valid_body(entity)
    reply = upload(client, a, entity, make_file([names, [body.get(n, "") for n in names]], "xlsx"))
    job_id = reply.json["data"]["jobId"]  # type: ignore[index]
    finished(client, a, entity, job_id)
    for user in ("admin_b", "admin"):  # a sibling, and the parent (jobs are the enterprise's own)
        assert client.get(f"/api/common/import/{entity.name}/{job_id}.json", headers=login(user)).status_code == 404
    assert client.get(f"/api/common/import/{entity.name}/{uuid.uuid4()}.json", headers=a).status_code == 404
    other = next((e for e in IMPORTABLE.values() if e.name != entity.name), None)
    if other is not None:  # a job is read through its own entity's route only
        assert client.get(f"/api/common/import/{other.name}/{job_id}.json", headers=a).status_code == 404


@EXPORTS
def test_export_needs_the_export_action(client: FlaskClient, demo: Demo, pg_url: str, entity: EntitySpec) -> None:
    code = PERMISSION_OF[entity.name]
    reader = make_user(pg_url, demo.enterprises["a"], {code: ["query"]})
    headers = bearer(client, reader.name)
    for fmt in ("xlsx", "csv"):
        reply = export(client, headers, entity, fmt, any_rows(entity, demo))
        assert reply.status_code == 403 and reply.json["data"]["permission"] == f"{code}:export"  # type: ignore[index]
    # where reading the entity needs an action of its own (the data-exchange logs: superior), so does its export
    exporter = make_user(pg_url, demo.enterprises["a"], {code: ["export", *([entity.read_action] if entity.read_action else [])]})
    assert export(client, bearer(client, exporter.name), entity, "csv", any_rows(entity, demo)).status_code == 200


@IMPORTS
def test_import_needs_the_import_action(client: FlaskClient, login: Login, demo: Demo, pg_url: str,
                                        entity: EntitySpec) -> None:
    names = transfer.import_fields(entity)
    content = make_file([names, [valid_body(entity).get(n, "") for n in names]], "csv")
    started = upload(client, login("admin_a"), entity, content, "rows.csv").json["data"]  # type: ignore[index]
    reader = make_user(pg_url, demo.enterprises["a"], {entity.permission: ["query", "add", "export"]})
    headers = bearer(client, reader.name)
    calls = [client.get(f"/api/common/import/{entity.name}/template.xlsx", headers=headers),
             upload(client, headers, entity, content, "rows.csv"),
             client.get(f"/api/common/import/{entity.name}/{started['jobId']}.json", headers=headers)]
    for reply in calls:
        assert reply.status_code == 403 and reply.json["data"]["permission"] == f"{entity.permission}:import"  # type: ignore[index]


def test_export_filters_sorts_and_stops_at_the_maximum(client: FlaskClient, login: Login, app: Any) -> None:
    headers = login("admin_a")
    entity = IMPORTABLE["carModel"]
    tag = uuid.uuid4().hex[:8]
    for i in range(3):
        create(client, headers, entity, name=f"{tag}-{i}", code=f"{tag}{i}")
    reply = export(client, headers, entity, "csv", {"name.like": tag}, orderBy="code", desc="true")
    rows = read_file(reply.data, "csv")
    assert [r[0] for r in rows[1:]] == [f"{tag}-2", f"{tag}-1", f"{tag}-0"]
    reply = export(client, headers, entity, "csv", {"bogus": 1})
    assert reply.status_code == 400 and "bogus" in error_text(reply, "en-US")  # type: ignore[index]
    settings = app.config["FLEET_API_SETTINGS"]
    app.config["FLEET_API_SETTINGS"] = settings.model_copy(update={"export_max_rows": 2})
    try:
        reply = export(client, headers, entity, "xlsx", {"name.like": tag})
    finally:
        app.config["FLEET_API_SETTINGS"] = settings
    assert reply.status_code == 400 and "more than 2 rows" in error_text(reply, "en-US")  # type: ignore[index]


def test_formulas_never_run_and_text_comes_back(client: FlaskClient, login: Login) -> None:
    headers = login("admin_a")
    entity = IMPORTABLE["carModel"]
    tag = uuid.uuid4().hex[:8]
    made = create(client, headers, entity, name="=HYPERLINK(\"http://x\")", remark="@SUM(1)", code=f"f{tag}")
    for fmt in ("xlsx", "csv"):
        reply = export(client, headers, entity, fmt, {"id": made["id"]})
        if fmt == "csv":
            assert b"'=HYPERLINK" in reply.data and b"'@SUM(1)" in reply.data
        else:
            cell = next(load_workbook(io.BytesIO(reply.data)).worksheets[0].iter_rows(min_row=2))[0]
            assert cell.data_type == "s" and cell.value == made["name"]
        assert client.delete(f"/api/common/{entity.name}/{made['id']}.json", headers=headers).status_code == 200
        job_id = upload(client, headers, entity, reply.data, f"f.{fmt}").json["data"]["jobId"]  # type: ignore[index]
        assert finished(client, headers, entity, job_id)["created"] == 1
        made = client.post(f"/api/common/query/{entity.name}.json", headers=headers,
                           json={"code": f"f{tag}"}).json["data"]["list"][0]  # type: ignore[index]
        assert (made["name"], made["remark"]) == ("=HYPERLINK(\"http://x\")", "@SUM(1)")


def test_a_job_whose_process_died_is_failed(client: FlaskClient, login: Login, demo: Demo, pg_url: str) -> None:
    headers = login("admin_a")
    dead_here = f"{transfer.OWNER.rpartition(':')[0]}:999999999"
    jobs = {}
    with connect(pg_url) as conn:
        for case, owner, age in (("dead pid", dead_here, "0 s"), ("stale elsewhere", "other-host:1", "1 hour"),
                                 ("alive", transfer.OWNER, "0 s")):
            jobs[case] = str(uuid.uuid4())
            conn.execute("INSERT INTO import_job (id, enterprise_id, entity, total, owner, heartbeat_at)"
                         " VALUES (%s, %s, 'carModel', 10, %s, now() - %s::interval)",
                         (jobs[case], demo.enterprises["a"], owner, age))
        conn.commit()
    states = {case: client.get(f"/api/common/import/carModel/{job_id}.json", headers=headers).json["data"]  # type: ignore[index]
              for case, job_id in jobs.items()}
    assert states["dead pid"]["state"] == "failed" and "stopped" in states["dead pid"]["localMessage"]
    assert CHINESE.search(states["dead pid"]["message"]) and "stopped" not in states["dead pid"]["message"]
    assert states["stale elsewhere"]["state"] == "failed"
    assert states["alive"]["state"] == "running"


@pytest.fixture
def client(english_client: FlaskClient) -> FlaskClient:
    """This module reads error texts in English (``error_text``): its console speaks en-US."""
    return english_client
