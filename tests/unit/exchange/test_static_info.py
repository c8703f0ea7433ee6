"""0x9601 static information requests answered 0x1601 from the vehicle's records: the CAR_INFO text, the wire
bytes in both layouts, and the link service's answer over a scripted superior (database calls answered by a
stand-in; tests/integration/exchange/test_regulator_e2e.py runs them against PostgreSQL)."""

from __future__ import annotations

import asyncio

from exchange.link import static_info
from exchange.link.links import MAIN
from protocols.jt809 import Message, decode_frame, encode_frame
from protocols.jt809 import messages as m
from tests.unit.exchange.test_alarm_requests import FakeDb
from tests.unit.exchange.test_links import CENTRE, Superior, eventually
from tests.unit.exchange.test_service import run, service

VEHICLE = {"plate": "京A12345", "plate_colour": 2, "enterprise_id": 5, "enterprise_name": "顺达运输",
           "enterprise_phone": "010-1234", "driver_name": None, "driver_phone": ""}


def test_car_info_lists_the_standards_keys_and_leaves_unknown_codes_empty() -> None:
    assert static_info.car_info(VEHICLE) == ("VIN:=京A12345;VEHICLE_COLOR:=2;VEHICLE_TYPE:=;TRANS_TYPE:=;"
                                             "VEHICLE_NATIONALITY:=;OWERS_ID:=5;OWERS_NAME:=顺达运输;OWERS_TEL:=010-1234")


def test_car_info_adds_the_driver_and_keeps_separators_out_of_values() -> None:
    text = static_info.car_info({**VEHICLE, "enterprise_name": "顺达;运输:=x", "driver_name": "张三",
                                 "driver_phone": "13800000000"})
    assert "OWERS_NAME:=顺达 运输=x;" in text and text.endswith(";DRIVER_NAME:=张三;DRIVER_TEL:=13800000000")


def test_answer_2011_bytes() -> None:
    body = static_info.answer_body(VEHICLE, 9, "2011")
    text = static_info.car_info(VEHICLE).encode("gbk")
    plate = "京A12345".encode("gbk").ljust(21, b"\0")
    assert body.encode("2011") == plate + b"\x02\x16\x01" + len(text).to_bytes(4, "big") + text


def test_answer_2019_names_the_request_by_data_type_and_sn() -> None:
    body = static_info.answer_body(VEHICLE, 9, "2019")
    text = static_info.car_info(VEHICLE).encode("gbk")
    data = bytes.fromhex("9601" "00000009") + text
    assert body.encode("2019").endswith(b"\x16\x01" + len(data).to_bytes(4, "big") + data)
    decoded = m.StaticInfo.decode(body.encode("2019"), "2019")
    assert decoded.data == m.StaticInfoAnswer(static_info.car_info(VEHICLE), 0x9601, 9)


def request(version: str, plate: str = "京A12345") -> Message:
    frame = encode_frame(m.StaticInfoDown.MSG_ID, m.StaticInfoDown(plate, 2, 0x9601, b""), sn=31, centre_id=CENTRE,
                         version=version)
    return decode_frame(frame, version=version)


def test_a_0x9601_is_answered_from_the_records_and_a_vehicle_not_exchanged_gets_none() -> None:
    async def scenario() -> None:
        superior = Superior("2019")
        svc = service(await superior.start())
        db = FakeDb({"static_vehicle": lambda enterprises, plate, colour: VEHICLE if plate == "京A12345" else None})
        svc._db = db  # type: ignore[method-assign]
        task = asyncio.create_task(svc.links.run())
        await eventually(lambda: svc.links.is_up(MAIN))
        await svc.request("sub", request("2019", "京B99999"))
        await svc.request("sub", request("2019"))
        await eventually(lambda: any(x.header.msg_id == m.StaticInfo.MSG_ID for x in superior.received))
        answers = [x.body for x in superior.received if x.header.msg_id == m.StaticInfo.MSG_ID]
        assert len(answers) == 1 and answers[0].plate == "京A12345"
        assert answers[0].data.source_sn == 31 and answers[0].data.car_info.startswith("VIN:=京A12345;")
        assert db.calls["static_vehicle"][0] == ([5], "京B99999", 2)  # only the exchanged enterprises
        task.cancel()

    run(scenario())
