"""`python -m gateway`: run the JT/T 808 gateway with settings from the environment (FLEET_GATEWAY_*)."""

from __future__ import annotations

import asyncio
import logging
import signal

from fleet.gc_tuning import tune_gc
from fleet.settings import (
    DatabaseSettings,
    GatewaySettings,
    apply_protocol_variant,
    database_url,
    kafka_bootstrap,
)
from gateway.server import run_gateway


async def _main() -> None:
    settings = GatewaySettings()
    apply_protocol_variant()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    db = DatabaseSettings()
    await run_gateway(settings, database_url(db), kafka_bootstrap(), stop, pool_max=db.pool_max)


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    logging.getLogger("aiokafka").setLevel(logging.WARNING)
    tune_gc(GatewaySettings().gc_threshold)
    if GatewaySettings().event_loop == "uvloop":
        import uvloop

        uvloop.run(_main())
    else:
        asyncio.run(_main())


if __name__ == "__main__":
    main()
