"""Terminal takeover through the real gateway, PostgreSQL and Kafka."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import psycopg
import pytest

from fleet.phones import canonical_phone
from fleet.settings import SimulatorSettings
from fleet.topics import DEVICE_SESSIONS
from protocols.jt808 import (
    Authentication,
    LocationReport,
    PlatformResponse,
    Registration,
    RegistrationResponse,
)
from simulator.fleet import MemoryAuthStore, run_fleet
from tests.integration.gateway.support import (
    TerminalClient,
    insert_devices,
    running_gateway,
    tail,
    unique_phones,
)
from tests.integration.gateway.test_gateway_stack import POSITION
from warehouse.queries.registration import reset_registration
from warehouse.queries.scope import Scope

pytestmark = pytest.mark.timeout(90)


def _registration(terminal_id: str, maker: str = "FLEET", model: str = "SIM-808") -> Registration:
    return Registration(11, 100, maker, model, terminal_id, 2, "")


async def _register(port: int, phone: str, registration: Registration) -> tuple[RegistrationResponse, TerminalClient]:
    client = await TerminalClient.connect(port, phone)
    await client.send(0x0100, registration)
    reply = await client.receive()
    assert isinstance(reply.body, RegistrationResponse)
    return reply.body, client


async def _authenticate(client: TerminalClient, code: str) -> int:
    await client.send(0x0102, Authentication(code))
    ack = await client.receive()
    assert isinstance(ack.body, PlatformResponse)
    return ack.body.result


async def _position_acked(client: TerminalClient, report: LocationReport = POSITION) -> bool:
    seq = await client.send(0x0200, report)
    ack = await client.receive(timeout_s=10)
    return isinstance(ack.body, PlatformResponse) and (ack.body.reply_seq, ack.body.result) == (seq, 0)


def _registration_row(pg_url: str, phone: str) -> tuple[object, ...]:
    with psycopg.connect(pg_url) as conn:
        row = conn.execute("SELECT auth_code, registered_terminal_id, registered_manufacturer_id, "
                           "registered_terminal_model FROM device WHERE phone = %s", (canonical_phone(phone),)).fetchone()
    assert row is not None
    return tuple(row)


def test_attacks_of_the_issue_fail_and_the_real_terminal_keeps_working(
        pg_url: str, kafka_bootstrap: str, free_port: Callable[[], int]) -> None:
    [phone] = unique_phones(1)
    insert_devices(pg_url, [phone])  # serial SIM + the phone's last 7 digits, no code yet

    async def main() -> None:
        port = free_port()
        async with running_gateway(pg_url, kafka_bootstrap, port), tail(kafka_bootstrap, DEVICE_SESSIONS) as sessions:
            first, real = await _register(port, phone, _registration(phone[-7:]))
            assert first.result == 0 and first.auth_code
            assert await _authenticate(real, first.auth_code) == 0
            for attack in ("", phone[-1], phone[-6:]):  # empty id, last character, a shorter tail
                reply, attacker = await _register(port, phone, _registration(attack))
                # refused as "no such terminal" (4): "already registered" (3) would confirm the phone to a stranger
                assert (reply.result, reply.auth_code) == (4, None), attack
                assert await _authenticate(attacker, reply.auth_code or "GUESS") == 1
                await attacker.close()
            assert await _position_acked(real)
            records = await sessions.records(key=phone, min_count=2, timeout_s=3)
            assert [(r["event"], r["reason"]) for r in records] == [("online", "auth")]
            await real.close()
        assert _registration_row(pg_url, phone) == (first.auth_code, phone[-7:], "FLEET", "SIM-808")

    asyncio.run(main())


def test_new_connection_with_the_code_evicts_the_live_one_and_a_security_notice_is_published(
        pg_url: str, kafka_bootstrap: str, free_port: Callable[[], int]) -> None:
    [phone] = unique_phones(1)
    ids = insert_devices(pg_url, [phone], auth_code="C0DE")

    async def main() -> None:
        port = free_port()
        async with running_gateway(pg_url, kafka_bootstrap, port), tail(kafka_bootstrap, DEVICE_SESSIONS) as sessions:
            old = await TerminalClient.connect(port, phone)
            assert await _authenticate(old, "C0DE") == 0
            new = await TerminalClient.connect(port, phone)
            assert await _authenticate(new, "C0DE") == 0
            with pytest.raises(ConnectionError):
                await old.receive(timeout_s=5)
            records = await sessions.records(key=phone, min_count=4)
            assert [(r["event"], r["reason"]) for r in records] == [
                ("online", "auth"), ("offline", "replaced"), ("security", "session_replaced"), ("online", "auth")]
            notice = records[2]
            assert notice["device_id"] == ids[phone] and notice["peer"].startswith("127.0.0.1:")
            assert notice["replaced_connection_id"] == records[0]["connection_id"] != notice["connection_id"]
            assert await _position_acked(new)
            await new.close()

    asyncio.run(main())


def test_deregistration_then_administrator_reset_let_a_terminal_register_afresh(
        pg_url: str, kafka_bootstrap: str, free_port: Callable[[], int]) -> None:
    [phone] = unique_phones(1)
    insert_devices(pg_url, [phone])

    async def main() -> None:
        port = free_port()
        async with running_gateway(pg_url, kafka_bootstrap, port):
            first, client = await _register(port, phone, _registration(phone[-7:]))
            assert first.auth_code and await _authenticate(client, first.auth_code) == 0
            seq = await client.send(0x0003)
            ack = await client.receive()
            assert isinstance(ack.body, PlatformResponse) and (ack.body.reply_seq, ack.body.result) == (seq, 0)
            with pytest.raises(ConnectionError):
                await client.receive(timeout_s=5)
            assert _registration_row(pg_url, phone) == (None, None, None, None)
            # new hardware registers as a first registration
            second, client = await _register(port, phone, _registration("NEW0001", "ACME", "T-2"))
            assert second.result == 0 and second.auth_code not in (None, first.auth_code)
            await client.close()
            # the administrator's reset (the API's query, same SQL) frees it again
            with psycopg.connect(pg_url) as conn:
                enterprise_id, path = conn.execute(
                    "SELECT e.id, e.path FROM device d JOIN enterprise e ON e.id = d.enterprise_id "
                    "WHERE d.phone = %s", (canonical_phone(phone),)).fetchone() or (0, "")
                assert reset_registration(conn, Scope(enterprise_id, path), 0) is None
                assert reset_registration(conn, Scope(enterprise_id, path), _device_id(conn, phone)) is not None
                conn.commit()
            third, client = await _register(port, phone, _registration(phone[-7:]))
            assert third.result == 0 and third.auth_code and await _authenticate(client, third.auth_code) == 0
            await client.close()

    asyncio.run(main())


def _device_id(conn: psycopg.Connection[tuple[object, ...]], phone: str) -> int:
    row = conn.execute("SELECT id FROM device WHERE phone = %s", (canonical_phone(phone),)).fetchone()
    assert row is not None
    return int(str(row[0]))


def test_same_terminal_re_registering_gets_a_new_code_and_the_old_code_fails(
        pg_url: str, kafka_bootstrap: str, free_port: Callable[[], int]) -> None:
    [phone] = unique_phones(1)
    insert_devices(pg_url, [phone])

    async def main() -> None:
        port = free_port()
        async with running_gateway(pg_url, kafka_bootstrap, port):
            first, client = await _register(port, phone, _registration(phone[-7:]))
            await client.close()
            again, client = await _register(port, phone, _registration(phone[-7:]))
            assert again.result == 0 and again.auth_code not in (None, first.auth_code)
            assert await _authenticate(client, first.auth_code or "") == 1
            assert again.auth_code and await _authenticate(client, again.auth_code) == 0
            await client.close()

    asyncio.run(main())


def test_a_registration_sent_again_on_its_serial_keeps_the_code_of_the_first_answer(
        pg_url: str, kafka_bootstrap: str, free_port: Callable[[], int]) -> None:
    # A slow answer: the terminal sends its 0x0100 again with the same serial before the 0x8100 came. Both copies
    # reach the gateway; the terminal authenticates with the code of the first answer, which must stay valid.
    [phone] = unique_phones(1)
    insert_devices(pg_url, [phone])

    async def main() -> None:
        port = free_port()
        async with running_gateway(pg_url, kafka_bootstrap, port), tail(kafka_bootstrap, DEVICE_SESSIONS) as sessions:
            client = await TerminalClient.connect(port, phone)
            seq = await client.send(0x0100, _registration(phone[-7:]))
            await client.send(0x0100, _registration(phone[-7:]), seq=seq)
            first, again = await client.receive(), await client.receive()
            assert isinstance(first.body, RegistrationResponse) and isinstance(again.body, RegistrationResponse)
            assert (first.body.reply_seq, first.body.result) == (again.body.reply_seq, again.body.result) == (seq, 0)
            assert first.body.auth_code and again.body.auth_code == first.body.auth_code
            assert _registration_row(pg_url, phone)[0] == first.body.auth_code
            assert await _authenticate(client, first.body.auth_code) == 0
            records = await sessions.records(key=phone, min_count=1)
            assert [(r["event"], r["reason"]) for r in records] == [("online", "auth")]  # no code_replaced notice
            await client.close()

    asyncio.run(main())


def test_simulated_terminals_that_lost_their_codes_re_register_and_authenticate(
        pg_url: str, kafka_bootstrap: str, free_port: Callable[[], int]) -> None:
    phones = unique_phones(3)
    insert_devices(pg_url, phones)
    prefix, first_index = phones[0][:4], int(phones[0][4:])

    async def main() -> None:
        port = free_port()
        async with running_gateway(pg_url, kafka_bootstrap, port):
            settings = SimulatorSettings().model_copy(update={"gateway_port": port, "phone_prefix": prefix})
            for _ in range(2):  # the second run has no cached codes (var/simulator-auth.json lost)
                stats = await run_fleet(settings, 3, 1.0, duration_s=1.5, first_index=first_index,
                                        auth_store=MemoryAuthStore(), drain_timeout_s=10)
                assert stats.registrations == 3 and stats.auth_failures == 0 and stats.registration_failures == 0
                assert stats.acked == stats.sent > 0

    asyncio.run(main())


def test_unauthenticated_connections_are_capped_and_closed_at_their_deadline_while_terminals_keep_acks(
        pg_url: str, kafka_bootstrap: str, free_port: Callable[[], int]) -> None:
    [phone] = unique_phones(1)
    insert_devices(pg_url, [phone], auth_code="C0DE")

    async def main() -> None:
        port = free_port()
        async with running_gateway(pg_url, kafka_bootstrap, port, unauthenticated_max=2, auth_deadline_s=1.0) as gw:
            real = await TerminalClient.connect(port, phone)
            assert await _authenticate(real, "C0DE") == 0
            waiting = [await TerminalClient.connect(port, "013899990001") for _ in range(2)]
            refused = await TerminalClient.connect(port, "013899990002")
            with pytest.raises(ConnectionError):  # closed at once: over the cap
                await refused.receive(timeout_s=1.0)
            assert await _position_acked(real)
            for client in waiting:  # never authenticated: closed at the deadline
                with pytest.raises(ConnectionError):
                    await client.receive(timeout_s=5.0)
            assert gw.counters.unauthenticated_refused == 1 and gw.counters.auth_deadline_closed == 2
            assert await _position_acked(real)
            await real.close()

    asyncio.run(main())
