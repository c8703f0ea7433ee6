"""The fence step in the real worker (Kafka + PostgreSQL): a terminal crossing a platform fence raises one
type-4 alarm per crossing, pushed as type 2 with the fence's name, and a 0x8300 TTS for "to driver"; a
replayed batch adds nothing; a 0x0704 backlog crossing is stored at its own time and never pushed; a worker
restart mid-episode neither raises it again nor forgets to end it; a 0x0200 with item 0x12 raises an alarm
named after the fence of that area id."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import psycopg

from fleet.geofence import Gap, VehicleState
from fleet.topics import CONSOLE_EVENTS, JT808_DOWNLINK, JT808_UPLINK
from protocols.jt808 import TextMessage
from streams import payloads

from .conftest import start_worker
from .support import Producer, TopicReader, commit_group_at_end, insert_terminals, query, wait_for

# a square of about 850 m x 1,100 m west of Beijing's centre
SQUARE = {"rings": [[[116.300, 39.900], [116.310, 39.900], [116.310, 39.910], [116.300, 39.910]]]}
# attributes (bit n = attribute n): 2 in-area to driver, 3 in-area to platform, 5 out-of-area to platform
ENTER_LEAVE = (1 << 2) | (1 << 3) | (1 << 5)
SPEED_LIMIT = 1 << 1


def add_fence(db_url: str, t: payloads.Terminal, name: str, *, attributes: int, business_type: int = 1,
              bind: bool = True, speed_limit: float | None = None, overspeed_duration: int | None = None) -> int:
    """A fence of ``t``'s enterprise (the test's own rows), bound to ``t``'s car."""
    with psycopg.connect(db_url, autocommit=True) as conn:
        fence_id = conn.execute(
            "INSERT INTO fence (enterprise_id, name, fence_type, business_type, shape, geometry, attributes,"
            " speed_limit, overspeed_duration) VALUES (%s, %s, 2, %s, 'polygon', %s, %s, %s, %s) RETURNING id",
            (t.enterprise_id, name, business_type, orjson.dumps(SQUARE).decode(), attributes, speed_limit,
             overspeed_duration),
        ).fetchone()[0]  # type: ignore[index]
        if bind:
            conn.execute("INSERT INTO fence_binding (fence_id, car_id, enterprise_id) VALUES (%s, %s, %s)",
                         (fence_id, t.car_id, t.enterprise_id))
        return int(fence_id)


def drive(t: payloads.Terminal, t0: datetime, lngs: list[float], *, speed: float = 60.0, seq: int = 1,
          step_s: int = 30) -> list[dict[str, Any]]:
    """0x0200s along lat 39.905, one every ``step_s`` from ``t0``."""
    return [payloads.location_report(t, fix_at=t0 + timedelta(seconds=i * step_s), lat=39.905, lng=lng,
                                     speed_kmh=speed, seq=seq + i) for i, lng in enumerate(lngs)]


def fence_rows(db_url: str, device_id: int) -> list[tuple[Any, ...]]:
    return query(db_url, "SELECT key, start_time, end_time, backlog, details->>'fenceName' FROM alarm"
                 " WHERE device_id = %s AND type = 4 ORDER BY start_time, key", (device_id,))


def pushes_of(records: list[dict[str, Any]], device_id: int) -> list[dict[str, Any]]:
    return [r["push"]["data"] for r in records if r.get("kind") == "push" and r["push"]["type"] == 2
            and r["push"]["data"].get("deviceId") == device_id]


