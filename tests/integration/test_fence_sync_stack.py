"""Terminal fences reach terminals through the one command path, on the real Kafka and PostgreSQL: a
binding row -> the streams worker's reconciler (streams.fence_sync) -> command row + jt808.downlink.v1 ->
gateway -> the simulated terminal over TCP (simulator.areas) -> its 0x0001 -> the commands step -> the
fence_sync row's state; and back: the simulated terminal's own report of crossing the area it holds (0x0200
item 0x12, simulator.area_watch) -> the fences step -> a stored `tfence:` alarm named after the fence.
Bindings and fences are written as rows: the reconciler needs no hook in the routes that write them."""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

import psycopg
import pytest
from psycopg.types.json import Jsonb

from fleet.enums import DeviceState
from simulator.driving import Vehicle
from simulator.fleet import MemoryAuthStore
from simulator.terminal import TerminalConfig, VirtualTerminal
from tests.integration.gateway.support import running_gateway
from tests.integration.streams.conftest import start_worker
from tests.integration.streams.support import Worker
from tests.support.scripted_vehicle import ScriptedVehicle, shuttle

pytestmark = pytest.mark.timeout(240)
TIMEOUT_S = 4
CODE = "FENCE1"
SQUARE = [[121.40, 31.20], [121.50, 31.20], [121.50, 31.30], [121.40, 31.30], [121.40, 31.20]]
TRIANGLE = [[121.40, 31.20], [121.50, 31.20], [121.45, 31.30], [121.40, 31.20]]


@pytest.fixture(scope="module")
def worker(stack_env: dict[str, str], kafka_bootstrap: str,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[Worker]:
    w = start_worker(stack_env | {"FLEET_COMMANDS_TIMEOUT_S": str(TIMEOUT_S),
                                  "FLEET_COMMANDS_SWEEP_INTERVAL_S": "0.5"},
                     kafka_bootstrap, tmp_path_factory.mktemp("fence-worker"), batch_window_s=0.05,
                     fence_sync_interval_s=0.3)
    yield w
    w.stop()


def _vehicle(pg_url: str) -> dict[str, Any]:
    """A fresh enterprise with one car, its terminal (offline) and a terminal polygon fence, not bound."""
    tag = uuid.uuid4().hex[:8]
    phone = f"17{uuid.uuid4().int % 10**9:09d}"
    with psycopg.connect(pg_url, autocommit=True) as conn:
        ent = conn.execute("INSERT INTO enterprise (name, short_name) VALUES (%s, %s) RETURNING id",
                           (f"fence-sync-{tag}", "fence-sync")).fetchone()[0]  # type: ignore[index]
        conn.execute("UPDATE enterprise SET path = %s WHERE id = %s", (f"/{ent}/", ent))
        car = conn.execute("INSERT INTO car (enterprise_id, plate_number) VALUES (%s, %s) RETURNING id",
                           (ent, f"FS{tag}")).fetchone()[0]  # type: ignore[index]
        device = conn.execute(
            "INSERT INTO device (enterprise_id, car_id, phone, device_sn, auth_code, protocol_version)"
            " VALUES (%s, %s, %s, %s, %s, '2013') RETURNING id", (ent, car, phone, f"FS{tag}", CODE)
        ).fetchone()[0]  # type: ignore[index]
        conn.execute("UPDATE car SET master_device_id = %s WHERE id = %s", (device, car))
        fence = conn.execute(
            "INSERT INTO fence (enterprise_id, name, fence_type, business_type, shape, geometry, attributes)"
            " VALUES (%s, %s, 2, 2, 'polygon', %s, %s) RETURNING id",
            (ent, f"depot {tag}", Jsonb({"rings": [SQUARE]}), (1 << 3) | (1 << 5))).fetchone()[0]  # type: ignore[index]
    return {"enterprise": ent, "car": car, "device": device, "phone": phone, "fence": fence}


def _execute(pg_url: str, statement: str, params: Any) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(statement, params)


def _bind(pg_url: str, v: dict[str, Any]) -> None:
    _execute(pg_url, "INSERT INTO fence_binding (fence_id, car_id, enterprise_id) VALUES (%s, %s, %s)",
             (v["fence"], v["car"], v["enterprise"]))


def _sync_row(pg_url: str, v: dict[str, Any]) -> dict[str, Any] | None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        cur = conn.execute(
            "SELECT fs.wanted, fs.state, fs.result, fs.error, fs.version, c.msg_id, c.state AS command_state"
            " FROM fence_sync fs LEFT JOIN command c ON c.id = fs.command_id"
            " WHERE fs.fence_id = %s AND fs.device_id = %s", (v["fence"], v["device"]))
        row = cur.fetchone()
        return None if row is None else dict(zip([d.name for d in cur.description or ()], row, strict=True))


def _device_state(pg_url: str, device: int) -> int:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        return int(conn.execute("SELECT state FROM device WHERE id = %s", (device,)).fetchone()[0])  # type: ignore[index]


async def _until(what: str, check: Callable[[], Any], worker: Worker, timeout_s: float = 30.0) -> Any:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while loop.time() < deadline:
        found = await asyncio.to_thread(check)
        if found:
            return found
        await asyncio.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}\n--- worker log ---\n{worker.log_tail()}")


