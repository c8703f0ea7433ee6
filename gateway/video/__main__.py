"""``python -m gateway.video``: the media server with its database and Kafka (``fleet up`` runs it)."""

from __future__ import annotations

import asyncio
import logging
import signal

from fleet.settings import MediaServerSettings, StackSettings, database_url, kafka_bootstrap
from fleet.video_tokens import media_secret
from gateway.video.platform import PostgresKafkaPlatform
from gateway.video.server import MediaServer


async def serve(settings: MediaServerSettings) -> None:
    secret = media_secret(settings.secret, StackSettings().var_dir)
    platform = PostgresKafkaPlatform(database_url(), kafka_bootstrap(), pool_max=settings.db_pool_max,
                                     ack_timeout_s=settings.kafka_ack_timeout_s)
    await platform.open()
    server = MediaServer(settings, secret, platform)
    await server.start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
    finally:
        await server.close()
        await platform.close()


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("aiokafka").setLevel(logging.WARNING)
    asyncio.run(serve(MediaServerSettings()))


if __name__ == "__main__":
    main()
