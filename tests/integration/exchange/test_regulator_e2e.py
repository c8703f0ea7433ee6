"""End to end with the regulator in a box (exchange.regulator.Regulator, its own event loop here) and the link
service as its own process, over the real Kafka and PostgreSQL: simulated terminals' positions and an alarm
are counted by the regulator; its inspection is stored, answered as the API does and arrives as 0x1301; the
regulator stopped for a while and started again gets the gap back-filled as 0x1203, in order, nothing missing."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest

from exchange.regulator import Regulator
from exchange.superior.accounts import Account
from exchange.superior.links import Timing
from fleet.topics import CONSOLE_EVENTS, JT808_UPLINK
from streams.payloads import Terminal
from tests.integration.exchange.test_link_service import LinkService, plates, produce_positions
from tests.integration.streams.support import Producer, commit_group_at_end, insert_terminals, wait_for
from warehouse.queries import exchange as q

USER, PASSWORD, CENTRE = 80900077, "reg809", 80900077


class RegulatorThread:
    def __init__(self, port: int) -> None:
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, daemon=True).start()
        self.regulator = Regulator([Account(USER, PASSWORD, CENTRE, "2019")], host="127.0.0.1", port=port,
                                   timing=Timing(reconnect_min_s=0.2, reconnect_max_s=1.0))

    def call(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        async def go() -> Any:
            result = fn(*args, **kwargs)
            return await result if asyncio.iscoroutine(result) else result
        return asyncio.run_coroutine_threadsafe(go(), self.loop).result(20)

    def status(self) -> dict[str, Any]:
        return self.call(self.regulator.status)  # type: ignore[no-any-return]

    def vehicles(self) -> dict[str, dict[str, Any]]:
        return {v["plate"]: v for v in self.status()["vehicles"]}

    def linked(self) -> bool:
        links = self.status()["links"]
        return bool(links) and links[0]["main"]["state"] == "up" and links[0]["sub"]["state"] == "up"


@pytest.fixture
def scene(pg_url: str, kafka_bootstrap: str, stack_env: dict[str, str], free_port: Any,
          tmp_path: Path) -> Iterator[tuple[RegulatorThread, LinkService, list[Terminal], int]]:
    terminals = insert_terminals(pg_url, 3, enterprise_name="regulator-e2e")
    regulator = RegulatorThread(free_port())
    regulator.call(regulator.regulator.start)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("UPDATE superior_platform SET enabled = false")  # only this test's platform is linked
        platform_id = conn.execute(
            "INSERT INTO superior_platform (enterprise_id, name, host, port, user_id, password, centre_id, version, "
            "down_link_host, down_link_port, position_interval_s) VALUES (%s, 'regulator in a box', '127.0.0.1', "
            "%s, %s, %s, %s, '2019', '127.0.0.1', %s, 0) RETURNING id",
            (terminals[0].enterprise_id, regulator.regulator.port, USER, PASSWORD, CENTRE, free_port())
        ).fetchone()[0]  # type: ignore[index]
    commit_group_at_end(kafka_bootstrap, f"fleet-exchange-{platform_id}", (JT808_UPLINK, CONSOLE_EVENTS))
    env = {**stack_env, "FLEET_EXCHANGE_RELOAD_S": "1", "FLEET_EXCHANGE_POLL_S": "0.5",
           "FLEET_EXCHANGE_BACKFILL_AFTER_S": "5", "FLEET_EXCHANGE_RECONNECT_MIN_S": "0.2",
           "FLEET_EXCHANGE_RECONNECT_MAX_S": "1", "FLEET_EXCHANGE_HEARTBEAT_S": "5"}
    service = LinkService(env, tmp_path / "exchange.log")
    service.start()
    wait_for(regulator.linked, 60, "main and sub link up at the regulator", service)
    try:
        yield regulator, service, terminals, platform_id
    finally:
        service.stop()
        regulator.call(regulator.regulator.stop)
        regulator.loop.call_soon_threadsafe(regulator.loop.stop)
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute("UPDATE superior_platform SET enabled = false WHERE id = %s", (platform_id,))


def test_positions_an_alarm_and_an_inspection_answer_go_through_the_regulator(scene: Any, kafka_bootstrap: str,
                                                                              pg_url: str) -> None:
    regulator, service, terminals, platform_id = scene
    producer = Producer(kafka_bootstrap)
    plate_of = plates(pg_url, terminals)
    now = datetime.now(UTC).replace(microsecond=0)
    produce_positions(producer, terminals, now - timedelta(seconds=3), 3)
    alarm = {"kind": "push", "enterprise_id": terminals[0].enterprise_id, "enterprise_path": "/x/",
             "push": {"type": 2, "data": {"alarmId": 1, "carId": terminals[0].car_id, "key": "a1",
                                          "startTime": int(now.timestamp() * 1000), "desc": "超速报警"}}}
    producer.send(CONSOLE_EVENTS, str(terminals[0].enterprise_id), alarm)
    producer.flush()
    wait_for(lambda: all(regulator.vehicles().get(p, {}).get("unique_fixes") == 3 for p in plate_of.values())
             and regulator.status()["alarms"], 60, "3 positions per vehicle and the alarm", service)
    vehicles = regulator.vehicles()
    assert all(vehicles[p]["registrations"] >= 1 and vehicles[p]["out_of_order"] == 0 for p in plate_of.values())
    assert regulator.status()["alarms"][0]["warn_type"] == 1
    assert regulator.status()["errors"] == {} or not any(regulator.status()["errors"].values())

    asked = regulator.call(regulator.regulator.send_inspection, "请报值班人员姓名", user_id=USER)
    row = wait_for(lambda: _one(pg_url, "SELECT id, question, deadline FROM exchange_inspection WHERE platform_id = %s",
                                platform_id), 30, "the inspection stored", service)
    assert row[1] == "请报值班人员姓名" and row[2] is not None  # 2019: a deadline from the answer minutes
    with psycopg.connect(pg_url, autocommit=True) as conn:
        assert q.answer_inspection(conn, row[0], "张三在岗", 1, "%")
    answers = wait_for(lambda: regulator.status()["inspection_answers"], 30, "the 0x1301 at the regulator", service)
    assert answers[0]["answer"] == "张三在岗" and answers[0]["info_id"] == asked["info_id"]


def test_the_regulator_away_for_a_while_gets_the_gap_backfilled_in_order(scene: Any, kafka_bootstrap: str,
                                                                         pg_url: str) -> None:
    regulator, service, terminals, platform_id = scene
    producer = Producer(kafka_bootstrap)
    plate_of = plates(pg_url, terminals)
    regulator.call(regulator.regulator.stop)
    start = datetime.now(UTC).replace(microsecond=0) - timedelta(seconds=30)
    produce_positions(producer, terminals, start, 30)
    time.sleep(6)  # older than FLEET_EXCHANGE_BACKFILL_AFTER_S when the links are back
    regulator.call(regulator.regulator.start)
    wait_for(lambda: all(regulator.vehicles().get(p, {}).get("unique_fixes") == 30 for p in plate_of.values()),
             90, "the gap back-filled", service)
    vehicles = regulator.vehicles()
    for plate in plate_of.values():
        assert vehicles[plate]["backfilled"] >= 30 and vehicles[plate]["backfill_unordered"] == 0
    backfill_sql = "SELECT COALESCE(sum(backfilled_count), 0) FROM exchange_link_state WHERE platform_id = %s"
    wait_for(lambda: _one(pg_url, backfill_sql, platform_id)[0] >= 90, 10, "the back-fill counted in the link state",
             service)


def _one(pg_url: str, sql: str, *params: Any) -> Any:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        return conn.execute(sql, params).fetchone()
