"""Terminal identity on port 7611 through the real gateway, PostgreSQL and Kafka: the terminal id and
IMEI an administrator records in advance, and the registration policy an enterprise chooses (IMEI
required, approval of a re-registration of a device that is online)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import psycopg
import pytest

from fleet.phones import canonical_phone
from fleet.topics import DEVICE_SESSIONS
from gateway.replies import REG_NO_TERMINAL
from protocols.jt808 import Authentication, PlatformResponse, Registration, RegistrationResponse
from tests.integration.gateway.support import (
    TerminalClient,
    insert_devices,
    running_gateway,
    tail,
    unique_phones,
)
from tests.integration.gateway.test_takeover_stack import _authenticate, _position_acked, _registration

# Every refused registration reads "no such terminal" on the wire (gateway/replies.py): a stranger's 0x0100
# must not tell a live phone from an unknown one; the gateway's log keeps the real reason.
REFUSED = REG_NO_TERMINAL

pytestmark = pytest.mark.timeout(90)


def _set_device(pg_url: str, phone: str, *, expected_terminal_id: str | None = None,
                expected_imei: str | None = None) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("UPDATE device SET expected_terminal_id = %s, expected_imei = %s WHERE phone = %s",
                     (expected_terminal_id, expected_imei, canonical_phone(phone)))


def _set_policy(pg_url: str, phone: str, *, require_imei: bool = False, approve: bool = False) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO enterprise_registration_policy (enterprise_id, require_imei, approve_reregistration, "
            "approval_window_min) SELECT enterprise_id, %s, %s, 10 FROM device WHERE phone = %s",
            (require_imei, approve, canonical_phone(phone)))


async def _register(port: int, phone: str, registration: Registration,
                    version: str = "2013") -> tuple[RegistrationResponse, TerminalClient]:
    client = await TerminalClient.connect(port, phone, version)
    await client.send(0x0100, registration)
    reply = await client.receive()
    assert isinstance(reply.body, RegistrationResponse)
    return reply.body, client


async def _authenticate_2019(client: TerminalClient, code: str, imei: str | None) -> int:
    await client.send(0x0102, Authentication(code, imei, "1.0"))
    ack = await client.receive()
    assert isinstance(ack.body, PlatformResponse)
    return ack.body.result


def test_registration_reporting_another_terminal_id_than_the_recorded_one_is_refused_and_shown(
        pg_url: str, kafka_bootstrap: str, free_port: Callable[[], int]) -> None:
    [phone] = unique_phones(1)
    ids = insert_devices(pg_url, [phone])  # no code yet: today whoever registers first gets it
    _set_device(pg_url, phone, expected_terminal_id="REAL001")

    async def main() -> None:
        port = free_port()
        async with running_gateway(pg_url, kafka_bootstrap, port), tail(kafka_bootstrap, DEVICE_SESSIONS) as sessions:
            refused, attacker = await _register(port, phone, _registration("FAKE001"))
            assert (refused.result, refused.auth_code) == (REFUSED, None)
            await attacker.close()
            [notice] = await sessions.records(key=phone, min_count=1)
            assert (notice["event"], notice["reason"], notice["device_id"]) == ("security", "identity_mismatch",
                                                                                ids[phone])
            accepted, real = await _register(port, phone, _registration("REAL001"))
            assert accepted.result == 0 and accepted.auth_code
            assert await _authenticate(real, accepted.auth_code) == 0
            await real.close()

    asyncio.run(main())


def test_authentication_with_another_imei_than_the_recorded_one_is_refused_and_shown(
        pg_url: str, kafka_bootstrap: str, free_port: Callable[[], int]) -> None:
    phone = "0" * 8 + unique_phones(1)[0]  # a 2019 header's 20 digits
    insert_devices(pg_url, [phone])
    _set_device(pg_url, phone, expected_imei="861234567890123")

    async def main() -> None:
        port = free_port()
        async with running_gateway(pg_url, kafka_bootstrap, port), tail(kafka_bootstrap, DEVICE_SESSIONS) as sessions:
            reply, client = await _register(port, phone, _registration("T2019REAL"), version="2019")
            assert reply.result == 0 and reply.auth_code
            assert await _authenticate_2019(client, reply.auth_code, "869999999999999") == 1
            [notice] = await sessions.records(key=phone, min_count=1)
            assert (notice["event"], notice["reason"]) == ("security", "imei_mismatch")
            assert await _authenticate_2019(client, reply.auth_code, "861234567890123") == 0
            assert await _position_acked(client)
            await client.close()

    asyncio.run(main())


def test_under_the_imei_policy_a_re_registered_copy_with_another_imei_is_refused(
        pg_url: str, kafka_bootstrap: str, free_port: Callable[[], int]) -> None:
    phone = "0" * 8 + unique_phones(1)[0]
    insert_devices(pg_url, [phone])
    _set_policy(pg_url, phone, require_imei=True)

    async def main() -> None:
        port = free_port()
        async with running_gateway(pg_url, kafka_bootstrap, port):
            first, real = await _register(port, phone, _registration("T2019REAL"), version="2019")
            assert first.auth_code and await _authenticate_2019(real, first.auth_code, "861234567890123") == 0
            await real.close()
            # the printed id, maker and model are enough to re-register, not to authenticate
            again, copy = await _register(port, phone, _registration("T2019REAL"), version="2019")
            assert again.result == 0 and again.auth_code
            assert await _authenticate_2019(copy, again.auth_code, "860000000000000") == 1
            assert await _authenticate_2019(copy, again.auth_code, None) == 1
            assert await _authenticate_2019(copy, again.auth_code, "861234567890123") == 0
            await copy.close()

    asyncio.run(main())


def _decide(pg_url: str, request_id: int, state: str) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("UPDATE registration_request SET state = %s, decided_at = now() WHERE id = %s",
                     (state, request_id))


def test_re_registration_of_an_online_device_waits_for_an_administrators_approval(
        pg_url: str, kafka_bootstrap: str, free_port: Callable[[], int]) -> None:
    [phone] = unique_phones(1)
    insert_devices(pg_url, [phone])
    _set_policy(pg_url, phone, approve=True)
    registration = _registration(phone[-7:])

    async def main() -> None:
        port = free_port()
        async with running_gateway(pg_url, kafka_bootstrap, port), tail(kafka_bootstrap, DEVICE_SESSIONS) as sessions:
            first, real = await _register(port, phone, registration)
            assert first.auth_code and await _authenticate(real, first.auth_code) == 0
            # the exact printed id, maker and model no longer replace the online terminal's code
            held, copy = await _register(port, phone, registration)
            assert (held.result, held.auth_code) == (REFUSED, None)
            records = await sessions.records(key=phone, min_count=2)
            [notice] = [r for r in records if r["event"] == "security"]
            assert notice["reason"] == "reregistration_pending" and notice["request_id"]
            again, _ = await _register(port, phone, registration)  # still pending: refused, no second notice
            assert again.result == REFUSED
            assert await _position_acked(real)  # the real terminal keeps its session and code
            _decide(pg_url, notice["request_id"], "approved")
            passed, replacement = await _register(port, phone, registration)
            assert passed.result == 0 and passed.auth_code
            with pytest.raises(ConnectionError):  # approval ends the old session
                await real.receive(timeout_s=5)
            assert await _authenticate(replacement, passed.auth_code) == 0
            later = await sessions.records(key=phone, min_count=2, timeout_s=3)
            assert [r["reason"] for r in later if r["event"] == "security"].count("reregistration_pending") == 0
            await copy.close()
            await replacement.close()

    asyncio.run(main())


def test_a_refused_re_registration_keeps_the_copy_out(
        pg_url: str, kafka_bootstrap: str, free_port: Callable[[], int]) -> None:
    [phone] = unique_phones(1)
    insert_devices(pg_url, [phone])
    _set_policy(pg_url, phone, approve=True)
    registration = _registration(phone[-7:])

    async def main() -> None:
        port = free_port()
        async with running_gateway(pg_url, kafka_bootstrap, port), tail(kafka_bootstrap, DEVICE_SESSIONS) as sessions:
            first, real = await _register(port, phone, registration)
            assert first.auth_code and await _authenticate(real, first.auth_code) == 0
            held, copy = await _register(port, phone, registration)
            assert held.result == REFUSED
            records = await sessions.records(key=phone, min_count=2)
            [notice] = [r for r in records if r["event"] == "security"]
            _decide(pg_url, notice["request_id"], "refused")
            again, _ = await _register(port, phone, registration)
            assert (again.result, again.auth_code) == (REFUSED, None)
            assert await _position_acked(real)
            await copy.close()
            await real.close()

    asyncio.run(main())


def test_an_approval_not_used_in_time_expires_and_a_new_request_is_shown(
        pg_url: str, kafka_bootstrap: str, free_port: Callable[[], int]) -> None:
    [phone] = unique_phones(1)
    insert_devices(pg_url, [phone])
    _set_policy(pg_url, phone, approve=True)
    registration = _registration(phone[-7:])

    async def main() -> None:
        port = free_port()
        async with running_gateway(pg_url, kafka_bootstrap, port), tail(kafka_bootstrap, DEVICE_SESSIONS) as sessions:
            first, real = await _register(port, phone, registration)
            assert first.auth_code and await _authenticate(real, first.auth_code) == 0
            _, copy = await _register(port, phone, registration)
            [notice] = [r for r in await sessions.records(key=phone, min_count=2) if r["event"] == "security"]
            with psycopg.connect(pg_url, autocommit=True) as conn:  # approved an hour ago, never used
                conn.execute("UPDATE registration_request SET state = 'approved', decided_at = now() - interval "
                             "'1 hour' WHERE id = %s", (notice["request_id"],))
            again, _ = await _register(port, phone, registration)
            assert (again.result, again.auth_code) == (REFUSED, None)
            [renewed] = [r for r in await sessions.records(key=phone, min_count=1) if r["event"] == "security"]
            assert renewed["reason"] == "reregistration_pending"
            assert renewed["request_id"] != notice["request_id"]
            assert await _position_acked(real)
            await copy.close()
            await real.close()

    asyncio.run(main())

