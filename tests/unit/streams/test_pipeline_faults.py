"""The uplink pipeline's failure policy on the alarms step (no Faust, no database): an outage is retried
until the alarm is stored, a bug dead-letters the step's uplinks with the traceback and a replay of them for
that step alone stores the alarm, refused data dead-letters only the device's uplinks."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

import psycopg
import pytest

from fleet.topics import DEAD_LETTER, JT808_UPLINK
from streams import payloads

from .conftest import T0
from .test_alarms import Step, Table
from .test_processors import Message, events, gps_writes, report
from .test_uplinks import PipelinedDatabase, processor


@pytest.fixture
def sent() -> list[tuple[str, bytes | None, dict[str, Any]]]:
    return []


@pytest.fixture
def send(sent):
    async def _send(topic: str, key: bytes | None, value: bytes) -> None:
        sent.append((topic, key, json.loads(value)))
    return _send


class FailingAlarms(Step):
    """The alarms step with a fault injected in its database write: ``faults`` are raised, one per call."""

    def __init__(self, table: Table, faults: list[Exception]) -> None:
        super().__init__(table, [])
        self.faults = faults

    async def _write(self, episodes: Any, ends: Any, devices: Any) -> list[dict[str, Any]]:
        if self.faults:
            raise self.faults.pop(0)
        return await super()._write(episodes, ends, devices)


@dataclass
class ReplayedEvent:
    key: bytes
    value: bytes
    message: Message
    headers: dict[str, bytes] = field(default_factory=dict)


def letters(records: list[tuple[str, bytes | None, dict[str, Any]]], agent: str) -> list[dict[str, Any]]:
    return [r for t, _, r in records if t == DEAD_LETTER and r["agent"] == agent]


def alarm_batch() -> list[Any]:
    # the emergency bit (a0) rises on the second fix; an event that is not JSON rides along
    return events(JT808_UPLINK, report(0, alarm_flags=0), report(1, alarm_flags=1), b"{broken")


def test_database_outage_in_the_alarms_step_is_retried_until_the_alarm_is_stored(send, sent) -> None:
    table = Table()
    uplinks = processor(PipelinedDatabase(), send)
    uplinks.alarms = FailingAlarms(table, [psycopg.OperationalError("server closed the connection")] * 2)
    asyncio.run(uplinks.process(alarm_batch()))  # returns (the batch may be acked) only once stored
    assert [row["key"] for row in table.rows.values()] == ["a0"]
    assert letters(sent, "alarms") == []
    assert uplinks.pipeline.retries["alarms"] == 2


def test_a_bug_in_the_alarms_step_dead_letters_its_uplinks_with_the_traceback_and_a_replay_stores_them(
        send, sent) -> None:
    table = Table()
    db = PipelinedDatabase()
    uplinks = processor(db, send)
    uplinks.alarms = FailingAlarms(table, [RuntimeError("injected")])
    asyncio.run(uplinks.process(alarm_batch()))
    assert table.rows == {}
    parked = letters(sent, "alarms")
    assert [r["offset"] for r in parked] == [0, 1]  # the step's uplinks (fixes), not the broken one
    assert "Traceback" in parked[0]["error"] and "RuntimeError: injected" in parked[0]["error"]
    assert len(gps_writes(db)) == 1  # the other steps ran
    assert uplinks.pipeline.failures["alarms"] == 1

    # fleet deadletters replay --step alarms: each value back, headed for that step only
    stored = len(db.statements)
    replayed = [ReplayedEvent(b"k", r["value"].encode(), Message(JT808_UPLINK, 0, 10 + i), {"fleet.step": b"alarms"})
                for i, r in enumerate(parked)]
    asyncio.run(uplinks.process(replayed))
    assert [row["key"] for row in table.rows.values()] == ["a0"]
    assert len(db.statements) == stored  # positions, states, message log: not run again


def test_alarms_the_database_refuses_as_data_dead_letter_only_that_device(send, sent) -> None:
    table = Table()
    uplinks = processor(PipelinedDatabase(), send)
    refused = psycopg.errors.CheckViolation("alarm_check")
    uplinks.alarms = FailingAlarms(table, [refused, refused])  # the batch, then device 11 alone
    other = payloads.location_report(payloads.Terminal("013800000002", 12, 22, 3), fix_at=T0, received_at=T0,
                                     alarm_flags=2)
    batch = [*alarm_batch(), *events(JT808_UPLINK, other)]
    batch[-1].message.offset = 3
    asyncio.run(uplinks.process(batch))
    assert [(row["device_id"], row["key"]) for row in table.rows.values()] == [(12, "a1")]
    assert [(r["offset"], r["error"]) for r in letters(sent, "alarms")] == [
        (0, "alarms refused by the database: alarm_check"), (1, "alarms refused by the database: alarm_check")]


def test_a_replay_for_an_unknown_step_is_dead_lettered(send, sent) -> None:
    uplinks = processor(PipelinedDatabase(), send)
    event = ReplayedEvent(b"k", json.dumps(report(0)).encode(), Message(JT808_UPLINK, 0, 0), {"fleet.step": b"nope"})
    asyncio.run(uplinks.process([event]))
    assert [r["error"] for r in letters(sent, "pipeline")] == ["replay for unknown step 'nope'"]


@pytest.mark.parametrize("fault", [psycopg.OperationalError("down"), RuntimeError("bug")])
def test_the_live_view_never_stops_nor_dead_letters_the_batch(send, sent, fault: Exception) -> None:
    db = PipelinedDatabase()
    uplinks = processor(db, send)

    def broken(fixes: Any) -> None:
        raise fault

    uplinks.live.add_fixes = broken  # type: ignore[method-assign]
    asyncio.run(uplinks.process(events(JT808_UPLINK, report(0))))
    assert len(gps_writes(db)) == 1
    assert [r for t, _, r in sent if t == DEAD_LETTER] == []
