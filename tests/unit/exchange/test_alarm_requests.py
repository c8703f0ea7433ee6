"""Urgings (0x9401) and alarm handlings reported back (0x1401, 0x1403): which alarm an urging names, the RESULT
of a console handling, the wire bytes of the answers, and the link service's flow over a scripted superior (the
database calls answered by a stand-in; tests/integration/exchange/test_regulator_e2e.py runs them for real)."""

from __future__ import annotations

import asyncio
import collections
from datetime import UTC, datetime
from typing import Any

import pytest

from exchange.link import alarm_requests
from exchange.link.links import MAIN, LinkDown
from protocols.jt809 import decode_frame, encode_frame
from protocols.jt809 import messages as m
from tests.unit.exchange.test_links import CENTRE, Superior, eventually
from tests.unit.exchange.test_service import run, service

PLATE_2011 = "京A12345".encode("gbk").ljust(21, b"\0")


def test_console_handling_states_map_to_the_standards_results() -> None:
    # 1 processing -> 0 being handled, 2 finished -> 1 handled, 3 no action -> 2 not handled, 4 later -> 3
    assert [alarm_requests.result_of_state(s) for s in (0, 1, 2, 3, 4)] == [None, 0, 1, 2, 3]


def test_an_urging_names_the_nearest_alarm_of_its_upper_platform_type() -> None:
    candidates = [{"id": 7, "key": "a0"}, {"id": 8, "key": "a1"}, {"id": 9, "key": "p_overspeed"}]
    assert alarm_requests.urged_alarm(candidates, 1)["id"] == 8  # type: ignore[index]  # a1 and p_overspeed: 1
    assert alarm_requests.urged_alarm(candidates, 3)["id"] == 7  # type: ignore[index]
    assert alarm_requests.urged_alarm(candidates, 2) is None
    assert alarm_requests.urged_alarm([{"id": 1, "key": "fence:4:leave"}], 5) is not None


def test_urging_answer_2011_bytes() -> None:
    body = alarm_requests.urging_answer_body("京A12345", 2, "0000002A", 99, 1, "2011")
    expected = PLATE_2011 + bytes.fromhex("02" "1401" "00000005" "0000002A" "01")
    assert body.encode("2011") == expected
    assert m.AlarmExchange.decode(expected, "2011").data == m.UrgingAnswer("0000002A", 1)


def test_urging_answer_2019_names_the_request_by_data_type_and_sn() -> None:
    body = alarm_requests.urging_answer_body("京A12345", 2, "0000002A", 99, 3, "2019")
    expected = bytes.fromhex("1401" "0000000B" "0000002A" "9401" "00000063" "03")
    assert body.encode("2019") == expected
    assert m.AlarmExchange.decode(expected, "2019").data == m.UrgingAnswer("0000002A", 3, 0x9401, 99)


def test_handling_result_2011_bytes_carry_the_alarm_id_as_info_id() -> None:
    body = alarm_requests.handling_result_body("京A12345", 2, 0x1_0000_0005, 2, "2011")
    assert body.encode("2011") == PLATE_2011 + bytes.fromhex("02" "1403" "00000005" "00000005" "02")


class FakeDb:
    """Stands in for the service's ``_db``: answers by query function name, records the writes."""

    def __init__(self, answers: dict[str, Any]) -> None:
        self.answers = answers
        self.calls: collections.defaultdict[str, list[tuple[Any, ...]]] = collections.defaultdict(list)

    def __call__(self, fn: Any, *args: Any) -> Any:
        self.calls[fn.__name__].append(args)
        answer = self.answers.get(fn.__name__)
        return answer(*args) if callable(answer) else answer


def alarms_received(superior: Superior) -> list[m.AlarmExchange]:
    return [x.body for x in superior.received if x.header.msg_id == m.AlarmExchange.MSG_ID]


