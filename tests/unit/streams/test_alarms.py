"""Uplinks step "alarms": episode rules (rise, hold, fall, backlog, replay, restart rebuild), pushes 2 / 13.

The alarm table is an in-memory stand-in with the migration's rules: unique (device, key, start_time),
ends only open rows that started by then (and, for backlog, only backlog rows).
"""

from __future__ import annotations

import asyncio
import json
from datetime import datetime, timedelta
from types import SimpleNamespace
from typing import Any

from streams.alarm_model import AlarmEpisode, insert_params
from streams.alarms import AlarmsStep, push_data
from streams.messages import Fix, Uplink, location_bodies, parse_fix

from .conftest import T0

DEV, CAR, ENT = 11, 21, 3


class Table:
    def __init__(self) -> None:
        self.rows: dict[tuple[int, str, datetime], dict[str, Any]] = {}

    def insert(self, episodes: list[AlarmEpisode]) -> list[dict[str, Any]]:
        new = []
        params = insert_params(episodes, {})
        for i, ep in enumerate(episodes):
            key = (ep.device_id, ep.key, ep.start)
            if key in self.rows:
                continue
            row = {"id": len(self.rows) + 1, "enterprise_id": ENT, "enterprise_path": f"/{ENT}/",
                   "device_id": ep.device_id, "car_id": CAR, "plate_number": "粤B1", "driver_name": None,
                   "type": ep.kind, "key": ep.key, "level": ep.level, "start_time": ep.start, "end_time": ep.end,
                   "lat": ep.lat, "lng": ep.lng, "speed": ep.speed, "state": 0, "warn_uuid": params["warn_uuid"][i],
                   "atted": False, "backlog": ep.backlog, "attachment_count": ep.attachments,
                   "alarm_no": ep.alarm_no, "message_seq": ep.message_seq}
            self.rows[key] = row
            new.append(row)
        return new

    def end(self, device_id: int, keys: list[str], end: datetime, backlog: bool) -> None:
        for row in self.rows.values():
            if (row["device_id"] == device_id and row["key"] in keys and row["end_time"] is None
                    and row["start_time"] <= end and row["backlog"] == backlog):
                row["end_time"] = end

    def of(self, key: str) -> list[dict[str, Any]]:
        return sorted((r for r in self.rows.values() if r["key"] == key), key=lambda r: r["start_time"])


class Cursor:
    def __init__(self, rows: list[tuple[Any, ...]]) -> None:
        self.rows = rows

    async def fetchall(self) -> list[tuple[Any, ...]]:
        return self.rows


class Db:
    """Only the rebuild query goes through here (open live held rows, latest start per key)."""

    def __init__(self, table: Table) -> None:
        self.table = table

    async def transact(self, work: Any) -> Any:
        return await work(self)

    async def execute(self, query: str, params: Any = None) -> Cursor:
        assert "end_time IS NULL" in query
        return Cursor([(r["device_id"], r["key"], r["start_time"]) for r in self.table.rows.values()
                       if r["end_time"] is None and not r["backlog"] and r["type"] in (1, 2)])


class NoPlatformRules:
    async def refresh(self) -> None:
        pass

    def plan(self, uplinks: Any, fixes_by_event: Any) -> Any:
        return SimpleNamespace(episodes=[], ends=[])

    def clear(self) -> None:
        pass


class Step(AlarmsStep):
    def __init__(self, table: Table, sent: list[tuple[str, dict[str, Any]]],
                 requested: list[dict[str, Any]] | None = None, heard: list[dict[int, datetime]] | None = None) -> None:
        async def send(topic: str, key: bytes | None, value: bytes) -> None:
            sent.append((topic, json.loads(value)))

        async def request(rows: list[dict[str, Any]], heard_at: dict[int, datetime]) -> None:
            if requested is not None:
                requested.extend(rows)
            if heard is not None:
                heard.append(heard_at)

        super().__init__(Db(table), send, None, request_attachments=request)  # type: ignore[arg-type]
        self.platform = NoPlatformRules()  # type: ignore[assignment]  # tested in test_platform_alarms
        self.table = table

    async def _write(self, episodes: Any, ends: Any, devices: Any) -> list[dict[str, Any]]:
        rows = self.table.insert(episodes)
        for device_id, keys, end, backlog in ends:
            self.table.end(device_id, keys, end, backlog)
        return rows


def uplink(msg_id: int, bodies: list[dict[str, Any]], seq: int = 1) -> Uplink:
    body = bodies[0] if msg_id == 0x0200 else {"items": bodies}
    return Uplink(phone="013800000001", device_id=DEV, car_id=CAR, enterprise_id=ENT, msg_id=msg_id,
                  received_at=T0, body=body, seq=seq)