def _terminal(port: int, phone: str, interval_s: float = 5.0, vehicle: Vehicle | None = None) -> VirtualTerminal:
    config = TerminalConfig(host="127.0.0.1", port=port, interval_s=interval_s, heartbeat_interval_s=30,
                            ack_timeout_s=10, backlog_batch_items=20, reconnect_min_s=0.2, reconnect_max_s=1,
                            reply_timeout_s=10)
    rng = random.Random(phone)
    return VirtualTerminal(index=1, phone=phone, terminal_id=f"SIM{phone[-7:]}", config=config,
                           vehicle=vehicle or Vehicle(rng, 31.23, 121.47, 5), rng=rng,
                           auth_store=MemoryAuthStore({phone: CODE}),
                           fix_clock=datetime.now(UTC).replace(microsecond=0), plate="沪A·F0001")


class Online:
    """A gateway and the simulated terminal of ``v`` connected to it, until the block ends."""

    def __init__(self, pg_url: str, kafka_bootstrap: str, port: int, v: dict[str, Any], worker: Worker,
                 terminal: VirtualTerminal | None = None) -> None:
        self.pg_url, self.kafka_bootstrap, self.port, self.v, self.worker = pg_url, kafka_bootstrap, port, v, worker
        self.terminal = terminal or _terminal(port, v["phone"])
        self._stop = asyncio.Event()

    async def __aenter__(self) -> VirtualTerminal:
        self._gateway = running_gateway(self.pg_url, self.kafka_bootstrap, self.port)
        server = await self._gateway.__aenter__()
        await asyncio.wait_for(server.downlinks_ready.wait(), 20)
        self._task = asyncio.create_task(self.terminal.run(self._stop))
        await _until("the terminal online", lambda: _device_state(self.pg_url, self.v["device"]) == DeviceState.ONLINE,
                     self.worker)
        return self.terminal

    async def __aexit__(self, *exc: object) -> None:
        self._stop.set()
        self.terminal.wake()
        await asyncio.wait_for(self._task, 20)
        await self._gateway.__aexit__(None, None, None)


def _ring(area: Any) -> list[list[float]]:
    return [[v.lng, v.lat] for v in area.vertices]


