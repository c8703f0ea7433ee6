"""Simulated alarms: a seeded, realistic schedule; emergency held until the platform's 0x8203; ADAS/DSM
events as 0x64/0x65 items whose attachments are made when 0x9208 asks for them."""

from __future__ import annotations

import asyncio
import io
import random
from datetime import UTC, datetime, timedelta

import av
import pytest

from fleet.settings import SimulatorSettings
from protocols.jt808 import (
    AlarmAttachmentUploadRequest,
    AlarmNumber,
    LocationReport,
    ManualAlarmConfirmation,
    TerminalResponse,
    decode_frame,
    encode_frame,
)
from simulator import wire
from simulator.alarms import EMERGENCY, MAX_REMEMBERED, OVERSPEED, AlarmSchedule
from simulator.commands import CommandResponder
from simulator.driving import Sample, Vehicle
from simulator.fleet import MemoryAuthStore
from simulator.terminal import VirtualTerminal
from tests.unit.simulator.test_terminal_over_tcp import PHONE, FakeGateway
from tests.unit.simulator.test_terminal_over_tcp import _terminal as _tcp_terminal

START = datetime(2026, 11, 25, 6, 0, tzinfo=UTC)
DRIVING = Sample(lat=39.91, lng=116.39, altitude_m=50, speed_kmh=45.0, direction_deg=90, mileage_km=100.0,
                 acc_on=True, positioned=True, limit_kmh=60.0)
PARKED = Sample(lat=39.91, lng=116.39, altitude_m=50, speed_kmh=0.0, direction_deg=90, mileage_km=100.0,
                acc_on=False, positioned=True, limit_kmh=60.0)


def _schedule(seed: int = 1, rate: float = 3.0, safety: float = 6.0) -> AlarmSchedule:
    return AlarmSchedule(random.Random(seed), "SIM0000001", rate_per_hour=rate, safety_rate_per_hour=safety)


def _run(schedule: AlarmSchedule, reports: int, sample: Sample = DRIVING, step_s: float = 5.0
         ) -> list[tuple[int, dict[str, object]]]:
    return [schedule.step(step_s, sample, START + timedelta(seconds=step_s * n)) for n in range(reports)]


def test_same_seed_gives_the_same_alarms_and_another_seed_others() -> None:
    assert _run(_schedule(7, 30, 60), 2000) == _run(_schedule(7, 30, 60), 2000)
    assert _run(_schedule(7, 30, 60), 2000) != _run(_schedule(8, 30, 60), 2000)


def test_safety_events_come_at_the_configured_rate_while_driving_only() -> None:
    schedule = _schedule(3, rate=0, safety=6.0)
    hours = 100
    _run(schedule, hours * 720)
    assert 0.8 * 600 <= schedule.counters.safety_events <= 1.2 * 600
    parked = _schedule(3, rate=5.0, safety=60.0)
    assert all(flags == 0 and not items for flags, items in _run(parked, 20_000, PARKED))


def test_safety_events_are_0x64_0x65_items_with_one_to_three_attachments_that_survive_the_wire() -> None:
    schedule = _schedule(5, rate=0, safety=600.0)
    reports = _run(schedule, 3000)
    items = [items for _, items in reports if items]
    assert {name for found in items for name in found} == {"adas_alarm", "dsm_alarm"}
    types = {(name, value["type"]) for found in items for name, value in found.items()}  # type: ignore[index]
    assert types == {("adas_alarm", t) for t in (1, 2, 3)} | {("dsm_alarm", t) for t in (1, 2, 3, 4)}
    for found in items:
        for value in found.values():
            assert 1 <= value["alarm_no"]["attachments"] <= 3  # type: ignore[index]
            assert value["alarm_no"]["terminal_id"] == "0000001"  # type: ignore[index]
    report = wire.location_report(DRIVING, START, items[0])
    decoded = decode_frame(encode_frame(0x0200, report, phone="013800000001", seq=1)).body
    assert isinstance(decoded, LocationReport) and decoded.extras == report.extras


