"""The uplinks agent's body: one parse per uplink, positions -> live -> states per batch (no Faust)."""

from __future__ import annotations

import asyncio
import json
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any

import psycopg
import pytest

from fleet.position_wire import LIVE_POSITION_FIELDS, epoch_ms
from fleet.topics import CONSOLE_EVENTS, DEAD_LETTER, JT808_UPLINK
from streams import payloads
from streams.deadletter import DeadLetters
from streams.live import LivePositions
from streams.positions import PositionsProcessor
from streams.state_rules import Rules
from streams.uplinks import UplinksProcessor

from .conftest import T0
from .test_processors import (
    LIMITS,
    TERMINAL,
    FakeConnection,
    FakeDatabase,
    events,
    gps_writes,
    report,
    states_processor,
)


@pytest.fixture
def sent() -> list[tuple[str, bytes | None, dict[str, Any]]]:
    return []


@pytest.fixture
def send(sent):
    async def _send(topic: str, key: bytes | None, value: bytes) -> None:
        sent.append((topic, key, json.loads(value)))
    return _send


class PipelinedConnection(FakeConnection):
    @asynccontextmanager
    async def pipeline(self):
        yield

    async def execute(self, sql: str, params: Any = None) -> Any:
        db = self.db
        if getattr(db, "refuse_acc_device", None) is not None and sql.startswith("INSERT INTO acc_state_log") \
                and params[0] == db.refuse_acc_device:  # type: ignore[attr-defined]
            db.statements.append((sql, params))
            raise psycopg.errors.ForeignKeyViolation("unknown device")
        return await super().execute(sql, params)

    async def fetchone(self) -> Any:
        sql, params = self.db.statements[-1]
        if isinstance(params, dict) and params.get("id") == getattr(self.db, "unknown_device", None):
            return None  # the seed query finds no such device
        return await super().fetchone()


class PipelinedDatabase(FakeDatabase):
    refuse_acc_device: int | None = None
    unknown_device: int | None = None

    async def _connection(self) -> Any:
        conn = await super()._connection()
        return PipelinedConnection(conn.db)


class FakeDirectory:
    async def enterprise_path(self, enterprise_id: int) -> str:
        return f"/1/{enterprise_id}/"

    async def plate_number(self, car_id: int | None) -> str | None:
        return None


def processor(db: PipelinedDatabase, send: Any) -> UplinksProcessor:
    states = states_processor(db, send)
    live = LivePositions(FakeDirectory(), send, LIMITS, Rules(600, 5), states.store)  # type: ignore[arg-type]
    return UplinksProcessor(PositionsProcessor(db, None, DeadLetters(send, "positions"), LIMITS), states, live)


def test_one_batch_goes_through_positions_live_and_states(send, sent) -> None:
    db = PipelinedDatabase()
    uplinks = processor(db, send)
    batch = events(JT808_UPLINK, report(0, speed_kmh=30.0), b"{broken", report(1, speed_kmh=0.0, acc_on=False))
    asyncio.run(uplinks.process(batch))
    gps = gps_writes(db)
    assert len(gps) == 1 and gps[0][1] == [T0, T0 + timedelta(seconds=1)]
    acc = [params for sql, params in db.statements if sql.startswith("INSERT INTO acc_state_log")]
    assert [(row[1], row[2]) for row in acc] == [(T0, 1), (T0 + timedelta(seconds=1), 0)]
    assert [(t, r["offset"], r["agent"]) for t, _, r in sent if t == DEAD_LETTER] == [(DEAD_LETTER, 1, "positions")]
    assert [r["push"]["type"] for t, _, r in sent if t == CONSOLE_EVENTS] == [6]  # offline device: once, 0
    drained = uplinks.live.coalescer.drain()
    time_column = LIVE_POSITION_FIELDS.index("time")
    assert [row[time_column] for row in drained[TERMINAL.enterprise_id]] == [epoch_ms(T0 + timedelta(seconds=1))]
    assert uplinks.states.store.peek(TERMINAL.device_id).last_fix_at == T0 + timedelta(seconds=1)  # type: ignore[union-attr]


def test_states_batch_refused_is_redone_event_by_event_dead_lettering_only_the_culprit(send, sent) -> None:
    db = PipelinedDatabase()
    db.refuse_acc_device = 99
    uplinks = processor(db, send)
    stranger = payloads.location_report(payloads.Terminal("0199", 99, None, 3), fix_at=T0, received_at=T0)
    asyncio.run(uplinks.process(events(JT808_UPLINK, report(0), stranger, report(1, acc_on=False))))
    letters = [(r["offset"], r["agent"]) for t, _, r in sent if t == DEAD_LETTER]
    assert letters == [(1, "states")]
    acc = [params[:3] for sql, params in db.statements if sql.startswith("INSERT INTO acc_state_log")]
    # batch attempt (3 rows, refused), then one by one: device 11 twice, 99 refused again
    assert acc[-3:] == [(11, T0, 1), (99, T0, 1), (11, T0 + timedelta(seconds=1), 0)]
    assert uplinks.states.store.peek(11).acc_on is False  # type: ignore[union-attr]


def test_unknown_device_is_dead_lettered_by_states_as_event_by_event_did(send, sent) -> None:
    db = PipelinedDatabase()
    db.unknown_device = 99
    uplinks = processor(db, send)
    stranger = payloads.location_report(payloads.Terminal("0199", 99, None, 3), fix_at=T0, received_at=T0)
    asyncio.run(uplinks.process(events(JT808_UPLINK, report(0), stranger, report(1))))
    letters = [(r["offset"], r["agent"], r["error"]) for t, _, r in sent if t == DEAD_LETTER]
    assert letters == [(1, "states", "PayloadError: unknown device 99")]
    assert uplinks.states.store.peek(11).last_fix_at == T0 + timedelta(seconds=1)  # type: ignore[union-attr]


def test_a_batch_record_goes_through_the_steps_as_its_uplinks_and_a_bad_one_is_dead_lettered_with_its_index(
        send, sent) -> None:
    from fleet.uplink_records import batch_value
    from streams.records import expand

    db = PipelinedDatabase()
    uplinks = processor(db, send)
    items = [json.dumps(report(0, speed_kmh=30.0)).encode(), b'{"phone": "013800000001"}',
             json.dumps(report(1, speed_kmh=0.0, acc_on=False)).encode()]
    records = events(JT808_UPLINK, report(5), batch_value(items), b"[broken")
    expanded = expand(records)
    assert len(expanded) == 1 + 3 + 1  # a single record, the batch's three uplinks, a batch that is not JSON
    asyncio.run(uplinks.process(expanded))
    gps = gps_writes(db)
    assert len(gps) == 1 and gps[0][1] == [T0 + timedelta(seconds=5), T0, T0 + timedelta(seconds=1)]
    letters = [(r["offset"], r.get("batch_index"), r["error"][:14]) for t, _, r in sent if t == DEAD_LETTER]
    assert letters == [(1, 1, "message.body: "), (2, None, "not JSON: unex")]
    [bad] = [r for t, _, r in sent if t == DEAD_LETTER and r.get("batch_index") == 1]
    assert json.loads(bad["value"]) == {"phone": "013800000001"}  # the uplink, not the whole record