def position(at: datetime, alarm_flags: int = 0, **extras: Any) -> dict[str, Any]:
    return {"fix_at": at.isoformat(), "lat": 31.2, "lng": 121.4, "speed_kmh": 40.0, "alarm_flags": alarm_flags,
            "status_flags": 3, "extras": extras}


def run(step: Step, *ups: Uplink) -> int:
    fixes: list[list[Fix]] = [[parse_fix(u, b) for b in location_bodies(u)] for u in ups]
    return asyncio.run(step.handle(list(ups), fixes))


def new_sent() -> list[tuple[str, dict[str, Any]]]:
    return []


def at(seconds: int) -> datetime:
    return T0 + timedelta(seconds=seconds)


ADAS = {"alarm_id": 7, "flag": 0, "type": 1, "level": 2, "speed_kmh": 40, "altitude_m": 10, "lat": 31.2,
        "lng": 121.4, "time": "2026-05-01T08:00:05+00:00", "vehicle_status": 0,
        "alarm_no": {"terminal_id": "T000001", "time": "2026-05-01T08:00:05+00:00", "seq": 1, "attachments": 2}}


def test_rise_hold_fall_is_one_episode_with_its_end_and_one_push() -> None:
    table, sent = Table(), new_sent()
    step = Step(table, sent)
    run(step, uplink(0x0200, [position(at(0), 1)], seq=41), uplink(0x0200, [position(at(10), 1)]))
    run(step, uplink(0x0200, [position(at(20), 1)]), uplink(0x0200, [position(at(30), 0)]))
    [row] = table.of("a0")
    assert (row["start_time"], row["end_time"], row["message_seq"], row["backlog"]) == (at(0), at(30), 41, False)
    assert [(t, p["push"]["type"], p["push"]["data"]["key"]) for t, p in sent] == [("console.events.v1", 2, "a0")]
    data = sent[0][1]["push"]["data"]
    assert (data["alarmId"], data["desc"], data["startTime"], data["plateNumber"]) == (
        row["id"], "紧急报警", int(at(0).timestamp() * 1000), "粤B1")
    assert sent[0][1]["enterprise_path"] == f"/{ENT}/"


def test_bits_rising_and_falling_independently() -> None:
    table, sent = Table(), new_sent()
    step = Step(table, sent)
    run(step, uplink(0x0200, [position(at(0), 0b1)]), uplink(0x0200, [position(at(5), 0b101)]),
        uplink(0x0200, [position(at(9), 0b100)]), uplink(0x0200, [position(at(12), 0b1)]))
    assert [(r["start_time"], r["end_time"]) for r in table.of("a0")] == [(at(0), at(9)), (at(12), None)]
    assert [(r["start_time"], r["end_time"]) for r in table.of("a2")] == [(at(5), at(12))]
    assert len(sent) == 3


def test_replay_of_the_same_uplinks_adds_and_pushes_nothing() -> None:
    table, sent = Table(), new_sent()
    ups = [uplink(0x0200, [position(at(0), 1, adas_alarm=ADAS)]), uplink(0x0200, [position(at(10), 0)])]
    run(Step(table, sent), *ups)
    before = {k: dict(v) for k, v in table.rows.items()}
    first = len(sent)
    restarted = Step(table, sent)  # a crash before the offsets were committed: the batch comes again
    run(restarted, *ups)
    assert table.rows == before and len(sent) == first == 3  # a0 (2), adas_1 (2 and 13)


def test_restart_rebuilds_open_episodes_so_the_end_is_not_lost_nor_the_start_repeated() -> None:
    table, sent = Table(), new_sent()
    run(Step(table, sent), uplink(0x0200, [position(at(0), 1)]))
    restarted = Step(table, sent)
    run(restarted, uplink(0x0200, [position(at(10), 1)]), uplink(0x0200, [position(at(20), 0)]))
    assert [(r["start_time"], r["end_time"]) for r in table.of("a0")] == [(at(0), at(20))]
    assert len(sent) == 1


def test_backlog_items_and_old_fixes_are_stored_with_their_times_and_never_pushed() -> None:
    table, sent = Table(), new_sent()
    step = Step(table, sent)
    run(step, uplink(0x0200, [position(at(100), 0)]))
    run(step, uplink(0x0704, [position(at(10), 2), position(at(20), 2), position(at(30), 0)]))
    run(step, uplink(0x0200, [position(at(50), 8)]))  # older than the newest fix: backlog too
    assert [(r["start_time"], r["end_time"], r["backlog"]) for r in table.of("a1")] == [(at(10), at(30), True)]
    assert [(r["start_time"], r["backlog"]) for r in table.of("a3")] == [(at(50), True)]
    assert sent == []
    run(step, uplink(0x0200, [position(at(110), 8)]))  # live again: its own episode, pushed
    assert [(r["start_time"], r["backlog"]) for r in table.of("a3")] == [(at(50), True), (at(110), False)]
    assert len(sent) == 1


