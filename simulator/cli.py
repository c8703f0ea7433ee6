"""`simulate_command`: the click command behind `python -m simulator` and `fleet simulate`."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import click

from fleet.settings import SimulatorSettings
from simulator.fleet import run_fleet


@click.command("simulate")
@click.option("--terminals", default=100, show_default=True, help="number of virtual terminals")
@click.option("--interval", "interval_s", default=5.0, show_default=True,
              help="seconds between position reports (0: heartbeats only)")
@click.option("--duration", "duration_s", type=float, default=None, help="seconds to run (default: until Ctrl-C)")
@click.option("--first-index", default=1, show_default=True, help="index of the first terminal (phone suffix)")
@click.option("--sent-log", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="CSV of phone,fix_at for every position sent")
@click.option("--host", default=None, help="gateway host (FLEET_SIMULATOR_GATEWAY_HOST)")
@click.option("--port", type=int, default=None, help="gateway port (FLEET_SIMULATOR_GATEWAY_PORT)")
@click.option("--seed", type=int, default=None, help="random seed (FLEET_SIMULATOR_SEED)")
@click.option("--protocol-version", type=click.Choice(["2011", "2013", "2019"]), default=None)
def simulate_command(terminals: int, interval_s: float, duration_s: float | None, first_index: int,
                     sent_log: Path | None, host: str | None, port: int | None, seed: int | None,
                     protocol_version: str | None) -> None:
    """Run virtual JT/T 808 terminals against a gateway and print what they sent and got acknowledged."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    overrides = {k: v for k, v in {"gateway_host": host, "gateway_port": port, "seed": seed,
                                   "protocol_version": protocol_version}.items() if v is not None}
    settings = SimulatorSettings().model_copy(update=overrides)
    try:
        stats = asyncio.run(run_fleet(settings, terminals, interval_s, duration_s, first_index=first_index,
                                      sent_log=sent_log))
    except KeyboardInterrupt:
        return
    click.echo(" ".join(f"{k}={v}" for k, v in stats.as_dict().items()))
