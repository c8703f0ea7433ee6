"""The message log on the real PostgreSQL: daily partitions, `fleet redecode`, retention (gps too).

Days are far in the past (2001) or future (2033) so other tests' rows and partitions are never touched.
"""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, date, datetime, timedelta
from typing import Any

import orjson
import pytest
from click.testing import CliRunner

from fleet.cli import main as fleet_cli
from protocols.jt808 import LocationReport, encode_frame
from streams import message_log
from streams.db import Database
from streams.messages import parse_uplink
from streams.payloads import Terminal, frame_uplink
from warehouse.db import connect
from warehouse.message_log import decode_raw, json_ready, redecode
from warehouse.partitions import (
    MESSAGE_LOG,
    PARENT,
    drop_expired_partitions,
    ensure_partitions,
    existing_partitions,
    partition_name,
)
from warehouse.retention import run_retention

FUTURE = datetime(2033, 7, 1, 10, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def terminal(pg_url: str) -> Terminal:
    tag = uuid.uuid4().hex[:8]
    with connect(pg_url) as conn:
        ent = conn.execute("INSERT INTO enterprise (name, short_name) VALUES (%s, 'mlog') RETURNING id",
                           (f"message-log {tag}",)).fetchone()[0]  # type: ignore[index]
        conn.execute("UPDATE enterprise SET path = %s WHERE id = %s", (f"/{ent}/", ent))
        car = conn.execute("INSERT INTO car (enterprise_id, plate_number) VALUES (%s, %s) RETURNING id",
                           (ent, f"ML{tag[:5]}")).fetchone()[0]  # type: ignore[index]
        phone = f"7{int(tag, 16) % 10**11:011d}"
        device = conn.execute("INSERT INTO device (enterprise_id, car_id, phone, device_sn) VALUES (%s, %s, %s, %s)"
                              " RETURNING id", (ent, car, phone, f"ML{tag}")).fetchone()[0]  # type: ignore[index]
        conn.commit()
    return Terminal(phone, int(device), int(car), int(ent))


def frame(terminal: Terminal, seq: int, speed: float = 36.0) -> bytes:
    report = LocationReport(alarm_flags=0, status_flags=3, lat=39.9, lng=116.4, altitude_m=50, speed_kmh=speed,
                            direction_deg=90, fix_at=FUTURE)
    return encode_frame(0x0200, report, phone=terminal.phone, seq=seq)


def write(pg_url: str, rows: list[message_log.LogRow]) -> None:
    async def run() -> None:
        db = Database(pg_url, name="message-log-test")
        try:
            assert await message_log.write_rows(db, rows) == 0
        finally:
            await db.close()

    asyncio.run(run())


def rows_of(terminal: Terminal, at: datetime, seqs: range) -> list[message_log.LogRow]:
    uplinks = [parse_uplink(orjson.dumps(frame_uplink(terminal, frame(terminal, s), received_at=at + timedelta(seconds=s))))
               for s in seqs]
    return message_log.uplink_rows(uplinks)


def decoded_of(pg_url: str, terminal: Terminal) -> dict[int, Any]:
    with connect(pg_url) as conn:
        return dict(conn.execute("SELECT seq, decoded FROM message_log WHERE device_id = %s",
                                 (terminal.device_id,)).fetchall())


def test_the_writer_creates_the_days_partition_and_the_next(pg_url: str, terminal: Terminal) -> None:
    write(pg_url, rows_of(terminal, FUTURE, range(1, 4)))
    with connect(pg_url) as conn:
        names = existing_partitions(conn, MESSAGE_LOG)
        assert {partition_name(FUTURE.date(), MESSAGE_LOG), partition_name(FUTURE.date() + timedelta(days=1),
                                                                           MESSAGE_LOG)} <= names
        where = conn.execute("SELECT tableoid::regclass::text, count(*) FROM message_log WHERE device_id = %s"
                             " GROUP BY 1", (terminal.device_id,)).fetchall()
    assert where == [("message_log_20330701", 3)]


def test_redecode_rewrites_what_todays_codec_decodes_differently(pg_url: str, terminal: Terminal) -> None:
    at = FUTURE + timedelta(hours=1)
    rows = rows_of(terminal, at, range(10, 13))
    stale = orjson.loads(rows[0].decoded or "")
    stale["body"]["speed_kmh"] = 999.0  # what an old codec had stored
    stale["body"].pop("extras")
    rows[0] = rows[0]._replace(decoded=orjson.dumps(stale).decode())
    write(pg_url, rows)
    until = at + timedelta(minutes=5)
    with connect(pg_url) as conn:
        dry = redecode(conn, at, until, 0x0200, dry_run=True)
        assert (dry.read, dry.changed) == (3, 1)
        assert dry.examples[0]["seq"] == 10 and dry.examples[0]["changed"] == ["body.extras", "body.speed_kmh"]
    assert decoded_of(pg_url, terminal)[10]["body"]["speed_kmh"] == 999.0  # dry run wrote nothing
    with connect(pg_url) as conn:
        assert redecode(conn, at, until, 0x0002).read == 0  # another message id: nothing read
        done = redecode(conn, at, until, 0x0200)
    assert (done.read, done.changed) == (3, 1)
    assert decoded_of(pg_url, terminal)[10] == json_ready(decode_raw(frame(terminal, 10).hex()))
    with connect(pg_url) as conn:
        assert redecode(conn, at, until).changed == 0  # idempotent


def test_fleet_redecode_prints_what_it_read_and_changed(pg_url: str, terminal: Terminal) -> None:
    at = FUTURE + timedelta(hours=2)
    rows = rows_of(terminal, at, range(20, 22))
    rows[1] = rows[1]._replace(decoded='{"error": "BodyError: old codec"}')
    write(pg_url, rows)
    args = ["redecode", "--since", at.isoformat(), "--until", (at + timedelta(minutes=1)).isoformat(),
            "--msg-id", "0x0200"]
    result = CliRunner().invoke(fleet_cli, args, env={"FLEET_DATABASE_URL": pg_url})
    assert result.exit_code == 0, result.output
    assert "read 2 frame(s), changed 1" in result.output and "0x0200 seq 21" in result.output
    again = CliRunner().invoke(fleet_cli, args, env={"FLEET_DATABASE_URL": pg_url})
    assert "read 2 frame(s), changed 0" in again.output
    bad = CliRunner().invoke(fleet_cli, ["redecode", "--since", "yesterday"], env={"FLEET_DATABASE_URL": pg_url})
    assert bad.exit_code == 2 and "not an ISO 8601 time" in bad.output


TODAY = date(2001, 3, 1)  # retention 30 days: the cutoff is 2001-01-30


def test_retention_drops_whole_old_message_log_partitions(pg_url: str, terminal: Terminal) -> None:
    old, edge, recent = date(2001, 1, 1), date(2001, 1, 30), date(2001, 2, 28)
    with connect(pg_url) as conn:
        for day in (old, edge, recent):
            ensure_partitions(conn, MESSAGE_LOG, day, 0)
    write(pg_url, rows_of(terminal, datetime(2001, 1, 1, 12, tzinfo=UTC), range(30, 32))
          + rows_of(terminal, datetime(2001, 2, 28, 12, tzinfo=UTC), range(40, 41)))
    with connect(pg_url) as conn:  # a day without a partition: the row waits in the default
        conn.execute("INSERT INTO message_log (time, device_id, enterprise_id, phone, direction, msg_id, seq, raw_hex)"
                     " VALUES (%s, %s, %s, %s, 0, 2, 50, '7e7e')",
                     (datetime(2000, 11, 15, tzinfo=UTC), terminal.device_id, terminal.enterprise_id, terminal.phone))
        conn.commit()
    # the writer created each day's partition and the next day's
    expired = [partition_name(day, MESSAGE_LOG) for day in (old, old + timedelta(days=1))]
    with connect(pg_url) as conn:
        assert drop_expired_partitions(conn, MESSAGE_LOG, 30, TODAY, dry_run=True) == expired
    assert run_retention(pg_url, TODAY, days={MESSAGE_LOG: 30}) == {MESSAGE_LOG: expired}
    with connect(pg_url) as conn:
        names = existing_partitions(conn, MESSAGE_LOG)
        assert not names & set(expired)
        assert {partition_name(edge, MESSAGE_LOG), partition_name(recent, MESSAGE_LOG), "message_log_default"} <= names
    seqs = set(decoded_of(pg_url, terminal))
    assert {30, 31, 50}.isdisjoint(seqs) and 40 in seqs  # the default partition's old rows went too
    assert run_retention(pg_url, TODAY, days={MESSAGE_LOG: 0}) == {MESSAGE_LOG: []}  # 0 keeps everything


def test_retention_drops_old_gps_partitions(pg_url: str) -> None:
    old, recent = date(2001, 1, 2), date(2001, 2, 27)
    with connect(pg_url) as conn:
        for day in (old, recent):
            ensure_partitions(conn, PARENT, day, 0)
    dropped = run_retention(pg_url, TODAY, days={PARENT: 30})[PARENT]
    # the session's database is shared: other tests' old days may be dropped too, never a recent one
    assert partition_name(old) in dropped and partition_name(recent) not in dropped
    assert all(name <= partition_name(TODAY - timedelta(days=30)) for name in dropped), dropped
    with connect(pg_url) as conn:
        names = existing_partitions(conn)
    assert partition_name(old) not in names and partition_name(recent) in names


def test_fleet_retention_dry_run_names_the_settings_and_drops_nothing(pg_url: str) -> None:
    with connect(pg_url) as conn:
        ensure_partitions(conn, MESSAGE_LOG, date(2001, 1, 5), 0)
        before = existing_partitions(conn, MESSAGE_LOG) | existing_partitions(conn)
    env = {"FLEET_DATABASE_URL": pg_url, "FLEET_DATABASE_MESSAGE_LOG_RETENTION_DAYS": "30"}
    result = CliRunner().invoke(fleet_cli, ["retention", "--dry-run"], env=env)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("gps: keeps 180 days; would drop ")
    assert lines[1].startswith("message_log: keeps 30 days; would drop ") and "message_log_20010105" in lines[1]
    with connect(pg_url) as conn:
        assert existing_partitions(conn, MESSAGE_LOG) | existing_partitions(conn) == before


def _plan_nodes(plan: Any) -> list[str]:
    nodes = [str(plan["Node Type"])]
    for child in plan.get("Plans", []):
        nodes += _plan_nodes(child)
    return nodes


def test_the_message_log_screens_count_reads_the_index_alone(pg_url: str, terminal: Terminal) -> None:
    """The upstream message log's total (a vehicle's frames in a range, in the caller's tree) comes from
    the covering index once the pages are all-visible: not one heap page per frame."""
    from api.query.entities import QUERYABLE
    from api.query.grammar import parse_query
    from api.query.sqlgen import compile_count
    from warehouse.queries.scope import Scope

    day = FUTURE + timedelta(days=3)
    with connect(pg_url) as conn:
        ensure_partitions(conn, MESSAGE_LOG, day.date(), days_ahead=0)
        conn.execute(
            "INSERT INTO message_log (time, device_id, car_id, enterprise_id, phone, direction, msg_id, seq, raw_hex)"
            " SELECT %s + make_interval(secs => i), %s + k, CASE WHEN k = 0 THEN %s ELSE -k END, %s, %s, i %% 2, 512, i, '7e'"
            " FROM generate_series(1, 2000) i, generate_series(0, 19) k",  # 20 terminals interleaved, as live
            (day, terminal.device_id, terminal.car_id, terminal.enterprise_id, terminal.phone))
        conn.commit()
    with connect(pg_url) as conn:
        conn.autocommit = True
        conn.execute(f"VACUUM ANALYZE {partition_name(day.date(), MESSAGE_LOG)}")
        query = parse_query(QUERYABLE["upstreamMessage"], {}, {"carId.eq": terminal.car_id, "rangeConditions": [
            {"fieldName": "time", "start": day.isoformat(), "end": (day + timedelta(hours=1)).isoformat()}]})
        statement, values = compile_count(query, Scope(terminal.enterprise_id, f"/{terminal.enterprise_id}/", subtree=True))
        conn.execute("SET enable_seqscan = off")
        conn.execute("SET enable_bitmapscan = off")
        plan = conn.execute(b"EXPLAIN (FORMAT JSON) " + statement.as_bytes(conn), values).fetchone()[0][0]["Plan"]  # type: ignore[index]
        assert "Index Only Scan" in _plan_nodes(plan), plan
        assert conn.execute(statement, values).fetchone()[0] == 1000  # type: ignore[index]
        options = conn.execute("SELECT reloptions FROM pg_class WHERE relname = %s",
                               (partition_name(day.date(), MESSAGE_LOG),)).fetchone()[0]  # type: ignore[index]
        assert "autovacuum_vacuum_insert_scale_factor=0.01" in options