def test_an_urging_is_stored_against_its_alarm_and_answered_once_the_alarm_is_handled() -> None:
    async def scenario() -> None:
        superior = Superior("2011")
        svc = service(await superior.start(), version="2011")
        warn_time = datetime(2026, 12, 1, 8, 0, 5, tzinfo=UTC)
        stored: list[dict[str, Any]] = []
        db = FakeDb({"urged_alarm_candidates": [{"id": 41, "key": "a2", "state": 0}, {"id": 42, "key": "a1",
                                                                                      "state": 0}],
                     "store_urging": lambda row: stored.append(row) or 1,
                     "handling_cursor": 10})
        svc._db = db  # type: ignore[method-assign]
        task = asyncio.create_task(svc.links.run())
        await eventually(lambda: svc.links.is_up(MAIN))
        urging = m.UrgingRequest(1, 1, warn_time, "0000002A", datetime(2026, 12, 1, 9, 0, tzinfo=UTC), 0, "李", "", "")
        frame = encode_frame(m.AlarmExchangeDown.MSG_ID, m.AlarmExchangeDown(0x9401, urging, "京A12345", 2), sn=77,
                             centre_id=CENTRE, version="2011")
        await svc.request("sub", decode_frame(frame, version="2011"))
        assert stored[0]["alarm_id"] == 42 and stored[0]["deadline"] == datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
        assert stored[0]["source_sn"] == 77 and stored[0]["supervision_id"] == "0000002A"
        assert db.calls["urged_alarm_candidates"][0][1:4] == ("京A12345", 2, warn_time)

        # the operator handles it (state 2 finished): 0x1401 result 1, and 0x1403 for the forwarded alarm
        urgings = [{"id": 1, "supervision_id": "0000002A", "source_sn": 77, "plate": "京A12345", "plate_colour": 2,
                    "state": 2}]
        handlings = [
            {"record_id": 11, "alarm_id": 42, "state": 2, "key": "a1", "plate": "京A12345", "colour": 2,
             "in_scope": True},
            {"record_id": 12, "alarm_id": 43, "state": 2, "key": "a1", "plate": "京B1", "colour": 2,
             "in_scope": False},  # another enterprise's vehicle: only moves the cursor
            {"record_id": 13, "alarm_id": 44, "state": 1, "key": "a30", "plate": "京A12345", "colour": 2,
             "in_scope": True}]  # a key with no upper-platform type was never forwarded
        db.answers["pending_answers"] = {"inspections": [], "urgings": urgings, "handlings": handlings,
                                         "controls": [], "videos": []}
        await svc._answer_requests()
        assert db.calls["pending_answers"][0] == (1, 10, [5])
        await eventually(lambda: len(alarms_received(superior)) == 2)
        answer, result = alarms_received(superior)
        assert answer.data == m.UrgingAnswer("0000002A", 1) and answer.plate == "京A12345"
        assert result.data == m.HandlingResult(42, 1)
        assert db.calls["mark_urging_answered"] == [(1, 1)]
        assert db.calls["set_handling_cursor"] == [(1, 13)] and svc.handling_cursor == 13
        task.cancel()

    run(scenario())


def test_an_urging_naming_no_alarm_of_ours_is_stored_unmatched() -> None:
    async def scenario() -> None:
        svc = service(1, version="2011")
        stored: list[dict[str, Any]] = []
        svc._db = FakeDb({"urged_alarm_candidates": [{"id": 41, "key": "a2", "state": 0}],  # type: ignore[method-assign]
                          "store_urging": lambda row: stored.append(row) or 1})
        urging = m.UrgingRequest(1, 1, datetime(2026, 12, 1, tzinfo=UTC), "00000001", datetime(2026, 12, 2, tzinfo=UTC),
                                 1, "", "", "")
        await svc._urging(5, m.AlarmExchangeDown(0x9401, urging, "京A12345", 2))
        assert stored[0]["alarm_id"] is None and stored[0]["warn_type"] == 1

    asyncio.run(scenario())


def test_a_handling_not_sent_because_the_link_is_down_is_reported_later() -> None:
    async def scenario() -> None:
        svc = service(1, version="2011")  # nothing listens: both links down
        db = FakeDb({"handling_cursor": 10, "pending_answers": {"inspections": [], "urgings": [], "controls": [], "videos": [],
                                                                "handlings": [
            {"record_id": 11, "alarm_id": 42, "state": 2, "key": "a1", "plate": "京A12345", "colour": 2,
             "in_scope": True}]}})
        svc._db = db  # type: ignore[method-assign]
        with pytest.raises(LinkDown):
            await svc._answer_requests()
        assert svc.handling_cursor == 10 and not db.calls["set_handling_cursor"]

    asyncio.run(scenario())
