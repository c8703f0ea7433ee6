"""Sign-in stays available under attack: one attacker behind a shared NAT or proxy never locks the
others behind it out, forwarded addresses count only from the configured proxies, and a genuine
sign-in never waits behind a flood's password checks (unknown names take no check slot; accounts at
addresses they signed in from before have a lane of their own).

The app of this module allows 3 failures per account and address, 6 per account from new
addresses, 10 per address; one password check at a time plus one for known addresses. Each test
speaks from addresses of its own.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.app import create_app
from api.db import get_db
from api.services import SERVICE_KEY
from fleet.settings import ApiSettings
from tests.integration.api.conftest import Demo
from tests.integration.api.test_login_throttle_api import RIGHT, address
from warehouse.db import connect
from warehouse.passwords import hash_password

PROXY = "10.77.0.9"
LIMITS = {"token_secret": "availability-secret", "login_max_failures": 3, "login_lockout_s": 300,
          "login_backoff_s": 60, "login_account_max_failures": 6, "login_address_max_failures": 10,
          "login_verify_concurrency": 1, "login_known_verify_concurrency": 1}


def _app(pg_url: str, var: Any, **settings: Any) -> Flask:
    return create_app(ApiSettings(**{**LIMITS, **settings}), pg_url, var_dir=var)


@pytest.fixture(scope="module")
def app(pg_url: str, demo: Demo, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    app = _app(pg_url, tmp_path_factory.mktemp("availability-var"))
    yield app
    get_db(app).close()


@pytest.fixture(scope="module")
def proxied(pg_url: str, demo: Demo, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    """The same API behind a reverse proxy at 10.77.0.0/16 that sets X-Forwarded-For."""
    app = _app(pg_url, tmp_path_factory.mktemp("proxied-var"), trusted_proxies=["10.77.0.0/16"])
    yield app
    get_db(app).close()


@pytest.fixture
def user(pg_url: str, demo: Demo) -> str:
    name = f"av_{uuid.uuid4().hex[:10]}"
    with connect(pg_url) as conn:
        conn.execute("INSERT INTO app_user (enterprise_id, user_name, password_hash) VALUES (%s, %s, %s)",
                     (demo.enterprises["a"], name, hash_password(RIGHT)))
        conn.commit()
    return name


def attempt(app: Flask, peer: str, user: str, password: str, forwarded_for: str | None = None) -> Any:
    client: FlaskClient = app.test_client()
    client.environ_base["REMOTE_ADDR"] = peer
    headers = {"X-Forwarded-For": forwarded_for} if forwarded_for else {}
    return client.post("/oauth2/token.json", headers=headers,
                       data={"grant_type": "password", "username": user, "password": password})


def flood(app: Flask, peer: str, times: int, forwarded_for: str | None = None) -> list[int]:
    return [attempt(app, peer, f"nobody_{uuid.uuid4().hex[:8]}", "guess", forwarded_for).json["code"]
            for _ in range(times)]


def test_colleagues_behind_one_nat_still_sign_in_after_an_attacker_there_used_up_the_address_limit(
    app: Flask, user: str
) -> None:
    nat = address()
    assert attempt(app, nat, user, RIGHT).json["code"] == 0  # a colleague signed in from the office before
    codes = flood(app, nat, 12)  # an attacker in the same office
    assert codes[-1] == 429
    reply = attempt(app, nat, user, RIGHT)
    assert reply.status_code == 200 and reply.json["code"] == 0


def test_clients_behind_a_trusted_proxy_are_throttled_by_their_forwarded_address(
    proxied: Flask, user: str, pg_url: str
) -> None:
    attacker, colleague = address(), address()
    assert flood(proxied, PROXY, 12, forwarded_for=attacker)[-1] == 429
    # another client of the same proxy, never seen before, is not behind the attacker's block
    reply = attempt(proxied, PROXY, user, RIGHT, forwarded_for=colleague)
    assert reply.status_code == 200 and reply.json["code"] == 0
    with connect(pg_url) as conn:
        rows = conn.execute("SELECT address FROM api_login_audit WHERE address IN (%s, %s)",
                            (attacker, PROXY)).fetchall()
    assert rows and {row[0] for row in rows} == {attacker}  # the audit names the client, not the proxy


def test_a_client_cannot_escape_the_throttle_by_forging_forwarded_addresses(proxied: Flask) -> None:
    attacker = address()  # not a trusted proxy: its X-Forwarded-For is its own invention
    codes = [attempt(proxied, attacker, f"nobody_{uuid.uuid4().hex[:8]}", "guess", forwarded_for=address())
             .json["code"] for _ in range(12)]
    assert codes[-1] == 429
    # through the proxy, a hop written left of the proxy's own is the client's invention too
    real = address()
    codes = [attempt(proxied, PROXY, f"nobody_{uuid.uuid4().hex[:8]}", "guess",
                     forwarded_for=f"{address()}, {real}").json["code"] for _ in range(12)]
    assert codes[-1] == 429


def test_a_known_user_signs_in_and_unknown_names_are_answered_while_every_shared_check_slot_is_taken(
    app: Flask, user: str
) -> None:
    home = address()
    assert attempt(app, home, user, RIGHT).json["code"] == 0  # home is now a known address of the user
    service = app.extensions[SERVICE_KEY]
    release = threading.Event()
    holders = [threading.Thread(target=service.shared_lane.run, args=(release.wait, 30))
               for _ in range(service.shared_lane.concurrency)]  # a flood's checks in progress
    for holder in holders:
        holder.start()
    try:
        time.sleep(0.2)
        started = time.monotonic()
        genuine = attempt(app, home, user, RIGHT)
        genuine_s = time.monotonic() - started
        started = time.monotonic()
        unknown = attempt(app, address(), f"nobody_{uuid.uuid4().hex[:8]}", "guess")
        unknown_s = time.monotonic() - started
    finally:
        release.set()
        for holder in holders:
            holder.join()
    assert genuine.status_code == 200 and genuine.json["code"] == 0 and genuine_s < 5
    assert unknown.status_code == 401 and unknown_s < 5
