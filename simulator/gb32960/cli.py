"""`simulate_gb_command`: the click command behind `fleet simulate-gb` and `python -m simulator.gb32960`."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import click

from fleet.demo_fleet import GB_DEMO_VEHICLES, gb_demo_vehicles
from fleet.settings import SimulatorSettings
from simulator.cli import read_odometers
from simulator.gb32960.fleet import run_gb_fleet


@click.command("simulate-gb")
@click.option("--vehicles", default=len(GB_DEMO_VEHICLES), show_default=True,
              type=click.IntRange(0, len(GB_DEMO_VEHICLES)),
              help="the first N GB demo vehicles (6 electric over GB/T 32960, then 4 diesel over GB 17691 / HJ 1239)")
@click.option("--interval", "interval_s", type=float, default=None,
              help="seconds between real-time reports (FLEET_SIMULATOR_GB_INTERVAL_S)")
@click.option("--duration", "duration_s", type=float, default=None, help="seconds to run (default: until Ctrl-C)")
@click.option("--host", default=None, help="GB gateway host (FLEET_SIMULATOR_GATEWAY_HOST)")
@click.option("--port", type=int, default=None, help="GB/T 32960 port (FLEET_SIMULATOR_GB_PORT)")
@click.option("--emission-port", type=int, default=None, help="GB 17691 / HJ 1239 port (FLEET_SIMULATOR_GB_EMISSION_PORT)")
@click.option("--seed", type=int, default=None, help="random seed (FLEET_SIMULATOR_SEED)")
@click.option("--odometers", "odometers_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="JSON {phone: km}: the odometer each vehicle goes on from (a missing file: random ones)")
def simulate_gb_command(vehicles: int, interval_s: float | None, duration_s: float | None, host: str | None,
                        port: int | None, emission_port: int | None, seed: int | None,
                        odometers_file: Path | None) -> None:
    """Run the simulated electric buses and vans (GB/T 32960) and diesel trucks (GB 17691 / HJ 1239) of the
    demo against the GB gateway and print what they sent and got acknowledged."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    overrides = {k: v for k, v in {"gateway_host": host, "gb_port": port, "gb_emission_port": emission_port,
                                   "seed": seed}.items() if v is not None}
    settings = SimulatorSettings().model_copy(update=overrides)
    try:
        stats = asyncio.run(run_gb_fleet(settings, gb_demo_vehicles(vehicles),
                                         interval_s if interval_s is not None else settings.gb_interval_s,
                                         duration_s,
                                         odometers=read_odometers(odometers_file) if odometers_file else None))
    except KeyboardInterrupt:
        return
    click.echo(" ".join(f"{k}={v}" for k, v in stats.as_dict().items()))
