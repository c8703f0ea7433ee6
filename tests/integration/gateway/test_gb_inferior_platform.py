"""A GB/T 32960 inferior platform on the GB gateway (platform-spec §2, the gb32960 exchange's inferiorPlatform;
GB/T 32960.3-2016 §7.5), on the real PostgreSQL and Kafka: its platform login 0x05 is accepted with the
configured username and password (else 0x02 and closed); the real-time data it relays for a vehicle of its
enterprise tree (identity by VIN) is in Kafka as that vehicle's uplink before it is answered; a VIN outside its
tree or unknown is answered 0x02 and not forwarded; heartbeat and logout are answered; a disabled platform's login
is refused and is its row's last error; a username no platform has is refused and its attempts recorded."""

from __future__ import annotations

import asyncio
import uuid

import psycopg
import pytest

from fleet.gb32960_records import GbUplink
from fleet.topics import GB32960_UPLINK
from protocols.gb32960 import Encryption, Response, TimeOnly, encode_frame
from protocols.gb32960.cipher import AesKey, encrypt_frame
from protocols.gb32960.header import parse_header
from protocols.gb32960.messages import Heartbeat, PlatformLogin, PlatformLogout
from tests.integration.gateway.gb_support import (
    AT,
    GbTerminal,
    insert_vehicle,
    nth_time,
    realtime_body,
    running_gb_gateway,
    unique_vin,
)
from tests.integration.gateway.support import tail

pytestmark = pytest.mark.timeout(90)


def _inferior(pg_url: str, enterprise_id: int, username: str, password: str, key: AesKey | None = None) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("UPDATE enterprise SET path = '/' || id || '/' WHERE id = %s AND path = ''", (enterprise_id,))
        conn.execute("INSERT INTO gb32960_inferior_platform (enterprise_id, name, username, password, aes_key, aes_iv) "
                     "VALUES (%s, %s, %s, %s, %s, %s)", (enterprise_id, f"inferior-{username}", username, password,
                                                         key and key.key.hex(), key and key.iv.hex()))


def test_an_inferior_platform_logs_in_and_relays_its_vehicles_data(pg_url: str, kafka_bootstrap: str) -> None:
    vin, foreign_vin, unknown_vin = unique_vin(), unique_vin(), unique_vin()
    ids = insert_vehicle(pg_url, vin)
    insert_vehicle(pg_url, foreign_vin)  # another enterprise's vehicle
    username = f"i{uuid.uuid4().hex[:10]}"
    _inferior(pg_url, ids["enterprise_id"], username, "relay-pass")

    async def main() -> None:
        async with running_gb_gateway(pg_url, kafka_bootstrap) as server, tail(kafka_bootstrap, GB32960_UPLINK) as uplinks:
            platform = await GbTerminal.connect(server.port_of("gb32960"), "")
            await platform.send(0x05, PlatformLogin(AT, 1, username, "relay-pass", 1))
            answer = await platform.receive()
            assert (answer.header.command, answer.header.response, answer.body) == (0x05, Response.SUCCESS,
                                                                                     TimeOnly(AT))
            sent = await platform.send(0x02, realtime_body(nth_time(1), soc=64), vin=vin)
            answer = await platform.receive()
            assert (answer.header.command, answer.header.response, answer.header.vin) == (0x02, Response.SUCCESS, vin)
            found = [GbUplink.from_json(r) for r in await uplinks.records(min_count=1, timeout_s=5)
                     if r.get("vin") == vin]  # answered, so already in Kafka
            assert [(u.command, u.car_id, u.device_id, u.enterprise_id, u.raw_hex) for u in found] == [
                (0x02, ids["car_id"], ids["device_id"], ids["enterprise_id"], sent.hex())]
            for other in (foreign_vin, unknown_vin):  # identity by VIN, in the platform's tree only
                await platform.send(0x03, realtime_body(nth_time(2)), vin=other)
                answer = await platform.receive()
                assert (answer.header.command, answer.header.response, answer.header.vin) == (
                    0x03, Response.ERROR, other)
            await platform.send(0x07, Heartbeat())
            assert (await platform.receive()).header.response == Response.SUCCESS
            await platform.send(0x02, realtime_body(nth_time(3), soc=63), vin=vin)  # the looked-up vehicle again
            assert (await platform.receive()).header.response == Response.SUCCESS
            await platform.send(0x06, PlatformLogout(nth_time(4), 1))
            assert (await platform.receive()).header.command == 0x06
            with pytest.raises(ConnectionError):
                await platform.receive(timeout_s=3)
            later = [r for r in await uplinks.records(min_count=10, timeout_s=2)
                     if r.get("vin") in (foreign_vin, unknown_vin)]
            assert later == []

    asyncio.run(main())