def test_crossing_alarms_once_pushed_with_tts_replay_adds_nothing_backlog_not_pushed_item_0x12_named(
        stack_env: dict[str, str], kafka_bootstrap: str, pg_url: str, tmp_path: Path) -> None:
    live, late, terminal = insert_terminals(pg_url, 3, enterprise_name=f"fences-{secrets.token_hex(3)}")
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("UPDATE device SET state = 3 WHERE id = %s", (live.device_id,))  # online: the TTS goes out
    depot = add_fence(pg_url, live, "东区车场", attributes=ENTER_LEAVE)
    west = add_fence(pg_url, late, "西区车场", attributes=ENTER_LEAVE)
    sent_area = add_fence(pg_url, terminal, "学校区域", attributes=ENTER_LEAVE, business_type=2, bind=False)
    t0 = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=20)
    crossing = drive(live, t0, [116.290, 116.296, 116.302, 116.308, 116.314])
    app_id = f"streams-fences-{secrets.token_hex(4)}"
    commit_group_at_end(kafka_bootstrap, app_id)
    pushes, downlinks = TopicReader(kafka_bootstrap, CONSOLE_EVENTS), TopicReader(kafka_bootstrap, JT808_DOWNLINK)
    producer = Producer(kafka_bootstrap)
    worker = start_worker(stack_env, kafka_bootstrap, tmp_path, app_id=app_id, batch_window_s=0.1)
    try:
        # a live crossing: in and out, one row each, pushed with the fence's name; the entry said to the driver
        for record in crossing:
            producer.send(JT808_UPLINK, live.phone, record)
        # a blind-area 0x0704 after one live fix: its crossing at its own time, stored as backlog, no push
        producer.send(JT808_UPLINK, late.phone, drive(late, t0, [116.290], seq=40)[0])
        items = [payloads.location_body(fix_at=t0 + timedelta(seconds=30 * i), lat=39.905, lng=lng, speed_kmh=60.0)
                 for i, lng in ((1, 116.296), (2, 116.302), (3, 116.306))]
        producer.send(JT808_UPLINK, late.phone, payloads.location_batch(late, items, seq=41))
        # the terminal's own entry of the area it was sent (item 0x12, alarm bit 20)
        report = payloads.location_report(terminal, fix_at=t0, lat=39.905, lng=116.302, alarm_flags=1 << 20, seq=60)
        report["message"]["body"]["extras"]["area_alarm"] = {"location_type": 3, "area_id": sent_area, "direction": 0}
        producer.send(JT808_UPLINK, terminal.phone, report)
        producer.flush()

        rows = wait_for(lambda: len(r := fence_rows(pg_url, live.device_id)) >= 2 and r, 90, "the crossing alarms",
                        worker)
        enter_at = t0 + timedelta(seconds=30 + 30 * (116.300 - 116.296) / 0.006)
        leave_at = t0 + timedelta(seconds=90 + 30 * (116.310 - 116.308) / 0.006)
        assert [(k, abs((s - at).total_seconds()) < 1, b, n) for (k, s, _, b, n), at
                in zip(rows, (enter_at, leave_at), strict=True)] == [
            (f"fence:{depot}:enter", True, False, "东区车场"), (f"fence:{depot}:leave", True, False, "东区车场")]
        found = pushes.read_until(lambda rs: len(pushes_of(rs, live.device_id)) >= 2, 60)
        mine = pushes_of(found, live.device_id)
        assert [(p["key"], p["type"], p["fenceName"], p["desc"]) for p in mine] == [
            (f"fence:{depot}:enter", 4, "东区车场", "进区域报警 (东区车场)"),
            (f"fence:{depot}:leave", 4, "东区车场", "出区域报警 (东区车场)")], worker.log_tail(60)
        texts = downlinks.read_until(lambda rs: any(r.get("phone") == live.phone for r in rs), 30)
        tts = [TextMessage.decode(bytes.fromhex(r["body_hex"]), "2013") for r in texts if r.get("phone") == live.phone]
        assert [(m.text, m.flags) for m in tts] == [("您已驶入东区车场", 0b1100)]

        late_rows = wait_for(lambda: fence_rows(pg_url, late.device_id), 30, "the backlog crossing", worker)
        late_enter = t0 + timedelta(seconds=30 + 30 * (116.300 - 116.296) / 0.006)
        assert [(k, abs((s - late_enter).total_seconds()) < 1, b) for k, s, _, b, _ in late_rows] == [
            (f"fence:{west}:enter", True, True)]
        item_rows = wait_for(lambda: fence_rows(pg_url, terminal.device_id), 30, "the terminal's 0x12 alarm", worker)
        assert item_rows == [(f"tfence:{sent_area}:enter", t0, t0, False, "学校区域")]

        # the same uplinks again (a retry, a replay): nothing new, nothing pushed
        for record in crossing:
            producer.send(JT808_UPLINK, live.phone, record)
        producer.send(JT808_UPLINK, terminal.phone, report)
        marker = drive(live, t0 + timedelta(minutes=5), [116.320], seq=90)[0]  # processed after the replay
        producer.send(JT808_UPLINK, live.phone, marker)
        producer.flush()
        wait_for(lambda: query(pg_url, "SELECT 1 FROM gps WHERE device_id = %s AND fix_at = %s",
                               (live.device_id, t0 + timedelta(minutes=5))), 60, "the marker fix", worker)
        wait_for(lambda: query(pg_url, "SELECT 1 FROM fence_vehicle_state WHERE device_id = %s AND fixed_at = %s",
                               (live.device_id, t0 + timedelta(minutes=5))), 30, "the marker's fence state", worker)
        [(kept,)] = query(pg_url, "SELECT state FROM fence_vehicle_state WHERE device_id = %s", (live.device_id,))
        # outside every fence after a 3-minute silence: its newest fix and that gap, every digit kept
        assert VehicleState.from_json(kept) == VehicleState(
            (t0 + timedelta(minutes=5)).timestamp(), 116.320, 39.905, {},
            Gap((t0 + timedelta(seconds=120)).timestamp(), 116.314, 39.905, (t0 + timedelta(minutes=5)).timestamp()))
        assert len(fence_rows(pg_url, live.device_id)) == 2
        assert len(fence_rows(pg_url, terminal.device_id)) == 1
        again = pushes.read_until(lambda rs: False, 3)
        assert pushes_of(again, live.device_id) == [] and pushes_of(found + again, late.device_id) == []
    finally:
        worker.stop()
        producer.close()
        pushes.close()
        downlinks.close()