def test_emergency_is_held_until_the_platform_confirms_it_with_8203() -> None:
    schedule = _schedule(11, rate=60.0, safety=0)
    reports = iter(range(100_000))
    while not schedule.held & EMERGENCY:
        schedule.step(5.0, DRIVING, START + timedelta(seconds=5 * next(reports)))
    for _ in range(100):  # still set report after report
        flags, _ = schedule.step(5.0, DRIVING, START + timedelta(seconds=5 * next(reports)))
        assert flags & EMERGENCY
    responder = CommandResponder("013800000001", "京A00001", alarms=schedule)
    handled = responder.handle(0x8203, 77, ManualAlarmConfirmation(0, 1 << 3), wire.location_report(DRIVING, START), START)
    assert schedule.held & EMERGENCY  # 8203 for another bit releases nothing
    handled = responder.handle(0x8203, 78, ManualAlarmConfirmation(0, EMERGENCY), wire.location_report(DRIVING, START), START)
    assert [a.body for a in handled.answers] == [TerminalResponse(78, 0x8203, 0)]
    flags, _ = schedule.step(5.0, DRIVING, START + timedelta(seconds=5 * next(reports)))
    assert not flags & EMERGENCY and schedule.counters.confirmed == 1


def test_overspeed_makes_the_vehicle_speed_and_is_flagged_only_above_the_limit() -> None:
    rng = random.Random(2)
    vehicle = Vehicle(rng, 39.91, 116.39, 5.0)
    vehicle.start_trip()
    schedule = _schedule(2, rate=120.0, safety=0)
    seen_speeding = False
    for n in range(20_000):
        vehicle.advance(2.0)
        sample = vehicle.sample()
        flags, _ = schedule.step(2.0, sample, START + timedelta(seconds=2 * n), vehicle)
        if flags & OVERSPEED:
            assert sample.speed_kmh > sample.limit_kmh
            seen_speeding = True
    assert seen_speeding


def test_default_rates_give_a_20_vehicle_fleet_a_few_alarms_a_minute() -> None:
    settings = SimulatorSettings()
    raised = 0
    minutes = 60
    for index in range(1, 21):
        vehicle = Vehicle(random.Random(f"808:{index}"), 39.91, 116.39, 15.0)
        schedule = AlarmSchedule(random.Random(f"808:{index}:alarms"), f"SIM{index:07d}",
                                 rate_per_hour=settings.alarm_rate_per_hour,
                                 safety_rate_per_hour=settings.safety_alarm_rate_per_hour)
        previous = 0
        for n in range(minutes * 12):
            vehicle.advance(5.0)
            flags, items = schedule.step(5.0, vehicle.sample(), START + timedelta(seconds=5 * n), vehicle)
            raised += bin(flags & ~previous).count("1") + len(items)
            previous = flags
    assert 2.0 <= raised / minutes <= 5.0  # "a few a minute" on the console


def test_9208_is_acknowledged_and_yields_the_events_photos() -> None:
    schedule = _schedule(5, rate=0, safety=600.0)
    value = [items for _, items in _run(schedule, 3000) if items][-1]  # the platform asks within seconds
    (event,) = value.values()
    number = AlarmNumber.from_json(event["alarm_no"])  # type: ignore[index]
    request = AlarmAttachmentUploadRequest("127.0.0.1", 7613, 0, number, "f" * 32)
    responder = CommandResponder("013800000001", "京A00001", alarms=schedule)
    handled = responder.handle(0x9208, 9, request, wire.location_report(DRIVING, START), START)
    assert [a.body for a in handled.answers] == [TerminalResponse(9, 0x9208, 0)]
    assert handled.attachment_requests == (request,)
    files = schedule.attachment_files(number, request.alarm_uuid, "京A00001")
    assert len(files) == number.attachments
    channel = "64" if "adas_alarm" in value else "65"
    for n, (name, file_type, data) in enumerate(files):
        if n == len(files) - 1 and len(files) >= 2:
            continue  # the clip (test_the_last_of_several_attachments_is_a_playable_clip)
        assert name == f"00_{channel}_{channel}{event['type']:02d}_{n}_{'f' * 32}.jpg"  # type: ignore[index]
        assert len(name.encode()) <= 50 and file_type == 0 and data[:2] == b"\xff\xd8"