def test_binding_sends_0x8604_whose_answer_acknowledges_an_edit_resends_and_unbinding_deletes(
        pg_url: str, kafka_bootstrap: str, worker: Worker, free_port: Callable[[], int]) -> None:
    v = _vehicle(pg_url)

    async def main() -> None:
        async with Online(pg_url, kafka_bootstrap, free_port(), v, worker) as terminal:
            await asyncio.to_thread(_bind, pg_url, v)
            row = await _until("the polygon acknowledged", lambda: (r := _sync_row(pg_url, v)) is not None
                               and r["state"] == "acknowledged" and r, worker)
            assert (row["wanted"], row["msg_id"], row["command_state"], row["result"]) == ("set", 0x8604, "answered", 0)
            held = terminal.responder.areas.polygons[v["fence"]]
            assert _ring(held) == SQUARE[:-1] and held.attributes == (1 << 3) | (1 << 5)

            # an edit (updated_at moves) is sent again
            await asyncio.to_thread(_execute, pg_url, "UPDATE fence SET geometry = %s, updated_at = now() WHERE id = %s",
                                    (Jsonb({"rings": [TRIANGLE]}), v["fence"]))
            await _until("the edit acknowledged", lambda: (r := _sync_row(pg_url, v)) is not None
                         and r["version"] > row["version"] and r["state"] == "acknowledged", worker)
            assert _ring(terminal.responder.areas.polygons[v["fence"]]) == TRIANGLE[:-1]
            edited = _sync_row(pg_url, v)
            assert edited is not None

            # an edit to another shape deletes the old area (0x8605) and sets the new one (0x8600)
            await asyncio.to_thread(
                _execute, pg_url, "UPDATE fence SET shape = 'circle', geometry = %s, updated_at = now() WHERE id = %s",
                (Jsonb({"center": [121.47, 31.23], "radius": 800}), v["fence"]))
            await _until("the circle acknowledged", lambda: (r := _sync_row(pg_url, v)) is not None
                         and r["version"] > edited["version"] and r["state"] == "acknowledged", worker)
            assert v["fence"] not in terminal.responder.areas.polygons
            assert terminal.responder.areas.circles[v["fence"]].radius_m == 800

            # unbinding sends the delete of the shape it holds (0x8601) with the fence id; the acknowledged
            # delete row goes
            await asyncio.to_thread(_execute, pg_url, "DELETE FROM fence_binding WHERE fence_id = %s", (v["fence"],))
            await _until("the delete acknowledged and its row gone", lambda: _sync_row(pg_url, v) is None, worker)
            assert v["fence"] not in terminal.responder.areas.circles

    asyncio.run(main())
    with psycopg.connect(pg_url, autocommit=True) as conn:
        sent = conn.execute("SELECT msg_id, state, result, created_by_name FROM command WHERE device_id = %s ORDER BY id",
                            (v["device"],)).fetchall()
    assert [msg_id for msg_id, *_ in sent] == [0x8604, 0x8604, 0x8605, 0x8600, 0x8601]
    assert {tuple(rest) for _, *rest in sent} == {("answered", 0, "平台")}


def test_an_offline_terminal_gets_its_fence_when_it_next_authenticates(
        pg_url: str, kafka_bootstrap: str, worker: Worker, free_port: Callable[[], int]) -> None:
    v = _vehicle(pg_url)
    _bind(pg_url, v)

    async def main() -> None:
        await _until("the pending row", lambda: (r := _sync_row(pg_url, v)) is not None and r["state"] == "pending",
                     worker)
        await asyncio.sleep(1.5)  # several ticks: nothing goes to an offline terminal
        row = _sync_row(pg_url, v)
        assert row is not None and (row["state"], row["msg_id"]) == ("pending", None)
        async with Online(pg_url, kafka_bootstrap, free_port(), v, worker) as terminal:
            await _until("the polygon acknowledged after authentication",
                         lambda: (r := _sync_row(pg_url, v)) is not None and r["state"] == "acknowledged", worker)
            assert _ring(terminal.responder.areas.polygons[v["fence"]]) == SQUARE[:-1]

    asyncio.run(main())


def test_a_terminal_answering_result_1_shows_failed_with_result_1(
        pg_url: str, kafka_bootstrap: str, worker: Worker, free_port: Callable[[], int]) -> None:
    v = _vehicle(pg_url)

    async def main() -> None:
        async with Online(pg_url, kafka_bootstrap, free_port(), v, worker) as terminal:
            terminal.responder.areas.capacity = 0  # its storage is full: it refuses with result 1
            await asyncio.to_thread(_bind, pg_url, v)
            row = await _until("the polygon failed", lambda: (r := _sync_row(pg_url, v)) is not None
                               and r["state"] == "failed" and r, worker)
            assert (row["result"], row["error"], row["msg_id"]) == (1, None, 0x8604)
            assert not terminal.responder.areas.polygons
            await asyncio.sleep(1.0)  # a terminal's refusal is not retried by itself (the console resends)
            again = _sync_row(pg_url, v)
            assert again is not None and again["state"] == "failed"

    asyncio.run(main())


