"""Downlink pacing, jt808.sent.v1 records and terminal identity on the real PostgreSQL and Kafka:
a terminal over TCP, downlinks produced to Kafka as the API produces them."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from aiokafka import AIOKafkaProducer

from fleet.phones import canonical_phone
from fleet.topics import JT808_DOWNLINK, JT808_SENT
from gateway.server import GatewayServer
from protocols.jt808 import (
    Authentication,
    Message,
    PlatformResponse,
    Registration,
    RegistrationResponse,
    TerminalResponse,
)
from tests.integration.gateway.support import (
    TerminalClient,
    insert_devices,
    running_gateway,
    tail,
    unique_phones,
)

pytestmark = pytest.mark.timeout(60)


async def _produce(kafka_bootstrap: str, *downlinks: dict[str, Any], gap_s: float = 0.0) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=kafka_bootstrap, linger_ms=0)
    await producer.start()
    try:
        for value in downlinks:
            value = {**value, "created_at": datetime.now(UTC).isoformat()}
            await producer.send_and_wait(JT808_DOWNLINK, json.dumps(value).encode(), key=value["phone"].encode())
            await asyncio.sleep(gap_s)
    finally:
        await producer.stop()


async def _next_command(client: TerminalClient, timeout_s: float = 10.0) -> Message:
    """The next platform message that is not a 0x8001 acknowledgement."""
    while True:
        msg = await client.receive(timeout_s=timeout_s)
        if msg.header.msg_id != 0x8001:
            return msg


async def _ready(gateway: GatewayServer) -> None:
    await asyncio.wait_for(gateway.downlinks_ready.wait(), 10)


def test_back_to_back_downlinks_are_paced_and_sent_records_carry_the_serials_used(
        pg_url: str, kafka_bootstrap: str, free_port: Callable[[], int]) -> None:
    [phone] = unique_phones(1)
    ids = insert_devices(pg_url, [phone], auth_code="C0DE")
    key = canonical_phone(phone)

    async def main() -> None:
        port = free_port()
        async with running_gateway(pg_url, kafka_bootstrap, port) as gateway, tail(kafka_bootstrap, JT808_SENT) as sent:
            client = await TerminalClient.connect(port, phone)
            await client.send(0x0102, Authentication("C0DE"))
            ack = await client.receive()
            assert isinstance(ack.body, PlatformResponse) and ack.body.result == 0
            await _ready(gateway)
            # 3 ms apart, as libjt808 saw them arrive in one read
            await _produce(kafka_bootstrap, {"phone": key, "msg_id": 0x8104, "body_hex": "", "command_id": "901"},
                           {"phone": key, "msg_id": 0x8106, "body_hex": "0100000055", "command_id": "902"},
                           gap_s=0.003)
            first = await _next_command(client)
            assert first.header.msg_id == 0x8104 and first.header.phone == phone
            with pytest.raises(TimeoutError):  # the second waits for the first's reply
                await _next_command(client, timeout_s=1.5)
            await client.send(0x0001, TerminalResponse(first.header.seq, 0x8104, 0))
            second = await _next_command(client)
            assert second.header.msg_id == 0x8106
            records = await sent.records(key=key, min_count=2)
            by_command = {r["command_id"]: r for r in records}
            assert by_command["901"]["seq"] == first.header.seq
            assert by_command["902"]["seq"] == second.header.seq
            assert by_command["901"]["raw_hex"] == first.raw.hex() and by_command["902"]["raw_hex"] == second.raw.hex()
            for record in records:
                assert (record["event"], record["reason"], record["device_id"], record["phone"], record["packages"]) \
                    == ("sent", None, ids[phone], key, 1)
            assert {r["msg_id"] for r in records} == {0x8104, 0x8106}  # no record of the 0x8001 replies
            await client.send(0x0001, TerminalResponse(second.header.seq, 0x8106, 0))
            await client.send(0x0002)  # a heartbeat behind it: once acknowledged, the reply was handled
            assert (await client.receive()).header.msg_id == 0x8001
            await client.close()
            closed = await sent.records(key=key, min_count=1, timeout_s=2.0)
            assert closed == []  # so no failed record at close

    asyncio.run(main())


def test_a_downlink_left_waiting_at_close_is_a_failed_record(
        pg_url: str, kafka_bootstrap: str, free_port: Callable[[], int]) -> None:
    [phone] = unique_phones(1)
    insert_devices(pg_url, [phone], auth_code="C0DE")
    key = canonical_phone(phone)

    async def main() -> None:
        port = free_port()
        async with running_gateway(pg_url, kafka_bootstrap, port) as gateway, tail(kafka_bootstrap, JT808_SENT) as sent:
            client = await TerminalClient.connect(port, phone)
            await client.send(0x0102, Authentication("C0DE"))
            await client.receive()
            await _ready(gateway)
            await _produce(kafka_bootstrap, {"phone": key, "msg_id": 0x8201, "body_hex": "", "command_id": "911"},
                           {"phone": key, "msg_id": 0x8201, "body_hex": "", "command_id": "912"})
            await _next_command(client)
            [written] = await sent.records(key=key, min_count=1)
            assert written["command_id"] == "911"
            await client.close()
            records = await sent.records(key=key, min_count=2)
            assert sorted((r["command_id"], r["event"], r["reason"]) for r in records) == [
                ("911", "failed", "closed"), ("912", "failed", "closed")]

    asyncio.run(main())


@pytest.mark.parametrize("version, header_phone", [("2019", "000000000{sim}"), ("2013", "0{sim}")])
def test_a_terminal_recorded_by_its_11_digit_sim_registers_authenticates_and_gets_downlinks(
        pg_url: str, kafka_bootstrap: str, free_port: Callable[[], int], version: str, header_phone: str) -> None:
    sim = canonical_phone(unique_phones(1)[0])  # 11 digits, as an administrator types it
    assert len(sim) == 11
    ids = insert_devices(pg_url, [sim])
    phone = header_phone.format(sim=sim)

    async def main() -> None:
        port = free_port()
        async with running_gateway(pg_url, kafka_bootstrap, port) as gateway, tail(kafka_bootstrap, JT808_SENT) as sent:
            client = await TerminalClient.connect(port, phone, version=version)
            await client.send(0x0100, Registration(11, 100, "FLEET", "SIM-808", sim[-7:], 2, ""))
            reply = await client.receive()
            assert isinstance(reply.body, RegistrationResponse) and reply.body.result == 0, reply
            assert (reply.header.phone, reply.header.version) == (phone, version)  # its own header width
            await client.send(0x0102, Authentication(reply.body.auth_code or "", "860000000000001", "1.0")
                              if version == "2019" else Authentication(reply.body.auth_code or ""))
            ok = await client.receive()
            assert isinstance(ok.body, PlatformResponse) and ok.body.result == 0
            await _ready(gateway)
            await _produce(kafka_bootstrap, {"phone": sim, "msg_id": 0x8104, "body_hex": "", "command_id": "921"})
            msg = await _next_command(client)
            assert (msg.header.msg_id, msg.header.phone, msg.header.version) == (0x8104, phone, version)
            records = await sent.records(key=sim, min_count=2)
            assert [(r["msg_id"], r["device_id"]) for r in records] == [(0x8100, ids[sim]), (0x8104, ids[sim])]
            await client.close()

    asyncio.run(main())
