"""The demo inferior platform `fleet up` seeds (warehouse.exchange_seed.seed_loopback_inferior): with only the
seeded rows, fleetwatch's own link service logs in to its own superior service on the loopback (sub link on the
configured port), and a terminal of the exchanged enterprise appears as an exchange vehicle with its positions
(one per LOOPBACK_INTERVAL_S of fix time), against the real Kafka and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest

from fleet.settings import ExchangeSettings
from fleet.topics import CONSOLE_EVENTS, JT808_UPLINK
from streams.payloads import location_report
from tests.integration.exchange.test_superior_service import ExchangeProcess
from tests.integration.streams.support import Producer, commit_group_at_end, insert_terminals, wait_for
from warehouse.exchange_seed import (
    LOOPBACK_INTERVAL_S,
    LOOPBACK_NAME,
    LOOPBACK_USER_ID,
    seed_loopback_inferior,
)


def _rows(pg_url: str, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    with psycopg.connect(pg_url) as conn:
        return conn.execute(sql, args).fetchall()


@pytest.fixture
def seeded(pg_url: str, kafka_bootstrap: str, stack_env: dict[str, str], free_port: Any,
           tmp_path: Path) -> Iterator[dict[str, Any]]:
    terminals = insert_terminals(pg_url, 2, enterprise_name="loopback-test")
    enterprise = terminals[0].enterprise_id
    superior_port, sub_port = free_port(), free_port()
    settings = ExchangeSettings(superior_port=superior_port, demo_inferior_down_link_port=sub_port)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("UPDATE superior_platform SET enabled = false")  # only the seeded platforms are linked
        conn.execute("UPDATE inferior_platform SET enabled = false")
        conn.execute("DELETE FROM superior_platform WHERE name = %s", (LOOPBACK_NAME,))
        conn.execute("DELETE FROM inferior_platform WHERE name = %s OR user_id = %s", (LOOPBACK_NAME, LOOPBACK_USER_ID))
        for _ in range(2):  # idempotent: a second seed adds nothing
            seed_loopback_inferior(conn, enterprise, enterprise, settings)
    platform_id, down_link_port = _rows(pg_url, "SELECT id, down_link_port FROM superior_platform WHERE name = %s",
                                        LOOPBACK_NAME)[0]
    inferior_id = _rows(pg_url, "SELECT id FROM inferior_platform WHERE name = %s", LOOPBACK_NAME)[0][0]
    commit_group_at_end(kafka_bootstrap, f"fleet-exchange-{platform_id}", (JT808_UPLINK, CONSOLE_EVENTS))
    env = {**stack_env, "FLEET_EXCHANGE_RELOAD_S": "1", "FLEET_EXCHANGE_POLL_S": "0.3",
           "FLEET_EXCHANGE_RECONNECT_MIN_S": "0.2", "FLEET_EXCHANGE_RECONNECT_MAX_S": "1",
           "FLEET_EXCHANGE_SUPERIOR_HOST": "127.0.0.1", "FLEET_EXCHANGE_SUPERIOR_PORT": str(superior_port)}
    service = ExchangeProcess(env, tmp_path / "exchange.log")
    service.start()
    try:
        yield {"terminals": terminals, "inferior_id": inferior_id, "service": service, "sub_port": sub_port,
               "down_link_port": down_link_port, "enterprise": enterprise}
    finally:
        service.stop()
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute("UPDATE superior_platform SET enabled = false WHERE id = %s", (platform_id,))
            conn.execute("UPDATE inferior_platform SET enabled = false WHERE id = %s", (inferior_id,))


def test_seeding_twice_makes_one_inferior_and_one_loopback_superior(seeded: dict[str, Any], pg_url: str) -> None:
    assert _rows(pg_url, "SELECT count(*) FROM inferior_platform WHERE name = %s", LOOPBACK_NAME) == [(1,)]
    assert _rows(pg_url, "SELECT count(*) FROM superior_platform WHERE name = %s", LOOPBACK_NAME) == [(1,)]
    assert seeded["down_link_port"] == seeded["sub_port"]  # the setting, not a constant


def test_loopback_inferior_logs_in_and_its_vehicles_appear_on_the_superior_side(seeded: dict[str, Any],
                                                                                  kafka_bootstrap: str,
                                                                                  pg_url: str) -> None:
    inferior_id = seeded["inferior_id"]
    links = wait_for(lambda: (found := dict(_rows(
        pg_url, "SELECT link, state FROM inferior_link_state WHERE inferior_platform_id = %s", inferior_id)))
        == {"main": "up", "sub": "up"} and found, 60, "both loopback links up", seeded["service"])
    assert links == {"main": "up", "sub": "up"}
    peer = _rows(pg_url, "SELECT peer FROM inferior_link_state WHERE inferior_platform_id = %s AND link = 'sub'",
                 inferior_id)[0][0]
    assert peer is not None and peer.endswith(f":{seeded['sub_port']}")  # the sub link dials the seeded port
    terminal = seeded["terminals"][0]
    start = datetime.now(UTC).replace(microsecond=0)
    fixes = [start, start + timedelta(seconds=1), start + timedelta(seconds=LOOPBACK_INTERVAL_S + 1)]
    producer = Producer(kafka_bootstrap)
    for i, fix in enumerate(fixes):
        producer.send(JT808_UPLINK, terminal.phone, location_report(terminal, fix_at=fix, lat=30.5 + i * 0.01,
                                                                    lng=114.3, speed_kmh=36.0, direction_deg=10))
    producer.flush()
    plate = _rows(pg_url, "SELECT plate_number FROM car WHERE id = %s", terminal.car_id)[0][0]
    query = ("SELECT p.fix_at, round(p.lat::numeric, 6) FROM exchange_position p JOIN exchange_vehicle v "
             "ON v.id = p.vehicle_id WHERE v.inferior_platform_id = %s AND v.plate = %s ORDER BY p.fix_at")
    rows = wait_for(lambda: (found := _rows(pg_url, query, inferior_id, plate)) and len(found) >= 2 and found, 60,
                    "the loopback positions at the superior", seeded["service"])
    # one position per vehicle per LOOPBACK_INTERVAL_S of fix time: the second fix (1 s later) is thinned
    assert [(r[0], float(r[1])) for r in rows] == [(fixes[0], 30.5), (fixes[2], 30.52)]
    vehicle = _rows(pg_url, "SELECT enterprise_id, last_fix_at FROM exchange_vehicle WHERE inferior_platform_id = %s",
                    inferior_id)
    assert vehicle == [(seeded["enterprise"], fixes[2])]
