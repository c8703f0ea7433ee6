"""The agents' bodies with in-memory twins of the database and Kafka (no Faust, no servers)."""

from __future__ import annotations

import asyncio
import json
import struct
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest

from fleet.enums import BizState
from fleet.topics import CONSOLE_EVENTS, DEAD_LETTER, DEVICE_SESSIONS, JT808_UPLINK
from streams import payloads
from streams.db import Database
from streams.deadletter import DeadLetters
from streams.positions import PositionsProcessor
from streams.state_rules import Rules
from streams.states import StatesProcessor, StateStore
from streams.validation import Limits

from .conftest import T0

TERMINAL = payloads.Terminal("013800000001", 11, 21, 3)
LIMITS = Limits(600, 250)


@dataclass
class Message:
    topic: str
    partition: int
    offset: int


@dataclass
class Event:
    key: bytes
    value: bytes
    message: Message


def events(topic: str, *values: Any) -> list[Event]:
    return [Event(b"k", v if isinstance(v, bytes) else json.dumps(v).encode(), Message(topic, 0, i))
            for i, v in enumerate(values)]


def parse_binary_copy(data: bytes) -> list[list[bytes | None]]:
    """The rows of a binary COPY stream, each field's raw bytes (None for NULL)."""
    assert data.startswith(b"PGCOPY\n\xff\r\n\x00") and data.endswith(b"\xff\xff")
    at, rows = 19, []
    while True:
        (count,) = struct.unpack_from(">h", data, at)
        at += 2
        if count == -1:
            return rows
        row: list[bytes | None] = []
        for _ in range(count):
            (size,) = struct.unpack_from(">i", data, at)
            at += 4
            row.append(None if size < 0 else data[at:at + size])
            at += max(size, 0)
        rows.append(row)


def copied_gps_columns(data: bytes) -> list[list[Any]]:
    """A COPY_GPS stream as one list per column (device ids and fix times decoded), like INSERT_GPS' params."""
    rows = parse_binary_copy(data)
    epoch = datetime(2000, 1, 1, tzinfo=UTC)
    device_ids = [struct.unpack(">q", row[0])[0] for row in rows]  # type: ignore[arg-type]
    fix_times = [epoch + timedelta(microseconds=struct.unpack(">q", row[1])[0]) for row in rows]  # type: ignore[arg-type]
    return [device_ids, fix_times, *([row[i] for row in rows] for i in range(2, 15))]


class FakeCopy:
    def __init__(self, conn: FakeConnection, sql: str) -> None:
        self.conn, self.sql, self.data = conn, sql, b""

    async def __aenter__(self) -> FakeCopy:
        return self

    async def write(self, data: bytes) -> None:
        self.data += data

    async def __aexit__(self, *exc: object) -> None:
        if self.sql.startswith("COPY gps "):
            columns = copied_gps_columns(self.data)
        else:  # one list per column of the fields' raw bytes
            columns = [list(column) for column in zip(*parse_binary_copy(self.data), strict=True)]
        self.conn.db.statements.append((self.sql, columns))
        if self.sql.startswith("COPY gps ") and self.conn.db.refuse_device is not None \
                and self.conn.db.refuse_device in columns[0]:
            raise psycopg.errors.ForeignKeyViolation("unknown device")
        if self.conn.db.copy_conflicts:
            self.conn.db.copy_conflicts -= 1
            raise psycopg.errors.UniqueViolation("duplicate key value violates unique constraint \"gps_pkey\"")


class FakeCursor:
    def __init__(self, conn: FakeConnection) -> None:
        self.conn = conn

    def copy(self, sql: str) -> FakeCopy:
        return FakeCopy(self.conn, sql)


def gps_writes(db: FakeDatabase) -> list[Any]:
    """The parameters of every gps write (binary COPY or INSERT), one list per column."""
    return [params for sql, params in db.statements if sql.startswith(("INSERT INTO gps ", "COPY gps "))]


class FakeConnection:
    def __init__(self, db: FakeDatabase) -> None:
        self.db = db

    def cursor(self) -> FakeCursor:
        return FakeCursor(self)

    @asynccontextmanager
    async def transaction(self):
        yield

    async def execute(self, sql: str, params: Any = None) -> Any:
        self.db.statements.append((sql, params))
        if self.db.refuse_device is not None and "INSERT INTO gps" in sql and self.db.refuse_device in params[0]:
            raise psycopg.errors.ForeignKeyViolation("unknown device")
        return self

    async def fetchone(self) -> Any:
        # the seed query: device offline, nothing logged yet
        return (2, 21, 3, None, None, None, None, None, None, None)

    async def fetchall(self) -> list[Any]:
        return []  # INSERT ... RETURNING after a COPY conflict, and the stored rows it did not write


