"""GB/T 32960 platform commands end to end on the real Kafka and PostgreSQL, on the one command path:
API (the 808 command routes for a gb32960 device) -> jt808.downlink.v1 -> GB gateway -> a 32960 terminal
over TCP (0x80 / 0x81 / 0x82, flag 0xFE) -> its answer -> gb32960.uplink.v1 / jt808.sent.v1 -> streams
worker -> command row, push 11 on console.events.v1 -> API state.json with the answer's values."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
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
from protocols.gb32960 import Message, Response, TimeOnly
from protocols.gb32960.messages.params import ParameterQuery, ParameterSet, TerminalControl
from tests.integration.gateway.gb_support import (
    GbTerminal,
    insert_vehicle,
    login_body,
    running_gb_gateway,
    unique_vin,
)
from tests.integration.streams.conftest import start_worker
from tests.integration.streams.support import TopicReader, Worker, wait_for
from warehouse.passwords import hash_password

pytestmark = pytest.mark.timeout(240)
PASSWORD = "GbCmd@2026x"
ANSWERED_AT = datetime(2026, 3, 1, 4, 5, 7, tzinfo=UTC)


def _fleet(pg_url: str) -> dict[str, Any]:
    """Two gb32960 vehicles of one enterprise (one stays offline) and a user allowed to command."""
    from warehouse.seed import seed_demo

    seed_demo(pg_url, terminals=20)  # the permission catalogue (idempotent; the API tests' size)
    online_vin, offline_vin = unique_vin(), unique_vin()
    online = insert_vehicle(pg_url, online_vin)
    offline = insert_vehicle(pg_url, offline_vin, enterprise_id=online["enterprise_id"])
    tag = uuid.uuid4().hex[:8]
    with psycopg.connect(pg_url, autocommit=True) as conn:
        ent = online["enterprise_id"]
        conn.execute("UPDATE enterprise SET path = %s WHERE id = %s", (f"/{ent}/", ent))
        user = f"gbcmd_{tag}"
        user_id = conn.execute("INSERT INTO app_user (enterprise_id, user_name, password_hash, name) VALUES"
                               " (%s, %s, %s, %s) RETURNING id", (ent, user, hash_password(PASSWORD), user)).fetchone()[0]  # type: ignore[index]
        role = conn.execute("INSERT INTO role (enterprise_id, name) VALUES (%s, %s) RETURNING id",
                            (ent, f"gbcmd {tag}")).fetchone()[0]  # type: ignore[index]
        conn.execute("INSERT INTO role_permission (role_id, permission_code, actions) VALUES (%s, 'command', %s)",
                     (role, ["cmd", "get", "query"]))
        conn.execute("INSERT INTO user_role (user_id, role_id) VALUES (%s, %s)", (user_id, role))
    return {"online": online | {"vin": online_vin}, "offline": offline | {"vin": offline_vin}, "user": user}


@pytest.fixture(scope="module")
def stack(pg_url: str, kafka_bootstrap: str, stack_env: dict[str, str],
          tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    from api import create_app
    from api.db import get_db

    fleet = _fleet(pg_url)
    worker: Worker = start_worker(stack_env, kafka_bootstrap, tmp_path_factory.mktemp("gbcmd-worker"),
                                  batch_window_s=0.05)
    app = create_app(ApiSettings(token_secret="gb-commands-rt"), pg_url, var_dir=tmp_path_factory.mktemp("gbcmd-api"))
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


def _device_state(pg_url: str, device_id: int) -> int:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        row = conn.execute("SELECT state FROM device WHERE id = %s", (device_id,)).fetchone()
    assert row is not None
    return int(row[0])


async def _command(terminal: GbTerminal, timeout_s: float = 15.0) -> Message:
    """The next platform command (flag 0xFE) the terminal is sent, skipping answers to its own frames."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while True:
        msg = await terminal.receive(timeout_s=max(0.1, deadline - loop.time()))
        if msg.header.response == Response.COMMAND:
            return msg