def test_an_unanswered_fence_fails_with_timeout_and_goes_again_when_the_terminal_next_authenticates(
        pg_url: str, kafka_bootstrap: str, worker: Worker, free_port: Callable[[], int]) -> None:
    from simulator.commands import SILENT

    v = _vehicle(pg_url)

    async def main() -> None:
        async with Online(pg_url, kafka_bootstrap, free_port(), v, worker) as terminal:
            terminal.responder.behaviour = SILENT
            await asyncio.to_thread(_bind, pg_url, v)
            row = await _until("the polygon timed out", lambda: (r := _sync_row(pg_url, v)) is not None
                               and r["state"] == "failed" and r, worker, timeout_s=TIMEOUT_S + 30)
            assert (row["result"], row["error"], row["command_state"]) == (None, "timeout", "timed_out")
        await _until("the terminal offline", lambda: _device_state(pg_url, v["device"]) != DeviceState.ONLINE, worker)
        async with Online(pg_url, kafka_bootstrap, free_port(), v, worker) as terminal:
            await _until("the polygon acknowledged after the next authentication",
                         lambda: (r := _sync_row(pg_url, v)) is not None and r["state"] == "acknowledged", worker)
            assert v["fence"] in terminal.responder.areas.polygons

    asyncio.run(main())


def _in_out_rows(pg_url: str, device: int) -> list[tuple[Any, ...]]:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        return conn.execute("SELECT key, type, fence_id, fence_name, source, kind FROM in_out_alarm_view"
                            " WHERE device_id = %s AND key LIKE 'tfence:%%' ORDER BY start_time, key",
                            (device,)).fetchall()


def test_a_simulated_terminal_reports_crossing_the_circle_it_was_sent_as_a_tfence_alarm_named_after_the_fence(
        pg_url: str, kafka_bootstrap: str, worker: Worker, free_port: Callable[[], int]) -> None:
    v = _vehicle(pg_url)
    name = f"物流园 {v['fence']}"
    # a 100 m circle, enter / leave to the platform, that the vehicle keeps driving through (72 km/h, a fix a second)
    _execute(pg_url, "UPDATE fence SET shape = 'circle', geometry = %s, name = %s WHERE id = %s",
             (Jsonb({"center": [121.47, 31.23], "radius": 100}), name, v["fence"]))
    port = free_port()
    terminal = _terminal(port, v["phone"], interval_s=1.0,
                         vehicle=ScriptedVehicle(shuttle(121.47, 31.23, 200, 72.0, 1.0), loop=True))

    async def main() -> None:
        async with Online(pg_url, kafka_bootstrap, port, v, worker, terminal):
            await asyncio.to_thread(_bind, pg_url, v)
            await _until("the circle acknowledged", lambda: (r := _sync_row(pg_url, v)) is not None
                         and r["state"] == "acknowledged", worker)
            assert v["fence"] in terminal.responder.areas.circles
            rows = await _until("the terminal's enter and leave alarms",
                                lambda: len(r := _in_out_rows(pg_url, v["device"])) >= 2 and r, worker, timeout_s=60)
        # in and out, each named after the fence, from the terminal (repeats of a later lap may follow)
        assert set(rows) == {(f"tfence:{v['fence']}:{kind}", 4, v["fence"], name, "terminal", kind)
                             for kind in ("enter", "leave")}, rows

    asyncio.run(main())
    with psycopg.connect(pg_url, autocommit=True) as conn:
        details = conn.execute("SELECT details FROM alarm WHERE device_id = %s AND key = %s ORDER BY start_time LIMIT 1",
                               (v["device"], f"tfence:{v['fence']}:enter")).fetchone()
        bits = conn.execute("SELECT count(*) FROM alarm WHERE device_id = %s AND key = 'a20'",
                            (v["device"],)).fetchone()
    assert details is not None and details[0]["fenceName"] == name and details[0]["locationType"] == "circle"
    assert bits is not None and bits[0] >= 1  # alarm bit 20 (in / out of an area) on the same reports
