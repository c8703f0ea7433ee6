"""``fleet exchange-sim``: run the regulator in a box until Ctrl-C (or ``--duration``)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal

import click

from exchange.regulator.schedule import Schedule, Scheduled
from exchange.regulator.status_http import StatusServer
from exchange.superior.accounts import Account, parse_account, parse_keys
from exchange.superior.links import Timing
from fleet.settings import RegulatorSettings


def build(settings: RegulatorSettings, accounts: list[Account]) -> Scheduled:
    timing = Timing(settings.sub_heartbeat_s, settings.sub_reply_timeout_s, settings.reconnect_min_s,
                    settings.reconnect_max_s, settings.main_idle_s)
    schedule = Schedule(settings.inspection_minutes, settings.count_minutes, settings.urge_alarms,
                        settings.video_minutes)
    return Scheduled(accounts, host=settings.host, port=settings.port, timing=timing, schedule=schedule,
                     max_platforms=settings.max_platforms or None)


async def serve(settings: RegulatorSettings, accounts: list[Account], duration_s: float | None) -> None:
    regulator = build(settings, accounts)
    await regulator.start()
    status = StatusServer(regulator, asyncio.get_running_loop(), settings.status_port)
    status.start()
    click.echo(f"regulator main link on {settings.host}:{regulator.port}, status on http://127.0.0.1:{status.port}/status",
               err=True)
    stopped = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stopped.set)
    schedule = loop.create_task(regulator.run_schedule())
    try:
        async with asyncio.timeout(duration_s):
            await stopped.wait()
    except TimeoutError:
        pass
    finally:
        schedule.cancel()
        status.stop()
        await regulator.stop()


@click.command("exchange-sim")
@click.option("--host", default=None, help="main link bind address (FLEET_REGULATOR_HOST)")
@click.option("--port", type=int, default=None, help="main link port, 0: any free (FLEET_REGULATOR_PORT)")
@click.option("--status-port", type=int, default=None, help="loopback HTTP status port (FLEET_REGULATOR_STATUS_PORT)")
@click.option("--account", "accounts", multiple=True,
              help="USER:PASSWORD:CENTRE[:VERSION], repeatable (FLEET_REGULATOR_ACCOUNTS)")
@click.option("--keys", default=None, help="M1:IA1:IC1 for encrypted links (FLEET_REGULATOR_KEYS)")
@click.option("--encrypt-key", type=int, default=None, help="ENCRYPT_KEY of our frames (FLEET_REGULATOR_ENCRYPT_KEY)")
@click.option("--inspection-minutes", type=float, default=None, help="inspection interval, 0: none")
@click.option("--count-minutes", type=float, default=None, help="0x9101 interval, 0: none")
@click.option("--no-urging", is_flag=True, help="send no urging for alarms and no greeting message")
@click.option("--video-minutes", type=float, default=None, help="live video request (0x9801) interval, 0: none")
@click.option("--duration", "duration_s", type=float, default=None, help="seconds to run (default: until Ctrl-C)")
def exchange_sim_command(host: str | None, port: int | None, status_port: int | None, accounts: tuple[str, ...],
                         keys: str | None, encrypt_key: int | None, inspection_minutes: float | None,
                         count_minutes: float | None, no_urging: bool, video_minutes: float | None,
                         duration_s: float | None) -> None:
    """The regulator in a box: a JT/T 809 superior platform that accepts inferior platforms (fleet exchange),
    opens their sub links, checks and counts every frame and sends inspections, urgings and messages."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    overrides = {k: v for k, v in {
        "host": host, "port": port, "status_port": status_port, "accounts": list(accounts) or None, "keys": keys,
        "encrypt_key": encrypt_key, "inspection_minutes": inspection_minutes, "count_minutes": count_minutes,
        "urge_alarms": False if no_urging else None, "video_minutes": video_minutes}.items() if v is not None}
    settings = RegulatorSettings().model_copy(update=overrides)
    try:
        cipher = parse_keys(settings.keys) if settings.keys else None
        parsed = [parse_account(text, cipher, settings.encrypt_key) for text in settings.accounts]
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--account / --keys") from None
    if not parsed:
        raise click.BadParameter("at least one account is needed", param_hint="--account")
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(settings, parsed, duration_s))
