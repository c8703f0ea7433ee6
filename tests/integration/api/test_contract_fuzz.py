"""The server keeps api/openapi.yaml: schemathesis fuzzes every documented operation through WSGI.

Fails on any 5xx, any reply outside the envelope or the documented schema, any undocumented status
or content type, a wrong answer to an undeclared method, a valid request rejected or an invalid one
accepted. Fixed seed, bounded examples.

The fuzzer works on a database of its own (it disables enterprises, rewrites roles and resets
passwords with a root administrator's rights) as its own user and calls from its own
address, so its wrong passwords and profile edits never throttle, lock or change the demo users
the other tests of the session sign in as. The token endpoint is fuzzed on its own (its run sees a
document holding only it, the other run one without it); after three wrong guesses the fuzzer's
address is throttled, so argon2 runs only a few times. Without a token every protected operation is
one deterministic request (a 401 whatever the input), not a fuzz run.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import pytest
import schemathesis
import werkzeug.test
from flask import Flask
from schemathesis.engine import events, from_schema
from schemathesis.engine.statistic import Statistic

from api.query.contract import semantic_paths
from api.query.spreadsheet_contract import semantic_paths as spreadsheet_paths
from api.routes.alarms import semantic_paths as alarm_paths
from api.routes.commands import semantic_paths as command_paths
from api.routes.fences import semantic_paths as fence_paths
from api.routes.fleet import semantic_paths as fleet_paths
from api.routes.reports import semantic_paths as report_paths
from api.routes.tracks import semantic_paths as track_paths
from warehouse.db import connect
from warehouse.passwords import hash_password

FUZZ_ADDRESS = "127.0.0.77"
SEED = 20261124
# Examples per hand-written operation. 30, not 60: measured with tests/integration/api/fuzz_novelty_probe.py, the
# whole run reached as many of the project's lines (4,095 against 4,082: 9 not reached, 22 others) and every kind
# of reply of the run with 60 (1,595 against 1,594) with 2,295 fewer cases; in the run with 60 only three
# operations ran a new line after their 30th example (docs/performance.md "The whole suite's time").
MAX_EXAMPLES = 30
GENERATED_MAX_EXAMPLES = 15  # per operation generated from a declaration (tags below)
# "query": the list and count routes of declared entities documented by hand (48 operations); they run the one
# generic query code the entities' routes fuzz, so they are fuzzed like them. Measured with
# tests/integration/api/fuzz_novelty_probe.py (docs/performance.md "The whole suite's time"): their coverage
# phase was 63 % of the authenticated run's requests (29,180 of 46,525), and all it reached beyond the rest of
# the run were the filter operators on rows computed in Python (tests/unit/api/test_history_entities.py runs
# them) and their 401 / 405 answers (test_every_protected_operation_answers_401_before_reading_its_input,
# tests/unit/api/test_envelope.py; the hand-written routes' coverage phase still checks undeclared methods).
GENERATED_TAGS = ("entities", "spreadsheets", "query")
# The spreadsheet routes (each declared entity's template, import and CSV / XLSX export) run the one generic
# export and import code, and their filters the generic query code that the "query" and "entities" parts fuzz at
# GENERATED_MAX_EXAMPLES. Measured with tests/integration/api/fuzz_novelty_probe.py -k spreadsheets: 5 examples
# an operation reached 933 of the project's lines against 936 with 15 (the 7 not reached: query grammar and value
# parsing and the phone rule, which the other generated parts run; 4 reached only with 5) and every kind of reply
# but a few entities' 400s, in 43 s against 73 s.
SPREADSHEET_TAG, SPREADSHEET_MAX_EXAMPLES = "spreadsheets", 5
# The report entities (15 tables, each query, count, meta and two exports) run the generic code
# the entities above already fuzz: fewer examples each keep the run's length.
REPORT_TAG, REPORT_MAX_EXAMPLES = "reports", 5
REPORT_PATHS = frozenset(report_paths())
TOKEN_MAX_EXAMPLES = 50
# The authenticated run in parts, each a test of its own: the whole took 5 minutes on a quiet 2-core machine
# and 11 under load, near the per-test timeout; a part's failure also names where it is. A path goes whole
# to one part: by its operations' generated tag, else to one of the thirds of the hand-written paths.
HAND_WRITTEN_PARTS = 3
FUZZ_PARTS = (*(f"hand-written-{n}" for n in range(1, HAND_WRITTEN_PARTS + 1)), *GENERATED_TAGS, REPORT_TAG)
HTTP_METHODS = frozenset({"get", "put", "post", "delete", "options", "head", "patch", "trace"})
CHECKS = (
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_schema_conformance",
    "unsupported_method",
    "positive_data_acceptance",
    "negative_data_rejection",
)
# What refuses an invalid request: schemathesis' own list, and 413, the answer to a body over the API's limit
# (refused unread, api/security.py), which an invalid list of more than 1,000 values can be.
REJECTIONS = ["400", "401", "403", "404", "405", "406", "409", "413", "415", "422", "428", "429", "5xx"]
TOKEN_PATH = "/oauth2/token.json"
OPENAPI_PATH = "/api/openapi.json"
PASSWORD_PATH = "/api/common/user/{id}.json"
# A schema-valid licence is still refused unless the vendor signed it (and no vendor key is set
# here: 503); a schema-valid application may be blank text or past the per-address hourly limit.
LICENCE_PATHS = ("/api/license/install.json", "/api/license/apply.json")
# A platform parameter's type and range depend on its name (a latitude, a number of days, a base layer),
# which the schema of {name, value} cannot say: a schema-valid change may be a 400 naming the parameter.
PARAM_PATH = "/api/system/param.json"
COMMAND_PATHS = frozenset(command_paths())
# A command is sent to a car (/api/command/{id}/...) or to one of its devices (/api/device/{id}/command/...): the
# two routes differ only in how they find the terminal (api/routes/commands.py) and share the command's one
# validator, whose boundary values the car route's coverage phase runs; the device route keeps its fuzzing phase
# (and its undeclared methods answer from the one 405 handler the car routes' coverage phase checks).
# (Measured: in a run with both, the second of each pair to run reached 0-16 lines in its ~1,600 coverage cases.)
DEVICE_COMMAND_PATHS = sorted(path for path in COMMAND_PATHS if path.startswith("/api/device/{id}/command/"))

WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


@pytest.fixture(scope="module")
def fuzz_db(pg_url: str) -> Iterator[str]:
    """A database of its own, migrated and seeded: with a root administrator's rights the fuzzer
    disables enterprises, rewrites roles, resets passwords and deletes records, which must never
    reach the demo data the other tests of the session share."""
    from tests.support.databases import create_database, drop_database
    from warehouse.seed import seed_demo

    url = create_database(pg_url, "fuzz")
    seed_demo(url, terminals=20)
    try:
        yield url
    finally:
        drop_database(pg_url, url)


@pytest.fixture(scope="module")
def app(fuzz_db: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    """The API on the fuzzer's own database (overrides the session's app for this module)."""
    from api.app import create_app
    from api.db import get_db
    from fleet.settings import ApiSettings

    settings = ApiSettings(token_secret="fuzz-secret", login_max_failures=3, login_lockout_s=60)
    fuzz_app = create_app(settings, fuzz_db, var_dir=tmp_path_factory.mktemp("fuzz-api-var"))
    try:
        yield fuzz_app
    finally:
        get_db(fuzz_app).close()


@pytest.fixture(scope="module")
def fuzz_user(app: Flask, fuzz_db: str) -> dict[str, str]:
    """Authorization header of a fresh administrator of the root enterprise (every permission)."""
    name = f"fuzz_{uuid.uuid4().hex[:8]}"
    password = "Fuzz@2026x"
    with connect(fuzz_db) as conn:
        role_id, enterprise_id = conn.execute(
            "SELECT r.id, r.enterprise_id FROM role r JOIN enterprise e ON e.id = r.enterprise_id"
            " WHERE e.parent_id IS NULL ORDER BY r.id LIMIT 1"
        ).fetchone()  # type: ignore[misc]
        user_id = conn.execute(
            "INSERT INTO app_user (enterprise_id, user_name, password_hash, name, nick_name, email)"
            " VALUES (%s, %s, %s, %s, %s, %s) RETURNING id",
            (enterprise_id, name, hash_password(password), "模糊测试", name, f"{name}@example.com"),
        ).fetchone()[0]  # type: ignore[index]
        conn.execute("INSERT INTO user_role (user_id, role_id) VALUES (%s, %s)", (user_id, role_id))
        conn.commit()
    reply: Any = app.test_client().get(
        TOKEN_PATH, query_string={"grant_type": "password", "username": name, "password": password}
    )
    assert reply.status_code == 200, reply.json
    return {"Authorization": f"Bearer {reply.json['data']['access_token']}"}


@pytest.fixture(scope="module")
def fuzz_wsgi(app: Flask) -> WsgiApp:
    """The app seen from the fuzzer's own address (per-address throttling stays away from 127.0.0.1)."""

    def wsgi(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        environ["REMOTE_ADDR"] = FUZZ_ADDRESS
        return app(environ, start_response)

    return wsgi


def _config(headers: dict[str, str], max_examples: int, *, coverage: bool = True) -> schemathesis.Config:
    return schemathesis.Config.from_dict({
        "seed": SEED,
        "workers": 1,
        "continue-on-failure": True,
        "headers": headers,
        # Text never holds NUL (PostgreSQL cannot store it; the document says so): test_bad_input_api checks the 400.
        "generation": {"mode": "all", "max-examples": max_examples, "deterministic": True, "database": "none",
                       "allow-x00": False},
        "phases": {
            "examples": {"enabled": True},
            "coverage": {"enabled": coverage},
            "fuzzing": {"enabled": True},
            "stateful": {"enabled": False},
        },
        "checks": {"enabled": False, **{name: {"enabled": True} for name in CHECKS},
                   "negative_data_rejection": {"enabled": True, "expected-statuses": REJECTIONS}},
        "operations": [{
            # A schema-valid password change still needs the right old password and a confirmation
            # equal to the new one, which no schema can say: a 400 is the right answer there. So do
            # the entities' rules beyond a schema (a national ID's check digit: contract.semantic_paths),
            # whether an uploaded spreadsheet's rows fit (spreadsheets.semantic_paths), and a track's time
            # range (tracks.semantic_paths), and whether a terminal is online or a parameter in the console
            # spec's range (commands.semantic_paths).
            # One entry per number of examples, naming its paths, not one entry per path: schemathesis
            # matches every entry against the operation for each generated case (generation_for), which
            # with 134 entries was a tenth of the fuzz's CPU (docs/performance.md "The whole suite's time").
            "include-path": paths,
            "checks": {"positive_data_acceptance": {"enabled": False}},
            **({"generation": {"max-examples": examples}} if examples is not None else {}),
        } for examples, paths in _semantic_path_groups()] + [{
            # The routes generated from the entity declarations run the same code for every entity:
            # fewer examples each keep the whole run near its old length as entities are added, and no
            # coverage phase (its boundary values of every field of every entity re-test the one
            # declaration-driven validator; it was most of a 7-minute run). The hand-written routes above
            # keep it.
            "include-tag": [tag for tag in GENERATED_TAGS if tag != SPREADSHEET_TAG],
            "generation": {"max-examples": GENERATED_MAX_EXAMPLES},
            "phases": {"coverage": {"enabled": False}},
        }, {
            "include-tag": SPREADSHEET_TAG,
            "generation": {"max-examples": SPREADSHEET_MAX_EXAMPLES},
            "phases": {"coverage": {"enabled": False}},
        }, {
            "include-path": DEVICE_COMMAND_PATHS,
            "phases": {"coverage": {"enabled": False}},
        }, {
            # their coverage phase (boundary values of ~100 counter fields each) would only re-test the grammar
            "include-tag": REPORT_TAG, "generation": {"max-examples": REPORT_MAX_EXAMPLES},
            "phases": {"coverage": {"enabled": False}},
        }],
    })


def _semantic_path_groups() -> list[tuple[int | None, list[str]]]:
    """The paths whose schema-valid requests may rightly be refused, grouped by their number of examples
    (None: the run's own). The 23 command operations (11 commands on the car and on the device route, and
    the batch) share one handler and one validator per command: fewer examples each, like the entities.
    The report calls share their parsing (dates, field names, the list grammar of the bodies)."""
    groups: dict[int | None, list[str]] = {}
    for path in sorted({PASSWORD_PATH, PARAM_PATH, *LICENCE_PATHS, *semantic_paths(), *spreadsheet_paths(),
                        *track_paths(), *COMMAND_PATHS, *alarm_paths(), *report_paths(), *fleet_paths(),
                        *fence_paths()}):
        examples = REPORT_MAX_EXAMPLES if path in REPORT_PATHS else \
            GENERATED_MAX_EXAMPLES if path in COMMAND_PATHS else None
        groups.setdefault(examples, []).append(path)
    return list(groups.items())


def fuzz(
    wsgi: WsgiApp, headers: dict[str, str], max_examples: int, *, token_endpoint: bool,
    known_users: frozenset[str] = frozenset(), coverage: bool = True, part: str | None = None,
) -> list[str]:
    """Distinct failures (one line each) of one run over the token endpoint or every other operation.

    A generated user name that exists (``known_users``) is changed, so no guess counts against a
    real account."""
    schema = _load(wsgi, _config(headers, max_examples, coverage=coverage), token_endpoint=token_endpoint, part=part)

    @schema.hook
    def map_case(context: Any, case: Any) -> Any:
        for fields in (case.query, case.body):
            # a generated username may be of any JSON type (a list is not hashable)
            if isinstance(fields, dict) and isinstance(fields.get("username"), str) and fields["username"] in known_users:
                fields["username"] = f"nobody_{fields['username']}"
        return case

    statistic = Statistic()
    errors: list[str] = []
    for event in _events(schema):
        if isinstance(event, events.ScenarioFinished):
            statistic.on_scenario_finished(event.recorder)
        elif isinstance(event, events.NonFatalError):
            errors.append(f"{event.label}: error {event.info.title}: {event.info}"[:400])
        elif isinstance(event, events.FatalError):
            raise event.exception
    lines = sorted(
        f"{label}: [{type(failure).__name__}] {failure.title}: {' '.join(failure.message.split())[:300]}"
        f"\n    reproduce: {' '.join((group.code_sample or '').split())[:600]}"
        for label, groups in statistic.failures.items()
        for group in groups.values()
        for failure in group.failures
    )
    untested = {f"{op.method.upper()} {op.path}" for op in _operations(schema)} - statistic.tested_operations
    return lines + errors + [f"{label}: never tested" for label in sorted(untested)]


def _load(wsgi: WsgiApp, config: schemathesis.Config, *, token_endpoint: bool, part: str | None = None) -> Any:
    """The served document cut to the token endpoint, or to every other operation (of one ``part``: FUZZ_PARTS).

    Cut in the document, not with ``schema.include``/``exclude``: with per-operation entries in the
    configuration (above) the engine ran every operation whatever the filter said, so the token
    endpoint's run fuzzed the whole API a second time without a token (77,000 requests, 5 minutes)."""
    reply = werkzeug.test.Client(wsgi).get(OPENAPI_PATH)
    assert reply.status_code == 200, reply.status
    document = json.loads(reply.get_data())
    document["paths"] = {path: item for path, item in document["paths"].items()
                         if (path == TOKEN_PATH) == token_endpoint}
    if part is not None:
        document["paths"] = _part_of(document["paths"], part)
    schema = schemathesis.openapi.from_dict(document, config=config)
    schema.app = wsgi
    schema.location = OPENAPI_PATH
    return schema


def _fuzz_part(item: dict[str, Any], index: int) -> str:
    """Which part of the run a path belongs to, with all its operations (the undeclared-method check needs
    every method a path has in the part's document): a generated tag, else one of the hand-written thirds."""
    tags = {tag for method, operation in item.items() if method in HTTP_METHODS for tag in operation.get("tags", [])}
    for tag in (REPORT_TAG, *GENERATED_TAGS):
        if tag in tags:
            return tag
    return f"hand-written-{index % HAND_WRITTEN_PARTS + 1}"


def _part_of(paths: dict[str, Any], part: str) -> dict[str, Any]:
    """The path items of ``part``, whole, in the document's order."""
    kept: dict[str, Any] = {}
    index = 0
    for path, item in sorted(paths.items()):
        found = _fuzz_part(item, index)
        if found.startswith("hand-written-"):
            index += 1
        if found == part:
            kept[path] = item
    return kept


def _operations(schema: Any) -> list[Any]:
    return [result.ok() for result in schema.get_all_operations()]


def _events(schema: Any) -> Iterator[events.EngineEvent]:
    stream = from_schema(schema).execute()
    try:
        yield from stream
    finally:
        stream.stop()


@pytest.mark.parametrize("part", FUZZ_PARTS)
def test_authenticated_operations_keep_the_contract(fuzz_wsgi: WsgiApp, fuzz_user: dict[str, str], part: str) -> None:
    failures = fuzz(fuzz_wsgi, fuzz_user, MAX_EXAMPLES, token_endpoint=False, part=part)
    assert not failures, f"{len(failures)} contract failures:\n" + "\n".join(failures)


def test_the_parts_of_the_run_cover_every_authenticated_operation_once(fuzz_wsgi: WsgiApp) -> None:
    document = json.loads(werkzeug.test.Client(fuzz_wsgi).get(OPENAPI_PATH).get_data())
    paths = {path: item for path, item in document["paths"].items() if path != TOKEN_PATH}
    every = sorted((path, method) for path, item in paths.items() for method in item if method in HTTP_METHODS)
    in_parts = sorted((path, method) for part in FUZZ_PARTS for path, item in _part_of(paths, part).items()
                      for method in item if method in HTTP_METHODS)
    assert in_parts == every
    assert all(_part_of(paths, part) for part in FUZZ_PARTS)  # no part is empty


def _path_value(operation: dict[str, Any], name: str) -> str:
    """A value of the path parameter ``name`` its route accepts: a UUID where the document says so, else 1."""
    for parameter in operation.get("parameters", []):
        if parameter.get("in") == "path" and parameter.get("name") == name \
                and parameter.get("schema", {}).get("format") == "uuid":
            return "00000000-0000-4000-8000-000000000001"
    return "1"


@pytest.mark.parametrize("authorization", [None, "Bearer not-a-token", "Basic YWRtaW46RmxlZXRAMjAyNg=="])
def test_every_protected_operation_answers_401_before_reading_its_input(fuzz_wsgi: WsgiApp,
                                                                       authorization: str | None) -> None:
    """Without a valid token each documented operation but the public ones (``security: []``) is a 401 with
    the envelope's code 40002, whatever its parameters and body: one request per operation with a garbage
    body (fuzzing these with schemathesis repeated the same 401 for minutes)."""
    client = werkzeug.test.Client(fuzz_wsgi)
    document = json.loads(client.get(OPENAPI_PATH).get_data())
    headers = {"Authorization": authorization} if authorization else {}
    checked, wrong = 0, []
    for path, item in sorted(document["paths"].items()):
        for method, operation in sorted(item.items()):
            if method not in ("get", "post", "put", "patch", "delete") or operation.get("security") == []:
                continue
            url = re.sub(r"\{([^}]+)\}", lambda m, op=operation: _path_value(op, m.group(1)), path)
            reply = client.open(url, method=method.upper(), headers=headers, data=b'{"conditions": {"id.eq": [',
                                content_type="application/json")
            body = json.loads(reply.get_data() or b"null") if reply.mimetype == "application/json" else None
            checked += 1
            if reply.status_code != 401 or not isinstance(body, dict) or body.get("code") != 40002 \
                    or set(body) < {"code", "message"}:
                wrong.append(f"{method.upper()} {url}: {reply.status_code} {reply.get_data()[:120]!r}")
    assert checked > 400, checked  # every operation of the document, not a handful
    assert not wrong, f"{len(wrong)} of {checked} operations:\n" + "\n".join(wrong)

def test_token_endpoint_keeps_the_contract(fuzz_wsgi: WsgiApp, fuzz_db: str) -> None:
    with connect(fuzz_db) as conn:
        users = frozenset(row[0] for row in conn.execute("SELECT user_name FROM app_user"))
    failures = fuzz(fuzz_wsgi, {}, TOKEN_MAX_EXAMPLES, token_endpoint=True, known_users=users)
    assert not failures, f"{len(failures)} contract failures:\n" + "\n".join(failures)
