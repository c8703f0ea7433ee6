"""Simulated GB terminals: what they send decodes with the project's codec (protocols.gb32960) to exactly
the model's values; the battery drains while driving and charges at the depot; alarms carry their flags;
the diesel trucks' OBD and data stream decode; and against a fake gateway socket a terminal logs in,
heartbeats, and sends what was not acknowledged again as back-filled data after a reconnect."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import pytest

from fleet.demo_fleet import GB_DEMO_VEHICLES
from fleet.driving_model import DrivingModel
from fleet.settings import SimulatorSettings
from fleet.vin import is_valid_vin
from protocols.gb32960 import FrameReader, Message, Protocol, Response, TimeOnly, decode_frame, encode_frame
from protocols.gb32960.messages import (
    Alarms,
    Alarms2025,
    CellVoltages,
    EmissionLogin,
    EmissionReissued,
    EmissionReport,
    EngineDataStream,
    Extremes,
    FuelCell,
    FuelCell2025,
    FuelCellStacks,
    GeneralAlarm,
    MinUnitVoltages,
    ObdInfo,
    Position,
    ProbeTemperatures,
    RealtimeReport,
    ReissuedReport,
    VehicleData,
    VehicleData2025,
    VehicleLogin,
)
from simulator.gb32960.battery import (
    BUS,
    CELLS,
    FAULT_INSULATION,
    FAULT_OVER_TEMPERATURE,
    FAULT_THERMAL_EVENT,
    FCBUS,
    VAN,
    PackSpec,
)
from simulator.gb32960.diesel import DieselTruck
from simulator.gb32960.ev import CHARGING, NOT_CHARGING, ElectricVehicle, FuelCellBus
from simulator.gb32960.fleet import build_gb_terminals
from simulator.gb32960.frames import EvReporter, TruckReporter
from simulator.gb32960.fuel_cell import BUS_STACK
from simulator.gb32960.reports import REALTIME, REISSUED, Report, ReportQueue
from simulator.gb32960.terminal import GbTerminal, GbTerminalConfig

START = datetime(2026, 12, 1, 8, 0, tzinfo=UTC)
TIMEOUT = 5.0


def ev_terminal(protocol: Protocol = Protocol.GB32960_2016, *, seed: int = 7, soc_pct: float = 60.0,
                port: int = 0, spec: PackSpec = BUS, **config: float) -> tuple[GbTerminal, ElectricVehicle]:
    ev = ElectricVehicle(random.Random(seed), spec, DrivingModel(), soc_pct=soc_pct, alarm_rate_per_hour=0)
    settings = {"interval_s": 10.0, "heartbeat_interval_s": 30.0, "ack_timeout_s": 10.0, "reconnect_min_s": 0.05,
                "reconnect_max_s": 0.1, "reply_timeout_s": 2.0, **config}
    terminal = GbTerminal("LZYTBEV03T0000001", protocol, GbTerminalConfig("127.0.0.1", port, **settings),  # type: ignore[arg-type]
                          EvReporter(ev, protocol), random.Random(seed), START, iccid="89860400000000000001",
                          storage_codes=("FWSIMPACK001" + "0" * 12,))
    return terminal, ev


def decoded(terminal: GbTerminal, command: int = REALTIME) -> Message:
    report = terminal.make_report()
    return decode_frame(terminal.frame_of(report, command), protocol=terminal.protocol)


# ---------------------------------------------------------------- frames = model


@pytest.mark.parametrize("spec", [BUS, VAN], ids=["bus", "van"])
def test_2016_realtime_frame_decodes_to_exactly_the_battery_model(spec: PackSpec) -> None:
    terminal, ev = ev_terminal(spec=spec)
    ev.drive.start_trip()
    for _ in range(30):
        terminal.make_report()
    message = decoded(terminal)
    state = ev.state()
    body = message.body
    assert isinstance(body, RealtimeReport) and message.header.command == REALTIME
    assert message.header.vin == terminal.vin and body.collected_at == terminal.clock
    vehicle, cells = body.block(VehicleData), body.block(CellVoltages)
    b = state.battery
    assert (vehicle.soc_pct, vehicle.total_voltage_v, vehicle.total_current_a) == (b.soc_pct, b.total_voltage_v,
                                                                                    b.total_current_a)
    assert b.total_current_a > 0 and vehicle.speed_kmh == state.speed_kmh > 0  # driving: discharging
    (pack,) = cells.packs
    assert pack.total_cells == CELLS == len(pack.cell_voltages_v) and pack.first_cell == 1
    assert pack.cell_voltages_v == b.cell_voltages_v  # all 96, to the millivolt
    assert round(sum(pack.cell_voltages_v), 1) == pytest.approx(vehicle.total_voltage_v, abs=0.05)
    assert body.block(ProbeTemperatures).packs[0].probe_temps_c == b.probe_temps_c
    extremes = body.block(Extremes)
    assert extremes.max_cell_voltage_v == max(b.cell_voltages_v)
    assert extremes.min_voltage_cell == b.cell_voltages_v.index(min(b.cell_voltages_v)) + 1
    position = body.block(Position)
    assert (position.lat, position.lng) == (state.lat, state.lng)


def test_2025_realtime_frame_decodes_to_exactly_the_battery_model() -> None:
    terminal, ev = ev_terminal(Protocol.GB32960_2025)
    frame = terminal.frame_of(terminal.make_report(), REALTIME)
    assert frame[:2] == b"$$"
    body = decode_frame(frame).body
    b = ev.state().battery
    vehicle, units = body.block(VehicleData2025), body.block(MinUnitVoltages)
    assert (vehicle.soc_pct, vehicle.total_voltage_v, vehicle.total_current_a) == (b.soc_pct, b.total_voltage_v,
                                                                                    b.total_current_a)
    assert units.packs[0].unit_voltages_v == b.cell_voltages_v and len(units.packs[0].unit_voltages_v) == 96
    assert isinstance(body.block(Alarms2025), Alarms2025)


def test_a_charging_vehicle_reports_charging_state_1_and_a_negative_current() -> None:
    terminal, ev = ev_terminal(soc_pct=19.0)
    for _ in range(2000):
        terminal.make_report()
        if ev.phase == "charging":
            break
    terminal.make_report()
    vehicle = decoded(terminal).body.block(VehicleData)
    assert vehicle.charging == CHARGING and vehicle.total_current_a < 0
    assert vehicle.total_current_a == ev.state().battery.total_current_a and vehicle.speed_kmh == 0


# ---------------------------------------------------------------- the battery model


def test_soc_falls_while_driving_and_rises_while_charging_at_the_depot() -> None:
    ev = ElectricVehicle(random.Random(3), VAN, DrivingModel(), soc_pct=40.0, alarm_rate_per_hour=0)
    ev.drive.start_trip()
    km0, soc0 = ev.drive.mileage_km, ev.battery.soc
    ev.advance(600)
    assert ev.drive.mileage_km - km0 > 3 and ev.battery.soc < soc0 - 0.5  # driving drains the pack
    assert ev.state().charging == NOT_CHARGING
    for _ in range(24 * 60):  # on until it has gone back to its depot
        ev.advance(60)
        if ev.phase == "charging":
            break
    assert ev.phase == "charging" and ev.charging_sessions == 1
    assert ev.drive.distance_m(*ev.depot) <= 300 + 30  # it charges at its depot
    first = ev.state()
    ev.advance(1800)
    later = ev.state()
    assert first.charging == later.charging == CHARGING
    assert later.battery.soc_pct > first.battery.soc_pct + 10
    assert later.battery.total_current_a < 0 and later.speed_kmh == 0
    mean = lambda s: sum(s.battery.cell_voltages_v) / CELLS  # noqa: E731
    assert mean(later) > mean(first)  # cell voltages rise as it charges
    for _ in range(12 * 60):
        ev.advance(60)
        if ev.phase == "service":
            break
    assert ev.phase == "service" and ev.battery.soc >= 94.5  # charged, back in service


def test_cells_spread_realistically() -> None:
    b = ElectricVehicle(random.Random(11), BUS, soc_pct=50, alarm_rate_per_hour=0).state().battery
    spread_mv = (max(b.cell_voltages_v) - min(b.cell_voltages_v)) * 1000
    assert 5 <= spread_mv <= 40  # a balanced pack at rest: millivolts to tens of millivolts, never equal cells
    assert len(set(b.cell_voltages_v)) > 10


def test_same_seed_same_frames_and_another_seed_others() -> None:
    def frames(seed: int) -> list[bytes]:
        terminal, _ = ev_terminal(seed=seed)
        return [terminal.frame_of(terminal.make_report(), REALTIME) for _ in range(20)]

    assert frames(5) == frames(5)
    assert frames(5) != frames(6)


# ---------------------------------------------------------------- alarms


def test_an_insulation_alarm_sets_flag_11_level_3_and_its_fault_code() -> None:
    terminal, ev = ev_terminal()
    ev.battery.alarms.start("insulation", seconds=60)
    body = decoded(terminal).body
    alarms = body.block(Alarms)
    assert GeneralAlarm.INSULATION in alarms.general and alarms.max_level == 3
    assert alarms.storage_faults == (FAULT_INSULATION,)
    assert body.block(VehicleData).insulation_kohm < 30  # under 100 Ω/V of the ~300 V pack
    for _ in range(7):  # 70 s later the episode is over
        terminal.make_report()
    cleared = decoded(terminal).body
    assert cleared.block(Alarms).flags == 0 and cleared.block(Alarms).max_level == 0
    assert cleared.block(VehicleData).insulation_kohm > 10_000


def test_a_cell_over_temperature_sets_flags_0_and_1_level_2_and_the_hot_probe_is_the_extreme() -> None:
    terminal, ev = ev_terminal()
    ev.battery.alarms.start("over_temperature", seconds=300)
    body = decoded(terminal).body
    alarms, extremes = body.block(Alarms), body.block(Extremes)
    assert alarms.general == GeneralAlarm.BATTERY_HIGH_TEMPERATURE | GeneralAlarm.TEMPERATURE_DIFFERENCE
    assert alarms.max_level == 2 and alarms.storage_faults == (FAULT_OVER_TEMPERATURE,)
    assert extremes.max_temp_c >= 58 and extremes.max_temp_probe == ev.battery.alarms.probe + 1


def test_a_thermal_event_is_flag_23_at_level_3_in_a_2025_frame_and_high_temperature_in_a_2016_one() -> None:
    terminal, ev = ev_terminal(Protocol.GB32960_2025, soc_pct=12.0)  # SOC low too: flag 4 at level 1
    ev.battery.alarms.start("thermal_event", seconds=300)
    alarms = decoded(terminal).body.block(Alarms2025)
    assert "BATTERY_THERMAL_EVENT" in alarms.general_names and alarms.max_level == 3
    assert alarms.storage_faults == (FAULT_THERMAL_EVENT,)
    # each set flag's own level in the general fault list: its number, then its level
    assert sorted(divmod(code, 256) for code in alarms.general_faults) == [(0, 2), (1, 2), (4, 1), (23, 3)]
    old, old_ev = ev_terminal(Protocol.GB32960_2016, soc_pct=12.0)
    old_ev.battery.alarms.start("thermal_event", seconds=300)
    body = decoded(old).body
    alarms_2016 = body.block(Alarms)
    assert alarms_2016.general == (GeneralAlarm.BATTERY_HIGH_TEMPERATURE | GeneralAlarm.TEMPERATURE_DIFFERENCE
                                   | GeneralAlarm.SOC_LOW)
    assert alarms_2016.max_level == 2 and body.block(Extremes).max_temp_c >= 75


def test_alarm_episodes_come_at_their_rate_and_soc_low_is_flagged() -> None:
    ev = ElectricVehicle(random.Random(1), VAN, soc_pct=12.0, alarm_rate_per_hour=2.0)
    assert GeneralAlarm.SOC_LOW in ev.state().battery.general and ev.state().battery.alarm_level >= 1
    ev.advance(20 * 3600)
    assert 10 <= ev.battery.alarms.episodes <= 70  # ~2 an hour while on or charging


# ---------------------------------------------------------------- a fuel-cell bus


def fcbus(seed: int = 5) -> FuelCellBus:
    return FuelCellBus(random.Random(seed), FCBUS, BUS_STACK, DrivingModel(), alarm_rate_per_hour=0)


def test_a_fuel_cell_bus_drives_on_its_stack_holds_its_pack_and_refuels_at_its_depot() -> None:
    bus = fcbus()
    bus.fuel.h2_kg = bus.fuel.spec.tank_kg * 0.5
    bus.drive.start_trip()
    h2_0, supplied = bus.fuel.h2_kg, []
    for _ in range(60):  # an hour in service, a report a minute
        bus.advance(60)
        supplied.append(bus.fuel.power_kw)
        assert 30.0 <= bus.battery.soc <= 80.0  # the stack keeps the buffer pack near its target
        assert bus.state().charging == NOT_CHARGING  # it never plugs in
    assert bus.fuel.h2_kg < h2_0 - 0.5 and max(supplied) > 10.0  # the stack drove it, on hydrogen
    for _ in range(48 * 60):  # on until its hydrogen runs low
        bus.advance(60)
        if bus.phase == "returning":
            break
    assert bus.phase == "returning" and bus.fuel.remaining_pct <= 15
    for _ in range(6 * 60):  # back to its depot's station
        bus.advance(60)
        if bus.phase == "refuelling":
            break
    assert bus.phase == "refuelling" and bus.refuellings == 1
    assert bus.drive.distance_m(*bus.depot) <= 300 + 30
    for _ in range(60):
        bus.advance(60)
        if bus.phase == "service":
            break
    assert bus.phase == "service" and bus.fuel.remaining_pct >= 99  # full, back in service
    assert bus.state().charging == NOT_CHARGING


def test_a_fuel_cell_bus_reports_its_stack_and_hydrogen_system_in_either_edition() -> None:
    for protocol in (Protocol.GB32960_2016, Protocol.GB32960_2025):
        bus = fcbus()
        bus.drive.start_trip()
        bus.advance(600)
        terminal = GbTerminal("LZYTBEV03T0000003", protocol, GbTerminalConfig("127.0.0.1", 0, interval_s=10.0),
                              EvReporter(bus, protocol), random.Random(1), START, iccid="89860400000000000003",
                              storage_codes=("FWSIMPACK003" + "0" * 12,))
        report = terminal.make_report()
        fuel = bus.state().fuel_cell
        assert fuel is not None and fuel.current_a > 0 and 250 < fuel.voltage_v < 370  # loaded, on its curve
        assert abs(fuel.voltage_v * fuel.current_a / 1000 - bus.fuel.power_kw) < 1.0
        body = decode_frame(terminal.frame_of(report, REALTIME), protocol=protocol).body
        if protocol is Protocol.GB32960_2016:
            cell = body.block(FuelCell)
            assert (cell.voltage_v, cell.current_a, cell.probe_temps_c) == (fuel.voltage_v, fuel.current_a,
                                                                           fuel.probe_temps_c)
            assert cell.max_h2_pressure_mpa == fuel.tank_pressure_mpa and cell.dcdc == 1
            assert 0 < cell.h2_consumption_kg_per_100km < 30
        else:
            cell = body.block(FuelCell2025)
            assert (cell.h2_remaining_pct, cell.max_h2_pressure_mpa) == (fuel.h2_remaining_pct, fuel.tank_pressure_mpa)
            (stack,) = body.block(FuelCellStacks).stacks
            assert (stack.voltage_v, stack.current_a, stack.coolant_outlet_temps_c) == (
                fuel.voltage_v, fuel.current_a, fuel.coolant_outlet_temps_c)
            assert stack.h2_inlet_pressure_kpa > 100 and stack.air_inlet_pressure_kpa > 100


def test_the_demo_fleets_fuel_cell_bus_is_a_2025_terminal_with_an_f_plate() -> None:
    (bus,) = [v for v in GB_DEMO_VEHICLES if v.kind == "fcbus"]
    assert (bus.protocol, bus.protocol_version) == ("gb32960", "2025") and "·F" in bus.plate
    terminals = build_gb_terminals(SimulatorSettings(), (bus,), 10.0, clock_start=START)
    assert isinstance(terminals[0].reporter, EvReporter) and isinstance(terminals[0].reporter.vehicle, FuelCellBus)


# ---------------------------------------------------------------- diesel trucks


def test_the_diesel_stream_and_obd_information_decode_as_gb17691() -> None:
    (truck_vehicle,) = [v for v in GB_DEMO_VEHICLES if v.protocol == "hj1239"][:1]
    settings = SimulatorSettings(seed=9)
    (terminal,) = build_gb_terminals(settings, [truck_vehicle], 10.0, clock_start=START)
    reporter = terminal.reporter
    assert isinstance(reporter, TruckReporter) and terminal.protocol is Protocol.GB17691
    reporter.truck.drive.start_trip()
    first = terminal.make_report()
    frame = terminal.frame_of(first, REALTIME)
    message = decode_frame(frame, protocol=Protocol.GB17691)
    body = message.body
    assert isinstance(body, EmissionReport) and body.collected_at == first.collected_at and body.serial == 1
    obd, stream = body.block(ObdInfo), body.block(EngineDataStream)
    assert obd.vin == truck_vehicle.vin and obd.obd_protocol == 2 and obd.mil == 0 and obd.fault_codes == ()
    assert stream == reporter.truck.stream()  # every reading exactly as the model has it
    with_obd = []
    for _ in range(59):  # reports 2 ... 60
        report = terminal.make_report()
        with_obd += [report.serial] if any(isinstance(b, ObdInfo) for b in report.blocks) else []
    assert with_obd == [31]  # OBD information in a session's first report, then every 30
    later = decode_frame(terminal.frame_of(report, REISSUED), protocol=Protocol.GB17691).body
    assert isinstance(later, EmissionReissued) and later.block(ObdInfo) is None
    s = later.block(EngineDataStream)
    assert s.speed_kmh > 0 and s.engine_speed_rpm > 900 and s.scr_inlet_temp_c > 200
    assert s.nox_downstream_ppm < s.nox_upstream_ppm * 0.2  # a warm SCR
    assert (s.longitude_deg, s.latitude_deg) == (round(reporter.truck.drive.lng, 6), round(reporter.truck.drive.lat, 6))


def test_reagent_falls_with_distance_and_is_refilled_and_a_fault_lights_the_mil() -> None:
    truck = DieselTruck(random.Random(4), fault_rate_per_hour=0)
    truck.reagent_pct = 20.0
    truck.drive.start_trip()
    truck.advance(1800)
    assert truck.reagent_pct < 20.0 - 1
    for _ in range(48 * 6):
        truck.advance(600)
        if truck.refills:
            break
    assert truck.refills >= 1 and truck.reagent_pct > 90
    truck.start_fault()
    obd = truck.obd("LZZ5CHD09T0000007")
    assert obd.mil == 1 and len(obd.fault_codes) == 1


def test_the_demo_vins_pass_the_check_digit() -> None:
    assert all(is_valid_vin(v.vin) for v in GB_DEMO_VEHICLES)
    assert len({v.vin for v in GB_DEMO_VEHICLES}) == len(GB_DEMO_VEHICLES)
    assert not is_valid_vin("LZYTBEV04T0000001")


# ---------------------------------------------------------------- against a fake gateway


@dataclass
class FakeGbGateway:
    """Answers logins with ``login_response``; real-time / back-filled data with success (the report's
    collection time) unless ``answer_data`` says no; ``drop_after`` closes the first connection after
    that many data frames. Every decoded frame goes on ``frames``."""

    protocol: Protocol = Protocol.GB32960_2016
    login_response: int = Response.SUCCESS
    answer_data: Callable[[Message, int], bool] = lambda message, connection: True
    drop_after: int | None = None
    frames: asyncio.Queue[tuple[int, Message]] = field(default_factory=asyncio.Queue)
    connections: int = 0

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        connection, data_frames, frames = self.connections, 0, FrameReader()
        try:
            while chunk := await reader.read(65536):
                for item in frames.feed(chunk):
                    assert isinstance(item, bytes), item
                    message = decode_frame(item, protocol=self.protocol)
                    await self.frames.put((connection, message))
                    if self.protocol is Protocol.GB17691:
                        continue
                    header = message.header
                    if header.command == 0x01:
                        writer.write(self.answer(message, self.login_response))
                    elif header.command in (REALTIME, REISSUED):
                        data_frames += 1
                        if self.answer_data(message, connection):
                            writer.write(self.answer(message, Response.SUCCESS))
                        if connection == 1 and data_frames == self.drop_after:
                            return
                    else:
                        writer.write(self.answer(message, Response.SUCCESS))
        finally:
            writer.close()

    def answer(self, message: Message, response: int) -> bytes:
        body = message.body
        time = getattr(body, "collected_at", None) or getattr(body, "time", None) or START
        return encode_frame(message.header.command, TimeOnly(time), vin=message.header.vin,
                            protocol=message.header.protocol, response=response)


async def _with_gateway(gateway: FakeGbGateway, test: Callable[[int], object]) -> None:
    server = await asyncio.start_server(gateway.serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        await asyncio.wait_for(test(port), TIMEOUT)  # type: ignore[arg-type]
    finally:
        server.close()
        await server.wait_closed()


async def _next(gateway: FakeGbGateway, *commands: int) -> tuple[int, Message]:
    while True:
        connection, message = await gateway.frames.get()
        if message.header.command in commands:
            return connection, message


def test_an_unacknowledged_report_goes_up_again_as_back_filled_data_after_a_reconnect() -> None:
    # the first connection's first report is never answered and the connection drops after it
    gateway = FakeGbGateway(answer_data=lambda message, connection: connection > 1, drop_after=1)

    async def scenario(port: int) -> None:
        terminal, _ = ev_terminal(port=port, interval_s=0.05)
        stop = asyncio.Event()
        task = asyncio.create_task(terminal.run(stop))
        _, login = await _next(gateway, 0x01)
        assert isinstance(login.body, VehicleLogin) and login.body.iccid == "89860400000000000001"
        assert login.body.codes == terminal.storage_codes
        first_connection, lost = await _next(gateway, REALTIME, REISSUED)  # 0x03 if made before the login
        assert first_connection == 1
        connection, again = await _next(gateway, REISSUED)
        while again.body.collected_at != lost.body.collected_at:  # older owed reports may come first
            connection, again = await _next(gateway, REISSUED)
        assert connection == 2 and isinstance(again.body, ReissuedReport)
        assert again.body.collected_at == lost.body.collected_at  # the same report ...
        assert again.body.blocks == lost.body.blocks  # ... with the same readings
        while terminal.queue.stats.backfilled < 1:
            await asyncio.sleep(0.01)
        stop.set()
        terminal.wake()
        await task
        assert terminal.counters.connects == 2 and terminal.counters.logins == 2
        assert lost.body.collected_at not in [r.collected_at for r in terminal.queue._reports.values()]

    asyncio.run(_with_gateway(gateway, scenario))


def test_reports_made_while_the_gateway_is_away_are_back_filled_in_order() -> None:
    async def scenario() -> None:
        terminal, _ = ev_terminal(port=1, interval_s=0.02)  # nothing listens on port 1
        stop = asyncio.Event()
        task = asyncio.create_task(terminal.run(stop))
        while len(terminal.queue) < 5:
            await asyncio.sleep(0.01)
        stop.set()
        terminal.wake()
        await task
        assert terminal.counters.connect_failures >= 1 and terminal.queue.stats.sent == 0
        gateway = FakeGbGateway()
        server = await asyncio.start_server(gateway.serve, "127.0.0.1", 0)
        terminal.config.port = server.sockets[0].getsockname()[1]
        owed = [r.collected_at for r in terminal.queue._reports.values()]
        stop, task = asyncio.Event(), asyncio.create_task(terminal.run(asyncio.Event()))
        times: list[datetime] = []
        while len(times) < len(owed):
            _, message = await _next(gateway, REISSUED)
            times.append(message.body.collected_at)
        assert times == owed
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        server.close()

    asyncio.run(asyncio.wait_for(scenario(), TIMEOUT))


def test_a_vin_duplicate_answer_is_counted_and_no_data_is_sent() -> None:
    gateway = FakeGbGateway(login_response=Response.VIN_DUPLICATE)

    async def scenario(port: int) -> None:
        terminal, _ = ev_terminal(port=port, interval_s=0.05)
        stop = asyncio.Event()
        task = asyncio.create_task(terminal.run(stop))
        while terminal.counters.vin_duplicates < 2:
            await asyncio.sleep(0.01)
        stop.set()
        terminal.wake()
        await task
        assert terminal.queue.stats.sent == 0 and terminal.counters.logins == 0

    asyncio.run(_with_gateway(gateway, scenario))


def test_an_idle_terminal_heartbeats_and_logs_out_with_its_login_serial() -> None:
    gateway = FakeGbGateway()

    async def scenario(port: int) -> None:
        terminal, _ = ev_terminal(port=port, interval_s=0, heartbeat_interval_s=0.05)
        stop = asyncio.Event()
        task = asyncio.create_task(terminal.run(stop))
        await _next(gateway, 0x07)
        await _next(gateway, 0x07)
        stop.set()
        terminal.wake()
        _, logout = await _next(gateway, 0x04)
        assert logout.body.serial == terminal.login_serial == 1
        await task
        assert terminal.counters.heartbeats >= 2 and terminal.counters.logouts == 1

    asyncio.run(_with_gateway(gateway, scenario))


def test_a_diesel_terminal_logs_in_and_reports_over_gb17691() -> None:
    gateway = FakeGbGateway(protocol=Protocol.GB17691)
    vehicle = next(v for v in GB_DEMO_VEHICLES if v.protocol == "gb17691")

    async def scenario(port: int) -> None:
        settings = SimulatorSettings(seed=2, gb_emission_port=port, reconnect_min_s=0.05, reconnect_max_s=0.1)
        (terminal,) = build_gb_terminals(settings, [vehicle], 0.05, clock_start=START)
        stop = asyncio.Event()
        task = asyncio.create_task(terminal.run(stop))
        _, login = await _next(gateway, 0x01)
        assert isinstance(login.body, EmissionLogin) and login.body.iccid == vehicle.iccid
        assert login.header.vin == vehicle.vin and login.header.software_version == 1
        _, report = await _next(gateway, REALTIME)
        assert isinstance(report.body, EmissionReport) and report.body.block(EngineDataStream) is not None
        assert report.body.block(ObdInfo).vin == vehicle.vin  # the first report of a session carries OBD
        stop.set()
        terminal.wake()
        await task

    asyncio.run(_with_gateway(gateway, scenario))


def test_an_absent_gateway_is_retried_with_back_off_and_said_once(caplog: pytest.LogCaptureFixture) -> None:
    async def scenario() -> GbTerminal:
        terminal, _ = ev_terminal(port=1, interval_s=0.05, reconnect_min_s=0.01, reconnect_max_s=0.02)
        stop = asyncio.Event()
        task = asyncio.create_task(terminal.run(stop))
        while terminal.counters.connect_failures < 10:
            await asyncio.sleep(0.01)
        stop.set()
        terminal.wake()
        await task
        return terminal

    with caplog.at_level("INFO", logger="simulator.gb32960"):
        terminal = asyncio.run(asyncio.wait_for(scenario(), TIMEOUT))
    said = [r for r in caplog.records if r.levelname != "DEBUG"]
    assert terminal.counters.connect_failures >= 10 and len(said) == 1
    assert "not reachable" in said[0].getMessage() and len(terminal.queue) > 0  # its reports are kept


def test_the_queue_matches_answers_by_collection_time_else_oldest_in_flight() -> None:
    queue = ReportQueue(ack_timeout_s=10.0)
    reports = [Report(START + timedelta(seconds=i), ()) for i in range(4)]
    for report in reports:
        queue.add(report)
    for report in reports[:3]:
        queue.mark_sent(report, REALTIME, now=0.0)
    assert queue.acknowledged(reports[1].collected_at, REALTIME) is reports[1]  # by its time
    assert queue.acknowledged(None, REALTIME) is reports[0]  # no time: the oldest in flight
    assert queue.acknowledged(START - timedelta(days=1), REALTIME) is reports[2]  # an unknown time: likewise
    assert queue.acknowledged(None, REALTIME) is None and len(queue) == 1  # reports[3] was never sent
    queue.mark_sent(reports[3], REALTIME, now=0.0)
    queue.rejected(reports[3].collected_at, REALTIME)  # a failure answer: back-filled next
    assert queue.next_backfill(now=1.0) == [reports[3]] and queue.stats.rejected == 1
    queue.mark_sent(reports[3], REISSUED, now=1.0)
    assert queue.next_backfill(now=5.0) == []  # in flight, not yet overdue
    assert queue.next_backfill(now=11.0) == [reports[3]]  # overdue: sent again
    assert queue.stats.sent == 4 and queue.stats.resent == 1


def test_launcher_starts_the_gb_simulator_on_the_gb_ports(monkeypatch: pytest.MonkeyPatch) -> None:
    from fleet import launcher

    monkeypatch.setenv("FLEET_GB_GATEWAY_PORT", "17617")  # the GB gateway's ports: the simulator follows them
    monkeypatch.setenv("FLEET_GB_GATEWAY_EMISSION_PORT", "17618")
    specs = {spec.name: spec for spec in launcher.child_specs(terminals=5, simulator=True)}
    argv = specs["simulator-gb"].argv
    assert argv[argv.index("--port") + 1] == "17617" and argv[argv.index("--emission-port") + 1] == "17618"
    assert argv[argv.index("--vehicles") + 1] == "10" and specs["simulator-gb"].missing_reason() is None
    monkeypatch.setenv("FLEET_STACK_SIMULATE_GB_VEHICLES", "0")
    assert "simulator-gb" not in {spec.name for spec in launcher.child_specs(terminals=5, simulator=True)}
    assert "simulator-gb" not in {spec.name for spec in launcher.child_specs(terminals=5, simulator=False)}


def test_simulate_gb_runs_without_a_gateway_and_refuses_bad_options() -> None:
    from click.testing import CliRunner

    from simulator.gb32960.cli import simulate_gb_command

    runner = CliRunner()
    result = runner.invoke(simulate_gb_command, ["--vehicles", "3", "--interval", "0.1", "--duration", "0.35",
                                                 "--port", "1", "--emission-port", "1"])
    assert result.exit_code == 0, result.output
    stats = dict(item.split("=") for item in result.output.split())
    assert stats["terminals"] == "3" and stats["sent"] == "0" and int(stats["unacked"]) >= 3
    assert runner.invoke(simulate_gb_command, ["--vehicles", "11"]).exit_code == 2


def test_a_gateway_hanging_up_on_the_login_ends_the_session_at_once_and_odometers_go_on() -> None:
    async def hang_up(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(65536)  # the login, never answered (an unknown VIN, say)
        writer.close()

    async def scenario() -> GbTerminal:
        server = await asyncio.start_server(hang_up, "127.0.0.1", 0)
        vehicle = GB_DEMO_VEHICLES[0]
        settings = SimulatorSettings(gb_port=server.sockets[0].getsockname()[1], reconnect_min_s=0.01,
                                     reconnect_max_s=0.02)
        (terminal,) = build_gb_terminals(settings, [vehicle], 0.05, odometers={vehicle.phone: 12345.6})
        assert isinstance(terminal.reporter, EvReporter)
        assert terminal.reporter.vehicle.drive.mileage_km == 12345.6
        terminal.config.reply_timeout_s = 30.0  # far beyond the test's deadline: the close must end it
        stop = asyncio.Event()
        task = asyncio.create_task(terminal.run(stop))
        while terminal.counters.connects < 3:
            await asyncio.sleep(0.01)
        stop.set()
        terminal.wake()
        await task
        server.close()
        return terminal

    terminal = asyncio.run(asyncio.wait_for(scenario(), TIMEOUT))
    assert terminal.counters.logins == 0 and terminal.queue.stats.sent == 0


def test_an_answer_echoing_the_whole_data_unit_acknowledges_that_report() -> None:
    terminal, _ = ev_terminal()
    reports = [terminal.make_report() for _ in range(3)]
    for report in reports:
        terminal.queue.mark_sent(report, REALTIME, now=0.0)
    echo = encode_frame(REALTIME, RealtimeReport(reports[1].collected_at, reports[1].blocks), vin=terminal.vin,
                        response=Response.SUCCESS)
    terminal._on_frame(decode_frame(echo))
    assert [r.collected_at for r in terminal.queue._reports.values()] == [reports[0].collected_at,
                                                                          reports[2].collected_at]



# ---------------------------------------------------------------- platform commands (GB/T 32960.3-2016 §7.6-7.8)


class _Wire:
    def __init__(self) -> None:
        self.frames: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.frames.append(data)


def test_a_simulated_terminal_answers_parameter_query_set_and_terminal_control() -> None:
    from protocols.gb32960.messages.params import ParameterQuery, ParameterSet, TerminalControl

    terminal, _ = ev_terminal()
    wire = _Wire()
    at = START.replace(microsecond=0)

    def platform(command: int, body: object) -> Message:
        frame = encode_frame(command, body, vin=terminal.vin, protocol=terminal.protocol, response=Response.COMMAND)
        terminal._on_frame(decode_frame(frame, protocol=terminal.protocol))
        answer = decode_frame(wire.frames[-1], protocol=terminal.protocol)
        assert (answer.header.command, answer.header.response) == (command, Response.SUCCESS)
        return answer

    async def run() -> None:
        terminal._writer = wire  # type: ignore[assignment]
        every = platform(0x80, ParameterQuery(at))
        values = dict(every.body.values)  # type: ignore[union-attr]
        assert values[0x02] == 10 and values[0x05] == "127.0.0.1" and values[0x04] == len("127.0.0.1")
        platform(0x81, ParameterSet(at, ((0x02, 30), (0x07, "HACK1"))))
        asked = platform(0x80, ParameterQuery(at, (0x02, 0x07)))
        assert dict(asked.body.values) == {0x02: 30, 0x07: "SIM01"}  # type: ignore[union-attr]  # versions read only
        reset = platform(0x82, TerminalControl(at, 3))
        assert reset.body.command == 3  # type: ignore[union-attr]

    asyncio.run(run())


def test_a_gb17691_terminal_ignores_platform_commands() -> None:
    from protocols.gb32960.messages.params import ParameterQuery

    terminal, _ = ev_terminal(Protocol.GB17691)
    wire = _Wire()
    frame = encode_frame(0x80, ParameterQuery(START.replace(microsecond=0)), vin=terminal.vin,
                         protocol=Protocol.GB32960_2016, response=Response.COMMAND)
    terminal._writer = wire  # type: ignore[assignment]
    terminal._on_frame(decode_frame(frame))
    assert wire.frames == []
