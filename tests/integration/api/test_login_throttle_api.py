"""Login throttling under attack: a third party cannot lock the administrator out,
concurrent guesses never exceed the limit, unknown names are throttled and cost bounded rows.

The app of this module allows 3 failures per account and address, 6 per account from addresses
it never signed in from, 10 per address; each test speaks from addresses of its own
(``REMOTE_ADDR``) so tests do not throttle each other.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from psycopg import sql

from api.app import create_app
from api.db import get_db
from api.services import SERVICE_KEY
from fleet.settings import ApiSettings
from tests.integration.api.conftest import Demo
from warehouse.db import connect
from warehouse.passwords import hash_password

RIGHT = "right-password-1"


def address() -> str:
    """A fresh documentation-range address (RFC 5737) per call."""
    n = uuid.uuid4().int
    return f"198.{18 + n % 2}.{n // 2 % 256}.{n // 512 % 254 + 1}"


@pytest.fixture(scope="module")
def app(pg_url: str, demo: Demo, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    settings = ApiSettings(token_secret="throttle-secret", login_max_failures=3, login_lockout_s=300,
                           login_backoff_s=60, login_account_max_failures=6, login_address_max_failures=10)
    app = create_app(settings, pg_url, var_dir=tmp_path_factory.mktemp("throttle-var"))
    try:
        yield app
    finally:
        get_db(app).close()


def attempt(app: Flask, addr: str, user: str, password: str) -> Any:
    client: FlaskClient = app.test_client()
    client.environ_base["REMOTE_ADDR"] = addr
    return client.post("/oauth2/token.json", data={"grant_type": "password", "username": user, "password": password})


@pytest.fixture
def user(pg_url: str, demo: Demo) -> str:
    name = f"th_{uuid.uuid4().hex[:10]}"
    with connect(pg_url) as conn:
        conn.execute(
            "INSERT INTO app_user (enterprise_id, user_name, password_hash) VALUES (%s, %s, %s)",
            (demo.enterprises["a"], name, hash_password(RIGHT)),
        )
        conn.commit()
    return name


class CountingVerify:
    """Wraps the token service's password check: counts evaluations; wrong guesses may be held."""

    def __init__(self, real: Callable[[str | None, str], bool]) -> None:
        self.real = real
        self.evaluated = 0
        self.release = threading.Event()
        self.release.set()
        self._lock = threading.Lock()

    def __call__(self, password_hash: str | None, password: str) -> bool:
        with self._lock:
            self.evaluated += 1
        if password != RIGHT:
            self.release.wait(30)
        return self.real(password_hash, password)


@pytest.fixture
def verify(app: Flask, monkeypatch: pytest.MonkeyPatch) -> Iterator[CountingVerify]:
    import api.tokens

    counting = CountingVerify(api.tokens.verify_password)
    monkeypatch.setattr(api.tokens, "verify_password", counting)
    # A held guess counts its wait as the check's time, which an unknown name then waits (up to a second
    # each): the module's later tests get the real checks' time back.
    service = app.extensions[SERVICE_KEY]
    measured = service._check_s
    yield counting
    counting.release.set()
    service._check_s = measured


def test_right_password_from_a_known_address_works_while_an_attacker_is_throttled(app: Flask, user: str) -> None:
    home, attacker = address(), address()
    assert attempt(app, home, user, RIGHT).json["code"] == 0  # the owner has signed in from home before
    codes = [attempt(app, attacker, user, f"guess-{i}").json["code"] for i in range(8)]
    assert codes[:2] == [401, 401] and set(codes[2:]) == {429}
    assert attempt(app, attacker, user, RIGHT).status_code == 429  # the attacker's address stays blocked
    reply = attempt(app, home, user, RIGHT)
    assert reply.status_code == 200 and reply.json["code"] == 0


def test_many_attacking_addresses_ask_new_addresses_for_a_captcha_but_not_known_ones(
    app: Flask, user: str
) -> None:
    home = address()
    assert attempt(app, home, user, RIGHT).json["code"] == 0
    settings = app.config["FLEET_API_SETTINGS"]
    for _ in range(settings.login_account_max_failures):
        attempt(app, address(), user, "guess")
    refused = attempt(app, address(), user, RIGHT)
    assert refused.status_code == 429 and refused.json["data"]["captchaRequired"] is True
    assert refused.json["data"]["retryAfter"] > 0
    assert attempt(app, home, user, RIGHT).json["code"] == 0


