"""The GB demo vehicles in one process: ``run_gb_fleet(settings, vehicles, interval_s, ...)``.

Vehicle ``v`` of ``fleet.demo_fleet.GB_DEMO_VEHICLES`` (seeded by ``warehouse.seed``) becomes one terminal:
an electric bus or van, or a fuel-cell bus (``simulator.gb32960.ev``), speaking GB/T 32960 in its device's framing (2016 ``##`` or
2025 ``$$``) to ``gb_port``, or a diesel truck (``simulator.gb32960.diesel``) speaking GB 17691 / HJ 1239 to
``gb_emission_port``. Deterministic for a seed: driving, battery, alarms and timing jitter come from
``random.Random(f"{seed}:gb:{index}")``; only the network decides what is back-filled.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime

from fleet.demo_fleet import GbDemoVehicle
from fleet.driving_model import DrivingModel
from fleet.settings import SimulatorSettings
from protocols.gb32960 import Protocol
from simulator.gb32960.battery import SPECS
from simulator.gb32960.diesel import DieselTruck
from simulator.gb32960.ev import ElectricVehicle, FuelCellBus
from simulator.gb32960.frames import EvReporter, TruckReporter
from simulator.gb32960.fuel_cell import BUS_STACK
from simulator.gb32960.terminal import GbTerminal, GbTerminalConfig

log = logging.getLogger("simulator.gb32960")


@dataclass
class GbFleetStats:
    terminals: int = 0
    logged_in: int = 0
    sent: int = 0
    acked: int = 0
    backfilled: int = 0
    resent: int = 0
    unacked: int = 0
    connects: int = 0
    connect_failures: int = 0
    login_refusals: int = 0
    vin_duplicates: int = 0
    heartbeats: int = 0
    logouts: int = 0
    charging_sessions: int = 0
    refuellings: int = 0
    battery_alarms: int = 0
    reagent_refills: int = 0

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


def storage_code(vehicle: GbDemoVehicle) -> str:
    """The 24-character code of the vehicle's battery pack (GB/T 34014's length) sent at login."""
    return f"FWSIMPACK{vehicle.index:03d}{vehicle.vin[-12:]}"


def frame_protocol(vehicle: GbDemoVehicle) -> Protocol:
    if not vehicle.electric:
        return Protocol.GB17691  # HJ 1239 terminals speak GB 17691's frames
    return Protocol.GB32960_2025 if vehicle.protocol_version == "2025" else Protocol.GB32960_2016


def build_gb_terminals(settings: SimulatorSettings, vehicles: Sequence[GbDemoVehicle], interval_s: float, *,
                       clock_start: datetime | None = None,
                       odometers: Mapping[str, float] | None = None) -> list[GbTerminal]:
    """``odometers``: per device phone (canonical), the odometer (km) each vehicle goes on from, as the 808
    simulator's (``fleet up`` writes them from ``device_last``), else a random one."""
    model = DrivingModel.from_settings(settings)  # the 808 fleet's model and area
    start = clock_start or datetime.now(UTC)
    built = []
    for v in vehicles:
        rng = random.Random(f"{settings.seed}:gb:{v.index}")
        reporter: EvReporter | TruckReporter
        codes: tuple[str, ...]
        if v.electric:
            ev = (FuelCellBus(rng, SPECS[v.kind], BUS_STACK, model, alarm_rate_per_hour=settings.gb_alarm_rate_per_hour,
                              mileage_km=(odometers or {}).get(v.phone)) if v.kind == "fcbus" else
                  ElectricVehicle(rng, SPECS[v.kind], model, alarm_rate_per_hour=settings.gb_alarm_rate_per_hour,
                                  mileage_km=(odometers or {}).get(v.phone)))
            reporter, port, codes = EvReporter(ev, frame_protocol(v)), settings.gb_port, (storage_code(v),)
        else:
            truck = DieselTruck(rng, model, fault_rate_per_hour=settings.gb_fault_rate_per_hour,
                                mileage_km=(odometers or {}).get(v.phone))
            reporter, port, codes = TruckReporter(truck, v.vin), settings.gb_emission_port, ()
        config = GbTerminalConfig(host=settings.gateway_host, port=port, interval_s=interval_s,
                                  heartbeat_interval_s=settings.heartbeat_interval_s,
                                  ack_timeout_s=settings.ack_timeout_s, reconnect_min_s=settings.reconnect_min_s,
                                  reconnect_max_s=settings.reconnect_max_s)
        built.append(GbTerminal(v.vin, frame_protocol(v), config, reporter,
                                random.Random(f"{settings.seed}:gb:{v.index}:session"), clock=start, iccid=v.iccid,
                                storage_codes=codes))
    return built


