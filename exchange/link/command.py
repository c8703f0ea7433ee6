"""``fleet exchange``: the link service. Runs a PlatformService per enabled superior platform, re-reads the rows
every ``FLEET_EXCHANGE_RELOAD_S`` (a new, changed or disabled row starts, restarts or stops its links) and idles
when there is none. A platform whose service fails is restarted at the next reload; the others keep running.
While an enabled inferior platform row exists it also runs the superior service (exchange/superior: the main
link server on FLEET_EXCHANGE_SUPERIOR_PORT), restarted the same way when it fails. The GB/T 32960 superior
platforms (exchange/gb32960: one Gb32960PlatformService per enabled gb32960_superior_platform row) are run the
same way, their rows re-read every FLEET_GB32960_EXCHANGE_RELOAD_S.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from typing import Any

import click

from exchange.gb32960.service import Gb32960PlatformService
from exchange.link.service import PlatformService
from exchange.link.video_requests import video_address
from exchange.superior.service import SuperiorService
from fleet.kafka_clients import aiokafka_options
from fleet.media_client import MediaClient
from fleet.settings import (
    ExchangeSettings,
    Gb32960ExchangeSettings,
    MediaServerSettings,
    StackSettings,
    database_url,
    kafka_bootstrap,
)
from warehouse.db import connect
from warehouse.queries import exchange as q
from warehouse.queries import exchange_inferior as qi
from warehouse.queries import gb32960_exchange as qg

log = logging.getLogger(__name__)


def _platforms(url: str) -> tuple[list[q.SuperiorPlatform], bool]:
    """The enabled superior platforms, and whether an enabled inferior platform exists."""
    with connect(url, autocommit=True) as conn:
        return q.enabled_platforms(conn), qi.any_enabled(conn)


def _gb32960_platforms(url: str) -> list[qg.Gb32960Superior]:
    with connect(url, autocommit=True) as conn:
        return qg.enabled_platforms(conn)


async def serve_gb32960(url: str, bootstrap: str, settings: Gb32960ExchangeSettings) -> None:
    """The GB/T 32960 superior platforms: a new, changed (its row or its vehicles) or disabled row starts, restarts
    or stops its link; a platform whose service failed is restarted at the next reload."""
    running: dict[int, tuple[qg.Gb32960Superior, asyncio.Task[Any]]] = {}
    try:
        while True:
            try:
                wanted = {p.id: p for p in await asyncio.to_thread(_gb32960_platforms, url)}
            except Exception:
                log.exception("cannot read the gb32960 superior platforms; keeping the links as they are")
                wanted = {pid: platform for pid, (platform, _) in running.items()}
            for pid, (platform, task) in list(running.items()):
                if pid not in wanted or wanted[pid] != platform or task.done():
                    task.cancel()
                    del running[pid]
            for pid, platform in wanted.items():
                if pid not in running:
                    service = Gb32960PlatformService(platform, url, bootstrap, settings, aiokafka_options())
                    running[pid] = (platform, asyncio.create_task(service.run(), name=f"gb32960-exchange-{pid}"))
                    log.info("gb32960 superior platform %s (%s:%s, GB/T 32960-%s, %d vehicles) started", pid,
                             platform.host, platform.port, platform.version, len(platform.car_ids))
            await asyncio.sleep(settings.reload_s)
    finally:
        tasks = [task for _, task in running.values()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def serve(url: str, bootstrap: str, settings: ExchangeSettings) -> None:
    media = MediaClient.from_settings(MediaServerSettings(), StackSettings().var_dir)
    video_address(settings, media.settings)  # a wildcard video address fails here, naming the setting
    running: dict[int, tuple[q.SuperiorPlatform, asyncio.Task[Any]]] = {}
    superior: asyncio.Task[Any] | None = None
    try:
        while True:
            try:
                platforms, inferiors = await asyncio.to_thread(_platforms, url)
                wanted = {p.id: p for p in platforms}
            except Exception:
                log.exception("cannot read the exchange platforms; keeping the links as they are")
                wanted = {pid: platform for pid, (platform, _) in running.items()}
                inferiors = superior is not None
            if superior is not None and (superior.done() or not inferiors):
                superior.cancel()
                superior = None
            if inferiors and superior is None:
                superior = asyncio.create_task(SuperiorService(url, settings).run(), name="exchange-superior")
                log.info("superior service started on %s:%s", settings.superior_host, settings.superior_port)
            for pid, (platform, task) in list(running.items()):
                if pid not in wanted or wanted[pid].updated_at != platform.updated_at or task.done():
                    task.cancel()
                    del running[pid]
            for pid, platform in wanted.items():
                if pid not in running:
                    service = PlatformService(platform, url, bootstrap, settings, aiokafka_options(), media)
                    running[pid] = (platform, asyncio.create_task(service.run(), name=f"exchange-{pid}"))
                    log.info("superior platform %s (%s:%s, JT/T 809-%s) started", pid, platform.host, platform.port,
                             platform.version)
            await asyncio.sleep(settings.reload_s)
    finally:
        tasks = [task for _, task in running.values()] + ([superior] if superior is not None else [])
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def _until_signalled() -> None:
    """Serve until SIGINT / SIGTERM, then stop the platforms (each saves its link state on the way out)."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    tasks = [asyncio.create_task(serve(database_url(), kafka_bootstrap(), ExchangeSettings())),
             asyncio.create_task(serve_gb32960(database_url(), kafka_bootstrap(), Gb32960ExchangeSettings()))]
    stopping = asyncio.create_task(stop.wait())
    await asyncio.wait({*tasks, stopping}, return_when=asyncio.FIRST_COMPLETED)
    for task in tasks:
        task.cancel()
    for task in tasks:
        with contextlib.suppress(asyncio.CancelledError):
            await task


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    asyncio.run(_until_signalled())


@click.command("exchange")
def exchange_command() -> None:
    """Run the JT/T 809 links to the configured superior platforms (fleetwatch as the inferior platform), the
    server for the configured inferior platforms (fleetwatch as the superior platform), and the GB/T 32960 links to
    the configured gb32960 superior platforms."""
    main()