@dataclass
class FakeDatabase(Database):
    statements: list[tuple[str, Any]] = field(default_factory=list)
    refuse_device: int | None = None
    outages: int = 0
    copy_conflicts: int = 0  # COPYs into gps that find a stored position (replay, resend)

    def __post_init__(self) -> None:
        super().__init__("postgresql://unused", name="fake", max_backoff_s=0.01)

    async def _connection(self) -> Any:
        if self.outages:
            self.outages -= 1
            raise psycopg.OperationalError("server closed the connection unexpectedly")
        return FakeConnection(self)


@pytest.fixture
def sent() -> list[tuple[str, bytes | None, dict[str, Any]]]:
    return []


@pytest.fixture
def send(sent):
    async def _send(topic: str, key: bytes | None, value: bytes) -> None:
        sent.append((topic, key, json.loads(value)))
    return _send


def report(seconds: float, **kwargs: Any) -> dict[str, Any]:
    return payloads.location_report(TERMINAL, fix_at=T0 + timedelta(seconds=seconds), received_at=T0, **kwargs)


def test_positions_batch_writes_valid_rows_and_dead_letters_the_rest(send, sent) -> None:
    db = FakeDatabase()
    processor = PositionsProcessor(db, None, DeadLetters(send, "positions"), LIMITS)
    batch = events(JT808_UPLINK, report(0), b"{broken", report(1, speed_kmh=999.0), report(2), report(2))
    asyncio.run(processor.process(batch))
    gps = gps_writes(db)
    assert len(gps) == 1 and gps[0][1] == [T0, T0 + timedelta(seconds=2)]  # deduplicated
    assert [(t, r["offset"], r["agent"]) for t, _, r in sent] == [(DEAD_LETTER, 1, "positions"), (DEAD_LETTER, 2, "positions")]
    assert sent[0][2]["error"].startswith("not JSON") and sent[0][2]["value"] == "{broken"
    assert sent[1][2]["source_topic"] == JT808_UPLINK and "speed 999" in sent[1][2]["error"]
    assert processor.rows_written == 3


def test_positions_data_error_dead_letters_only_the_culprit(send, sent) -> None:
    db = FakeDatabase(refuse_device=99)
    stranger = payloads.location_report(payloads.Terminal("0199", 99, None, 3), fix_at=T0, received_at=T0)
    processor = PositionsProcessor(db, None, DeadLetters(send, "positions"), LIMITS)
    asyncio.run(processor.process(events(JT808_UPLINK, report(0), stranger, report(1))))
    assert [r["offset"] for _, _, r in sent] == [1]
    assert "ForeignKeyViolation" in sent[0][2]["error"]
    assert processor.rows_written == 2


def test_outage_is_retried_not_dead_lettered(send, sent) -> None:
    db = FakeDatabase(outages=3)
    processor = PositionsProcessor(db, None, DeadLetters(send, "positions"), LIMITS)
    asyncio.run(processor.process(events(JT808_UPLINK, report(0))))
    assert sent == [] and db.retries == 3
    assert gps_writes(db)


class FakeDirectory:
    async def enterprise_path(self, enterprise_id: int) -> str:
        return f"/1/{enterprise_id}/"

    async def plate_number(self, car_id: int | None) -> str | None:
        return "AB123"


def states_processor(db: FakeDatabase, send) -> StatesProcessor:
    clock = iter(range(0, 10_000, 10))
    return StatesProcessor(db, StateStore(db, clock=lambda: 0.0), FakeDirectory(), send,  # type: ignore[arg-type]
                           DeadLetters(send, "states"), Rules(600, 5), LIMITS, clock=lambda: float(next(clock)),
                           utcnow=lambda: T0 + timedelta(hours=1))