def test_the_last_of_several_attachments_is_a_playable_clip() -> None:
    """An event of two or three attachments ends with a 3 s H.264 MP4 that shows its time running; an
    event of one is a photo."""
    schedule = _schedule(11, rate=0, safety=3600.0)
    events = [e for _, items in _run(schedule, 400) for e in items.values()]
    numbers = [AlarmNumber.from_json(e["alarm_no"]) for e in events][-MAX_REMEMBERED:]  # type: ignore[index]
    several = next(n for n in numbers if n.attachments >= 2)
    single = next(n for n in numbers if n.attachments == 1)
    event = schedule.event_for(several)
    assert event is not None
    channel = f"{event.value['type']:02d}"
    files = schedule.attachment_files(several, "e" * 32, "京A00001")
    name, file_type, data = files[-1]
    prefix = "64" if event.item == "adas_alarm" else "65"
    assert name == f"02_{prefix}_{prefix}{channel}_{len(files) - 1}_{'e' * 32}.mp4" and file_type == 2
    assert len(name.encode()) <= 50 and data[4:8] == b"ftyp"
    with av.open(io.BytesIO(data), "r") as container:
        stream = container.streams.video[0]
        assert (stream.codec_context.name, stream.width, stream.height) == ("h264", 352, 288)
        frames = list(container.decode(video=0))
    assert len(frames) == 30 and float(frames[-1].time or 0) == pytest.approx(2.9)
    assert frames[0].to_ndarray().tobytes() != frames[-1].to_ndarray().tobytes()  # the clock moves
    assert all(f[1] == 0 for f in files[:-1])
    ((_, only_type, photo),) = schedule.attachment_files(single, "d" * 32, "京A00001")
    assert only_type == 0 and photo[:2] == b"\xff\xd8"


def test_terminal_answers_9208_then_uploads_the_alarms_photos(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, int, AlarmAttachmentUploadRequest, list[tuple[str, int, bytes]], str]] = []

    async def fake_upload(host: str, port: int, request: AlarmAttachmentUploadRequest,
                          files: list[tuple[str, int, bytes]], terminal_id: str, drop_chunk: int | None = None,
                          **_: object) -> None:
        calls.append((host, port, request, files, terminal_id))

    monkeypatch.setattr("simulator.attachments.upload", fake_upload)
    gateway = FakeGateway()
    schedule = _schedule(5, rate=0, safety=1800.0)

    async def scenario() -> None:
        server = await asyncio.start_server(gateway.serve, "127.0.0.1", 0)
        base = _tcp_terminal(server.sockets[0].getsockname()[1])
        terminal = VirtualTerminal(index=1, phone=PHONE, terminal_id="SIM0000001", config=base.config,
                                   vehicle=base.vehicle, rng=base.rng, auth_store=MemoryAuthStore(),
                                   fix_clock=base.fix_clock, plate="京A00001", alarms=schedule)
        terminal.vehicle.start_trip()
        stop = asyncio.Event()
        task = asyncio.create_task(terminal.run(stop))
        try:
            await gateway.until(lambda: terminal.counters.authenticated and schedule.events)
            event = next(reversed(schedule.events.values()))
            request = AlarmAttachmentUploadRequest("127.0.0.1", 7613, 0, event.alarm_no, "e" * 32)
            (seq,) = gateway.send((0x9208, request))
            assert (await gateway.next_uplink()).body == TerminalResponse(seq, 0x9208, 0)
            await gateway.until(lambda: calls)
        finally:
            stop.set()
            terminal.wake()
            await asyncio.wait_for(task, 10)
            server.close()
        ((host, port, sent, files, terminal_id),) = calls
        assert (host, port, sent, terminal_id) == ("127.0.0.1", 7613, request, "SIM0000001")
        assert len(files) == event.alarm_no.attachments
        assert terminal.counters.attachment_uploads == 1

    asyncio.run(scenario())
