"""`simulate_command`: the click command behind `python -m simulator` and `fleet simulate`."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path

import click

from fleet.settings import SimulatorSettings
from simulator.fleet import run_fleet


def read_odometers(path: Path) -> dict[str, float]:
    """{phone: km} from ``path`` (``fleet up`` writes the vehicles' last stored odometers there); a missing
    file is no odometers (random ones). Raises click.BadParameter for a file that is not such an object."""
    if not path.exists():
        logging.getLogger(__name__).info("no odometer file %s: the vehicles start with random odometers", path)
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        return {str(phone): float(km) for phone, km in data.items()}
    except (ValueError, TypeError) as exc:
        raise click.BadParameter(f"{path}: expected a JSON object of phone -> km ({exc})", param_hint="--odometers") from None


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
@click.option("--odometers", "odometers_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="JSON {phone: km}: the odometer each vehicle goes on from (a missing file: random ones)")
def simulate_command(terminals: int, interval_s: float, duration_s: float | None, first_index: int,
                     sent_log: Path | None, host: str | None, port: int | None, seed: int | None,
                     protocol_version: str | None, odometers_file: Path | None) -> None:
    """Run virtual JT/T 808 terminals against a gateway and print what they sent and got acknowledged."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    overrides = {k: v for k, v in {"gateway_host": host, "gateway_port": port, "seed": seed,
                                   "protocol_version": protocol_version}.items() if v is not None}
    settings = SimulatorSettings().model_copy(update=overrides)
    odometers = read_odometers(odometers_file) if odometers_file is not None else None
    try:
        stats = asyncio.run(run_fleet(settings, terminals, interval_s, duration_s, first_index=first_index,
                                      sent_log=sent_log, odometers=odometers))
    except KeyboardInterrupt:
        return
    click.echo(" ".join(f"{k}={v}" for k, v in stats.as_dict().items()))