def test_thirty_concurrent_wrong_guesses_are_evaluated_at_most_up_to_the_limit(
    app: Flask, user: str, verify: CountingVerify
) -> None:
    attacker = address()
    with ThreadPoolExecutor(max_workers=30) as pool:
        replies = list(pool.map(lambda i: attempt(app, attacker, user, f"guess-{i}"), range(30)))
    limit = app.config["FLEET_API_SETTINGS"].login_max_failures
    assert verify.evaluated <= limit
    assert all(r.json["code"] in (401, 429) for r in replies)


def test_right_password_among_concurrent_guesses_is_refused_once_the_limit_is_taken(
    app: Flask, user: str, verify: CountingVerify
) -> None:
    attacker = address()
    limit = app.config["FLEET_API_SETTINGS"].login_max_failures
    verify.release.clear()  # wrong guesses stay inside the password check until released
    with ThreadPoolExecutor(max_workers=24) as pool:
        guesses = [pool.submit(attempt, app, attacker, user, f"guess-{i}") for i in range(23)]
        # the limit's guesses are admitted and held in (or queued for) the check; every other one is refused
        deadline = threading.Event()
        for _ in range(200):
            if sum(g.done() for g in guesses) >= len(guesses) - limit:
                break
            deadline.wait(0.05)
        assert verify.evaluated <= limit
        right = attempt(app, attacker, user, RIGHT)
        verify.release.set()
        codes = [g.result().json["code"] for g in guesses]
    assert right.status_code == 429 and "access_token" not in (right.json["data"] or {})
    assert codes.count(401) + codes.count(429) == 23


def test_unknown_user_names_are_throttled_by_address(app: Flask, demo: Demo) -> None:
    attacker = address()
    settings = app.config["FLEET_API_SETTINGS"]
    codes = [attempt(app, attacker, f"nobody_{uuid.uuid4().hex[:8]}", "guess").json["code"]
             for _ in range(settings.login_address_max_failures + 1)]
    assert codes[0] == 401 and codes[-1] == 429
    same_name = f"nobody_{uuid.uuid4().hex[:8]}"
    other = address()
    repeated = [attempt(app, other, same_name, "guess").json["code"] for _ in range(settings.login_max_failures + 1)]
    assert repeated[-1] == 429


def _throttle_rows(pg_url: str) -> int:
    with connect(pg_url) as conn:
        tables = [row[0] for row in conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
            " AND table_name LIKE 'api_login%%' AND table_name NOT LIKE '%%audit%%'").fetchall()]
        counts = [conn.execute(sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier(table))).fetchone()
                  for table in tables]
        return sum(int(row[0]) for row in counts if row is not None)


def test_a_flood_of_unknown_names_costs_bounded_rows_and_password_checks(
    app: Flask, pg_url: str, demo: Demo, verify: CountingVerify
) -> None:
    attacker = address()
    settings = app.config["FLEET_API_SETTINGS"]
    before = _throttle_rows(pg_url)
    for _ in range(200):
        attempt(app, attacker, f"flood_{uuid.uuid4().hex}", "guess")
    bound = 2 * settings.login_address_max_failures + 1
    assert _throttle_rows(pg_url) - before <= bound
    assert verify.evaluated <= settings.login_address_max_failures


def test_failed_logins_are_audited_with_time_name_address_and_reason(app: Flask, pg_url: str, user: str) -> None:
    attacker = address()
    for _ in range(4):
        attempt(app, attacker, user, "guess")
    attempt(app, attacker, "nobody_at_all", "guess")
    with connect(pg_url) as conn:
        rows = conn.execute(
            "SELECT attempted_at, user_name, address, reason FROM api_login_audit WHERE address = %s ORDER BY id",
            (attacker,),
        ).fetchall()
    reasons = [(name, reason) for _, name, _, reason in rows]
    assert reasons == [(user, "wrong_password")] * 3 + [(user, "throttled"), ("nobody_at_all", "unknown_user")]
    assert all(at is not None for at, *_ in rows)