def test_worker_restart_mid_episode_neither_raises_it_again_nor_forgets_to_end_it(
        stack_env: dict[str, str], kafka_bootstrap: str, pg_url: str, tmp_path: Path) -> None:
    t = insert_terminals(pg_url, 1, enterprise_name=f"fences-restart-{secrets.token_hex(3)}")[0]
    school = add_fence(pg_url, t, "学校限速区", attributes=ENTER_LEAVE | SPEED_LIMIT, speed_limit=40,
                       overspeed_duration=10)
    t0 = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=20)
    app_id = f"streams-fences-restart-{secrets.token_hex(4)}"
    commit_group_at_end(kafka_bootstrap, app_id)
    producer = Producer(kafka_bootstrap)
    worker = start_worker(stack_env, kafka_bootstrap, tmp_path, app_id=app_id, batch_window_s=0.1)
    try:
        # enters at 60 km/h (limit 40) and stays fast for 20 s: one overspeed episode, still open
        for record in drive(t, t0, [116.296, 116.301, 116.3015, 116.302], speed=60.0, step_s=10):
            producer.send(JT808_UPLINK, t.phone, record)
        producer.flush()
        before = wait_for(lambda: len(r := fence_rows(pg_url, t.device_id)) >= 2 and r, 90, "the overspeed", worker)
        assert [(k, e is None) for k, _, e, _, _ in before] == [(f"fence:{school}:enter", False),
                                                                 (f"fence:{school}:overspeed", True)]
    finally:
        worker.stop()
    worker = start_worker(stack_env, kafka_bootstrap, tmp_path, app_id=app_id, batch_window_s=0.1)
    try:
        # still fast inside after the restart (no new entry nor overspeed), then slow: the episode ends
        later = t0 + timedelta(seconds=40)
        producer.send(JT808_UPLINK, t.phone, drive(t, later, [116.3025], speed=62.0, seq=20)[0])
        producer.send(JT808_UPLINK, t.phone, drive(t, later + timedelta(seconds=10), [116.303], speed=30.0, seq=21)[0])
        producer.flush()
        rows = wait_for(lambda: (r := fence_rows(pg_url, t.device_id)) and r[-1][2] is not None and r, 60,
                        "the overspeed to end", worker)
        assert [(k, e) for k, _, e, _, _ in rows] == [
            (f"fence:{school}:enter", before[0][1]), (f"fence:{school}:overspeed", later + timedelta(seconds=10))]
    finally:
        worker.stop()
        producer.close()


def test_a_backlog_filling_a_gap_moves_the_interpolated_crossing_to_its_own_time(
        stack_env: dict[str, str], kafka_bootstrap: str, pg_url: str, tmp_path: Path) -> None:
    t = insert_terminals(pg_url, 1, enterprise_name=f"fences-gap-{secrets.token_hex(3)}")[0]
    depot = add_fence(pg_url, t, "南区车场", attributes=ENTER_LEAVE)
    t0 = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=20)
    app_id = f"streams-fences-gap-{secrets.token_hex(4)}"
    commit_group_at_end(kafka_bootstrap, app_id)
    pushes = TopicReader(kafka_bootstrap, CONSOLE_EVENTS)
    producer = Producer(kafka_bootstrap)
    worker = start_worker(stack_env, kafka_bootstrap, tmp_path, app_id=app_id, batch_window_s=0.1)
    try:
        # five silent minutes (a blind area) across the boundary: the crossing interpolated at 2/3 of the move
        for record in drive(t, t0, [116.290, 116.305], speed=15.0, step_s=300):
            producer.send(JT808_UPLINK, t.phone, record)
        producer.flush()
        rows = wait_for(lambda: fence_rows(pg_url, t.device_id), 90, "the interpolated entry", worker)
        assert [(k, s, b) for k, s, _, b, _ in rows] == [(f"fence:{depot}:enter", t0 + timedelta(seconds=200), False)]
        # the blind area's 0x0704 arrives: the entry moves to where the recorded track crossed, no new row
        items = [payloads.location_body(fix_at=t0 + timedelta(seconds=s), lat=39.905, lng=lng, speed_kmh=15.0)
                 for s, lng in ((60, 116.293), (120, 116.298), (180, 116.302))]
        producer.send(JT808_UPLINK, t.phone, payloads.location_batch(t, items, seq=9))
        producer.flush()
        moved = wait_for(lambda: (r := fence_rows(pg_url, t.device_id)) and r[0][1] != rows[0][1] and r, 60,
                         "the entry to move", worker)
        assert [(k, s, b) for k, s, _, b, _ in moved] == [(f"fence:{depot}:enter", t0 + timedelta(seconds=150), False)]
        found = pushes.read_until(lambda rs: False, 3)
        assert [p["key"] for p in pushes_of(found, t.device_id)] == [f"fence:{depot}:enter"]  # the live one only
    finally:
        worker.stop()
        producer.close()
        pushes.close()