def test_an_inferior_platforms_aes_data_is_decrypted_before_kafka_and_a_wrong_key_refused(
        pg_url: str, kafka_bootstrap: str) -> None:
    vin = unique_vin()
    ids = insert_vehicle(pg_url, vin)
    username = f"a{uuid.uuid4().hex[:10]}"
    key = AesKey(bytes.fromhex("2b7e151628aed2a6abf7158809cf4f3c"), bytes.fromhex("000102030405060708090a0b0c0d0e0f"))
    _inferior(pg_url, ids["enterprise_id"], username, "relay-pass", key)

    async def main() -> None:
        async with running_gb_gateway(pg_url, kafka_bootstrap) as server, tail(kafka_bootstrap, GB32960_UPLINK) as uplinks:
            platform = await GbTerminal.connect(server.port_of("gb32960"), "")
            await platform.send(0x05, PlatformLogin(AT, 1, username, "relay-pass", Encryption.AES128))
            assert (await platform.receive()).header.response == Response.SUCCESS
            clear = await platform.send(0x02, realtime_body(nth_time(1), soc=61), vin=vin)
            assert (await platform.receive()).header.response == Response.SUCCESS  # the clear frame still goes
            second = encode_frame(0x02, realtime_body(nth_time(2), soc=62), vin=vin)
            await platform.send_raw(encrypt_frame(second, key))
            answer = await platform.receive()
            assert (answer.header.command, answer.header.response, answer.body) == (0x02, Response.SUCCESS,
                                                                                     TimeOnly(nth_time(2)))
            wrong = encrypt_frame(clear, AesKey(bytes(16), key.iv))
            await platform.send_raw(wrong)
            header = parse_header(await platform.receive_raw())  # no time in it: the frame could not be read
            assert (header.command, header.response, header.length) == (0x02, Response.ERROR, 0)
            found = [GbUplink.from_json(r) for r in await uplinks.records(min_count=2, timeout_s=5)
                     if r.get("vin") == vin]
            # what Kafka holds is the clear frame: every reader after the gateway decodes it as sent in clear
            assert [(u.car_id, u.raw_hex) for u in found] == [(ids["car_id"], clear.hex()),
                                                              (ids["car_id"], second.hex())]
            assert server.counters.refused_undecryptable == 1
        with psycopg.connect(pg_url) as conn:
            row = conn.execute("SELECT last_error, aes_key_set FROM gb32960_inferior_platform_view "
                               "WHERE username = %s", (username,)).fetchone()
        assert row == ("undecryptable", True)

    asyncio.run(main())


