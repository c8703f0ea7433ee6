"""The regulator in a box's demo schedule asks for live video (JT/T 1078-2016 §8.2): for a vehicle forwarded in the
last 5 minutes, with the home-region code the platform reported (0x1701), a 0x9801; a vehicle answered 1 (no
camera) is skipped and the next one asked; on 0x1801 RESULT 0 a few seconds are pulled at the address answered,
then 0x9802. Off in ``Schedule()`` (what the tests of the rest of the schedule use), on in the command."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from exchange.regulator import Account, schedule
from exchange.regulator.schedule import Schedule, Scheduled
from fleet.settings import RegulatorSettings
from protocols.jt809 import messages as m
from tests.unit.exchange.inferior import Inferior, position, run, until
from tests.unit.exchange.test_regulator_links import FAST

CAMERA, NO_CAMERA, COLOUR = "京A00001", "京A00002", 2


async def _fake_media() -> asyncio.Server:
    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: video/x-flv\r\n\r\nFLV\x01\x05" + b"\x00" * 4000)
        with contextlib.suppress(ConnectionError):
            while True:
                await asyncio.sleep(0.05)
                writer.write(b"\x09" * 1000)
                await writer.drain()
    return await asyncio.start_server(serve, "127.0.0.1", 0)


async def _answer_video(inferior: Inferior, media_port: int, asked: list[tuple[str, int]]) -> None:
    """The inferior platform: 0x1801 RESULT 0 with the media address for CAMERA, 1 for anything else."""
    while True:
        message = await inferior.sub_in.get()
        body = message.body
        if not isinstance(body, m.RealVideoDown):
            continue
        asked.append((body.plate, body.data_type))
        if body.data_type == m.RealVideoRequest.DATA_TYPE:
            ok = body.plate == CAMERA and body.data.authorize_code == "H" * 64
            answer = m.RealVideoAnswer(0, "127.0.0.1", media_port) if ok else m.RealVideoAnswer(1, "", 0)
            inferior.send(m.RealVideo.MSG_ID, m.RealVideo(body.plate, body.plate_colour, answer.DATA_TYPE, answer))


def test_a_round_skips_a_vehicle_without_a_camera_pulls_the_next_and_stops_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(schedule, "VIDEO_PULL_S", 0.5)

    async def scenario() -> None:
        reg = Scheduled([Account(1001, "secret", 7001, "2011")], timing=FAST,
                        schedule=Schedule(0, 0, False, video_minutes=10))
        reg.video_first_s = 0.05
        await reg.start()
        media = await _fake_media()
        inferior = Inferior()
        asked: list[tuple[str, int]] = []
        try:
            await inferior.connect(reg.port)
            await until(lambda: reg.status()["links"][0]["sub"]["state"] == "up")
            inferior.send(m.Authorize.MSG_ID, m.Authorize("", 0, m.AuthorizeReport.DATA_TYPE,
                                                          m.AuthorizeReport("7001", "H" * 64, "C" * 64)))
            inferior.send(m.VehicleDynamic.MSG_ID, m.VehicleDynamic.position(CAMERA, COLOUR, position(0)))
            await asyncio.sleep(0.05)  # NO_CAMERA forwarded last: asked first
            inferior.send(m.VehicleDynamic.MSG_ID, m.VehicleDynamic.position(NO_CAMERA, COLOUR, position(1)))
            await until(lambda: len(reg.vehicle_sources) == 2 and 1001 in reg.authorize_codes)
            responder = asyncio.create_task(_answer_video(inferior, media.sockets[0].getsockname()[1], asked))
            rounds = asyncio.create_task(reg.run_schedule())
            await until(lambda: any(e["event"] == "video_pulled" for e in reg.status()["events"]), 10)
            await until(lambda: (CAMERA, 0x9802) in asked)
            rounds.cancel()
            responder.cancel()
            assert asked == [(NO_CAMERA, 0x9801), (CAMERA, 0x9801), (CAMERA, 0x9802)]
            assert reg.no_video == {(NO_CAMERA, COLOUR)}
            pulled = next(e for e in reg.status()["events"] if e["event"] == "video_pulled")
            assert pulled["detail"].startswith(f"{CAMERA}: HTTP 200, ") and pulled["detail"].endswith("of FLV")
            assert reg.video_candidates(reg.vehicle_sources[(CAMERA, COLOUR)][1]) == [(CAMERA, COLOUR, 1001)]
        finally:
            media.close()
            await inferior.close()
            await reg.stop()
    run(scenario)


def test_no_video_is_asked_without_the_setting_and_the_command_asks_every_10_minutes() -> None:
    assert Schedule().video_minutes == 0
    assert RegulatorSettings().video_minutes == 10

    async def scenario() -> None:
        reg = Scheduled([Account(1001, "secret", 7001, "2011")], timing=FAST, schedule=Schedule(0, 0, False))
        reg.video_first_s = 0
        reg.vehicle_sources[(CAMERA, COLOUR)] = (1001, schedule.now())
        reg.authorize_codes[1001] = {"code_1": "H" * 64}
        await asyncio.wait_for(reg._video_rounds(), 1)  # off: returns at once, before asking anything
        assert reg.status()["events"] == []
    run(scenario)