def test_a_backlog_fall_never_ends_a_live_episode() -> None:
    table, sent = Table(), new_sent()
    step = Step(table, sent)
    run(step, uplink(0x0200, [position(at(0), 1)]), uplink(0x0200, [position(at(100), 1)]))
    run(step, uplink(0x0704, [position(at(10), 1), position(at(20), 0)]))
    live = [r for r in table.of("a0") if not r["backlog"]]
    assert [(r["start_time"], r["end_time"]) for r in live] == [(at(0), None)]


def test_active_safety_events_are_instantaneous_pushed_twice_and_request_attachments() -> None:
    table, sent = Table(), new_sent()
    requested: list[dict[str, Any]] = []
    heard: list[dict[int, datetime]] = []
    step = Step(table, sent, requested, heard)
    ending = dict(ADAS, flag=2, time="2026-05-01T08:00:09+00:00")
    run(step, uplink(0x0200, [position(at(5), 0, adas_alarm=ADAS)]),
        uplink(0x0200, [position(at(9), 0, adas_alarm=ending)]))
    [row] = table.of("adas_1")
    assert (row["start_time"], row["end_time"], row["level"], row["type"]) == (at(5), at(5), 2, 5)
    assert len(row["warn_uuid"]) == 32 and row["attachment_count"] == 2
    assert [p["push"]["type"] for _, p in sent] == [2, 13]
    assert sent[0][1]["push"]["data"]["desc"] == "二级 前向碰撞报警"
    assert [r["id"] for r in requested] == [row["id"]]
    assert heard == [{DEV: T0}]  # when the terminal was last heard from: it is connected (alarm_commands)


def test_video_bits_are_episodes_and_tpms_events_one_per_bit() -> None:
    table, sent = Table(), new_sent()
    step = Step(table, sent)
    tpms = {"flag": 0, "type": 0b110, "level": None, "time": at(3).isoformat(),
            "events": [{"tyre": 1, "type": 0b10}, {"tyre": 2, "type": 0b101}]}
    run(step, uplink(0x0200, [position(at(0), 0, video_alarm_flags=0b10)]),
        uplink(0x0200, [position(at(3), 0, video_alarm_flags=0b10, tpms_alarm=tpms)]),
        uplink(0x0200, [position(at(6), 0, video_alarm_flags=0)]))
    assert [(r["start_time"], r["end_time"], r["type"]) for r in table.of("v1")] == [(at(0), at(6), 2)]
    assert sorted(k for _, k, _ in table.rows if k.startswith("tpms")) == ["tpms_1", "tpms_2"]  # bit 0: a report


def test_quiet_fixes_store_nothing_and_track_only_the_newest_time() -> None:
    table, sent = Table(), new_sent()
    step = Step(table, sent)
    assert run(step, uplink(0x0200, [position(at(0))]), uplink(0x0200, [position(at(5))])) == 0
    assert table.rows == {} and step.devices[DEV].newest == at(5) and step.devices[DEV].bits == 0


def test_push_data_shape() -> None:
    row = {"id": 9, "device_id": 1, "car_id": None, "plate_number": None, "type": 1, "key": "a1", "level": None,
           "start_time": T0, "lat": 1.0, "lng": 2.0, "speed": 3.0, "state": 0, "warn_uuid": None, "atted": False,
           "driver_name": "张三"}
    assert set(push_data(row)) == {"alarmId", "deviceId", "carId", "plateNumber", "type", "key", "level", "desc",
                                   "startTime", "lat", "lng", "speed", "state", "warnUuid", "atted", "driverName",
                                   "ruleKey"}
    assert push_data(row)["ruleKey"] == "a1"


def test_a_fence_alarms_push_names_the_rule_of_its_kind() -> None:
    row = {"id": 9, "device_id": 1, "car_id": None, "plate_number": None, "type": 4, "key": "fence:12:enter",
           "level": None, "start_time": T0, "lat": 1.0, "lng": 2.0, "speed": 3.0, "state": 0, "warn_uuid": None,
           "atted": False, "driver_name": None}
    assert push_data(row)["ruleKey"] == "fence_enter"
    assert push_data({**row, "key": "tfence:12:segment_long"})["ruleKey"] == "tfence_segment_long"
