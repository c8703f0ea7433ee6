"""The batch write paths against a real PostgreSQL (no Kafka, no worker): array literals round-trip
exactly, and the states batch path logs exactly what the per-event path logs."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from typing import Any

from fleet.topics import DEAD_LETTER, DEVICE_SESSIONS, JT808_UPLINK
from streams import payloads
from streams.db import Database
from streams.deadletter import DeadLetters
from streams.messages import parse_fix, parse_uplink
from streams.positions import plan_batch, write_fixes
from streams.state_rules import Rules
from streams.states import StatesProcessor, StateStore
from streams.validation import Limits

from .support import insert_terminals, query

LIMITS = Limits(600, 250)


class _Message:
    def __init__(self, offset: int) -> None:
        self.topic, self.partition, self.offset = JT808_UPLINK, 0, offset


class _Event:
    def __init__(self, value: dict[str, Any], offset: int) -> None:
        self.key, self.value, self.message = b"k", json.dumps(value).encode(), _Message(offset)


class _Directory:
    async def enterprise_path(self, enterprise_id: int) -> str:
        return f"/{enterprise_id}/"

    async def plate_number(self, car_id: int | None) -> str | None:
        return None


def test_array_literals_round_trip_every_column(pg_url: str) -> None:
    term = insert_terminals(pg_url, 1)[0]
    t0 = datetime.now(UTC).replace(microsecond=123456) - timedelta(minutes=5)
    odd = {"note": 'quote " back\\slash {brace}, comma', "mileage_km": 0.1 + 0.2, "uni": "京A·12345"}
    value = payloads.location_report(term, fix_at=t0, received_at=t0, lat=-33.123456789, lng=151.987654321,
                                     speed_kmh=61.3, direction_deg=359, alarm_flags=2**31 + 5)
    value["message"]["body"]["extras"] = odd
    plain = payloads.location_report(payloads.Terminal(term.phone, term.device_id, None, term.enterprise_id),
                                     fix_at=t0 + timedelta(seconds=1), received_at=t0)
    fixes = [parse_fix(u, u.body) for u in (parse_uplink(json.dumps(value)), parse_uplink(json.dumps(plain)))]

    async def run() -> None:
        db = Database(pg_url, name="test")
        await write_fixes(db, fixes)
        await db.close()

    asyncio.run(run())
    rows = query(pg_url, "SELECT fix_at, car_id, lat, lng, speed_kmh, direction_deg, alarm_flags, extras, mileage_km,"
                         " received_at FROM gps WHERE device_id = %s ORDER BY fix_at", (term.device_id,))
    speed = rows[0][4]
    assert rows[0] == (t0, term.car_id, -33.123456789, 151.987654321, speed, 359, 2**31 + 5, odd, 0.1 + 0.2, t0)
    assert abs(speed - 61.3) < 1e-5  # a real column
    assert rows[1][1] is None and rows[1][0] == t0 + timedelta(seconds=1)


def test_device_last_takes_each_devices_newest_fix_with_every_column(pg_url: str) -> None:
    """device_last is upserted from the gps rows' binary COPY (a temporary table emptied at commit): every
    column of the newest fix per device, an older fix (backlog) never replaces a newer one, and one
    session's batches follow each other without seeing each other's rows."""
    a, b = insert_terminals(pg_url, 2)
    t0 = datetime.now(UTC).replace(microsecond=250000) - timedelta(minutes=5)
    odd = {"note": 'quote " back\\slash', "uni": "京A·12345"}

    def fix(term: payloads.Terminal, at: datetime, **kw: Any) -> Any:
        value = payloads.location_report(term, fix_at=at, received_at=t0, **kw)
        uplink = parse_uplink(json.dumps(value))
        return parse_fix(uplink, uplink.body)

    newest_a = fix(a, t0 + timedelta(seconds=1), lat=-33.123456789, lng=151.987654321, speed_kmh=61.5,
                   direction_deg=359, alarm_flags=2**31 + 5)
    newest_a.extras.update(odd)
    batches = [
        [newest_a, fix(a, t0), fix(b, t0)],                                  # two fixes of a: the newest wins
        [fix(a, t0 - timedelta(seconds=10)), fix(b, t0 + timedelta(seconds=5), speed_kmh=12.0)],  # a: backlog
    ]

    async def run() -> int:
        db = Database(pg_url, name="test")
        for batch in batches:
            await write_fixes(db, batch)

        async def left(conn: Any) -> int:
            return (await (await conn.execute("SELECT count(*) FROM device_last_in")).fetchone())[0]

        try:
            return await db.transact(left)
        finally:
            await db.close()

    assert asyncio.run(run()) == 0  # emptied at each commit
    cols = "fix_at, car_id, enterprise_id, lat, lng, speed_kmh, direction_deg, alarm_flags, status_flags, extras, received_at"
    [row_a] = query(pg_url, f"SELECT {cols} FROM device_last WHERE device_id = %s", (a.device_id,))  # noqa: S608
    assert row_a == (t0 + timedelta(seconds=1), a.car_id, a.enterprise_id, -33.123456789, 151.987654321, 61.5, 359,
                     2**31 + 5, newest_a.status_flags, newest_a.extras, t0)
    [(fix_b, speed_b)] = query(pg_url, "SELECT fix_at, speed_kmh FROM device_last WHERE device_id = %s", (b.device_id,))
    assert (fix_b, speed_b) == (t0 + timedelta(seconds=5), 12.0)
    assert len(query(pg_url, "SELECT 1 FROM gps WHERE device_id = %s", (a.device_id,))) == 3


def test_states_batch_logs_what_event_by_event_logs(pg_url: str) -> None:
    a, b = insert_terminals(pg_url, 2)
    query(pg_url, "UPDATE device SET state = 3 WHERE id = ANY(%s) RETURNING id", ([a.device_id, b.device_id],))
    t0 = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=10)
    plan = [(0.0, True), (30.0, True), (35.0, True), (0.0, True), (0.0, False), (20.0, True), (0.0, False)]

    def values(term: payloads.Terminal) -> list[dict[str, Any]]:
        return [payloads.location_report(term, fix_at=t0 + timedelta(seconds=i), received_at=t0, speed_kmh=s,
                                          acc_on=acc) for i, (s, acc) in enumerate(plan)]

    async def run() -> tuple[list[Any], list[Any]]:
        pushes: list[Any] = []

        async def send(topic: str, key: bytes | None, value: bytes) -> None:
            pushes.append(json.loads(value))

        def processor() -> StatesProcessor:
            db = Database(pg_url, name="test")
            return StatesProcessor(db, StateStore(db), _Directory(), send, DeadLetters(send, "states"),  # type: ignore[arg-type]
                                   Rules(600, 5), LIMITS)

        one = processor()
        for offset, value in enumerate(values(a)):
            await one.handle(_Event(value, offset))
        batch = processor()
        events = [_Event(v, i) for i, v in enumerate(values(b))]
        half = len(events) // 2
        for chunk in (events[:half], events[half:]):
            await batch.handle_uplinks(chunk, plan_batch([e.value for e in chunk], LIMITS).state_fixes_by_event)
        per_event = [p["push"]["data"]["bizState"] for p in pushes[: len(pushes) // 2]]
        batched = [p["push"]["data"]["bizState"] for p in pushes[len(pushes) // 2:]]
        return per_event, batched

    per_event, batched = asyncio.run(run())
    assert per_event == batched and len(set(per_event)) >= 3  # driving, parked, engine off, ...
    for table, cols in (("acc_state_log", "create_time, state"), ("biz_state_log", "create_time, state")):
        sql = f"SELECT {cols} FROM {table} WHERE device_id = %s ORDER BY create_time"  # noqa: S608
        assert query(pg_url, sql, (a.device_id,)) == query(pg_url, sql, (b.device_id,)) != []
    assert query(pg_url, "SELECT acc, biz_state FROM device WHERE id = %s", (a.device_id,)) == \
        query(pg_url, "SELECT acc, biz_state FROM device WHERE id = %s", (b.device_id,))


def test_binary_copy_replayed_stores_each_position_and_frame_once(pg_url: str) -> None:
    """A take replayed after a crash (or a resend whose ack was lost) repeats stored rows: the COPY
    fails on the unique index and the batch is written again skipping them, into gps and message_log."""
    from protocols.jt808 import LocationReport, encode_frame
    from streams import message_log

    term = insert_terminals(pg_url, 1)[0]
    t0 = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=5)

    def uplink(i: int) -> Any:
        report = LocationReport(alarm_flags=0, status_flags=3, lat=39.9, lng=116.4 + i / 1000, altitude_m=50,
                                speed_kmh=float(i), direction_deg=90, fix_at=t0 + timedelta(seconds=i))
        frame = encode_frame(0x0200, report, phone=term.phone, seq=i)
        return parse_uplink(json.dumps(payloads.frame_uplink(term, frame, received_at=t0)))

    first, replay = [uplink(i) for i in range(3)], [uplink(i) for i in range(1, 5)]  # 1, 2 stored already

    async def run() -> None:
        db = Database(pg_url, name="test")
        for batch in (first, replay, replay):
            await write_fixes(db, [parse_fix(u, u.body) for u in batch])
            await message_log.store_uplinks(db, batch)
        await db.close()

    asyncio.run(run())
    gps = query(pg_url, "SELECT fix_at, speed_kmh FROM gps WHERE device_id = %s ORDER BY fix_at", (term.device_id,))
    assert gps == [(t0 + timedelta(seconds=i), float(i)) for i in range(5)]
    logged = query(pg_url, "SELECT seq, raw_hex FROM message_log WHERE device_id = %s AND direction = 0 ORDER BY seq",
                   (term.device_id,))
    assert [(seq, raw) for seq, raw in logged] == [(i, uplink(i).raw_hex) for i in range(5)]
    [(last_fix,)] = query(pg_url, "SELECT fix_at FROM device_last WHERE device_id = %s", (term.device_id,))
    assert last_fix == t0 + timedelta(seconds=4)


class _SessionEvent(_Event):
    def __init__(self, value: dict[str, Any] | str, offset: int) -> None:
        super().__init__({}, offset)
        self.value = value.encode() if isinstance(value, str) else json.dumps(value).encode()
        self.message.topic = DEVICE_SESSIONS


def test_sessions_batch_logs_pushes_and_parks_what_event_by_event_does(pg_url: str) -> None:
    # a reconnect storm's shape (the old session replaced, a new one, a stale offline of the old connection, a
    # close), a record that is no JSON, a security notice and one whose enterprise id the database refuses
    a, b = insert_terminals(pg_url, 2)
    t0 = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=10)

    def values(term: payloads.Terminal) -> list[dict[str, Any] | str]:
        at = [t0 + timedelta(seconds=i) for i in range(6)]
        return [
            payloads.session(term, online=True, at=at[0], connection_id="c1", peer="10.0.0.1:5000"),
            payloads.session(term, online=False, at=at[1], reason="replaced", connection_id="c1"),
            "{not json",
            payloads.session(term, online=True, at=at[2], connection_id="c2", peer="10.0.0.2:5001"),
            {**payloads.session(term, online=False, at=at[3], connection_id="c1"), "event": "security",
             "reason": "imei_mismatch"},
            payloads.session(term, online=False, at=at[3], connection_id="c1"),  # stale: logged, not applied
            {**payloads.session(term, online=True, at=at[4], connection_id="c3"), "enterprise_id": 2**63},
            payloads.session(term, online=False, at=at[5], connection_id="c2"),
        ]

    async def run(batched: bool) -> tuple[list[Any], list[Any]]:
        pushes: list[Any] = []
        letters: list[Any] = []

        async def send(topic: str, key: bytes | None, value: bytes) -> None:
            (letters if topic == DEAD_LETTER else pushes).append(json.loads(value))

        db = Database(pg_url, name="test")
        processor = StatesProcessor(db, StateStore(db), _Directory(), send, DeadLetters(send, "sessions"),  # type: ignore[arg-type]
                                    Rules(600, 5), LIMITS)
        term = b if batched else a
        events = [_SessionEvent(v, i) for i, v in enumerate(values(term))]
        try:
            if batched:
                await processor.handle_sessions(events[:4])
                await processor.handle_sessions(events[4:])
            else:
                for event in events:
                    await processor.handle(event)
        finally:
            await db.close()
        shape = [(p["push"]["type"], p["push"]["data"].get("state"), p["push"]["data"].get("event")) for p in pushes]
        return shape, [letter["offset"] for letter in letters]

    per_event = asyncio.run(run(False))
    batched = asyncio.run(run(True))
    assert batched == per_event
    pushed, parked = per_event
    assert [p for p in pushed if p[0] == 1] == [(1, 1, None), (1, 1, None), (1, 0, None)]  # replaced, stale: none
    assert parked == [2, 6]
    for sql in ("SELECT at - %s, state, reason, connection_id FROM device_online_log WHERE device_id = %s ORDER BY 1, 2",
                "SELECT state, online_time - %s, offline_time - %s, session_address FROM device WHERE id = %s"):
        args = (lambda d: (t0, d)) if sql.count("%s") == 2 else (lambda d: (t0, t0, d))
        assert query(pg_url, sql, args(a.device_id)) == query(pg_url, sql, args(b.device_id)) != []
