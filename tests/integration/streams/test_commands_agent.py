"""Command state on the real PostgreSQL (streams/commands.py): replies matched by terminal + serial,
the race of a reply before its sent record, idempotent replays, gateway failures, timeouts, pushes
11 / 12; and the worker's ``sent`` agent and uplinks step over the real Kafka."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest

from fleet.topics import CONSOLE_EVENTS, JT808_SENT, JT808_UPLINK
from streams.commands import CommandsProcessor
from streams.db import Database
from streams.directory import Directory
from streams.messages import Uplink
from streams.payloads import Terminal

from .conftest import start_worker
from .support import Producer, TopicReader, Worker, insert_terminals, query, wait_for

NOW = datetime(2026, 11, 25, 2, 0, tzinfo=UTC)


class Pushes:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    async def __call__(self, topic: str, key: bytes | None, value: bytes) -> None:
        assert topic == CONSOLE_EVENTS
        self.sent.append(json.loads(value))

    def of(self, command_id: int) -> list[dict[str, Any]]:
        return [p["push"] for p in self.sent if p["push"]["data"]["commandId"] == command_id]


@pytest.fixture
def terminal(pg_url: str) -> Terminal:
    return insert_terminals(pg_url, 1, enterprise_name="commands-test")[0]


@pytest.fixture
def processor(pg_url: str) -> Iterator[tuple[CommandsProcessor, Pushes]]:
    pushes = Pushes()
    db, directory_db = Database(pg_url, name="commands-test"), Database(pg_url, name="directory-test")
    yield CommandsProcessor(db, Directory(directory_db), pushes, timeout_s=30), pushes
    asyncio.run(db.close())
    asyncio.run(directory_db.close())


def new_command(pg_url: str, t: Terminal, msg_id: int, *, created_at: datetime | None = None,
                created_by: int | None = None) -> int:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        row = conn.execute(
            "INSERT INTO command (enterprise_id, car_id, device_id, phone, msg_id, created_at, created_by)"
            " VALUES (%s, %s, %s, %s, %s, COALESCE(%s, now()), %s) RETURNING id",
            (t.enterprise_id, t.car_id, t.device_id, t.phone, msg_id, created_at, created_by)).fetchone()
    assert row is not None
    return int(row[0])


def command(pg_url: str, command_id: int) -> dict[str, Any]:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.row_factory = psycopg.rows.dict_row  # type: ignore[assignment]
        row = conn.execute("SELECT * FROM command WHERE id = %s", (command_id,)).fetchone()
    assert row is not None
    return dict(row)


def sent(command_id: int, t: Terminal, seq: int | None, event: str = "sent", reason: str | None = None) -> dict[str, Any]:
    return {"phone": t.phone, "device_id": t.device_id, "car_id": t.car_id, "enterprise_id": t.enterprise_id,
            "msg_id": 0x8103, "seq": seq, "packages": 1 if seq is not None else 0, "raw_hex": None, "body_hex": "",
            "command_id": str(command_id), "event": event, "reason": reason, "connection_id": "c1",
            "gateway_id": "gw", "at": NOW.isoformat()}


def reply(t: Terminal, msg_id: int, body: dict[str, Any], at: datetime = NOW) -> Uplink:
    return Uplink(t.phone, t.device_id, t.car_id, t.enterprise_id, msg_id, at, body)


def general(t: Terminal, reply_seq: int, reply_msg_id: int, result: int = 0) -> Uplink:
    return reply(t, 0x0001, {"reply_seq": reply_seq, "reply_msg_id": reply_msg_id, "result": result})


def test_sent_then_reply_answers_once_with_push_11(pg_url: str, terminal: Terminal,
                                                   processor: tuple[CommandsProcessor, Pushes]) -> None:
    proc, pushes = processor
    cid = new_command(pg_url, terminal, 0x8103)

    async def main() -> None:
        assert await proc.handle_sent([json.dumps(sent(cid, terminal, 41))]) == 0  # sent: no push
        row = command(pg_url, cid)
        assert (row["state"], row["seq"], row["sent_at"]) == ("sent", 41, NOW)
        assert await proc.handle_uplinks([general(terminal, 40, 0x8103)]) == 0  # another serial
        assert await proc.handle_uplinks([general(terminal, 41, 0x8300)]) == 0  # answers another message
        assert await proc.handle_uplinks([general(terminal, 41, 0x8103, result=1)]) == 1
        # replays change nothing and push nothing
        assert await proc.handle_uplinks([general(terminal, 41, 0x8103, result=0)]) == 0
        assert await proc.handle_sent([json.dumps(sent(cid, terminal, 41))]) == 0

    asyncio.run(main())
    row = command(pg_url, cid)
    assert (row["state"], row["result"], row["reply_msg_id"], row["answered_at"]) == ("answered", 1, 1, NOW)
    assert row["reply"] == {"reply_seq": 41, "reply_msg_id": 0x8103, "result": 1}
    [push] = pushes.of(cid)
    assert push == {"type": 11, "data": {
        "commandId": cid, "deviceId": terminal.device_id, "carId": terminal.car_id,
        "plateNumber": query(pg_url, "SELECT plate_number FROM car WHERE id = %s", (terminal.car_id,))[0][0],
        "msgId": 0x8103, "state": "answered", "result": 1, "replyMsgId": 1, "createdBy": None,
        "time": "2026-11-25T02:00:00Z"}}


def test_the_answer_of_a_users_command_is_addressed_to_that_user_and_the_platforms_to_all(
        pg_url: str, terminal: Terminal, processor: tuple[CommandsProcessor, Pushes]) -> None:
    proc, pushes = processor
    own = new_command(pg_url, terminal, 0x8103, created_by=4242)
    platform = new_command(pg_url, terminal, 0x8103)

    async def main() -> None:
        await proc.handle_sent([json.dumps(sent(own, terminal, 51)), json.dumps(sent(platform, terminal, 52))])
        assert await proc.handle_uplinks([general(terminal, 51, 0x8103), general(terminal, 52, 0x8103)]) == 2

    asyncio.run(main())
    events = {e["push"]["data"]["commandId"]: e for e in pushes.sent}
    assert events[own]["user_id"] == 4242
    assert "user_id" not in events[platform]


def test_a_photo_a_user_asked_for_is_pushed_to_that_user_and_a_terminals_own_to_all(
        pg_url: str, terminal: Terminal) -> None:
    from streams.media import store_uploads

    photo_command = new_command(pg_url, terminal, 0x8801, created_by=4343, created_at=NOW - timedelta(seconds=20))
    assert photo_command
    pushes = Pushes()

    def upload(media_id: int, event_code: int) -> Uplink:
        return reply(terminal, 0x0801, {
            "media_id": media_id, "media_type": 0, "media_format": 0, "event_code": event_code, "channel": 1,
            "location": {}, "object_key": f"/{terminal.device_id}/x/{media_id}.jpg", "size": 10,
            "sha256": f"{media_id:064x}"})

    async def main() -> None:
        db = Database(pg_url, name="media-addressee")
        try:
            assert await store_uploads(db, Directory(db), pushes, [upload(91, 0), upload(92, 2)]) == 2
        finally:
            await db.close()

    asyncio.run(main())
    addressees = {(e["push"]["type"], e["push"]["data"]["_id"]): e.get("user_id") for e in pushes.sent}
    by_file = sorted({(file_id, user) for (_, file_id), user in addressees.items()})
    assert [user for _, user in by_file] == [4343, None]  # media 91 answered the photo command; 92 is an alarm's


def test_a_reply_before_its_sent_record_is_kept_and_matched_when_the_record_arrives(
        pg_url: str, terminal: Terminal, processor: tuple[CommandsProcessor, Pushes]) -> None:
    proc, pushes = processor
    cid = new_command(pg_url, terminal, 0x8104)
    params = {"reply_seq": 7, "params": [{"id": 0x55, "name": "max_speed_kmh", "value": 90, "value_hex": "0000005A"},
                                          {"id": 0x13, "value": "10.0.0.1"}]}

    async def main() -> None:
        # received after the command was created (an older reply with that serial is not its answer)
        assert await proc.handle_uplinks([reply(terminal, 0x0104, params, at=datetime.now(UTC))]) == 0
        assert command(pg_url, cid)["state"] == "created"
        assert await proc.handle_sent([json.dumps(sent(cid, terminal, 7))]) == 1

    asyncio.run(main())
    row = command(pg_url, cid)
    assert (row["state"], row["result"], row["reply_msg_id"], row["seq"]) == ("answered", 0, 0x0104, 7)
    assert query(pg_url, "SELECT count(*) FROM command_reply_early WHERE device_id = %s", (terminal.device_id,)) == [(0,)]
    assert dict(query(pg_url, "SELECT param_id, value_hex FROM device_param WHERE device_id = %s",
                      (terminal.device_id,))) == {0x55: "0000005A", 0x13: "31302E302E302E31"}
    assert [p["type"] for p in pushes.of(cid)] == [11]


def test_unsupported_and_message_error_answers_push_12(pg_url: str, terminal: Terminal,
                                                       processor: tuple[CommandsProcessor, Pushes]) -> None:
    proc, pushes = processor
    unsupported, bad = new_command(pg_url, terminal, 0x8300), new_command(pg_url, terminal, 0x8202)

    async def main() -> None:
        await proc.handle_sent([json.dumps(sent(unsupported, terminal, 100)), json.dumps(sent(bad, terminal, 101))])
        await proc.handle_uplinks([general(terminal, 100, 0x8300, result=3), general(terminal, 101, 0x8202, result=2)])

    asyncio.run(main())
    assert (command(pg_url, unsupported)["state"], command(pg_url, unsupported)["result"]) == ("answered", 3)
    [push] = pushes.of(unsupported)
    assert push["type"] == 12 and push["data"]["reason"] == 3 and push["data"]["message"].startswith("终端不支持该指令")
    [push] = pushes.of(bad)
    assert push["type"] == 12 and push["data"]["reason"] == 2


def test_gateway_failures_fail_the_command_with_push_12_and_stay_final(
        pg_url: str, terminal: Terminal, processor: tuple[CommandsProcessor, Pushes]) -> None:
    proc, pushes = processor
    offline, full, waited, malformed = (new_command(pg_url, terminal, 0x8201) for _ in range(4))

    async def main() -> None:
        await proc.handle_sent([json.dumps(sent(offline, terminal, None, "failed", "offline")),
                                json.dumps(sent(full, terminal, None, "failed", "queue_full")),
                                json.dumps(sent(malformed, terminal, 11)),
                                json.dumps(sent(malformed, terminal, 11, "failed", "reply_malformed")),
                                json.dumps(sent(waited, terminal, 9)),
                                json.dumps(sent(waited, terminal, 9, "failed", "reply_timeout"))])
        # a late sent record or reply never moves them back
        await proc.handle_sent([json.dumps(sent(offline, terminal, 10))])
        await proc.handle_uplinks([general(terminal, 9, 0x8201)])

    asyncio.run(main())
    assert (command(pg_url, offline)["state"], command(pg_url, offline)["reason"]) == ("failed", "offline")
    assert command(pg_url, full)["state"] == "failed"
    assert command(pg_url, waited)["state"] == "timed_out"
    assert [(p["type"], p["data"].get("reason")) for p in pushes.of(offline)] == [(12, 1)]
    assert [(p["type"], p["data"].get("reason")) for p in pushes.of(full)] == [(12, 2)]
    # the terminal answered, with a reply whose body did not decode: a message error, not a timeout
    assert (command(pg_url, malformed)["state"], command(pg_url, malformed)["reason"]) == ("failed", "reply_malformed")
    assert [(p["type"], p["data"].get("reason")) for p in pushes.of(malformed)] == [(12, 2)]
    assert [(p["type"], p["data"]["state"], p["data"]["result"]) for p in pushes.of(waited)] == [(11, "timed_out", None)]


def test_location_query_and_capture_replies_answer_their_own_commands(
        pg_url: str, terminal: Terminal, processor: tuple[CommandsProcessor, Pushes]) -> None:
    proc, pushes = processor
    locate, shoot = new_command(pg_url, terminal, 0x8201), new_command(pg_url, terminal, 0x8801)

    async def main() -> None:
        await proc.handle_sent([json.dumps(sent(locate, terminal, 300)), json.dumps(sent(shoot, terminal, 301))])
        # a 0x0805 answering serial 300 is not the 8201's reply
        assert await proc.handle_uplinks([reply(terminal, 0x0805, {"reply_seq": 300, "result": 0, "media_ids": [5]})]) == 0
        await proc.handle_uplinks([reply(terminal, 0x0201, {"reply_seq": 300, "location": {"lat": 39.9, "lng": 116.4}}),
                                   reply(terminal, 0x0805, {"reply_seq": 301, "result": 2, "media_ids": []})])

    asyncio.run(main())
    assert (command(pg_url, locate)["state"], command(pg_url, locate)["reply_msg_id"]) == ("answered", 0x0201)
    assert (command(pg_url, shoot)["state"], command(pg_url, shoot)["result"]) == ("answered", 3)  # channel unsupported
    assert [p["type"] for p in pushes.of(shoot)] == [12]


def test_open_commands_time_out_after_the_timeout_with_push_11(
        pg_url: str, terminal: Terminal, processor: tuple[CommandsProcessor, Pushes]) -> None:
    proc, pushes = processor
    old = datetime.now(UTC) - timedelta(seconds=31)
    never_sent = new_command(pg_url, terminal, 0x8104, created_at=old)
    sent_late = new_command(pg_url, terminal, 0x8104, created_at=old)
    fresh = new_command(pg_url, terminal, 0x8104)
    with psycopg.connect(pg_url, autocommit=True) as conn:  # sent 5 s ago: its 30 s run from then
        conn.execute("UPDATE command SET state = 'sent', seq = 1, sent_at = now() - interval '5 s' WHERE id = %s",
                     (sent_late,))

    async def main() -> None:
        await proc.check_timeouts()
        await proc.check_timeouts()  # again: nothing twice

    asyncio.run(main())
    assert command(pg_url, never_sent)["state"] == "timed_out"
    assert command(pg_url, sent_late)["state"] == "sent"
    assert command(pg_url, fresh)["state"] == "created"
    assert [(p["type"], p["data"]["state"], p["data"]["result"]) for p in pushes.of(never_sent)] == \
        [(11, "timed_out", None)]


def test_worker_sent_agent_and_uplinks_step_over_kafka(
        pg_url: str, stack_env: dict[str, str], kafka_bootstrap: str, tmp_path: Path, producer: Producer) -> None:
    t = insert_terminals(pg_url, 1, enterprise_name="commands-worker")[0]
    cid = new_command(pg_url, t, 0x8103)
    events = TopicReader(kafka_bootstrap, CONSOLE_EVENTS)
    worker: Worker = start_worker(stack_env, kafka_bootstrap, tmp_path, batch_window_s=0.1)
    try:
        # the reply first (the race), then the sent record that tells its serial
        producer.send(JT808_UPLINK, t.phone, {
            "phone": t.phone, "device_id": t.device_id, "car_id": t.car_id, "enterprise_id": t.enterprise_id,
            "msg_id": 1, "seq": 5, "protocol_version": "2013", "raw_hex": "7e00017e",
            "message": {"header": {}, "body": {"reply_seq": 812, "reply_msg_id": 0x8103, "result": 0}},
            "connection_id": "c", "gateway_id": "gw", "received_at": datetime.now(UTC).isoformat()})
        producer.flush()
        wait_for(lambda: query(pg_url, "SELECT 1 FROM command_reply_early WHERE device_id = %s", (t.device_id,)),
                 30, "the early reply kept", worker)
        producer.send(JT808_SENT, t.phone, sent(cid, t, 812) | {"at": datetime.now(UTC).isoformat()})
        producer.flush()
        wait_for(lambda: command(pg_url, cid)["state"] == "answered", 30, "the command answered", worker)
        pushes = events.read_until(lambda found: any(
            e.get("kind") == "push" and e["push"]["data"].get("commandId") == cid for e in found))
        [push] = [e for e in pushes if e.get("kind") == "push" and e["push"]["data"].get("commandId") == cid]
        assert push["push"]["type"] == 11 and push["enterprise_id"] == t.enterprise_id
    finally:
        events.close()
        worker.stop()
