"""The GB/T 32960 and GB 17691 / HJ 1239 gateway on the real PostgreSQL and Kafka of the test session."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import psycopg
import pytest
from kafka import KafkaConsumer, TopicPartition

from fleet.gb32960_records import GbUplink
from fleet.kafka_admin import log_bytes
from fleet.topics import DEVICE_SESSIONS, GB32960_UPLINK
from fleet.uplink_records import split_value
from protocols.gb32960 import Protocol, Response, TimeOnly, decode_frame, encode_frame
from protocols.gb32960.header import parse_header
from protocols.gb32960.messages import (
    CellVoltages,
    EmissionLogin,
    EmissionReport,
    Heartbeat,
    RealtimeReport,
    TimeCalibration,
    VehicleData,
    VehicleData2025,
    VehicleLogout,
)
from protocols.gb32960.values import read_time
from protocols.jt808 import Authentication, PlatformResponse, Registration, RegistrationResponse
from tests.integration.gateway.gb_support import (
    AT,
    CELLS_96,
    GbTerminal,
    insert_vehicle,
    login_body,
    nth_time,
    realtime_body,
    running_gb_gateway,
    unique_vin,
)
from tests.integration.gateway.support import TerminalClient, TopicTail, running_gateway, tail, tcp_proxy

pytestmark = pytest.mark.timeout(90)


async def _uplinks(topic_tail: TopicTail, vin: str, count: int, timeout_s: float = 10.0) -> list[GbUplink]:
    found: list[GbUplink] = []
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while len(found) < count and loop.time() < deadline:
        found += [GbUplink.from_json(item) for item in await topic_tail.records(min_count=1, timeout_s=0.5)
                  if item.get("vin") == vin]
    return found


async def _login(port: int, vin: str) -> GbTerminal:
    terminal = await GbTerminal.connect(port, vin)
    await terminal.send(0x01, login_body())
    answer = await terminal.receive()
    assert (answer.header.command, answer.header.response) == (0x01, Response.SUCCESS)
    return terminal


def test_login_and_a_96_cell_report_are_in_kafka_with_the_exact_values_before_their_answers(
        pg_url: str, kafka_bootstrap: str) -> None:
    vin = unique_vin()
    ids = insert_vehicle(pg_url, vin)

    async def main() -> None:
        async with (running_gb_gateway(pg_url, kafka_bootstrap) as server,
                    tail(kafka_bootstrap, GB32960_UPLINK) as uplinks, tail(kafka_bootstrap, DEVICE_SESSIONS) as sessions):
            terminal = await GbTerminal.connect(server.port_of("gb32960"), vin)
            await terminal.send(0x01, login_body())
            answer = await terminal.receive()
            # GB/T 32960.3-2016 §6.3.2: same command, flag success, the login's time as data unit
            assert (answer.header.command, answer.header.response, answer.header.vin) == (0x01, Response.SUCCESS, vin)
            assert answer.body == TimeOnly(AT)
            sent = await terminal.send(0x02, realtime_body(nth_time(1), soc=83, voltage=598.7, current=-41.9))
            answer = await terminal.receive()
            assert (answer.header.command, answer.header.response, answer.body) == (0x02, Response.SUCCESS,
                                                                                     TimeOnly(nth_time(1)))
            # answered, so already stored in Kafka: readable now
            records = await _uplinks(uplinks, vin, 2, timeout_s=5)
            assert [r.command for r in records] == [0x01, 0x02]
            report = records[1]
            assert (report.protocol, report.device_id, report.car_id, report.enterprise_id) == (
                "gb32960", ids["device_id"], ids["car_id"], ids["enterprise_id"])
            assert report.frame_protocol == "gb32960-2016" and report.raw_hex == sent.hex()
            vehicle = next(b for b in report.message["body"]["blocks"] if b["type"] == "VehicleData")
            assert (vehicle["soc_pct"], vehicle["total_voltage_v"], vehicle["total_current_a"]) == (83, 598.7, -41.9)
            cells = next(b for b in report.message["body"]["blocks"] if b["type"] == "CellVoltages")
            assert cells["packs"][0]["cell_voltages_v"] == list(CELLS_96)
            # the raw frame re-decodes to the same values (history can be re-decoded)
            again = decode_frame(bytes.fromhex(report.raw_hex)).body
            assert again.block(VehicleData).soc_pct == 83 and again.block(CellVoltages).packs[0].cell_voltages_v == CELLS_96
            online = [s for s in await sessions.records(key=ids["phone"], timeout_s=5)]
            assert [(s["event"], s["reason"], s["device_id"]) for s in online] == [("online", "login", ids["device_id"])]
            await terminal.send(0x04, VehicleLogout(nth_time(2), 1))
            answer = await terminal.receive()
            assert (answer.header.command, answer.header.response) == (0x04, Response.SUCCESS)
            offline = await sessions.records(key=ids["phone"], timeout_s=5)
            assert [(s["event"], s["reason"]) for s in offline] == [("offline", "logout")]
            await terminal.close()

    asyncio.run(main())


def test_heartbeat_and_time_calibration_are_answered_at_once_and_forwarded(pg_url: str, kafka_bootstrap: str) -> None:
    vin = unique_vin()
    insert_vehicle(pg_url, vin)

    async def main() -> None:
        async with running_gb_gateway(pg_url, kafka_bootstrap) as server, tail(kafka_bootstrap, GB32960_UPLINK) as uplinks:
            terminal = await _login(server.port_of("gb32960"), vin)
            await terminal.send(0x07, Heartbeat())
            answer = await terminal.receive()
            assert (answer.header.command, answer.header.response, answer.header.length) == (0x07, Response.SUCCESS, 0)
            await terminal.send(0x08, TimeCalibration())
            answer = await terminal.receive()
            assert (answer.header.command, answer.header.response) == (0x08, Response.SUCCESS)
            assert isinstance(answer.body, TimeOnly) and abs((answer.body.time - AT).total_seconds()) > 0
            records = await _uplinks(uplinks, vin, 3)
            assert [r.command for r in records] == [0x01, 0x07, 0x08]
            await terminal.close()

    asyncio.run(main())


def test_no_answer_while_kafka_is_unreachable_then_answered_once_it_is_back(
        pg_url: str, kafka_bootstrap: str, free_port: Callable[[], int]) -> None:
    vin = unique_vin()
    insert_vehicle(pg_url, vin)
    dead_port = free_port()

    async def main() -> None:
        async with running_gb_gateway(pg_url, f"127.0.0.1:{dead_port}") as server:
            terminal = await GbTerminal.connect(server.port_of("gb32960"), vin)
            await terminal.send(0x01, login_body())
            await terminal.send(0x02, realtime_body(nth_time(1)))
            with pytest.raises(TimeoutError):  # neither the login nor the data is stored: no answer
                await terminal.receive(timeout_s=3.0)
            async with tcp_proxy(dead_port, kafka_bootstrap):
                login = await terminal.receive(timeout_s=20.0)
                data = await terminal.receive(timeout_s=10.0)
            assert (login.header.command, login.header.response) == (0x01, Response.SUCCESS)
            assert (data.header.command, data.header.response, data.body) == (0x02, Response.SUCCESS,
                                                                               TimeOnly(nth_time(1)))
            await terminal.close()

    asyncio.run(main())


def test_a_vin_held_by_another_connection_is_answered_vin_duplicate_and_an_unknown_vin_refused(
        pg_url: str, kafka_bootstrap: str) -> None:
    vin, unknown, jt808_car = unique_vin(), unique_vin(), unique_vin()
    insert_vehicle(pg_url, vin)
    insert_vehicle(pg_url, jt808_car, "jt808", protocol_version="2013")  # a car whose terminal speaks JT/T 808

    async def main() -> None:
        async with running_gb_gateway(pg_url, kafka_bootstrap) as server, tail(kafka_bootstrap, GB32960_UPLINK) as uplinks:
            port = server.port_of("gb32960")
            first = await _login(port, vin)
            second = await GbTerminal.connect(port, vin)
            await second.send(0x01, login_body())
            answer = await second.receive()
            assert (answer.header.command, answer.header.response) == (0x01, Response.VIN_DUPLICATE)
            await second.send(0x02, realtime_body(nth_time(5)))  # not logged in: error, not forwarded
            answer = await second.receive()
            assert (answer.header.command, answer.header.response) == (0x02, Response.ERROR)
            for stranger in (unknown, jt808_car):
                other = await GbTerminal.connect(port, stranger)
                await other.send(0x01, login_body())
                answer = await other.receive()
                assert (answer.header.command, answer.header.response) == (0x01, Response.ERROR)
                await other.send(0x02, realtime_body(nth_time(6)))
                assert (await other.receive()).header.response == Response.ERROR
                await other.close()
            await first.send(0x02, realtime_body(nth_time(7)))
            assert (await first.receive()).header.response == Response.SUCCESS
            await asyncio.sleep(1.0)
            everything = [GbUplink.from_json(item) for item in await uplinks.records(min_count=10**6, timeout_s=3)]
            # the holder's login and report only: nothing of the refused connections
            assert [(r.vin, r.command) for r in everything] == [(vin, 0x01), (vin, 0x02)]
            assert everything[0].connection_id == everything[1].connection_id
            for t in (first, second):
                await t.close()

    asyncio.run(main())


def test_garbage_and_a_bad_bcc_are_answered_error_without_affecting_another_connection(
        pg_url: str, kafka_bootstrap: str) -> None:
    good_vin, bad_vin = unique_vin(), unique_vin()
    insert_vehicle(pg_url, good_vin)
    insert_vehicle(pg_url, bad_vin)

    async def main() -> None:
        async with running_gb_gateway(pg_url, kafka_bootstrap) as server, tail(kafka_bootstrap, GB32960_UPLINK) as uplinks:
            port = server.port_of("gb32960")
            good = await _login(port, good_vin)
            bad = await _login(port, bad_vin)
            await bad.send_raw(b"\x00garbage##\xff" * 50 + bytes(200))
            frame = bytearray(encode_frame(0x02, realtime_body(nth_time(1)), vin=bad_vin))
            frame[-1] ^= 0x55  # bad BCC
            await bad.send_raw(bytes(frame))
            answer = await bad.receive()
            assert (answer.header.command, answer.header.response, answer.header.vin) == (0x02, Response.ERROR, bad_vin)
            await good.send(0x02, realtime_body(nth_time(2)))
            assert (await good.receive()).header.response == Response.SUCCESS
            await bad.send(0x02, realtime_body(nth_time(3)))  # the bad one still works after its garbage
            assert (await bad.receive()).header.response == Response.SUCCESS
            stored = await _uplinks(uplinks, bad_vin, 2)
            assert [r.command for r in stored] == [0x01, 0x02] and stored[1].message["body"]["collected_at"] == \
                nth_time(3).isoformat()
            counters = server.counters
            assert counters.bad_checksum >= 1 and counters.framing_errors >= 1 and counters.internal_errors == 0
            for t in (good, bad):
                await t.close()

    asyncio.run(main())


def test_an_hj1239_terminal_on_the_emissions_port_is_forwarded_and_gets_time_calibration(
        pg_url: str, kafka_bootstrap: str) -> None:
    vin = unique_vin()
    ids = insert_vehicle(pg_url, vin, "hj1239", protocol_version="2021")

    async def main() -> None:
        async with running_gb_gateway(pg_url, kafka_bootstrap) as server, tail(kafka_bootstrap, GB32960_UPLINK) as uplinks:
            on_32960_port = await GbTerminal.connect(server.port_of("gb32960"), vin)
            await on_32960_port.send(0x01, login_body())  # an hj1239 device does not log in on the 32960 port
            assert (await on_32960_port.receive()).header.response == Response.ERROR
            terminal = await GbTerminal.connect(server.port_of("gb17691"), vin, Protocol.GB17691)
            await terminal.send(0x01, EmissionLogin(AT, 1, "89860000000000000002"))
            await terminal.send(0x02, EmissionReport(nth_time(1), 1, ()))
            await terminal.send(0x05, TimeCalibration())  # GB 17691 time calibration is 0x05
            # the only answer this family has: command 0x05, the platform's time as data unit (a GB 17691
            # header has no response flag, so the codec cannot tell this answer from the request: read by hand)
            answer = await terminal.receive_raw()
            header = parse_header(answer, Protocol.GB17691)
            assert (header.command, header.vin, header.length) == (0x05, vin, 6)
            platform_time, _ = read_time(answer[24:30], 0)
            assert abs((platform_time - datetime.now(UTC)).total_seconds()) < 60
            records = await _uplinks(uplinks, vin, 3)
            assert [(r.command, r.protocol, r.frame_protocol) for r in records] == [
                (0x01, "hj1239", "gb17691"), (0x02, "hj1239", "gb17691"), (0x05, "hj1239", "gb17691")]
            assert records[1].device_id == ids["device_id"]
            for t in (on_32960_port, terminal):
                await t.close()

    asyncio.run(main())


def test_the_jt808_gateway_refuses_the_phone_of_a_gb_device(
        pg_url: str, kafka_bootstrap: str, free_port: Callable[[], int]) -> None:
    ids = insert_vehicle(pg_url, unique_vin())  # a gb32960 device: its phone must not log in over JT/T 808
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("UPDATE device SET auth_code = 'C0DE' WHERE id = %s", (ids["device_id"],))

    async def main() -> None:
        port = free_port()
        async with running_gateway(pg_url, kafka_bootstrap, port):
            client = await TerminalClient.connect(port, "0" + ids["phone"])
            await client.send(0x0100, Registration(11, 100, "FLEET", "SIM-808", "T1", 2, ""))
            reply = await client.receive()
            assert isinstance(reply.body, RegistrationResponse) and reply.body.result == 4
            await client.send(0x0102, Authentication("C0DE"))
            ack = await client.receive()
            assert isinstance(ack.body, PlatformResponse) and ack.body.result == 1
            await client.close()

    asyncio.run(main())


def test_a_2025_terminal_logs_in_with_dollar_framing_and_is_answered_in_it(pg_url: str, kafka_bootstrap: str) -> None:
    vin = unique_vin()
    insert_vehicle(pg_url, vin, protocol_version="2025")
    vehicle = VehicleData2025(status=1, charging=1, run_mode=1, speed_kmh=0.0, mileage_km=321.5, total_voltage_v=401.2,
                              total_current_a=152.3, soc_pct=41, dcdc=1, gear=0x0F, insulation_kohm=6000)

    async def main() -> None:
        async with running_gb_gateway(pg_url, kafka_bootstrap) as server, tail(kafka_bootstrap, GB32960_UPLINK) as uplinks:
            terminal = await GbTerminal.connect(server.port_of("gb32960"), vin, Protocol.GB32960_2025)
            await terminal.send(0x01, login_body())
            raw = await terminal.receive_raw()
            assert raw[:2] == b"$$" and decode_frame(raw).header.response == Response.SUCCESS
            await terminal.send(0x02, RealtimeReport(nth_time(1), (vehicle,)))
            raw = await terminal.receive_raw()
            assert raw[:2] == b"$$" and decode_frame(raw).body == TimeOnly(nth_time(1))
            records = await _uplinks(uplinks, vin, 2)
            assert [(r.command, r.frame_protocol) for r in records] == [(0x01, "gb32960-2025"), (0x02, "gb32960-2025")]
            block = records[1].message["body"]["blocks"][0]
            assert (block["type"], block["soc_pct"], block["total_voltage_v"], block["total_current_a"]) == (
                "VehicleData2025", 41, 401.2, 152.3)
            await terminal.close()

    asyncio.run(main())


def test_an_unknown_vin_on_the_emissions_port_is_hung_up_on_and_nothing_is_kept(
        pg_url: str, kafka_bootstrap: str) -> None:
    # GB 17691 / HJ 1239 headers have no response flag: closing is the only refusal a terminal can see
    vin = unique_vin()
    insert_vehicle(pg_url, unique_vin(), "gb17691", protocol_version="2018")  # another vehicle exists

    async def main() -> None:
        async with running_gb_gateway(pg_url, kafka_bootstrap) as server, tail(kafka_bootstrap, GB32960_UPLINK) as uplinks:
            terminal = await GbTerminal.connect(server.port_of("gb17691"), vin, Protocol.GB17691)
            await terminal.send(0x01, EmissionLogin(AT, 1, "89860000000000000003"))
            with pytest.raises(ConnectionError):
                await terminal.receive_raw(timeout_s=5)
            assert not [r for r in await uplinks.records(min_count=10**6, timeout_s=2) if r.get("vin") == vin]
            assert server.counters.refused_unknown_vin == 1
            await terminal.close()

    asyncio.run(main())


def test_a_burst_of_vehicle_logins_is_read_in_a_few_queries_and_each_gets_its_answer(
        pg_url: str, kafka_bootstrap: str) -> None:
    known = [unique_vin() for _ in range(60)]
    unknown = [unique_vin() for _ in range(5)]
    for vin in known:
        insert_vehicle(pg_url, vin)

    async def main() -> tuple[dict[str, int], int, int]:
        async with running_gb_gateway(pg_url, kafka_bootstrap) as server:
            lookups = server.ctx.directory.lookups  # type: ignore[attr-defined]
            port = server.port_of("gb32960")
            terminals = await asyncio.gather(*(GbTerminal.connect(port, vin) for vin in known + unknown))
            try:
                # every vehicle of a restarted gateway logs in at the same moment
                await asyncio.gather(*(terminal.send(0x01, login_body()) for terminal in terminals))
                answers = await asyncio.gather(*(terminal.receive() for terminal in terminals))
                return ({t.vin: a.header.response for t, a in zip(terminals, answers, strict=True)},
                        lookups.batches, lookups.keys)
            finally:
                await asyncio.gather(*(terminal.close() for terminal in terminals))

    answers, queries, keys = asyncio.run(main())
    assert {vin: answers[vin] for vin in known} == dict.fromkeys(known, Response.SUCCESS)
    assert {vin: answers[vin] for vin in unknown} == dict.fromkeys(unknown, Response.ERROR)
    assert keys == len(known) + len(unknown)  # each VIN asked for once
    assert queries < keys / 5, queries  # not one query per login


def _end_offsets(kafka_bootstrap: str, topic: str) -> dict[TopicPartition, int]:
    consumer = KafkaConsumer(bootstrap_servers=kafka_bootstrap, group_id=None, enable_auto_commit=False)
    try:
        partitions = [TopicPartition(topic, p) for p in sorted(consumer.partitions_for_topic(topic) or ())]
        return dict(consumer.end_offsets(partitions))
    finally:
        consumer.close()


def test_the_brokers_keep_96_cell_reports_in_a_fraction_of_their_json_and_both_clients_read_them_whole(
        pg_url: str, kafka_bootstrap: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """FLEET_KAFKA_COMPRESSION (zstd by default): the gateway's record batches are compressed, so the brokers' log
    of the same reports grows by less than half of what it grows uncompressed; aiokafka (the streams worker's and
    the link services' client) and kafka-python (the tools') read every report back with its exact values."""
    vins = [unique_vin() for _ in range(6)]
    for vin in vins:
        insert_vehicle(pg_url, vin)
    reports = 12

    async def send_all(round_: int) -> list[GbUplink]:
        async with running_gb_gateway(pg_url, kafka_bootstrap) as server, tail(kafka_bootstrap, GB32960_UPLINK) as uplinks:
            terminals = [await _login(server.port_of("gb32960"), vin) for vin in vins]

            async def report(terminal: GbTerminal, index: int) -> None:
                for n in range(reports):  # sent back to back: the gateway batches what arrives together
                    await terminal.send(0x02, realtime_body(nth_time(100 * round_ + n), soc=20 + index + n))
                answers = [await terminal.receive() for _ in range(reports)]
                assert [(a.header.command, a.header.response) for a in answers] == [(0x02, Response.SUCCESS)] * reports

            await asyncio.gather(*(report(t, i) for i, t in enumerate(terminals)))
            found: list[GbUplink] = []
            deadline = asyncio.get_running_loop().time() + 10
            while len(found) < len(vins) * (1 + reports) and asyncio.get_running_loop().time() < deadline:
                found += [GbUplink.from_json(item) for item in await uplinks.records(min_count=1, timeout_s=0.5)
                          if item.get("vin") in vins]
            for terminal in terminals:
                await terminal.close()
            return [u for u in found if u.command == 0x02]

    grown: dict[str, int] = {}
    for round_, compression in enumerate(("none", "zstd"), start=1):
        monkeypatch.setenv("FLEET_KAFKA_COMPRESSION", compression)
        before, starts = log_bytes(kafka_bootstrap, GB32960_UPLINK), _end_offsets(kafka_bootstrap, GB32960_UPLINK)
        found = asyncio.run(send_all(round_))
        grown[compression] = log_bytes(kafka_bootstrap, GB32960_UPLINK) - before
        # aiokafka read each report whole
        assert sorted((u.vin, u.message["body"]["blocks"][0]["soc_pct"]) for u in found) == sorted(
            (vin, 20 + i + n) for i, vin in enumerate(vins) for n in range(reports))
        assert all(next(b for b in u.message["body"]["blocks"] if b["type"] == "CellVoltages")["packs"][0]
                   ["cell_voltages_v"] == list(CELLS_96) for u in found)
    # kafka-python reads the compressed round as well
    consumer = KafkaConsumer(bootstrap_servers=kafka_bootstrap, group_id=None, enable_auto_commit=False)
    try:
        consumer.assign(list(starts))
        for partition, offset in starts.items():
            consumer.seek(partition, offset)
        read: list[dict[str, Any]] = []
        deadline = time.monotonic() + 10
        while len(read) < len(vins) * (1 + reports) and time.monotonic() < deadline:
            for records in consumer.poll(timeout_ms=500).values():
                read += [item for record in records for item in split_value(record.value) if item["vin"] in vins]
    finally:
        consumer.close()
    assert sorted((r["vin"], r["command"]) for r in read) == sorted(
        [(vin, 0x01) for vin in vins] + [(vin, 0x02) for vin in vins for _ in range(reports)])
    assert 0 < grown["zstd"] < grown["none"] / 2, grown
