"""0x0100 over real TCP: a stranger's registration must not tell whether a phone belongs to a terminal
the platform knows. A phone registered by other hardware is answered like a phone nobody has."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from protocols.jt808 import Registration, RegistrationResponse
from tests.integration.gateway.support import TerminalClient, insert_devices, running_gateway, unique_phones

pytestmark = pytest.mark.timeout(60)


async def _register(port: int, phone: str, terminal_id: str) -> RegistrationResponse:
    client = await TerminalClient.connect(port, phone)
    try:
        await client.send(0x0100, Registration(11, 100, "FLEET", "SIM-808", terminal_id, 2, ""))
        reply = await client.receive()
    finally:
        await client.close()
    assert isinstance(reply.body, RegistrationResponse)
    return reply.body


def test_a_stranger_cannot_tell_a_registered_phone_from_an_unknown_one(
        pg_url: str, kafka_bootstrap: str, free_port: Callable[[], int]) -> None:
    taken, unknown = unique_phones(2)
    insert_devices(pg_url, [taken], auth_code="C0DE")  # registered by its real terminal

    async def main() -> None:
        port = free_port()
        async with running_gateway(pg_url, kafka_bootstrap, port):
            for_taken = await _register(port, taken, "ATTACK1")
            for_unknown = await _register(port, unknown, "ATTACK1")
        assert (for_taken.result, for_taken.auth_code) == (for_unknown.result, for_unknown.auth_code) == (4, None)

    asyncio.run(main())


def test_refused_registrations_and_authentications_reach_the_message_log_with_why_and_no_code(
        pg_url: str, kafka_bootstrap: str, free_port: Callable[[], int]) -> None:
    import json

    import psycopg

    from fleet.topics import JT808_UPLINK
    from protocols.jt808 import Authentication, PlatformResponse
    from streams import message_log
    from streams.db import Database
    from streams.messages import parse_uplink
    from tests.integration.gateway.support import tail

    [phone] = unique_phones(1)
    device_id = insert_devices(pg_url, [phone], auth_code="C0DE-REAL")[phone]
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("UPDATE device SET expected_terminal_id = 'REALTID' WHERE id = %s", (device_id,))

    async def main() -> list[dict]:
        port = free_port()
        async with running_gateway(pg_url, kafka_bootstrap, port), tail(kafka_bootstrap, JT808_UPLINK) as uplinks:
            refused = await _register(port, phone, "OTHERID")
            assert refused.result == 4
            client = await TerminalClient.connect(port, phone)
            await client.send(0x0102, Authentication("GUESSED-CODE"))
            answer = await client.receive()
            assert isinstance(answer.body, PlatformResponse) and answer.body.result == 1
            await client.close()
            records = await uplinks.records(key=phone, min_count=2)
        db = Database(pg_url, name="test")
        await message_log.store_uplinks(db, [parse_uplink(json.dumps(r)) for r in records])
        await db.close()
        return records

    records = asyncio.run(main())
    assert [r["msg_id"] for r in records] == [0x0100, 0x0102]
    with psycopg.connect(pg_url) as conn:
        rows = conn.execute("SELECT msg_id, phone, raw_hex, decoded FROM message_log WHERE device_id = %s "
                            "ORDER BY msg_id", (device_id,)).fetchall()
    assert [(m, p) for m, p, _, _ in rows] == [(0x0100, phone.lstrip("0")), (0x0102, phone.lstrip("0"))]
    registration, authentication = rows[0][3], rows[1][3]
    assert registration["access"] == {"result": 4, "reason": "identity_mismatch"}
    assert authentication["access"] == {"result": 1, "reason": "wrong_code"}
    assert authentication["body"]["auth_code"] == "*" * len("GUESSED-CODE")
    assert b"GUESSED-CODE".hex() not in rows[1][2].lower()
