"""The fence step's pure parts and its body with the database left out: which fixes the check gets, the
alarm rows of its events and of the terminal's own area items (0x11-0x13), the kept state after a commit
(a retried batch starts again from the same state), pushes with the fence's name, and the failure policy
(a bug in the step dead-letters its uplinks under ``fences``)."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta
from typing import Any

import pytest

from fleet.geofence import Attr, Fence, FenceChecker, FenceEvent, FenceType, polygon
from fleet.topics import CONSOLE_EVENTS, DEAD_LETTER, JT808_UPLINK
from streams import payloads
from streams.fence_alarms import DOOR_BITS, episode_of, positions, terminal_items
from streams.fences import FenceStep
from streams.positions import decode_batch, plan_decoded

from .conftest import T0
from .test_processors import LIMITS, TERMINAL, events
from .test_uplinks import PipelinedDatabase, processor

SQUARE = polygon([(116.300, 39.900), (116.310, 39.900), (116.310, 39.910), (116.300, 39.910)])
OTHER = payloads.Terminal("013800000002", 12, 22, 3)


def fence(fence_id: int = 7, *attributes: Attr) -> Fence:
    return Fence(fence_id, "东区车场", FenceType.ALARM, SQUARE,
                 frozenset(attributes or (Attr.IN_TO_PLATFORM, Attr.OUT_TO_PLATFORM)))


def report(t: payloads.Terminal, seconds: float, lng: float, **kwargs: Any) -> dict[str, Any]:
    return payloads.location_report(t, fix_at=T0 + timedelta(seconds=seconds), received_at=T0, lat=39.905, lng=lng,
                                    speed_kmh=kwargs.pop("speed_kmh", 60.0), **kwargs)


def planned(*records: dict[str, Any]) -> tuple[list[Any], list[Any]]:
    uplinks = decode_batch([json.dumps(r).encode() for r in records])
    plan = plan_decoded(uplinks, LIMITS)
    return uplinks, plan.fixes_by_event


def test_only_positioned_plausible_fixes_of_wanted_devices_reach_the_check() -> None:
    flagged_door = report(TERMINAL, 2, 116.302)
    flagged_door["message"]["body"]["status_flags"] |= 1 << 13  # front door open
    batch = [report(TERMINAL, 0, 116.29), report(TERMINAL, 1, 116.29, positioned=False), flagged_door,
             report(OTHER, 0, 116.302),
             payloads.location_batch(TERMINAL, [payloads.location_body(fix_at=T0 - timedelta(minutes=5), lat=39.905,
                                                                       lng=116.29)], received_at=T0)]
    uplinks, fixes = planned(*batch)
    fixes[2][0] = type(fixes[2][0])(**{**{s: getattr(fixes[2][0], s) for s in fixes[2][0].__slots__}, "quality": 4})
    found, newest = positions(uplinks, fixes, {TERMINAL.device_id})
    assert [(p.device_id, p.at, p.late, p.door_open) for p in found] == [
        (11, T0, False, False), (11, T0 - timedelta(minutes=5), True, False)]
    assert newest[11].fix_at == T0
    assert DOOR_BITS == 0b11111 << 13


def test_terminal_area_items_become_keys_of_their_area_id_and_malformed_ones_are_left_out() -> None:
    items = terminal_items({
        "overspeed_alarm": {"location_type": 1, "area_id": 5},
        "area_alarm": {"location_type": 4, "area_id": 6, "direction": 1},
        "road_section_time_alarm": {"section_id": 9, "driving_time_s": 30, "result": 0},
    })
    assert [i.key for i in items] == ["tfence:5:overspeed", "tfence:6:leave", "tfence:9:segment_short"]
    assert items[1].details == {"locationType": "route", "direction": 1}
    assert terminal_items({"overspeed_alarm": {"location_type": 0, "area_id": None},  # no area: bit 1 covers it
                           "area_alarm": {"location_type": 1, "area_id": "x", "direction": 0},
                           "road_section_time_alarm": {"section_id": 9, "result": 7}}) == []


def test_an_event_row_carries_the_fence_name_and_the_kinds_figures() -> None:
    event = FenceEvent(11, 7, "overspeed", "start", T0, 116.3, 39.9, T0 - timedelta(seconds=10), speed_kmh=61.26,
                       limit_kmh=40.0, duration_s=10.0)
    row = episode_of(event, "学校", None)
    assert (row.key, row.kind, row.start, row.end, row.speed) == ("fence:7:overspeed", 4, T0 - timedelta(seconds=10),
                                                                  None, 61.26)
    assert row.details == {"fenceId": 7, "fenceName": "学校", "kind": "overspeed", "speedKmh": 61.3,
                           "limitKmh": 40.0, "durationS": 10.0}


class MemoryFenceStep(FenceStep):
    """The step with its database left out: a fixed checker, no kept states, writes recorded (``faults``
    raised first, one per write)."""

    def __init__(self, checker: FenceChecker, sent: list[Any], faults: list[Exception] | None = None) -> None:
        async def send(topic: str, key: bytes | None, value: bytes) -> None:
            sent.append((topic, json.loads(value)))

        super().__init__(None, send)  # type: ignore[arg-type]
        self.checker, self.names = checker, {f: x.name for f, x in checker.fences.items()}
        self.writes: list[tuple[list[Any], list[Any], dict[int, Any]]] = []
        self.faults = faults or []

    async def refresh(self, force: bool = False) -> FenceChecker:
        return self.checker

    async def _read_states(self, devices: set[int]) -> None:
        self.read |= devices

    async def _write(self, episodes, ends, refines, states, devices):  # type: ignore[no-untyped-def]
        if self.faults:
            raise self.faults.pop(0)
        self.writes.append((episodes, ends, dict(states)))
        return [{"id": n, "enterprise_id": 3, "enterprise_path": "/3/", "device_id": e.device_id, "car_id": 21,
                 "plate_number": "京A1", "type": e.kind, "key": e.key, "level": None, "start_time": e.start,
                 "lat": e.lat, "lng": e.lng, "speed": e.speed, "state": 0, "warn_uuid": None, "atted": False,
                 "driver_name": None, "backlog": e.backlog, "details": e.details} for n, e in enumerate(episodes, 1)]


def test_a_crossing_is_stored_and_pushed_with_the_fence_name_and_the_state_kept_only_after_the_commit() -> None:
    sent: list[Any] = []
    step = MemoryFenceStep(FenceChecker([fence()], {11: {7}}), sent, [OSError("database gone")])
    uplinks, fixes = planned(report(TERMINAL, 0, 116.296), report(TERMINAL, 30, 116.302))
    with pytest.raises(OSError):
        asyncio.run(step.run(uplinks, fixes))
    assert step.states == {}  # not committed: a retry starts from the same state and finds the same crossing
    assert asyncio.run(step.run(uplinks, fixes)) == 1
    episodes, _, states = step.writes[0]
    assert [(e.key, e.backlog, e.details["fenceName"]) for e in episodes] == [("fence:7:enter", False, "东区车场")]
    assert step.states[11].last_at == (T0 + timedelta(seconds=30)).timestamp() and states.keys() == {11}
    assert [(topic, p["push"]["data"]["key"], p["push"]["data"]["desc"], p["push"]["data"]["ruleKey"])
            for topic, p in sent] == [(CONSOLE_EVENTS, "fence:7:enter", "进区域报警 (东区车场)", "fence_enter")]
    assert asyncio.run(step.run(uplinks, fixes)) == 0  # the same batch again: nothing new


def test_a_driver_only_crossing_is_no_alarm_and_a_device_without_a_fence_costs_no_write() -> None:
    sent: list[Any] = []
    step = MemoryFenceStep(FenceChecker([fence(7, Attr.IN_TO_DRIVER)], {11: {7}}), sent)
    said: list[tuple[int, str]] = []

    async def say(device_id: int, text: str, heard_at: Any) -> int:
        said.append((device_id, text))
        return 1

    step.texts.say = say  # type: ignore[method-assign]
    uplinks, fixes = planned(report(TERMINAL, 0, 116.296), report(TERMINAL, 30, 116.302), report(OTHER, 0, 116.302))
    assert asyncio.run(step.run(uplinks, fixes)) == 0
    assert step.writes[0][0] == [] and step.writes[0][2].keys() == {11}  # the state only, of the bound device
    assert said == [(11, "您已驶入东区车场")] and sent == []


def test_the_terminals_repeated_area_item_alarms_once() -> None:
    sent: list[Any] = []
    step = MemoryFenceStep(FenceChecker([], {}), sent)

    def with_item(seconds: float) -> dict[str, Any]:
        record = report(TERMINAL, seconds, 116.302, alarm_flags=1 << 20)
        record["message"]["body"]["extras"]["area_alarm"] = {"location_type": 3, "area_id": 7, "direction": 0}
        return record

    step.names = {7: "学校区域"}
    assert asyncio.run(step.run(*planned(with_item(0), with_item(30)))) == 1
    assert asyncio.run(step.run(*planned(with_item(60)))) == 0
    [(episodes, _, _)] = step.writes
    assert [(e.key, e.start, e.details["fenceName"]) for e in episodes] == [("tfence:7:enter", T0, "学校区域")]


def test_a_bug_in_the_fence_step_dead_letters_its_uplinks_and_the_other_steps_still_run() -> None:
    sent: list[tuple[str, bytes | None, dict[str, Any]]] = []

    async def send(topic: str, key: bytes | None, value: bytes) -> None:
        sent.append((topic, key, json.loads(value)))

    class Broken(FenceStep):
        async def refresh(self, force: bool = False) -> FenceChecker:
            raise RuntimeError("a bug")

    db = PipelinedDatabase()
    uplinks = processor(db, send)
    uplinks.fences = Broken(None, send)  # type: ignore[arg-type]
    asyncio.run(uplinks.process(events(JT808_UPLINK, report(TERMINAL, 0, 116.29), report(TERMINAL, 1, 116.29))))
    letters = [r for t, _, r in sent if t == DEAD_LETTER and r["agent"] == "fences"]
    assert len(letters) == 2 and "internal error" in letters[0]["error"] and "a bug" in letters[0]["error"]
    assert uplinks.pipeline.failures["fences"] == 1


def test_a_state_holding_no_pair_is_written_as_its_fix_and_its_gap_made_once() -> None:
    from fleet.geofence import FenceState, Gap, VehicleState
    from streams.fences import state_rows

    gap = Gap(1.0, 116.3, 39.9, 200.0)
    holding = VehicleState(300.0, 116.31, 39.91, {7: FenceState(inside=True)}, None)
    cache: dict[int, Any] = {}
    texts, last_at, lngs, lats, gaps = state_rows({1: holding, 2: VehicleState(250.5, 116.2, 39.8, {}, gap)}, [1, 2],
                                                  cache)
    assert json.loads(texts[0] or "") == holding.to_json() and texts[1] is None
    assert (last_at, lngs, lats) == ([300.0, 250.5], [116.31, 116.2], [39.91, 39.8])
    assert gaps[0] is None and json.loads(gaps[1] or "") == [1.0, 116.3, 39.9, 200.0, [], []]
    again = state_rows({2: VehicleState(280.0, 116.2, 39.8, {}, gap)}, [2], cache)[4][0]
    assert again is gaps[1]  # the same gap: its JSON not made again
