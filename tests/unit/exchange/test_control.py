"""Vehicle control requests (0x9501-0x9505) as terminal commands on the one command path, and their answers
(0x1501-0x1505): the JT/T 808 bodies, the answers' bytes per outcome, and the flow over a scripted superior
(database and Kafka answered by stand-ins; tests/integration/exchange/test_regulator_e2e.py runs them for real)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson

from exchange.link import control
from exchange.link.links import MAIN
from fleet.enums import DeviceState
from protocols.jt809 import Message, decode_frame, encode_frame
from protocols.jt809 import messages as m
from tests.unit.exchange.test_alarm_requests import FakeDb
from tests.unit.exchange.test_links import CENTRE, Superior, eventually
from tests.unit.exchange.test_service import run, service

NOW = datetime(2026, 12, 2, 8, 0, tzinfo=UTC)
TEXT = m.TextRequest(42, 1, "请靠边停车")


def test_each_request_becomes_its_terminal_command() -> None:
    listen, _ = control.terminal_command(m.ListenRequest("13800000000"), NOW)
    assert listen.encode("2013") == bytes.fromhex("01" "3133383030303030303030")  # 0x8400, flag 1 listen
    photo, _ = control.terminal_command(m.PhotoRequest(2, 5), NOW)
    assert (photo.MSG_ID, photo.channel, photo.command, photo.resolution) == (0x8801, 2, 1, 5)  # one photo
    text, shown = control.terminal_command(TEXT, NOW)
    assert text.encode("2013") == bytes.fromhex("0C") + "请靠边停车".encode("gbk")  # display + TTS
    assert control.terminal_command(m.TextRequest(1, 0, "急"), NOW)[0].flags & 1  # priority 0: emergency
    start = datetime(2018, 9, 27, 12, 0, 20, tzinfo=UTC)
    recorder, _ = control.terminal_command(m.RecorderRequest(0x10, start, start + timedelta(hours=3), 5556), NOW)
    assert recorder.encode("2013") == bytes.fromhex("10" "180927200020" "180927230020" "15B4")
    assert control.terminal_command(m.RecorderRequest(0x01, start, start, 0), NOW)[0].encode("2013") == b"\x01"
    access = m.EmergencyAccess("00000000000000000808", "jt808", "u", "p", "10.0.0.9", 808, 809,
                               NOW + timedelta(minutes=30))
    emergency, _ = control.terminal_command(access, NOW)
    assert (emergency.MSG_ID, emergency.command) == (0x8105, 2)
    assert emergency.params == "0;00000000000000000808;jt808;u;p;10.0.0.9;808;809;30"


def test_answers_carry_the_outcome_in_the_standards_codes() -> None:
    body = control.answer_body(TEXT, "京A12345", 2, 9, control.OK, "2011")
    plate = "京A12345".encode("gbk").ljust(21, b"\0")
    assert body.encode("2011") == plate + bytes.fromhex("02" "1503" "00000005" "0000002A" "00")
    failed = control.answer_body(TEXT, "京A12345", 2, 9, control.OFFLINE, "2019")
    assert failed.data == m.TextAnswer(42, 1, 0x9503, 9)
    flags = [control.answer_body(m.PhotoRequest(2, 5), "京A12345", 2, 9, o, "2011").data.flag
             for o in (control.OK, control.OFFLINE, control.FAILED, control.UNKNOWN)]
    assert flags == [1, 3, 5, 9]
    assert control.answer_body(m.ListenRequest("1"), "京A12345", 2, 9, control.FAILED, "2011").data == m.ListenAnswer(1)


def test_command_states_give_outcomes() -> None:
    assert control.outcome_of("answered", 0) == control.OK
    assert control.outcome_of("answered", 1) == control.FAILED
    assert control.outcome_of("timed_out", None) == control.FAILED
    assert control.outcome_of("sent", None) is None


def controls_received(superior: Superior) -> list[m.VehicleControl]:
    return [x.body for x in superior.received if x.header.msg_id == m.VehicleControl.MSG_ID]


def target(state: int) -> dict[str, Any]:
    return {"deviceId": 11, "carId": 101, "enterpriseId": 5, "phone": "013800000001", "state": state,
            "protocolVersion": "2019", "plateNumber": "京A12345"}


def test_a_request_goes_through_the_command_path_and_is_answered_with_the_terminals_outcome() -> None:
    async def scenario() -> None:
        superior = Superior("2011")
        svc = service(await superior.start(), version="2011")
        stored: list[dict[str, Any]] = []
        db = FakeDb({"store_control": lambda row: stored.append(row) or len(stored),
                     "insert_command": {"id": 500, "createdAt": NOW}})
        produced: list[tuple[str, dict[str, Any]]] = []

        async def produce(key: str, value: bytes) -> None:
            produced.append((key, orjson.loads(value)))

        svc.controls.db, svc.controls._produce = db, produce  # type: ignore[method-assign]
        task = asyncio.create_task(svc.links.run())
        await eventually(lambda: svc.links.is_up(MAIN))

        db.answers["control_target"] = None  # no such vehicle: answered at once
        await svc.request("sub", _message(m.VehicleControlDown("京Z0", 2, 0x9503, TEXT), 3))
        db.answers["control_target"] = target(DeviceState.OFFLINE)  # offline: answered at once
        await svc.request("sub", _message(m.VehicleControlDown("京A12345", 2, 0x9502, m.PhotoRequest(1, 1)), 4))
        await eventually(lambda: len(controls_received(superior)) == 2)
        unknown, offline = controls_received(superior)
        assert unknown.data == m.TextAnswer(42, 1) and offline.data.flag == 3
        assert [r["outcome"] for r in stored] == ["unknown", "offline"] and not produced

        db.answers["control_target"] = target(DeviceState.ONLINE)
        await svc.request("sub", _message(m.VehicleControlDown("京A12345", 2, 0x9503, TEXT), 5))
        inserted = db.calls["insert_command"][0]
        assert inserted[0]["deviceId"] == 11 and inserted[1] == 0x8300 and inserted[4].startswith("上级平台")
        assert produced == [("13800000001", {"phone": "13800000001", "msg_id": 0x8300,
                                             "body_hex": ("0c01" + "请靠边停车".encode("gbk").hex()),  # 2019: text type 1
                                             "command_id": "500", "created_at": "2026-12-02T08:00:00Z"})]
        assert stored[-1]["command_id"] == 500 and stored[-1]["outcome"] is None
        assert len(controls_received(superior)) == 2  # not answered before the terminal has

        await svc.controls.answer_done([{"id": 3, "data_type": 0x9503, "source_sn": 5, "plate": "京A12345",
                                         "plate_colour": 2, "data_hex": TEXT.encode("2011").hex(),
                                         "state": "answered", "result": 0}])
        await eventually(lambda: len(controls_received(superior)) == 3)
        assert controls_received(superior)[2].data == m.TextAnswer(42, 0)
        assert db.calls["mark_control_answered"] == [(3, "ok")]
        task.cancel()

    run(scenario())


def test_a_command_kafka_does_not_take_is_failed_and_answered_as_failed() -> None:
    async def scenario() -> None:
        superior = Superior("2011")
        svc = service(await superior.start(), version="2011")
        db = FakeDb({"control_target": target(DeviceState.ONLINE), "store_control": 1,
                     "insert_command": {"id": 501, "createdAt": NOW}})

        async def produce(key: str, value: bytes) -> None:
            raise TimeoutError("no broker")

        svc.controls.db, svc.controls._produce = db, produce  # type: ignore[method-assign]
        task = asyncio.create_task(svc.links.run())
        await eventually(lambda: svc.links.is_up(MAIN))
        await svc.request("sub", _message(m.VehicleControlDown("京A12345", 2, 0x9503, TEXT), 6))
        await eventually(lambda: len(controls_received(superior)) == 1)
        assert controls_received(superior)[0].data == m.TextAnswer(42, 1)
        assert db.calls["mark_failed"] == [(501, "kafka_unavailable")]
        task.cancel()

    run(scenario())


def _message(body: Any, sn: int) -> Message:
    return decode_frame(encode_frame(m.VehicleControlDown.MSG_ID, body, sn=sn, centre_id=CENTRE, version="2011"),
                        version="2011")