def collect_gb_stats(terminals: Sequence[GbTerminal], stats: GbFleetStats | None = None) -> GbFleetStats:
    stats = stats if stats is not None else GbFleetStats()
    for name in stats.as_dict():
        setattr(stats, name, 0)
    stats.terminals = len(terminals)
    for t in terminals:
        q, c = t.queue.stats, t.counters
        stats.logged_in += c.logged_in
        stats.sent += q.sent
        stats.acked += q.acked
        stats.backfilled += q.backfilled
        stats.resent += q.resent
        stats.unacked += len(t.queue)
        stats.connects += c.connects
        stats.connect_failures += c.connect_failures
        stats.login_refusals += c.login_refusals
        stats.vin_duplicates += c.vin_duplicates
        stats.heartbeats += c.heartbeats
        stats.logouts += c.logouts
        if isinstance(t.reporter, EvReporter):
            stats.charging_sessions += t.reporter.vehicle.charging_sessions
            if isinstance(t.reporter.vehicle, FuelCellBus):
                stats.refuellings += t.reporter.vehicle.refuellings
            stats.battery_alarms += t.reporter.vehicle.battery.alarms.episodes
        elif isinstance(t.reporter, TruckReporter):
            stats.reagent_refills += t.reporter.truck.refills
    return stats


async def run_gb_fleet(settings: SimulatorSettings, vehicles: Sequence[GbDemoVehicle], interval_s: float,
                       duration_s: float | None = None, stats: GbFleetStats | None = None, *,
                       stop: asyncio.Event | None = None, drain_timeout_s: float = 10.0,
                       progress_interval_s: float = 60.0,
                       odometers: Mapping[str, float] | None = None) -> GbFleetStats:
    """Run the vehicles' terminals for ``duration_s`` (None: until ``stop``), then give them
    ``drain_timeout_s`` to have what they sent acknowledged and log out. Returns the stats (also kept
    current in ``stats``)."""
    stop = stop or asyncio.Event()
    stats = stats if stats is not None else GbFleetStats()
    fleet = build_gb_terminals(settings, vehicles, interval_s, odometers=odometers)
    sessions_stop, reporting_stop = asyncio.Event(), asyncio.Event()
    loop = asyncio.get_running_loop()
    tasks = [loop.create_task(t.run(sessions_stop, reporting_stop)) for t in fleet]
    progress = loop.create_task(_progress(fleet, stats, progress_interval_s))
    try:
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(duration_s):
                await stop.wait()
        reporting_stop.set()
        deadline = loop.time() + drain_timeout_s
        while loop.time() < deadline and any(len(t.queue) and t.counters.logged_in for t in fleet):
            await asyncio.sleep(0.1)
    finally:
        reporting_stop.set()
        sessions_stop.set()
        for terminal in fleet:
            terminal.wake()
        progress.cancel()
        await asyncio.gather(*tasks, progress, return_exceptions=True)
        collect_gb_stats(fleet, stats)
    return stats


async def _progress(fleet: list[GbTerminal], stats: GbFleetStats, interval_s: float) -> None:
    while True:
        await asyncio.sleep(interval_s)
        collect_gb_stats(fleet, stats)
        log.info("GB simulator %s", " ".join(f"{k}={v}" for k, v in stats.as_dict().items()))
