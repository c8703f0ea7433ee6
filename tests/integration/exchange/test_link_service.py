"""The link service (``python -m exchange.link``) as its own process against the real Kafka and PostgreSQL, with a
superior platform on loopback that decodes every frame (a scripted peer built with protocols.jt809): positions
and an alarm of simulated terminals arrive; kill -9 of the link service mid-stream and a restart lose nothing;
a superior that is away for a while gets the gap as 0x1203 back-fill, in order, counted in the link state."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest

from exchange.link.wire import read_frame
from fleet.settings import REPO_ROOT
from fleet.topics import CONSOLE_EVENTS, JT808_UPLINK
from protocols.jt809 import decode_frame, encode_frame
from protocols.jt809 import messages as m
from streams.payloads import Terminal, location_report
from tests.integration.streams.support import Producer, commit_group_at_end, insert_terminals, wait_for
from tests.support.processes import ServiceProcess

USER, PASSWORD, CENTRE = 80900099, "pw809", 80900099


class ThreadSuperior:
    """A superior platform on its own event loop thread: accepts the main link, answers logins and
    heartbeats, records every position (plate, fix time, 0x1202 or 0x1203) and alarm it decodes."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.positions: list[tuple[str, datetime, int]] = []
        self.registrations: list[str] = []
        self.alarms: list[m.AlarmReport] = []
        self.logins = 0
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.server: asyncio.Server | None = None
        self.writers: list[asyncio.StreamWriter] = []

    def _call(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(10)

    def start(self) -> None:
        async def go() -> None:
            self.server = await asyncio.start_server(self._main, "127.0.0.1", self.port)
        self._call(go())

    def stop(self) -> None:
        async def go() -> None:
            if self.server is not None:
                self.server.close()
            for writer in self.writers:
                writer.close()
            self.writers.clear()
        self._call(go())

    def close(self) -> None:
        self.stop()
        self.loop.call_soon_threadsafe(self.loop.stop)

    async def _main(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.writers.append(writer)
        sn = 0
        try:
            while True:
                message = decode_frame(await read_frame(reader), version="2019")
                body = message.body
                sn += 1
                if message.header.msg_id == m.LoginRequest.MSG_ID:
                    ok = body.user_id == USER and body.password == PASSWORD
                    self.logins += ok
                    writer.write(encode_frame(m.LoginResponse.MSG_ID, m.LoginResponse(0 if ok else 4, 4242),
                                              sn=sn, centre_id=CENTRE, version="2019"))
                elif message.header.msg_id == m.Heartbeat.MSG_ID:
                    writer.write(encode_frame(m.HeartbeatResponse.MSG_ID, b"", sn=sn, centre_id=CENTRE,
                                              version="2019"))
                elif isinstance(body, m.VehicleDynamic):
                    if isinstance(body.data, m.RealTimePosition):
                        self.positions.append((body.plate, body.data.position.location.fix_at, 0x1202))
                    elif isinstance(body.data, m.BackfilledPositions):
                        self.positions += [(body.plate, p.location.fix_at, 0x1203) for p in body.data.positions]
                    elif body.data_type == m.VehicleRegistration.DATA_TYPE:
                        self.registrations.append(body.plate)
                elif isinstance(body, m.AlarmExchange) and isinstance(body.data, m.AlarmReport):
                    self.alarms.append(body.data)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass

    def unique(self) -> set[tuple[str, datetime]]:
        return {(plate, at) for plate, at, _ in self.positions}


class LinkService(ServiceProcess):
    def __init__(self, env: dict[str, str], log_file: Path) -> None:
        self.env, self.log_file = env, log_file

    def start(self) -> None:
        with open(self.log_file, "ab") as log:
            self.proc = subprocess.Popen([sys.executable, "-m", "exchange.link"], cwd=REPO_ROOT, env=self.env,
                                         stdout=log, stderr=subprocess.STDOUT)


@pytest.fixture
def setup(pg_url: str, kafka_bootstrap: str, stack_env: dict[str, str], free_port: Any,
          tmp_path: Path) -> Iterator[tuple[ThreadSuperior, LinkService, list[Terminal], int]]:
    terminals = insert_terminals(pg_url, 3, enterprise_name="exchange-test")
    superior = ThreadSuperior(free_port())
    superior.start()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("UPDATE superior_platform SET enabled = false")  # only this test's platform is linked
        platform_id = conn.execute(
            "INSERT INTO superior_platform (enterprise_id, name, host, port, user_id, password, centre_id, version, "
            "down_link_host, down_link_port, position_interval_s) VALUES (%s, 'test regulator', '127.0.0.1', %s, %s, "
            "%s, %s, '2019', '127.0.0.1', %s, 0) RETURNING id",
            (terminals[0].enterprise_id, superior.port, USER, PASSWORD, CENTRE, free_port())).fetchone()[0]  # type: ignore[index]
    commit_group_at_end(kafka_bootstrap, f"fleet-exchange-{platform_id}", (JT808_UPLINK, CONSOLE_EVENTS))
    env = {**stack_env, "FLEET_EXCHANGE_RELOAD_S": "1", "FLEET_EXCHANGE_POLL_S": "0.5",
           "FLEET_EXCHANGE_BACKFILL_AFTER_S": "5", "FLEET_EXCHANGE_RECONNECT_MIN_S": "0.2",
           "FLEET_EXCHANGE_RECONNECT_MAX_S": "1", "FLEET_EXCHANGE_HEARTBEAT_S": "5"}
    service = LinkService(env, tmp_path / "exchange.log")
    service.start()
    wait_for(lambda: superior.logins >= 1, 60, "the link service's login")
    try:
        yield superior, service, terminals, platform_id
    finally:
        service.stop()
        superior.close()
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute("UPDATE superior_platform SET enabled = false WHERE id = %s", (platform_id,))


def produce_positions(producer: Producer, terminals: list[Terminal], start: datetime, count: int,
                      step_s: int = 1) -> set[tuple[str, datetime]]:
    sent = set()
    for i in range(count):
        for t in terminals:
            at = start + timedelta(seconds=i * step_s)
            producer.send(JT808_UPLINK, t.phone, location_report(t, fix_at=at, lat=39.9 + i * 1e-4, lng=116.4))
            sent.add((t.phone, at))
    producer.flush()
    return sent


def plates(pg_url: str, terminals: list[Terminal]) -> dict[str, str]:
    with psycopg.connect(pg_url) as conn:
        rows = conn.execute("SELECT d.phone, c.plate_number FROM device d JOIN car c ON c.id = d.car_id "
                            "WHERE d.id = ANY(%s)", ([t.device_id for t in terminals],)).fetchall()
    return dict(rows)


def as_plates(sent: set[tuple[str, datetime]], plate_of: dict[str, str]) -> set[tuple[str, datetime]]:
    return {(plate_of[phone], at) for phone, at in sent}


def test_positions_and_an_alarm_reach_the_superior(setup: Any, kafka_bootstrap: str, pg_url: str) -> None:
    superior, service, terminals, platform_id = setup
    producer = Producer(kafka_bootstrap)
    now = datetime.now(UTC).replace(microsecond=0)
    sent = as_plates(produce_positions(producer, terminals, now, 10), plates(pg_url, terminals))
    alarm = {"kind": "push", "enterprise_id": terminals[0].enterprise_id, "enterprise_path": "/x/",
             "push": {"type": 2, "data": {"alarmId": 1, "carId": terminals[0].car_id, "deviceId": terminals[0].device_id,
                                          "key": "a0", "startTime": int(now.timestamp() * 1000),
                                          "plateNumber": "", "desc": "紧急报警"}}}
    producer.send(CONSOLE_EVENTS, str(terminals[0].enterprise_id), alarm)
    producer.flush()
    wait_for(lambda: sent <= superior.unique() and superior.alarms, 60, "30 positions and an alarm", service)
    assert sorted(set(superior.registrations)) == sorted({p for p, _ in sent})
    assert superior.alarms[0].warn_type == 3
    for plate in {p for p, _ in sent}:
        times = [at for p, at, _ in superior.positions if p == plate]
        assert times == sorted(times)
    # the counts are saved every FLEET_EXCHANGE_POLL_S: registrations, positions and the alarm were written
    wait_for(lambda: [r for r in _link_state(pg_url, platform_id) if r[0] == "main" and r[1] == "connected"
                      and r[2] >= 31], 10, "the main link's state saved with what was written")


def _link_state(pg_url: str, platform_id: int) -> list[tuple[Any, ...]]:
    with psycopg.connect(pg_url) as conn:
        return conn.execute("SELECT link, state, sent_count, backfilled_count FROM exchange_link_state "
                            "WHERE platform_id = %s", (platform_id,)).fetchall()


def test_kill_9_of_the_link_service_mid_stream_and_a_restart_lose_nothing(setup: Any, kafka_bootstrap: str,
                                                                          pg_url: str) -> None:
    superior, service, terminals, _ = setup
    producer = Producer(kafka_bootstrap)
    plate_of = plates(pg_url, terminals)
    start = datetime.now(UTC).replace(microsecond=0)
    sent = as_plates(produce_positions(producer, terminals, start, 40), plate_of)
    wait_for(lambda: len(superior.unique() & sent) >= 10, 60, "the first positions", service)
    service.kill()
    sent |= as_plates(produce_positions(producer, terminals, start + timedelta(seconds=40), 40), plate_of)
    service.start()
    wait_for(lambda: sent <= superior.unique(), 90, "every position after the restart", service)
    assert not sent - superior.unique()  # zero missing; duplicates are allowed (at-least-once)


def test_a_superior_away_for_a_while_gets_the_gap_as_backfill_in_order(setup: Any, kafka_bootstrap: str,
                                                                       pg_url: str) -> None:
    superior, service, terminals, platform_id = setup
    producer = Producer(kafka_bootstrap)
    plate_of = plates(pg_url, terminals)
    superior.stop()
    time.sleep(1)
    # the fixes of the last 30 s, reported while the superior is away
    start = datetime.now(UTC).replace(microsecond=0) - timedelta(seconds=30)
    gap = as_plates(produce_positions(producer, terminals, start, 30), plate_of)
    time.sleep(6)  # all older than FLEET_EXCHANGE_BACKFILL_AFTER_S (5 s) when the link is back
    superior.start()
    wait_for(lambda: gap <= superior.unique(), 90, "the gap back-filled", service)
    backfilled = [(p, at) for p, at, kind in superior.positions if kind == 0x1203 and (p, at) in gap]
    assert set(backfilled) == gap
    for plate in {p for p, _ in gap}:
        times = [at for p, at in backfilled if p == plate]
        assert times == sorted(times)
    wait_for(lambda: any(r[3] >= len(gap) for r in _link_state(pg_url, platform_id)), 10, "back-fill counted")
