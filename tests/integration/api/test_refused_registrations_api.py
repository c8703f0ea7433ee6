"""Refused registrations of unknown phones (entity refusedRegistration, table refused_registration) through
the real app and PostgreSQL: the root enterprise's administrators read them; a subsidiary's administrator and
a root user who may not add devices get a 403; a phone registered since is left out."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator

import pytest
from flask.testing import FlaskClient

from tests.integration.api.conftest import Demo, error_text
from tests.integration.api.test_console_api import bearer, make_user
from warehouse.db import connect

Login = Callable[[str], dict[str, str]]
URLS = ("/api/common/query/refusedRegistration.json", "/api/common/count/refusedRegistration.json")


@pytest.fixture
def refused(pg_url: str) -> Iterator[list[str]]:
    """Two refused phones of this test (deleted afterwards): the second gets a device during the test."""
    tag = uuid.uuid4().int % 10**8
    phones = [f"147{tag:08d}", f"148{tag:08d}"]
    with connect(pg_url) as conn:
        for phone in phones:
            conn.execute(
                "INSERT INTO refused_registration (phone, msg_id, result, reason, terminal_id, manufacturer_id, "
                "terminal_model, plate_number, plate_color, peer, gateway_id, protocol_version, first_seen, "
                "last_seen, attempts) VALUES (%s, 256, 4, 'unknown_phone', 'TID0001', 'MAKER', 'MODEL-X', "
                "'粤B12345', 1, '203.0.113.7:40001', 'gw-1', '2013', now() - interval '1 hour', now(), 7)", (phone,))
        conn.commit()
    yield phones
    with connect(pg_url) as conn:
        conn.execute("DELETE FROM refused_registration WHERE phone = ANY(%s)", (phones,))
        conn.execute("DELETE FROM device WHERE phone = ANY(%s)", (phones,))
        conn.commit()


def test_the_root_enterprises_administrator_sees_why_an_unknown_terminal_is_refused(
        client: FlaskClient, login: Login, refused: list[str]) -> None:
    reply = client.post(URLS[0], headers=login("admin"), json={"phone.eq": "0" + refused[0]},
                        query_string={"countable": "true"})
    assert reply.status_code == 200, reply.json
    [row] = reply.json["data"]["list"]
    assert reply.json["data"]["total"] == 1
    assert {k: row[k] for k in ("phone", "reason", "msgId", "result", "terminalId", "manufacturerId",
                                "terminalModel", "plateNumber", "plateColor", "peer", "attempts")} == {
        "phone": refused[0], "reason": "unknown_phone", "msgId": 0x0100, "result": 4, "terminalId": "TID0001",
        "manufacturerId": "MAKER", "terminalModel": "MODEL-X", "plateNumber": "粤B12345", "plateColor": 1,
        "peer": "203.0.113.7:40001", "attempts": 7}
    assert row["firstSeen"] < row["lastSeen"]
    meta = client.get("/api/common/meta/refusedRegistration.json", headers=login("admin"))
    assert meta.status_code == 200 and meta.json["data"]["permission"] == "device"


def test_a_phone_registered_since_is_no_longer_listed(client: FlaskClient, login: Login, demo: Demo,
                                                      refused: list[str], pg_url: str) -> None:
    with connect(pg_url) as conn:
        conn.execute("INSERT INTO device (enterprise_id, phone, device_sn) VALUES (%s, %s, %s)",
                     (demo.enterprises["a"], refused[1], f"RR{refused[1][-8:]}"))
        conn.commit()
    reply = client.post(URLS[0], headers=login("admin"), json={"phone.in": refused})
    assert [row["phone"] for row in reply.json["data"]["list"]] == [refused[0]]


def test_returns_403_to_another_enterprises_administrator_and_to_a_root_user_who_may_not_add_devices(
        client: FlaskClient, login: Login, demo: Demo, refused: list[str], pg_url: str) -> None:
    reader = bearer(client, make_user(pg_url, demo.enterprises["parent"], {"device": ["query", "get"]}).name)
    for headers in (login("admin_a"), login("admin_b"), reader):
        for url in URLS:
            reply = client.post(url, headers=headers, json={})
            assert reply.status_code == 403, (url, reply.json)
            assert "refusedRegistration" in error_text(reply, "en-US")
        assert client.get("/api/common/meta/refusedRegistration.json", headers=headers).status_code == 403


@pytest.fixture
def client(english_client: FlaskClient) -> FlaskClient:
    """This module reads error texts in English (``error_text``): its console speaks en-US."""
    return english_client