def test_a_wrong_password_is_answered_error_and_the_connection_closed(pg_url: str, kafka_bootstrap: str) -> None:
    ids = insert_vehicle(pg_url, unique_vin())
    username = f"i{uuid.uuid4().hex[:10]}"
    _inferior(pg_url, ids["enterprise_id"], username, "right")

    nobody = f"n{uuid.uuid4().hex[:10]}"  # no platform has it

    def unknown() -> tuple[object, ...] | None:
        with psycopg.connect(pg_url, autocommit=True) as conn:
            return conn.execute("SELECT address, attempts, first_at <= last_at FROM gb32960_unknown_login"
                                " WHERE username = %s", (nobody,)).fetchone()

    async def main() -> None:
        async with running_gb_gateway(pg_url, kafka_bootstrap, inferior_link_flush_s=0.2) as server:
            for user, password in ((username, "wrong"), (nobody, "right"), (nobody, "again")):
                platform = await GbTerminal.connect(server.port_of("gb32960"), "")
                await platform.send(0x05, PlatformLogin(AT, 1, user, password, 1))
                answer = await platform.receive()
                assert (answer.header.command, answer.header.response) == (0x05, Response.ERROR)
                with pytest.raises(ConnectionError):
                    await platform.receive(timeout_s=3)
            # data before a login is refused
            platform = await GbTerminal.connect(server.port_of("gb32960"), "")
            await platform.send(0x07, Heartbeat())
            assert (await platform.receive()).header.response == Response.ERROR
            await platform.close()
            # the unknown username's two attempts, from this host, for the root's administrators (migration 0064)
            async with asyncio.timeout(10):
                while (found := unknown()) is None or found[1] < 2:
                    await asyncio.sleep(0.05)
            assert found == ("127.0.0.1", 2, True)

    asyncio.run(main())


def test_a_disabled_platforms_login_is_refused_and_shown_on_its_row(pg_url: str, kafka_bootstrap: str) -> None:
    """Migration 0062: the refusal is the platform's last error (the gateway writes it within its flush
    interval); a username no platform has names no row."""
    ids = insert_vehicle(pg_url, unique_vin())
    username = f"i{uuid.uuid4().hex[:10]}"
    _inferior(pg_url, ids["enterprise_id"], username, "right")
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("UPDATE gb32960_inferior_platform SET enabled = false WHERE username = %s", (username,))

    def link() -> tuple[object, ...] | None:
        with psycopg.connect(pg_url, autocommit=True) as conn:
            return conn.execute(
                "SELECT v.link_state, v.last_error, v.refused, v.logins FROM gb32960_inferior_platform_view v "
                "WHERE v.username = %s AND v.last_error IS NOT NULL", (username,)).fetchone()

    async def main() -> None:
        async with running_gb_gateway(pg_url, kafka_bootstrap, inferior_link_flush_s=0.2) as server:
            platform = await GbTerminal.connect(server.port_of("gb32960"), "")
            await platform.send(0x05, PlatformLogin(AT, 1, username, "right", 1))
            assert (await platform.receive()).header.response == Response.ERROR
            with pytest.raises(ConnectionError):
                await platform.receive(timeout_s=3)
            async with asyncio.timeout(10):
                while (found := link()) is None:
                    await asyncio.sleep(0.05)
            assert found == ("offline", "platform_disabled", 1, 0)

    asyncio.run(main())


def test_a_gateway_starting_again_ends_the_sessions_its_previous_run_left_online(pg_url: str,
                                                                               kafka_bootstrap: str) -> None:
    """A gateway killed with -9 wrote no offline: at its next start (same gateway_id) its rows go offline."""
    ids = insert_vehicle(pg_url, unique_vin())
    username = f"i{uuid.uuid4().hex[:10]}"
    _inferior(pg_url, ids["enterprise_id"], username, "right")
    gateway_id = f"gb-it-{uuid.uuid4().hex[:6]}"
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("INSERT INTO gb32960_inferior_link_state (platform_id, gateway_id, state, since, frames) "
                     "SELECT id, %s, 'online', now() - interval '1 hour', 42 FROM gb32960_inferior_platform "
                     "WHERE username = %s", (gateway_id, username))

    def state() -> tuple[object, ...] | None:
        with psycopg.connect(pg_url, autocommit=True) as conn:
            return conn.execute("SELECT s.state, s.frames FROM gb32960_inferior_link_state s "
                                "JOIN gb32960_inferior_platform p ON p.id = s.platform_id "
                                "WHERE p.username = %s", (username,)).fetchone()

    async def main() -> None:
        async with running_gb_gateway(pg_url, kafka_bootstrap, gateway_id=gateway_id, inferior_link_flush_s=0.2):
            async with asyncio.timeout(10):
                while state() != ("offline", 42):  # the counts are kept
                    await asyncio.sleep(0.05)

    asyncio.run(main())