def test_parameter_query_set_and_terminal_control_round_trip_with_a_32960_terminal(
        stack: dict[str, Any], pg_url: str, kafka_bootstrap: str, tmp_path: Path) -> None:
    client: FlaskClient = stack["client"]
    headers = stack["headers"]
    online, offline = stack["online"], stack["offline"]
    events = TopicReader(kafka_bootstrap, CONSOLE_EVENTS)

    def post(url: str, body: dict[str, Any]) -> Any:
        return client.post(url, headers=headers, json=body)

    async def main() -> dict[str, int]:
        async with running_gb_gateway(pg_url, kafka_bootstrap) as gateway:
            terminal = await GbTerminal.connect(gateway.port_of("gb32960"), online["vin"])
            await terminal.send(0x01, login_body())
            assert (await terminal.receive(timeout_s=15)).header.response == Response.SUCCESS
            await asyncio.wait_for(gateway.downlinks_ready.wait(), 15)
            await asyncio.to_thread(wait_for, lambda: _device_state(pg_url, online["device_id"]) == DeviceState.ONLINE,
                                    30, "the vehicle online", stack["worker"])

            # 8106 on a gb32960 vehicle -> 0x80 query of ids 0x02, 0x05 (a domain: its length item comes too)
            reply = await asyncio.to_thread(post, f"/api/command/{online['car_id']}/8106.json",
                                            {"ids": ["02", "05", "09"]})
            assert reply.status_code == 200, reply.json
            query_id = reply.json["data"]["id"]
            asked = await _command(terminal)
            assert asked.header.command == 0x80 and asked.header.vin == online["vin"]
            assert isinstance(asked.body, ParameterQuery) and asked.body.ids == (0x02, 0x05, 0x09)
            await terminal.send_raw(_answer(terminal, 0x80, ParameterQuery(ANSWERED_AT, values=(
                (0x02, 10), (0x04, 14), (0x05, "gb.example.com"), (0x09, 30))), Response.SUCCESS))
            answered = await _until(stack, query_id, "answered")
            assert (answered["msgId"], answered["replyMsgId"], answered["result"]) == (0x80, 0x80, 0)
            assert answered["reply"] == {"response": 1, "params": [
                {"id": "02", "name": "report_period_s", "value": 10},
                {"id": "04", "name": "platform_domain_length", "value": 14},
                {"id": "05", "name": "platform_domain", "value": "gb.example.com"},
                {"id": "09", "name": "heartbeat_period_s", "value": 30}]}
            assert isinstance(answered["sentAt"], int)

            # 8103 -> 0x81 set report period 0x02 = 5 s, heartbeat 0x09 = 20 s: answered success
            reply = await asyncio.to_thread(post, f"/api/command/{online['car_id']}/8103.json",
                                            {"paramList": [{"id": "02", "value": 5}, {"id": "09", "value": 20}]})
            assert reply.status_code == 200, reply.json
            set_id = reply.json["data"]["id"]
            written = await _command(terminal)
            assert written.header.command == 0x81
            assert isinstance(written.body, ParameterSet) and written.body.values == ((0x02, 5), (0x09, 20))
            await terminal.send_raw(_answer(terminal, 0x81, TimeOnly(ANSWERED_AT), Response.SUCCESS))
            done = await _until(stack, set_id, "answered")
            assert (done["msgId"], done["result"], done["reply"]) == (0x81, 0, {"response": 1})

            # 8105 {command: 3} -> 0x82 reset, answered error (0x02): answered with result 1 (failure)
            reply = await asyncio.to_thread(post, f"/api/device/{online['device_id']}/command/8105.json",
                                            {"command": 3})
            assert reply.status_code == 200, reply.json
            control_id = reply.json["data"]["id"]
            control = await _command(terminal)
            assert control.header.command == 0x82
            assert isinstance(control.body, TerminalControl) and control.body.command == 3
            await terminal.send_raw(_answer(terminal, 0x82, TimeOnly(ANSWERED_AT), Response.ERROR))
            refused = await _until(stack, control_id, "answered")
            assert (refused["msgId"], refused["result"]) == (0x82, 1)
            await terminal.close()
        return {"query": query_id, "set": set_id, "control": control_id}

    try:
        ids = asyncio.run(main())

        def mine(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
            return [e["push"] for e in found
                    if e.get("kind") == "push" and e["push"]["data"].get("commandId") in set(ids.values())]

        records = events.read_until(lambda found: {p["data"]["commandId"] for p in mine(found)} >= set(ids.values()),
                                    30)
        pushes = {p["data"]["commandId"]: p for p in mine(records)}
    finally:
        events.close()
    assert {k: (pushes[v]["type"], pushes[v]["data"]["result"], pushes[v]["data"]["msgId"]) for k, v in ids.items()} \
        == {"query": (11, 0, 0x80), "set": (11, 0, 0x81), "control": (11, 1, 0x82)}

    # the offline vehicle: the same 409 as a JT/T 808 terminal's, no row, nothing sent
    refused = client.post(f"/api/command/{offline['car_id']}/8104.json", headers=headers, json={})
    assert refused.status_code == 409 and refused.json["message"].startswith("终端不在线，不能发送指令！")
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT count(*) FROM command WHERE device_id = %s",
                            (offline["device_id"],)).fetchone() == (0,)


def test_bad_gb_commands_are_refused_with_the_field_named(stack: dict[str, Any]) -> None:
    client: FlaskClient = stack["client"]
    car = stack["offline"]["car_id"]  # validation comes before the online check (a 400 even offline)
    cases = [
        ("8106", {"ids": ["11"]}, "ids[0]"),
        ("8103", {"paramList": [{"id": "02", "value": 70000}]}, "paramList[0].value"),
        ("8103", {"paramList": [{"id": "09", "value": 256}]}, "paramList[0].value"),
        ("8103", {"paramList": [{"id": "07", "value": "HW001"}]}, "paramList[0].id"),
        ("8103", {"paramList": [{"id": "04", "value": 3}]}, "paramList[0].id"),
        ("8105", {"command": 1}, "command"),
        ("8300", {"content": "hello"}, "command"),
    ]
    for code, body, field in cases:
        reply = client.post(f"/api/command/{car}/{code}.json", headers=stack["headers"], json=body)
        assert reply.status_code == 400, (code, body, reply.json)
        assert reply.json["data"]["field"] == field, (code, body, reply.json)


def _answer(terminal: GbTerminal, command: int, body: Any, flag: int) -> bytes:
    from protocols.gb32960 import encode_frame

    return encode_frame(command, body, vin=terminal.vin, protocol=terminal.protocol, response=flag)