def test_states_push_online_and_business_state_and_log_acc(send, sent) -> None:
    db = FakeDatabase()
    processor = states_processor(db, send)

    async def run() -> None:
        await processor.handle(events(DEVICE_SESSIONS, payloads.session(TERMINAL, online=True, at=T0))[0])
        await processor.handle(events(JT808_UPLINK, report(1, speed_kmh=40.0))[0])
        await processor.handle(events(JT808_UPLINK, report(2, speed_kmh=0.0, acc_on=False))[0])

    asyncio.run(run())
    pushes = [(r["push"]["type"], r["push"]["data"].get("state", r["push"]["data"].get("bizState")))
              for topic, _, r in sent if topic == CONSOLE_EVENTS]
    assert pushes == [(1, 1), (6, BizState.NO_SIGNAL), (6, BizState.DRIVING), (6, BizState.ENGINE_OFF)]
    assert all(key == b"3" and r["enterprise_path"] == "/1/3/" for _, key, r in sent)
    acc_rows = [p for sql, p in db.statements if sql.startswith("INSERT INTO acc_state_log")]
    assert [(row[1], row[2]) for row in acc_rows] == [(T0 + timedelta(seconds=1), 1), (T0 + timedelta(seconds=2), 0)]


def test_states_dead_letter_bad_sessions_but_leave_bad_uplinks_to_positions(send, sent) -> None:
    processor = states_processor(FakeDatabase(), send)
    asyncio.run(processor.handle(events(DEVICE_SESSIONS, b"nope")[0]))
    asyncio.run(processor.handle(events(JT808_UPLINK, b"nope")[0]))
    assert [(t, r["agent"]) for t, _, r in sent] == [(DEAD_LETTER, "states")]


def test_no_signal_timer_marks_silent_online_devices(send, sent) -> None:
    processor = states_processor(FakeDatabase(), send)
    asyncio.run(processor.handle(events(DEVICE_SESSIONS, payloads.session(TERMINAL, online=True, at=T0))[0]))
    asyncio.run(processor.handle(events(JT808_UPLINK, report(1, speed_kmh=40.0))[0]))
    processor.clock = lambda: 10_000.0
    assert asyncio.run(processor.check_no_signal()) == 1
    assert sent[-1][2]["push"] == {"type": 6, "data": {"deviceId": 11, "carId": 21, "bizState": 4,
                                                      "time": "2026-05-01T09:00:00Z"}}
    assert asyncio.run(processor.check_no_signal()) == 0


def test_gateway_security_notice_is_pushed_to_the_device_enterprise_without_changing_state(send, sent) -> None:
    from gateway.payloads import TerminalIdentity, security_value

    db = FakeDatabase()
    processor = states_processor(db, send)
    value = security_value(TerminalIdentity("013800000001", 11, 21, 3), reason="session_replaced",
                           connection_id="gw-1-9", gateway_id="gw-1", peer="203.0.113.5:4000",
                           replaced_connection_id="gw-1-2", replaced_peer="198.51.100.7:5000")
    asyncio.run(processor.handle(events(DEVICE_SESSIONS, value)[0]))
    [(topic, key, record)] = sent
    assert (topic, key, record["kind"], record["enterprise_path"]) == (CONSOLE_EVENTS, b"3", "push", "/1/3/")
    data = record["push"]["data"]
    assert record["push"]["type"] == 15
    assert (data["deviceId"], data["carId"], data["plateNumber"], data["event"]) == (11, 21, "AB123", "session_replaced")
    assert (data["peer"], data["replacedPeer"]) == ("203.0.113.5:4000", "198.51.100.7:5000")
    assert "(terminal 013800000001 authenticated on a new connection" in data["message"]
    assert db.statements == []  # no online/offline change, no log row


def test_a_batch_repeating_a_stored_position_is_copied_then_inserted_skipping_it(send, sent) -> None:
    db = FakeDatabase()
    db.copy_conflicts = 1
    processor = PositionsProcessor(db, None, DeadLetters(send, "positions"), LIMITS)
    asyncio.run(processor.process(events(JT808_UPLINK, report(0), report(1))))
    writes = [sql.split(" (")[0] for sql, _ in db.statements if sql.startswith(("INSERT INTO gps ", "COPY gps "))]
    assert writes == ["COPY gps", "INSERT INTO gps"]  # the second skips what is stored (ON CONFLICT)
    assert "ON CONFLICT (device_id, fix_at) DO NOTHING" in [sql for sql, _ in db.statements
                                                            if sql.startswith("INSERT INTO gps ")][0]
    assert sent == [] and processor.rows_written == 2  # nothing dead-lettered
