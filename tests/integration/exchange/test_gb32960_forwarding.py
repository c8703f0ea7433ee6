"""GB/T 32960 forwarding to a superior platform, on the real Kafka and PostgreSQL of the test session: a simulated
32960 terminal reports to the GB gateway, the link service (exchange/gb32960, the platform and its vehicles read
from gb32960_superior_platform / gb32960_exchange_car) relays its frames to the superior in a box, which receives
the same data units as real-time data 0x02; the superior is killed mid-stream (its sockets reset, what was
written to it unread) and brought back on the same port: the gap arrives as back-filled data 0x03, in the order
the terminal sent it, nothing lost; a vehicle the platform does not exchange sends nothing. Both framings, and a
2025 terminal's reports written in a 2016 superior's edition."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg
import pytest

from exchange.gb32960.box import SuperiorBox, parse_aes
from exchange.gb32960.service import Gb32960PlatformService
from fleet.settings import Gb32960ExchangeSettings
from protocols.gb32960 import Protocol, Response, Special
from protocols.gb32960.cipher import AesKey
from protocols.gb32960.messages import (
    CellVoltages,
    Extremes,
    MinUnitVoltages,
    PackTemperatures,
    PackTemperatures2025,
    PackUnitVoltages,
    Position,
    Position2025,
    RealtimeReport,
    VehicleData,
    VehicleData2025,
)
from tests.integration.gateway.gb_support import (
    GbTerminal,
    insert_vehicle,
    login_body,
    realtime_body,
    running_gb_gateway,
    unique_vin,
)
from tests.support.tasks import cancel_then_stop
from warehouse.db import connect
from warehouse.queries import gb32960_exchange as q

pytestmark = pytest.mark.timeout(120)
START = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=1)
BEFORE, DURING = 8, 12  # frames sent before the superior is killed, and while it is away


def _report(protocol: Protocol, n: int) -> RealtimeReport:
    at = START + timedelta(seconds=n)
    if protocol is Protocol.GB32960_2025:
        return RealtimeReport(at, (VehicleData2025(status=1, charging=3, run_mode=1, speed_kmh=30.0, mileage_km=321.5,
                                                   total_voltage_v=401.2, total_current_a=12.3, soc_pct=50 + n % 40,
                                                   dcdc=1, gear=0x0F, insulation_kohm=6000),))
    return realtime_body(at, soc=50 + n % 40)


def _platform(pg_url: str, enterprise_id: int, port: int, version: str, car_id: int,
              key: AesKey | None = None) -> q.Gb32960Superior:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        row = conn.execute(
            "INSERT INTO gb32960_superior_platform (enterprise_id, name, host, port, username, password, version, "
            "encryption, aes_key, aes_iv) VALUES (%s, %s, '127.0.0.1', %s, 'fleet32960', 'secret-32960', %s, %s, "
            "%s, %s) RETURNING id",
            (enterprise_id, f"superior-{version}-{port}", port, version, 1 if key is None else 3,
             key and key.key.hex(), key and key.iv.hex())).fetchone()
        assert row is not None
        conn.execute("INSERT INTO gb32960_exchange_car (enterprise_id, platform_id, car_id) VALUES (%s, %s, %s)",
                     (enterprise_id, row[0], car_id))
    with connect(pg_url, autocommit=True) as conn:
        return next(p for p in q.enabled_platforms(conn) if p.id == row[0])


@pytest.mark.parametrize("version", ["2016", "2025"])
def test_relayed_as_received_then_the_outage_gap_back_filled_in_order(pg_url: str, kafka_bootstrap: str,
                                                                      version: str) -> None:
    protocol = Protocol.GB32960_2016 if version == "2016" else Protocol.GB32960_2025
    vin, other_vin = unique_vin(), unique_vin()
    ids = insert_vehicle(pg_url, vin, protocol_version=version)
    insert_vehicle(pg_url, other_vin, enterprise_id=ids["enterprise_id"], protocol_version=version)
    settings = Gb32960ExchangeSettings().model_copy(update={
        "heartbeat_s": 0.5, "reconnect_min_s": 0.1, "reconnect_max_s": 0.3, "backfill_after_s": 2.0,
        "resend_window_s": 1.0, "offset_reset": "earliest"})

    async def main() -> None:
        box = SuperiorBox({"fleet32960": "secret-32960"})
        await box.start()
        port = box.port
        platform = _platform(pg_url, ids["enterprise_id"], port, version, ids["car_id"])
        assert platform.car_ids == frozenset({ids["car_id"]}) and platform.password == "secret-32960"
        service = Gb32960PlatformService(platform, pg_url, kafka_bootstrap, settings)
        task = asyncio.create_task(service.run())
        sent: dict[datetime, str] = {}  # collection time -> data unit hex, as the terminal sent it
        try:
            async with running_gb_gateway(pg_url, kafka_bootstrap) as gateway:
                terminal = await GbTerminal.connect(gateway.port_of("gb32960"), vin, protocol)
                other = await GbTerminal.connect(gateway.port_of("gb32960"), other_vin, protocol)
                for t in (terminal, other):
                    await t.send(0x01, login_body())
                    assert (await t.receive()).header.response == Response.SUCCESS

                async def report(n: int) -> None:
                    frame = await terminal.send(0x02, _report(protocol, n))
                    answer = await terminal.receive(timeout_s=10)  # answered: Kafka holds it
                    assert (answer.header.command, answer.header.response) == (0x02, Response.SUCCESS)
                    sent[START + timedelta(seconds=n)] = frame[24:-1].hex()
                    await other.send(0x02, _report(protocol, n))
                    await other.receive(timeout_s=10)

                async with asyncio.timeout(20):
                    await service.link.up.wait()
                assert box.status.logins == [("fleet32960", True)]
                for n in range(BEFORE):
                    await report(n)
                await box.wait_for(lambda: len(box.of(vin)) >= BEFORE, 30)
                live = box.of(vin)
                # relayed as received: real-time data, the terminal's data units byte for byte, in the 2016 / 2025
                # framing of the superior
                assert [r.command for r in live] == [0x02] * BEFORE
                assert [(r.collected_at, r.data_hex) for r in live] == list(sent.items())
                assert {r.protocol for r in live} == {protocol.value}

                await box.abort()  # killed mid-stream
                for n in range(BEFORE, BEFORE + DURING):
                    await report(n)
                await asyncio.sleep(settings.backfill_after_s + 0.5)
                box2 = SuperiorBox({"fleet32960": "secret-32960"}, port=port)
                await box2.start()
                try:
                    gap = [START + timedelta(seconds=n) for n in range(BEFORE, BEFORE + DURING)]
                    await box2.wait_for(lambda: {r.collected_at for r in box2.of(vin)} >= set(gap), 30)
                    after = box2.of(vin)
                    # the gap as back-filled data 0x03, oldest first, the same data units
                    assert all(r.command == 0x03 for r in after)
                    times = [r.collected_at for r in after]
                    assert times == sorted(times)  # type: ignore[type-var]
                    assert [(r.collected_at, r.data_hex) for r in after if r.collected_at in gap] == \
                        [(t, sent[t]) for t in gap]
                    # nothing lost across the two superiors; repeats only from the resend window
                    assert {r.collected_at for r in live + after} == set(sent)
                    assert box.of(other_vin) == [] and box2.of(other_vin) == []
                    async with asyncio.timeout(10):  # the link state is saved every second
                        while True:
                            with psycopg.connect(pg_url) as conn:
                                state = conn.execute("SELECT state, sent, backfilled FROM gb32960_link_state "
                                                     "WHERE platform_id = %s", (platform.id,)).fetchone()
                            if state is not None and state[2] >= DURING:
                                break
                            await asyncio.sleep(0.2)
                    assert state[0] == "connected" and state[1] >= BEFORE
                finally:
                    await box2.stop()
                await terminal.close()
                await other.close()
        finally:
            await cancel_then_stop(task, box)

    asyncio.run(main())


def test_a_2025_terminals_reports_reach_a_2016_superior_written_in_its_edition(pg_url: str,
                                                                                kafka_bootstrap: str) -> None:
    vin = unique_vin()
    ids = insert_vehicle(pg_url, vin, protocol_version="2025")
    units = tuple(round(3.31 + i * 0.002, 3) for i in range(24))
    settings = Gb32960ExchangeSettings().model_copy(update={"heartbeat_s": 0.5, "offset_reset": "earliest"})

    def report(n: int) -> RealtimeReport:
        vehicle = VehicleData2025(status=1, charging=3, run_mode=1, speed_kmh=30.0 + n, mileage_km=321.5,
                                  total_voltage_v=401.2, total_current_a=-120.5, soc_pct=60, dcdc=1, gear=0x0F,
                                  insulation_kohm=6000)
        return RealtimeReport(START + timedelta(seconds=n), (
            vehicle, Position2025(0, 1, 114.057868, 22.543099),
            MinUnitVoltages((PackUnitVoltages(1, 401.2, -120.5, units),)),
            PackTemperatures2025((PackTemperatures(1, (25, 27, 26)),))))

    async def main() -> None:
        box = SuperiorBox({"fleet32960": "secret-32960"})
        await box.start()
        platform = _platform(pg_url, ids["enterprise_id"], box.port, "2016", ids["car_id"])
        service = Gb32960PlatformService(platform, pg_url, kafka_bootstrap, settings)
        task = asyncio.create_task(service.run())
        try:
            async with running_gb_gateway(pg_url, kafka_bootstrap) as gateway:
                terminal = await GbTerminal.connect(gateway.port_of("gb32960"), vin, Protocol.GB32960_2025)
                await terminal.send(0x01, login_body())
                assert (await terminal.receive()).header.response == Response.SUCCESS
                for n in range(3):
                    await terminal.send(0x02, report(n))
                    assert (await terminal.receive(timeout_s=10)).header.response == Response.SUCCESS
                await box.wait_for(lambda: len(box.of(vin)) >= 3, 30)
                await terminal.close()
            received = box.of(vin)
            assert {(r.protocol, r.command) for r in received} == {("gb32960-2016", 0x02)}
            for n, r in enumerate(received):
                sent = RealtimeReport.decode(bytes.fromhex(r.data_hex), Protocol.GB32960_2016)  # every byte read
                vehicle = sent.block(VehicleData)
                assert (sent.collected_at, vehicle.speed_kmh, vehicle.total_current_a, vehicle.soc_pct) == (
                    START + timedelta(seconds=n), 30.0 + n, -120.5, 60)
                assert vehicle.accelerator_pct is Special.INVALID  # 2025 does not carry it
                assert (sent.block(Position).lng, sent.block(Position).lat) == (114.057868, 22.543099)
                assert sent.block(CellVoltages).packs[0].cell_voltages_v == units
                extremes = sent.block(Extremes)  # 2016 asks for them: from the frame's own cells and probes
                assert (extremes.max_cell_voltage_v, extremes.max_voltage_cell, extremes.min_cell_voltage_v,
                        extremes.max_temp_c, extremes.max_temp_probe) == (max(units), len(units), units[0], 27, 2)
        finally:
            await cancel_then_stop(task, box)

    asyncio.run(main())


def test_an_aes_superior_reads_the_terminals_data_units_encrypted_with_the_rows_key(pg_url: str,
                                                                                  kafka_bootstrap: str) -> None:
    vin = unique_vin()
    ids = insert_vehicle(pg_url, vin)
    key = AesKey(bytes.fromhex("000102030405060708090a0b0c0d0e0f"), bytes.fromhex("f0e0d0c0b0a090807060504030201000"))
    settings = Gb32960ExchangeSettings().model_copy(update={"reconnect_min_s": 0.1, "reconnect_max_s": 0.2,
                                                            "offset_reset": "earliest"})

    async def main() -> None:
        box = SuperiorBox({"fleet32960": "secret-32960"}, keys={"fleet32960": key})
        await box.start()
        platform = _platform(pg_url, ids["enterprise_id"], box.port, "2016", ids["car_id"], key)
        assert (platform.encryption, platform.aes_key, platform.aes_iv) == (3, key.key.hex(), key.iv.hex())
        task = asyncio.create_task(Gb32960PlatformService(platform, pg_url, kafka_bootstrap, settings).run())
        sent: list[str] = []
        try:
            async with running_gb_gateway(pg_url, kafka_bootstrap) as gateway:
                terminal = await GbTerminal.connect(gateway.port_of("gb32960"), vin, Protocol.GB32960_2016)
                await terminal.send(0x01, login_body())
                assert (await terminal.receive()).header.response == Response.SUCCESS
                for n in range(3):
                    frame = await terminal.send(0x02, _report(Protocol.GB32960_2016, n))
                    assert (await terminal.receive(timeout_s=10)).header.response == Response.SUCCESS
                    sent.append(frame[24:-1].hex())
                await box.wait_for(lambda: len(box.of(vin)) >= 3, 30)
            got = box.of(vin)
            assert [r.data_hex for r in got] == sent and all(r.encrypted for r in got)
            assert not box.status.errors
        finally:
            await cancel_then_stop(task, box)

    asyncio.run(main())


def test_a_wrong_password_is_refused_and_its_link_state_says_so(pg_url: str, kafka_bootstrap: str) -> None:
    vin = unique_vin()
    ids = insert_vehicle(pg_url, vin)
    settings = Gb32960ExchangeSettings().model_copy(update={"reconnect_min_s": 0.1, "reconnect_max_s": 0.2})

    async def main() -> None:
        box = SuperiorBox({"fleet32960": "another-password"})
        await box.start()
        platform = _platform(pg_url, ids["enterprise_id"], box.port, "2016", ids["car_id"])
        task = asyncio.create_task(Gb32960PlatformService(platform, pg_url, kafka_bootstrap, settings).run())
        try:
            async with asyncio.timeout(20):
                while True:
                    await asyncio.sleep(0.3)
                    with psycopg.connect(pg_url) as conn:
                        row = conn.execute("SELECT state, last_error FROM gb32960_link_state WHERE platform_id = %s",
                                           (platform.id,)).fetchone()
                    if row is not None and row[1]:
                        break
            assert row[0] != "connected" and "flag 0x02" in row[1]
            assert box.status.logins and all(not ok for _, ok in box.status.logins)
        finally:
            await cancel_then_stop(task, box)

    asyncio.run(main())


def test_fleet_up_seeds_the_demo_gb32960_superior_with_the_trees_gb32960_vehicles_once(
        pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from warehouse.gb32960_exchange_seed import demo_aes_key, demo_box_aes, seed_gb32960_superior

    ids_2016 = insert_vehicle(pg_url, unique_vin(), protocol_version="2016")
    ids_2025 = insert_vehicle(pg_url, unique_vin(), enterprise_id=ids_2016["enterprise_id"], protocol_version="2025")
    jt808 = insert_vehicle(pg_url, unique_vin(), "jt808", enterprise_id=ids_2016["enterprise_id"])
    with psycopg.connect(pg_url, autocommit=True) as conn:  # its tree: itself and a subsidiary with a 2016 car
        root = ids_2016["enterprise_id"]
        conn.execute("UPDATE enterprise SET path = '/' || id || '/' WHERE id = %s", (root,))
        child = conn.execute("INSERT INTO enterprise (name, short_name, parent_id, path) SELECT %s, %s, id, "
                             "path FROM enterprise WHERE id = %s RETURNING id",
                             (f"gb-child-{root}", f"gb-child-{root}", root)).fetchone()
        assert child is not None
        conn.execute("UPDATE enterprise SET path = path || id || '/' WHERE id = %s", (child[0],))
    in_child = insert_vehicle(pg_url, unique_vin(), protocol_version="2016", enterprise_id=int(child[0]))
    with connect(pg_url) as conn:
        created = seed_gb32960_superior(conn, ids_2016["enterprise_id"], aes=demo_aes_key(tmp_path))
        again = seed_gb32960_superior(conn, ids_2016["enterprise_id"], aes=demo_aes_key(tmp_path))
        conn.commit()
    assert created is not None and again is None
    with connect(pg_url, autocommit=True) as conn:
        platform = next(p for p in q.enabled_platforms(conn) if p.id == created)
    settings = Gb32960ExchangeSettings()
    assert (platform.port, platform.version, platform.encryption) == (settings.box_port, "2016", 3)
    assert f"{platform.username}:{platform.password}" == settings.box_accounts[0]
    # the link's key: made once into var, the row's, and the one the box started beside it decrypts with
    key = demo_aes_key(tmp_path)
    assert (platform.aes_key, platform.aes_iv) == (key.key.hex(), key.iv.hex())
    assert len({key.key, key.iv, demo_aes_key(tmp_path / "another-var").key}) == 3
    monkeypatch.setenv("FLEET_GB32960_EXCHANGE_BOX_AES", demo_box_aes(tmp_path))  # as fleet/launcher.py gives it
    assert dict(parse_aes(text) for text in Gb32960ExchangeSettings().box_aes) == {platform.username: key}
    # both editions' vehicles (the 2025 ones' frames go written in the box's 2016 edition), no JT/T 808 one
    assert platform.car_ids == frozenset({ids_2016["car_id"], ids_2025["car_id"], in_child["car_id"]})
    assert jt808["car_id"] not in platform.car_ids


def test_fleet_exchange_links_an_enabled_row_and_logs_out_when_it_is_disabled(pg_url: str,
                                                                              kafka_bootstrap: str) -> None:
    from exchange.link.command import serve_gb32960

    ids = insert_vehicle(pg_url, unique_vin())
    settings = Gb32960ExchangeSettings().model_copy(update={"reload_s": 0.3, "reconnect_min_s": 0.1,
                                                            "reconnect_max_s": 0.2})

    async def main() -> None:
        box = SuperiorBox({"fleet32960": "secret-32960"})
        await box.start()
        platform = _platform(pg_url, ids["enterprise_id"], box.port, "2016", ids["car_id"])
        task = asyncio.create_task(serve_gb32960(pg_url, kafka_bootstrap, settings))
        try:
            async with asyncio.timeout(30):
                while ("fleet32960", True) not in box.status.logins:
                    await asyncio.sleep(0.1)
            with psycopg.connect(pg_url, autocommit=True) as conn:
                conn.execute("UPDATE gb32960_superior_platform SET enabled = false WHERE id = %s", (platform.id,))
            await box.wait_for(lambda: box.status.logouts == 1, 10)  # platform logout 0x06 before the link closes
        finally:
            await cancel_then_stop(task, box)

    asyncio.run(main())
