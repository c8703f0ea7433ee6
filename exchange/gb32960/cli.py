"""``fleet gb32960-exchange-sim``: run the GB/T 32960 superior in a box until Ctrl-C (or ``--duration``); one log
line per platform login, and the count of data frames received every 10 s."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal

import click

from exchange.gb32960.box import SuperiorBox, parse_account, parse_aes
from fleet.settings import Gb32960ExchangeSettings
from protocols.gb32960.cipher import AesKey

log = logging.getLogger(__name__)


async def serve(host: str, port: int, accounts: dict[str, str], duration_s: float | None,
                keys: dict[str, AesKey] | None = None) -> None:
    box = SuperiorBox(accounts, host, port, keys)
    await box.start()
    click.echo(f"gb32960 superior in a box on {host}:{box.port} ({len(accounts)} account(s))", err=True)
    stopped = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stopped.set)
    try:
        async with asyncio.timeout(duration_s):
            while not stopped.is_set():
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(10):
                        await stopped.wait()
                counts = box.status.counts
                log.info("received %d real-time and %d back-filled frames (%d of them AES-128), %d heartbeats",
                         counts[0x02, False] + counts[0x02, True], counts[0x03, False] + counts[0x03, True],
                         counts[0x02, True] + counts[0x03, True], box.status.heartbeats)
    except TimeoutError:
        pass
    finally:
        await box.stop()


@click.command("gb32960-exchange-sim")
@click.option("--host", default=None, help="bind address (FLEET_GB32960_EXCHANGE_BOX_HOST)")
@click.option("--port", type=int, default=None, help="port, 0: any free (FLEET_GB32960_EXCHANGE_BOX_PORT)")
@click.option("--account", "accounts", multiple=True,
              help="USERNAME:PASSWORD, repeatable (FLEET_GB32960_EXCHANGE_BOX_ACCOUNTS)")
@click.option("--aes", "aes_keys", multiple=True,
              help="USERNAME:KEYHEX:IVHEX, repeatable: the AES-128 key and IV of an account that encrypts "
                   "(FLEET_GB32960_EXCHANGE_BOX_AES)")
@click.option("--duration", type=float, default=None, help="stop after this many seconds")
def gb32960_exchange_sim_command(host: str | None, port: int | None, accounts: tuple[str, ...],
                                 aes_keys: tuple[str, ...], duration: float | None) -> None:
    """Run a GB/T 32960 superior platform that accepts platform logins and records the data it gets (tests, demo)."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    settings = Gb32960ExchangeSettings()
    try:
        parsed = dict(parse_account(a) for a in (accounts or settings.box_accounts))
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--account") from None
    try:
        keys = dict(parse_aes(k) for k in (aes_keys or settings.box_aes))
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--aes") from None
    if unknown := sorted(set(keys) - set(parsed)):
        raise click.BadParameter(f"no account {', '.join(unknown)}", param_hint="--aes")
    asyncio.run(serve(host or settings.box_host, settings.box_port if port is None else port, parsed, duration,
                      keys))
