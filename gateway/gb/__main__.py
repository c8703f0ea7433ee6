"""`python -m gateway.gb`: run the GB/T 32960 and GB 17691 / HJ 1239 gateway with settings from the
environment (FLEET_GB_GATEWAY_*, FLEET_DATABASE_URL, FLEET_KAFKA_BOOTSTRAP)."""

from __future__ import annotations

import asyncio
import logging
import signal

from fleet.gc_tuning import tune_gc
from fleet.settings import DatabaseSettings, GatewaySettings, GbGatewaySettings, database_url, kafka_bootstrap
from gateway.gb.server import run_gb_gateway


async def _main() -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    db = DatabaseSettings()
    await run_gb_gateway(GbGatewaySettings(), database_url(db), kafka_bootstrap(), stop, pool_max=min(4, db.pool_max))


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    logging.getLogger("aiokafka").setLevel(logging.WARNING)
    tune_gc(GatewaySettings().gc_threshold)
    import uvloop

    uvloop.run(_main())


if __name__ == "__main__":
    main()
