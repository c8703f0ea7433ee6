"""The gateway on the real PostgreSQL and Kafka of the test session."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import psycopg
import pytest
from aiokafka import AIOKafkaProducer

from fleet.phones import canonical_phone
from fleet.settings import SimulatorSettings
from fleet.topics import DEVICE_SESSIONS, JT808_DOWNLINK, JT808_UPLINK
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
    tcp_proxy,
    unique_phones,
)

pytestmark = pytest.mark.timeout(60)

FIX_AT = datetime(2026, 3, 1, 8, 30, 0, tzinfo=UTC)
POSITION = LocationReport(0, 3, 39.9, 116.4, 50, 42.5, 90, FIX_AT, {"mileage_km": 1234.5})


def _registration(terminal_id: str) -> Registration:
    return Registration(11, 100, "FLEET", "SIM-808", terminal_id, 2, "")


async def _login(port: int, phone: str, code: str) -> TerminalClient:
    client = await TerminalClient.connect(port, phone)
    await client.send(0x0102, Authentication(code))
    ack = await client.receive()
    assert isinstance(ack.body, PlatformResponse) and ack.body.result == 0
    return client


def test_known_terminal_registers_and_authenticates_unknown_gets_result_4(
        pg_url: str, kafka_bootstrap: str, free_port: Callable[[], int]) -> None:
    known, unknown = unique_phones(2)
    ids = insert_devices(pg_url, [known])

    async def main() -> None:
        port = free_port()
        async with running_gateway(pg_url, kafka_bootstrap, port), tail(kafka_bootstrap, DEVICE_SESSIONS) as sessions:
            client = await TerminalClient.connect(port, known)
            await client.send(0x0100, _registration(known[-7:]))
            reply = await client.receive()
            assert isinstance(reply.body, RegistrationResponse) and reply.body.result == 0
            code = reply.body.auth_code
            assert code
            await client.send(0x0102, Authentication("WRONG"))
            wrong = await client.receive()
            assert isinstance(wrong.body, PlatformResponse) and wrong.body.result == 1
            await client.send(0x0102, Authentication(code))
            ok = await client.receive()
            assert isinstance(ok.body, PlatformResponse) and ok.body.result == 0
            [online] = await sessions.records(key=known)
            assert (online["event"], online["reason"], online["device_id"]) == ("online", "auth", ids[known])

            stranger = await TerminalClient.connect(port, unknown)
            await stranger.send(0x0100, _registration("X"))
            refused = await stranger.receive()
            assert isinstance(refused.body, RegistrationResponse) and refused.body.result == 4
            await client.close()
            await stranger.close()
        with psycopg.connect(pg_url) as conn:
            row = conn.execute("SELECT auth_code, device_sn, terminal_model FROM device WHERE phone = %s",
                               (canonical_phone(known),)).fetchone()
            assert row == (code, f"SIM{known[-7:]}", "SIM-808")  # the serial stays the administrator's
            assert conn.execute("SELECT count(*) FROM device WHERE phone = %s", (unknown,)).fetchone() == (0,)

    asyncio.run(main())


def test_a_terminal_id_another_device_of_the_enterprise_has_still_registers_and_keeps_the_typed_serial(
        pg_url: str, kafka_bootstrap: str, free_port: Callable[[], int], caplog: pytest.LogCaptureFixture) -> None:
    first, second = unique_phones(2)
    ids = insert_devices(pg_url, [first, second])  # one enterprise; serials SIM<last 7 digits>
    with psycopg.connect(pg_url, autocommit=True) as conn:  # the administrator typed these serials
        conn.execute("UPDATE device SET device_sn = 'TID0001' WHERE id = %s", (ids[first],))
        conn.execute("UPDATE device SET device_sn = 'TYPED-SN-2' WHERE id = %s", (ids[second],))

    async def main() -> None:
        port = free_port()
        async with running_gateway(pg_url, kafka_bootstrap, port):
            client = await TerminalClient.connect(port, second)
            # another maker's terminal reports the id that is the first device's serial
            await client.send(0x0100, _registration("TID0001"))
            reply = await client.receive()
            assert isinstance(reply.body, RegistrationResponse) and reply.body.result == 0 and reply.body.auth_code
            await client.close()

    with caplog.at_level("WARNING", logger="gateway.connection"):
        asyncio.run(main())
    with psycopg.connect(pg_url) as conn:
        row = conn.execute("SELECT device_sn, registered_terminal_id FROM device WHERE id = %s",
                           (ids[second],)).fetchone()
    assert row == ("TYPED-SN-2", "TID0001")  # the typed serial is not replaced; the report is kept beside it
    [line] = [r.getMessage() for r in caplog.records if "also that of" in r.getMessage()]
    assert canonical_phone(second) in line or second in line
    assert f"device {ids[first]} (phone {canonical_phone(first)})" in line


def test_position_is_in_kafka_with_the_documented_payload_before_its_ack(
        pg_url: str, kafka_bootstrap: str, free_port: Callable[[], int]) -> None:
    [phone] = unique_phones(1)
    ids = insert_devices(pg_url, [phone], auth_code="C0DE")

    async def main() -> None:
        port = free_port()
        async with running_gateway(pg_url, kafka_bootstrap, port), tail(kafka_bootstrap, JT808_UPLINK) as uplinks:
            client = await TerminalClient.connect(port, phone)
            await client.send(0x0200, POSITION, seq=50)  # before authentication
            rejected = await client.receive()
            assert isinstance(rejected.body, PlatformResponse) and rejected.body.result == 1
            await client.send(0x0102, Authentication("C0DE"), seq=51)
            await client.receive()
            await client.send(0x0200, POSITION, seq=52)
            ack = await client.receive()
            assert isinstance(ack.body, PlatformResponse) and (ack.body.reply_seq, ack.body.result) == (52, 0)
            # acknowledged, so already stored in Kafka: readable right now
            records = await uplinks.records(key=phone, timeout_s=5)
            assert [r["seq"] for r in records] == [52]  # the pre-authentication frame is not there
            uplink = records[0]
            assert set(uplink) == {"phone", "device_id", "car_id", "enterprise_id", "msg_id", "seq",
                                   "protocol_version", "raw_hex", "message", "connection_id", "gateway_id",
                                   "received_at"}
            assert (uplink["phone"], uplink["device_id"], uplink["msg_id"]) == (phone, ids[phone], 0x0200)
            assert uplink["protocol_version"] == "2013" and uplink["gateway_id"] == f"gw-it-{port}"
            assert uplink["message"]["body"]["fix_at"] == "2026-03-01T08:30:00+00:00"
            assert uplink["message"]["body"]["extras"]["mileage_km"] == 1234.5
            assert uplink["raw_hex"].startswith("7e0200")
            await client.close()

    asyncio.run(main())


def test_no_ack_while_kafka_is_unreachable_then_acked_once_it_is_back(
        pg_url: str, kafka_bootstrap: str, free_port: Callable[[], int]) -> None:
    [phone] = unique_phones(1)
    insert_devices(pg_url, [phone], auth_code="C0DE")
    dead_port = free_port()

    async def main() -> None:
        port = free_port()
        async with running_gateway(pg_url, f"127.0.0.1:{dead_port}", port):
            client = await _login(port, phone, "C0DE")  # authentication needs only the database
            await client.send(0x0200, POSITION, seq=7)
            with pytest.raises(TimeoutError):
                await client.receive(timeout_s=3.0)
            async with tcp_proxy(dead_port, kafka_bootstrap):
                ack = await client.receive(timeout_s=15.0)
                assert isinstance(ack.body, PlatformResponse) and (ack.body.reply_seq, ack.body.result) == (7, 0)
            await client.close()

    asyncio.run(main())


def test_downlink_reaches_the_connection_holding_the_terminal(
        pg_url: str, kafka_bootstrap: str, free_port: Callable[[], int]) -> None:
    target, other = unique_phones(2)
    insert_devices(pg_url, [target, other], auth_code="C0DE")

    async def main() -> None:
        port = free_port()
        async with running_gateway(pg_url, kafka_bootstrap, port) as gateway:
            a = await _login(port, target, "C0DE")
            b = await _login(port, other, "C0DE")
            await asyncio.wait_for(gateway.downlinks_ready.wait(), 10)
            producer = AIOKafkaProducer(bootstrap_servers=kafka_bootstrap)
            await producer.start()
            try:
                value = {"phone": target, "msg_id": 0x8104, "body_hex": "", "command_id": "cmd-1",
                         "created_at": datetime.now(UTC).isoformat()}
                await producer.send_and_wait(JT808_DOWNLINK, json.dumps(value).encode(), key=target.encode())
            finally:
                await producer.stop()
            msg = await a.receive(timeout_s=10)
            assert (msg.header.msg_id, msg.header.phone) == (0x8104, target)
            with pytest.raises(TimeoutError):
                await b.receive(timeout_s=1.0)
            await a.close()
            await b.close()

    asyncio.run(main())


def test_simulated_terminals_register_report_and_get_every_position_acknowledged(
        pg_url: str, kafka_bootstrap: str, free_port: Callable[[], int], tmp_path: Path) -> None:
    phones = unique_phones(5)
    insert_devices(pg_url, phones)
    prefix = phones[0][:4]
    first_index = int(phones[0][4:])

    async def main() -> None:
        port = free_port()
        async with running_gateway(pg_url, kafka_bootstrap, port), tail(kafka_bootstrap, JT808_UPLINK) as uplinks:
            settings = SimulatorSettings().model_copy(update={
                "gateway_port": port, "phone_prefix": prefix, "ack_timeout_s": 3.0})
            sent_log = tmp_path / "sent.csv"
            stats = await run_fleet(settings, 5, 1.0, duration_s=3.5, first_index=first_index,
                                    sent_log=sent_log, auth_store=MemoryAuthStore(), drain_timeout_s=10)
            assert stats.registrations == 5 and stats.auth_failures == 0
            assert stats.sent >= 10 and stats.acked == stats.sent and stats.unacked == 0
            lines = sent_log.read_text().splitlines()[1:]
            assert len(lines) == stats.sent == len(set(lines))  # (phone, fix_at) unique
            records = await uplinks.records(min_count=stats.sent, timeout_s=5)
            positions = {(r["phone"], r["message"]["body"]["fix_at"]) for r in records if r["msg_id"] == 0x0200}
            assert len(positions) >= stats.sent

    asyncio.run(main())
