"""Fixtures for API integration tests: the demo seed in the session database and the app on it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.app import create_app
from api.db import get_db
from api.errors import LANGUAGE_HEADER, split_bilingual
from fleet.media_store import LocalMediaStore
from fleet.settings import ApiSettings
from warehouse.db import connect
from warehouse.seed import DEMO_PASSWORD, device_phone, seed_demo

TERMINALS = 20
# Demo ownership (warehouse.seed.terminal_enterprise): 1 -> A, 2 -> B, 10 -> parent.
A_TERMINAL, B_TERMINAL, PARENT_TERMINAL = 1, 2, 10
TRACK_START = datetime(2026, 3, 1, 2, 0, tzinfo=UTC)


@dataclass(frozen=True)
class Vehicle:
    car_id: int
    device_id: int
    vin: str
    enterprise_id: int


@dataclass(frozen=True)
class Demo:
    enterprises: dict[str, int]
    a: Vehicle
    b: Vehicle
    parent: Vehicle
    groups: dict[str, int]


def _vehicle(conn: Any, terminal: int) -> Vehicle:
    row = conn.execute(
        "SELECT c.id, d.id, c.vin, c.enterprise_id FROM device d JOIN car c ON c.id = d.car_id WHERE d.phone = %s",
        (device_phone(terminal),),
    ).fetchone()
    return Vehicle(*row)


@pytest.fixture(scope="session")
def demo(pg_url: str) -> Demo:
    """The demo seed plus last positions and a small track for A's and B's first vehicles."""
    summary = seed_demo(pg_url, terminals=TERMINALS)
    with connect(pg_url) as conn:
        vehicles = {t: _vehicle(conn, t) for t in (A_TERMINAL, B_TERMINAL, PARENT_TERMINAL)}
        for v in vehicles.values():
            # These are the last positions the API tests assert, also when a module that ran before on this
            # worker's database had a streams worker store positions of these demo terminals.
            conn.execute("DELETE FROM device_last WHERE device_id = %s", (v.device_id,))
            conn.execute(
                "INSERT INTO device_last (device_id, car_id, enterprise_id, fix_at, lng, lat, altitude_m, speed_kmh,"
                " direction_deg, mileage_km, fuel_l, alarm_flags, status_flags)"
                " VALUES (%s, %s, %s, %s, 116.4, 39.9, 50, 42.5, 90, 1234.5, 30, 5, 3)",
                (v.device_id, v.car_id, v.enterprise_id, TRACK_START + timedelta(minutes=10)),
            )
            # Inserted out of order on purpose: the query must order by time.
            for minute in (3, 1, 2, 0):
                conn.execute(
                    "INSERT INTO gps (device_id, fix_at, car_id, enterprise_id, lng, lat, speed_kmh)"
                    " VALUES (%s, %s, %s, %s, %s, 39.9, %s) ON CONFLICT DO NOTHING",
                    (v.device_id, TRACK_START + timedelta(minutes=minute), v.car_id, v.enterprise_id,
                     116.0 + minute / 100, 10.0 * minute),
                )
        groups = dict(conn.execute(
            "SELECT e.id::text, min(g.id) FROM car_group g JOIN enterprise e ON e.id = g.enterprise_id GROUP BY e.id"
        ).fetchall())
        conn.commit()
    ids = summary["enterprises"]
    return Demo(
        enterprises=ids,
        a=vehicles[A_TERMINAL],
        b=vehicles[B_TERMINAL],
        parent=vehicles[PARENT_TERMINAL],
        groups={key: groups[str(eid)] for key, eid in ids.items()},
    )


@pytest.fixture(scope="session")
def app(pg_url: str, demo: Demo, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    settings = ApiSettings(token_secret="integration-secret", login_max_failures=3, login_lockout_s=60)
    app = create_app(settings, pg_url, var_dir=tmp_path_factory.mktemp("api-var"))
    app.extensions["fleet.media_store"] = LocalMediaStore(tmp_path_factory.mktemp("media"))  # not the repo's var/
    try:
        yield app
    finally:
        get_db(app).close()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


ENGLISH = {LANGUAGE_HEADER: "en-US"}


@pytest.fixture
def english_client(app: Flask) -> FlaskClient:
    """A client of an English console: every request names en-US (X-Fleet-Language), so an error's
    ``localMessage`` is the English text; read it with ``error_text``."""
    english = app.test_client()
    english.environ_base["HTTP_X_FLEET_LANGUAGE"] = "en-US"
    return english


def error_text(reply: Any, language: str | None = None) -> str:
    """The ``localMessage`` of an error reply (a Flask test response or a ``requests`` one), after checking the
    envelope: ``message`` is the spec's Chinese text only (no English suffix), ``localMessage`` is present and,
    for ``language`` en-US, has no Chinese; for zh-CN it is ``message`` itself."""
    body = reply.json() if callable(reply.json) else reply.json
    assert body is not None and body["code"] != 0, body
    message, local = body["message"], body["localMessage"]
    assert any("\u4e00" <= char <= "\u9fff" for char in message), f"message is not Chinese: {message!r}"
    assert split_bilingual(message) is None, f"message still carries an English part: {message!r}"
    if language == "en-US":  # English words (a value it echoes may be Chinese)
        assert local != message and local[:1].isascii(), f"localMessage is not English: {local!r}"
    elif language == "zh-CN":
        assert local == message, body
    return str(local)


@pytest.fixture(scope="session")
def login(app: Flask) -> Callable[[str], dict[str, str]]:
    """``login(user_name)`` -> Authorization header of a demo user (cached per user).

    A test before may have ended the user's sessions (password reset, role or enterprise change): the
    cached token is handed out only while the user's session epoch in the database is still the one it
    was signed with. (Asking the API's own guard instead trusts its per-process cache for up to
    ``session_check_ttl_s``: a token revoked a moment ago passed, then failed mid-test.)"""
    cache: dict[str, tuple[int, dict[str, str]]] = {}

    def epoch(user_name: str) -> int:
        with get_db(app).connection() as conn:
            row = conn.execute("SELECT session_epoch FROM app_user WHERE user_name = %s", (user_name,)).fetchone()
        assert row is not None, user_name
        return int(row[0])

    def headers(user_name: str) -> dict[str, str]:
        current = epoch(user_name)
        if user_name in cache and cache[user_name][0] != current:
            del cache[user_name]
        if user_name not in cache:
            reply: Any = app.test_client().get(
                "/oauth2/token.json", query_string={"grant_type": "password", "username": user_name, "password": DEMO_PASSWORD}
            )
            assert reply.status_code == 200, reply.json
            cache[user_name] = (epoch(user_name), {"Authorization": f"Bearer {reply.json['data']['access_token']}"})
        return cache[user_name][1]

    return headers
