"""Commands end to end on the real Kafka and PostgreSQL: API -> jt808.downlink.v1 ->
gateway -> a scripted terminal over TCP -> its reply -> jt808.uplink.v1 / jt808.sent.v1 -> streams worker
-> command row, device_param, pushes 11 / 12 on console.events.v1 -> API state.json and params.json."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg
import pytest
from flask.testing import FlaskClient

from api.commands import Downlinks
from api.services import DOWNLINKS_KEY
from fleet.enums import DeviceState
from fleet.settings import ApiSettings
from fleet.topics import CONSOLE_EVENTS
from protocols.jt808 import (
    Authentication,
    LocationReport,
    Message,
    QueryParametersResponse,
    TerminalParam,
    TerminalResponse,
    VehicleControl,
    VehicleControlResponse,
)
from protocols.jt808.messages.t0500_vehicle_control_response import DOORS_LOCKED_BIT
from tests.integration.gateway.support import TerminalClient, running_gateway
from tests.integration.streams.conftest import start_worker
from tests.integration.streams.support import TopicReader, Worker, wait_for
from warehouse.passwords import hash_password

pytestmark = pytest.mark.timeout(240)
TIMEOUT_S = 4
PASSWORD = "Cmd@2026x"


def _fleet(pg_url: str) -> dict[str, Any]:
    """An enterprise with two cars and terminals (one will stay offline) and a user allowed to command."""
    from warehouse.seed import seed_demo

    seed_demo(pg_url, terminals=20)  # the permission catalogue (idempotent; the API tests' size)
    tag = uuid.uuid4().hex[:8]
    with psycopg.connect(pg_url, autocommit=True) as conn:
        ent = conn.execute("INSERT INTO enterprise (name, short_name) VALUES (%s, %s) RETURNING id",
                           (f"cmd-rt-{tag}", "cmd-rt")).fetchone()[0]  # type: ignore[index]
        conn.execute("UPDATE enterprise SET path = %s WHERE id = %s", (f"/{ent}/", ent))
        devices = []
        for index in range(2):
            car = conn.execute("INSERT INTO car (enterprise_id, plate_number) VALUES (%s, %s) RETURNING id",
                               (ent, f"RT{tag}{index}")).fetchone()[0]  # type: ignore[index]
            phone = f"16{int(tag, 16) % 10**8:08d}{index}"
            device = conn.execute(
                "INSERT INTO device (enterprise_id, car_id, phone, device_sn, auth_code, protocol_version)"
                " VALUES (%s, %s, %s, %s, 'C0DE', '2013') RETURNING id", (ent, car, phone, f"RT{tag}{index}")
            ).fetchone()[0]  # type: ignore[index]
            conn.execute("UPDATE car SET master_device_id = %s WHERE id = %s", (device, car))
            devices.append({"car": car, "device": device, "phone": phone, "plate": f"RT{tag}{index}"})
        user = f"cmd_{tag}"
        user_id = conn.execute("INSERT INTO app_user (enterprise_id, user_name, password_hash, name) VALUES"
                               " (%s, %s, %s, %s) RETURNING id", (ent, user, hash_password(PASSWORD), user)).fetchone()[0]  # type: ignore[index]
        role = conn.execute("INSERT INTO role (enterprise_id, name) VALUES (%s, %s) RETURNING id",
                            (ent, f"cmd {tag}")).fetchone()[0]  # type: ignore[index]
        conn.execute("INSERT INTO role_permission (role_id, permission_code, actions) VALUES (%s, 'command', %s)",
                     (role, ["cmd", "get", "query"]))
        conn.execute("INSERT INTO role_permission (role_id, permission_code, actions)"
                     " VALUES (%s, 'sensitiveCommand', %s)", (role, ["cmd"]))  # 8500 vehicle control
        conn.execute("INSERT INTO user_role (user_id, role_id) VALUES (%s, %s)", (user_id, role))
    return {"enterprise": ent, "online": devices[0], "offline": devices[1], "user": user}


@pytest.fixture(scope="module")
def stack(pg_url: str, kafka_bootstrap: str, stack_env: dict[str, str],
          tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    from api import create_app
    from api.db import get_db

    fleet = _fleet(pg_url)
    worker: Worker = start_worker(stack_env | {"FLEET_COMMANDS_TIMEOUT_S": str(TIMEOUT_S),
                                               "FLEET_COMMANDS_SWEEP_INTERVAL_S": "0.5"},
                                  kafka_bootstrap, tmp_path_factory.mktemp("cmd-worker"), batch_window_s=0.05)
    app = create_app(ApiSettings(token_secret="commands-rt"), pg_url, var_dir=tmp_path_factory.mktemp("cmd-api"))
    app.extensions[DOWNLINKS_KEY] = Downlinks(kafka_bootstrap, 10.0)
    client = app.test_client()
    reply = client.get("/oauth2/token.json", query_string={"grant_type": "password", "username": fleet["user"],
                                                           "password": PASSWORD})
    assert reply.status_code == 200, reply.json
    try:
        yield fleet | {"client": client, "worker": worker,
                       "headers": {"Authorization": f"Bearer {reply.json['data']['access_token']}"}}
    finally:
        app.extensions[DOWNLINKS_KEY].close()
        get_db(app).close()
        worker.stop()


async def _next_command(terminal: TerminalClient, timeout_s: float = 15.0) -> Message:
    while True:
        msg = await terminal.receive(timeout_s=timeout_s)
        if msg.header.msg_id != 0x8001:
            return msg


def _state(stack: dict[str, Any], command_id: int) -> dict[str, Any]:
    client: FlaskClient = stack["client"]
    reply = client.get(f"/api/command/{command_id}/state.json", headers=stack["headers"])
    assert reply.status_code == 200, reply.json
    return reply.json["data"]  # type: ignore[no-any-return]


async def _until(stack: dict[str, Any], command_id: int, state: str, timeout_s: float = 30) -> dict[str, Any]:
    found: dict[str, Any] = {}
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while loop.time() < deadline:
        found = await asyncio.to_thread(_state, stack, command_id)
        if found["state"] == state:
            return found
        await asyncio.sleep(0.2)
    raise AssertionError(f"command {command_id} stayed {found.get('state')}, expected {state}\n"
                         + stack["worker"].log_tail())


def _pushes_of(events: TopicReader, command_ids: set[int]) -> dict[int, dict[str, Any]]:
    def mine(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [e["push"] for e in found if e.get("kind") == "push" and e["push"]["data"].get("commandId") in command_ids]

    records = events.read_until(lambda found: {p["data"]["commandId"] for p in mine(found)} >= command_ids, 30)
    return {p["data"]["commandId"]: p for p in mine(records)}


def test_command_round_trips_with_a_terminal_over_tcp(stack: dict[str, Any], pg_url: str, kafka_bootstrap: str,
                                                      free_port: Callable[[], int], tmp_path: Path) -> None:
    client: FlaskClient = stack["client"]
    headers = stack["headers"]
    online, offline = stack["online"], stack["offline"]
    events = TopicReader(kafka_bootstrap, CONSOLE_EVENTS)

    def post(url: str, body: dict[str, Any]) -> Any:
        return client.post(url, headers=headers, json=body)

    lock_fix_at = datetime.now(UTC).replace(microsecond=0)

    async def main() -> dict[str, int]:
        port = free_port()
        async with running_gateway(pg_url, kafka_bootstrap, port) as gateway:
            terminal = await TerminalClient.connect(port, "0" + online["phone"])  # 12 BCD digits in the header
            await terminal.send(0x0102, Authentication("C0DE"))
            await terminal.receive()
            await asyncio.wait_for(gateway.downlinks_ready.wait(), 10)
            await asyncio.to_thread(wait_for, lambda: _device_state(pg_url, online["device"]) == DeviceState.ONLINE,
                                    30, "the terminal online", stack["worker"])

            # 8104 -> 0x0104: answered, and params.json has the values
            reply = await asyncio.to_thread(post, f"/api/device/{online['device']}/command/8104.json", {})
            assert reply.status_code == 200 and reply.json["message"] == "指令已下发，等待网关处理中", reply.json
            query_id = reply.json["data"]["id"]
            asked = await _next_command(terminal)
            assert asked.header.msg_id == 0x8104
            await terminal.send(0x0104, QueryParametersResponse(asked.header.seq, (
                TerminalParam(0x0055, 60), TerminalParam(0x0056, 10), TerminalParam(0x0013, "10.1.2.3"))))
            answered = await _until(stack, query_id, "answered")
            assert (answered["result"], answered["replyMsgId"], answered["msgId"]) == (0, 0x0104, 0x8104)
            assert isinstance(answered["sentAt"], int) and answered["answeredAt"] >= answered["sentAt"] - 1000
            params = await asyncio.to_thread(client.get, f"/api/device/{online['device']}/terminal/params.json",
                                             headers=headers)
            assert params.json["data"] == {"0013": "31302E312E322E33", "0055": "0000003C", "0056": "0000000A"}

            # 8103 (by car) -> 0x0001 success: push 11
            reply = await asyncio.to_thread(post, f"/api/command/{online['car']}/8103.json",
                                            {"paramList": [{"id": "0055", "value": 80}]})
            set_id = reply.json["data"]["id"]
            written = await _next_command(terminal)
            assert written.header.msg_id == 0x8103 and written.body.params == (TerminalParam(0x0055, 80),)
            await terminal.send(0x0001, TerminalResponse(written.header.seq, 0x8103, 0))
            assert (await _until(stack, set_id, "answered"))["result"] == 0

            # 8300 -> 0x0001 unsupported: push 12 reason 3
            reply = await asyncio.to_thread(post, f"/api/device/{online['device']}/command/8300.json",
                                            {"content": "请注意", "tts": True})
            text_id = reply.json["data"]["id"]
            shown = await _next_command(terminal)
            assert shown.header.msg_id == 0x8300 and shown.body.text == "请注意" and shown.body.flags == 8
            await terminal.send(0x0001, TerminalResponse(shown.header.seq, 0x8300, 3))
            assert (await _until(stack, text_id, "answered"))["result"] == 3

            # 8500 lock the doors (sensitive: confirmed) -> 0x0500 with the position: answered, the fix on the track
            reply = await asyncio.to_thread(post, f"/api/device/{online['device']}/command/8500.json",
                                            {"lock": 1, "confirm": True})
            assert reply.status_code == 200, reply.json
            lock_id = reply.json["data"]["id"]
            control = await _next_command(terminal)
            assert control.header.msg_id == 0x8500 and control.body == VehicleControl.doors(True)
            fix = LocationReport(0, 3 | DOORS_LOCKED_BIT, 31.2, 121.5, 4, 0.0, 90, lock_fix_at)
            await terminal.send(0x0500, VehicleControlResponse(control.header.seq, fix))
            locked = await _until(stack, lock_id, "answered")
            assert (locked["result"], locked["replyMsgId"], locked["msgId"]) == (0, 0x0500, 0x8500)

            # 8201 never answered: timed out after FLEET_COMMANDS_TIMEOUT_S, push 11 with result null
            reply = await asyncio.to_thread(post, f"/api/device/{online['device']}/command/8201.json", {})
            silent_id = reply.json["data"]["id"]
            assert (await _next_command(terminal)).header.msg_id == 0x8201
            timed_out = await _until(stack, silent_id, "timed_out", timeout_s=TIMEOUT_S + 20)
            assert timed_out["result"] is None
            await terminal.close()
        return {"query": query_id, "set": set_id, "text": text_id, "lock": lock_id, "silent": silent_id}

    try:
        ids = asyncio.run(main())
        pushes = _pushes_of(events, set(ids.values()))
    finally:
        events.close()
    assert {k: (pushes[v]["type"], pushes[v]["data"].get("result"), pushes[v]["data"].get("reason"))
            for k, v in ids.items()} == {"query": (11, 0, None), "set": (11, 0, None), "text": (12, None, 3),
                                         "lock": (11, 0, None), "silent": (11, None, None)}
    with psycopg.connect(pg_url) as conn:  # the answer's position is a fix of the track, doors locked
        row = conn.execute("SELECT status_flags FROM gps WHERE device_id = %s AND fix_at = %s",
                           (online["device"], lock_fix_at)).fetchone()
    assert row is not None and row[0] & DOORS_LOCKED_BIT
    assert pushes[ids["set"]]["data"]["plateNumber"] == online["plate"]
    assert pushes[ids["text"]]["data"]["message"].startswith("终端不支持该指令")

    # an offline terminal: refused, nothing written
    refused = client.post(f"/api/command/{offline['car']}/8104.json", headers=headers, json={})
    assert refused.status_code == 409 and refused.json["message"].startswith("终端不在线，不能发送指令！")
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT count(*) FROM command WHERE device_id = %s", (offline["device"],)).fetchone() == (0,)


def _device_state(pg_url: str, device_id: int) -> int:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        row = conn.execute("SELECT state FROM device WHERE id = %s", (device_id,)).fetchone()
    assert row is not None
    return int(row[0])
