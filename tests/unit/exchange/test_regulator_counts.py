"""What the regulator counts (issue section 5): positions per vehicle (real-time, back-filled,
duplicates, out of order), registrations, alarms, handling results, inspection answers with their
latency, and bad frames by kind without losing the good frames around them."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from exchange.regulator import Account, Regulator
from protocols.jt809 import CipherKeys, escape, unescape
from protocols.jt809 import messages as m
from protocols.jt809.framing import strip_flags
from tests.unit.exchange.inferior import KEYS, Inferior, position, run, until
from tests.unit.exchange.test_regulator_links import FAST

PLATE, COLOUR = "京A12345", 2


def with_link(version: str, body: Callable[[Regulator, Inferior], Awaitable[None]],
              keys: CipherKeys | None = None) -> None:
    async def scenario() -> None:
        reg = Regulator([Account(1001, "secret", 7001, version, keys=keys)], timing=FAST)
        await reg.start()
        inferior = Inferior(version=version, keys=keys)
        try:
            await inferior.connect(reg.port)
            await until(lambda: reg.status()["links"][0]["sub"]["state"] == "up")
            await body(reg, inferior)
        finally:
            await inferior.close()
            await reg.stop()
    run(scenario)


def vehicle(reg: Regulator, plate: str = PLATE) -> dict[str, Any]:
    return next(v for v in reg.status()["vehicles"] if v["plate"] == plate)


def real_time(inferior: Inferior, seconds: int, version: str, plate: str = PLATE) -> None:
    inferior.send(m.VehicleDynamic.MSG_ID, m.VehicleDynamic.position(plate, COLOUR, position(seconds, version)))


@pytest.mark.parametrize("version", ["2011", "2019"])
def test_positions_duplicates_and_out_of_order_fixes_are_counted_per_vehicle(version: str) -> None:
    async def body(reg: Regulator, inferior: Inferior) -> None:
        for seconds in (0, 10, 20, 20, 5):  # 20 twice: a duplicate; 5 after 20: out of order
            real_time(inferior, seconds, version)
        real_time(inferior, 0, version, plate="京B00001")
        await until(lambda: reg.status()["counts"]["real_time"] == 6)
        got = vehicle(reg)
        assert (got["real_time"], got["duplicates"], got["out_of_order"], got["unique_fixes"]) == (5, 1, 1, 4)
        assert got["latest_real_time"] == "2026-03-01T08:30:20+00:00"
        assert vehicle(reg, "京B00001")["real_time"] == 1
    with_link(version, body)


@pytest.mark.parametrize("version", ["2011", "2019"])
def test_backfill_counts_each_position_and_flags_one_not_oldest_first(version: str) -> None:
    async def body(reg: Regulator, inferior: Inferior) -> None:
        real_time(inferior, 100, version)
        ordered = tuple(position(s, version) for s in (10, 20, 30))
        inferior.send(m.VehicleDynamic.MSG_ID, m.VehicleDynamic.backfill(PLATE, COLOUR, ordered))
        await until(lambda: reg.status()["counts"]["backfilled"] == 3)
        got = vehicle(reg)
        # back-filled fixes older than the latest real-time one are not out of order: that is what a back-fill is
        assert (got["backfilled"], got["backfill_unordered"], got["out_of_order"], got["duplicates"]) == (3, 0, 0, 0)
        unordered = tuple(position(s, version) for s in (50, 40, 30))  # 30 again: a duplicate
        inferior.send(m.VehicleDynamic.MSG_ID, m.VehicleDynamic.backfill(PLATE, COLOUR, unordered))
        await until(lambda: reg.status()["counts"]["backfilled"] == 6)
        got = vehicle(reg)
        assert (got["backfill_unordered"], got["duplicates"], got["unique_fixes"]) == (1, 1, 6)
        assert reg.status()["counts"]["positions"] == 7
    with_link(version, body)


def test_crc_broken_frame_and_wrong_keys_are_counted_and_the_good_frames_around_them_are_not_lost() -> None:
    async def body(reg: Regulator, inferior: Inferior) -> None:
        real_time(inferior, 0, "2011")
        good = inferior.frame(m.VehicleDynamic.MSG_ID, m.VehicleDynamic.position(PLATE, COLOUR, position(1)))
        content = unescape(strip_flags(good))
        wrong_crc = ((int.from_bytes(content[-2:], "big") + 1) & 0xFFFF).to_bytes(2, "big")
        inferior.send_raw(b"\x5b" + escape(content[:-2] + wrong_crc) + b"\x5d")
        wrong = CipherKeys(KEYS.m1 + 1, KEYS.ia1, KEYS.ic1)
        inferior.send_raw(inferior.frame(m.VehicleDynamic.MSG_ID,
                                         m.VehicleDynamic.position(PLATE, COLOUR, position(2)), keys=wrong))
        inferior.send_raw(b"\x00\x01garbage")
        real_time(inferior, 3, "2011")
        await until(lambda: reg.status()["counts"]["real_time"] == 2)
        errors = reg.status()["errors"]
        assert errors["crc"] == 1 and errors["decrypt"] == 1 and errors["framing"] == 1
        assert vehicle(reg)["unique_fixes"] == 2
        inferior.send(m.Heartbeat.MSG_ID, m.Heartbeat())  # the link is still up
        await inferior.expect_main(m.HeartbeatResponse)
    with_link("2011", body, keys=KEYS)


def test_frame_in_the_other_versions_layout_is_counted_as_a_version_error() -> None:
    async def body(reg: Regulator, inferior: Inferior) -> None:
        inferior.send_raw(inferior.frame(m.VehicleDynamic.MSG_ID,
                                         m.VehicleDynamic.position(PLATE, COLOUR, position(0, "2019")), version="2019"))
        real_time(inferior, 1, "2011")
        await until(lambda: reg.status()["counts"]["real_time"] == 1)
        assert reg.status()["errors"]["version"] == 1
    with_link("2011", body)


@pytest.mark.parametrize("version", ["2011", "2019"])
def test_inspection_answer_is_recorded_with_its_info_id_and_latency(version: str) -> None:
    async def body(reg: Regulator, inferior: Inferior) -> None:
        sent = reg.send_inspection("值班人员请回答", object_type=2, object_id="ops")
        await inferior.expect_sub(m.InspectionRequest)
        await asyncio.sleep(0.2)
        if version == "2011":
            answer = m.InspectionAnswer(2, "ops", "在岗", info_id=sent["info_id"])
        else:
            answer = m.InspectionAnswer(2, "ops", "在岗", responder="张三", responder_tel="13800000000",
                                        source_data_type=m.InspectionRequest.DATA_TYPE, source_sn=sent["sn"])
        inferior.send(m.PlatformExchange.MSG_ID, m.PlatformExchange(m.InspectionAnswer.DATA_TYPE, answer))
        await until(lambda: reg.status()["counts"].get("inspection_answers") == 1)
        [got] = reg.status()["inspection_answers"]
        assert got["info_id"] == sent["info_id"] and got["answer"] == "在岗"
        assert 0.2 <= got["latency_s"] < 5
        assert reg.status()["inspections"][0]["answered"] is True
    with_link(version, body)


def test_alarm_report_is_kept_urged_and_its_handling_result_recorded_2011() -> None:
    async def body(reg: Regulator, inferior: Inferior) -> None:
        warn_time = datetime(2026, 3, 1, 8, 0, tzinfo=UTC)
        report = m.AlarmReport2011(1, 0x0001, warn_time, 77, "超速报警")
        inferior.send(m.AlarmExchange.MSG_ID, m.AlarmExchange(report.DATA_TYPE, report, PLATE, COLOUR))
        await until(lambda: reg.status()["counts"].get("alarms") == 1)
        [alarm] = reg.status()["alarms"]
        assert (alarm["plate"], alarm["warn_type"], alarm["info_id"]) == (PLATE, 1, 77)
        assert alarm["warn_time"] == warn_time.isoformat()
        sent = reg.send_urging(reg.tally.alarms[0])
        urging = await inferior.expect_sub(m.UrgingRequest)
        assert (urging.supervision_id, urging.warn_type, urging.warn_time) == ("0000004D", 1, warn_time)
        assert sent["link"] == "sub"
        result = m.HandlingResult(77, 1)
        inferior.send(m.AlarmExchange.MSG_ID, m.AlarmExchange(result.DATA_TYPE, result, PLATE, COLOUR))
        await until(lambda: reg.status()["counts"].get("handling_results") == 1)
        assert reg.status()["handling_results"][0]["info_id"] == 77
    with_link("2011", body)


def test_alarm_report_2019_is_kept_with_its_vehicle() -> None:
    async def body(reg: Regulator, inferior: Inferior) -> None:
        t = datetime(2026, 3, 1, 8, 0, tzinfo=UTC)
        report = m.AlarmReport("PLATFORM01", 0xA001, t, t, t, PLATE, COLOUR, "", 0, "超时停车")
        inferior.send(m.AlarmExchange.MSG_ID, m.AlarmExchange(report.DATA_TYPE, report))
        await until(lambda: reg.status()["counts"].get("alarms") == 1)
        [alarm] = reg.status()["alarms"]
        assert (alarm["plate"], alarm["warn_type"], alarm["content"]) == (PLATE, 0xA001, "超时停车")
    with_link("2019", body)


def test_registration_message_and_warning_tip_and_position_count() -> None:
    async def body(reg: Regulator, inferior: Inferior) -> None:
        inferior.send(m.VehicleDynamic.MSG_ID, m.VehicleDynamic(PLATE, COLOUR, 0x1201, b"\x00" * 110))
        for seconds in range(3):
            real_time(inferior, seconds, "2011")
        await until(lambda: reg.status()["counts"]["real_time"] == 3)
        assert vehicle(reg)["registrations"] == 1
        reg.send_message("请注意安全")
        assert (await inferior.expect_sub(m.PlatformMessage)).content == "请注意安全"
        reg.send_warning(PLATE, COLOUR, "前方拥堵")
        assert (await inferior.expect_sub(m.WarningTip)).content == "前方拥堵"
        sent = reg.send_position_count()
        count = await inferior.expect_sub(m.PositionCount)
        assert count.total == sent["total"] == 3 and count.start <= count.end
        assert reg.send_position_count()["total"] == 0  # the next period starts where this one ended
    with_link("2011", body)


def test_status_is_json() -> None:
    import json

    async def body(reg: Regulator, inferior: Inferior) -> None:
        real_time(inferior, 0, "2011")
        await until(lambda: reg.status()["counts"]["real_time"] == 1)
        decoded = json.loads(json.dumps(reg.status()))
        assert decoded["links"][0]["main"]["state"] == "up"
        assert decoded["messages"][-1]["msg_id"] == "0x1200"
    with_link("2011", body)


def test_a_failure_while_handling_one_frame_keeps_the_link_and_the_frames_behind_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    async def body(reg: Regulator, inferior: Inferior) -> None:
        from exchange.regulator import inbound

        def broken(*args: object) -> None:
            raise RuntimeError("a bug in one handler")
        monkeypatch.setitem(inbound._HANDLERS, m.PlatformExchange, broken)
        inferior.send(m.PlatformExchange.MSG_ID, m.PlatformExchange(0x1302, b"\x00\x00\x00\x01"))
        real_time(inferior, 0, "2011")
        await until(lambda: reg.status()["counts"]["real_time"] == 1)
        assert reg.status()["links"][0]["handler_errors"] == 1
        assert reg.status()["links"][0]["main"]["state"] == "up"
    with_link("2011", body)
