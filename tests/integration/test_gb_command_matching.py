"""Which command a GB/T 32960 terminal's answer answers (warehouse/queries/command_state.py ANSWER_UNSEQUENCED, the
streams step gb_commands), on the real PostgreSQL. The answer carries no serial but starts with the answered
command's own time (GB/T 32960.3-2016 §6.3.2): the command with that time is answered even when an older one of the
same id is open; a late answer to a command that timed out answers no other; an answer with a time no command has
(a terminal that puts its own clock there) answers the oldest open command of that id."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from protocols.gb32960.values import write_time
from streams.commands import EARLY_SLACK_S, ECHO_WINDOW_S
from tests.integration.gateway.gb_support import insert_vehicle, unique_vin
from warehouse.queries.command_state import ANSWER_UNSEQUENCED

QUERY = 0x80


def _command(conn: psycopg.Connection[Any], ids: dict[str, int], at: datetime, state: str = "sent") -> int:
    """A 0x80 query row as the API writes it: its data unit starts with its own time (then ids)."""
    row = conn.execute(
        "INSERT INTO command (enterprise_id, car_id, device_id, phone, msg_id, body_hex, state, created_at) "
        "VALUES (%s, %s, %s, '', %s, %s, %s, %s) RETURNING id",
        (ids["enterprise_id"], ids["car_id"], ids["device_id"], QUERY, (write_time(at) + b"\x01\x02").hex().upper(),
         state, at)).fetchone()
    assert row is not None
    return int(row[0])


def _answer(conn: psycopg.Connection[Any], ids: dict[str, int], echoed: datetime, at: datetime) -> int | None:
    row = conn.execute(ANSWER_UNSEQUENCED, {
        "result": 0, "msg_id": QUERY, "reply": Jsonb({"response": 1}), "at": at, "device_id": ids["device_id"],
        "slack_s": EARLY_SLACK_S, "car_id": ids["car_id"], "time": echoed, "time_hex": write_time(echoed).hex(),
        "echo_window_s": ECHO_WINDOW_S}).fetchone()
    return None if row is None else int(row[0])


def _state(conn: psycopg.Connection[Any], command_id: int) -> str:
    return str(conn.execute("SELECT state FROM command WHERE id = %s", (command_id,)).fetchone()[0])  # type: ignore[index]


def test_an_answer_goes_to_the_command_whose_time_it_echoes(pg_url: str) -> None:
    ids = insert_vehicle(pg_url, unique_vin())
    now = datetime.now(UTC).replace(microsecond=0)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        older = _command(conn, ids, now - timedelta(seconds=40))
        newer = _command(conn, ids, now - timedelta(seconds=10))
        assert _answer(conn, ids, now - timedelta(seconds=10), now) == newer  # not the oldest open one
        assert (_state(conn, older), _state(conn, newer)) == ("sent", "answered")
        assert _answer(conn, ids, now - timedelta(seconds=10), now) is None  # answered once


def test_a_late_answer_to_a_timed_out_command_answers_no_other(pg_url: str) -> None:
    ids = insert_vehicle(pg_url, unique_vin())
    now = datetime.now(UTC).replace(microsecond=0)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        timed_out = _command(conn, ids, now - timedelta(seconds=60), state="timed_out")
        waiting = _command(conn, ids, now - timedelta(seconds=5))
        assert _answer(conn, ids, now - timedelta(seconds=60), now) is None
        assert (_state(conn, timed_out), _state(conn, waiting)) == ("timed_out", "sent")
        assert _answer(conn, ids, now - timedelta(seconds=5), now) == waiting


def test_an_answer_with_a_time_no_command_has_answers_the_oldest_open_one(pg_url: str) -> None:
    ids = insert_vehicle(pg_url, unique_vin())
    now = datetime.now(UTC).replace(microsecond=0)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        first = _command(conn, ids, now - timedelta(seconds=30))
        second = _command(conn, ids, now - timedelta(seconds=20))
        # the terminal's own clock, 3 minutes off: no command of that time
        assert _answer(conn, ids, now + timedelta(minutes=3), now) == first
        assert _answer(conn, ids, now + timedelta(minutes=3), now) == second
