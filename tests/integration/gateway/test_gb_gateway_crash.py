"""kill -9 of the GB gateway process loses nothing it answered: every real-time frame answered success is
in Kafka (answers are written only from Kafka's delivery report, docs/architecture.md §2)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import pytest

from fleet.gb32960_records import GbUplink
from fleet.topics import GB32960_UPLINK
from protocols.gb32960 import Response, TimeOnly
from tests.integration.gateway.gb_support import (
    GbTerminal,
    insert_vehicle,
    login_body,
    nth_time,
    realtime_body,
    unique_vin,
)
from tests.integration.gateway.support import tail
from tests.support.processes import GbGatewayProcess

pytestmark = pytest.mark.timeout(120)


def test_kill_9_of_the_gb_gateway_loses_no_answered_frame(
        pg_url: str, kafka_bootstrap: str, stack_env: dict[str, str], free_port: Callable[[], int],
        tmp_path: Path) -> None:
    vin = unique_vin()
    insert_vehicle(pg_url, vin)
    # a terminal of the test sends as fast as it can: the per-connection flood limit is lifted
    env = {**stack_env, "FLEET_GB_GATEWAY_MAX_FRAMES_PER_S": "100000"}
    gateway = GbGatewayProcess(env, free_port(), free_port(), tmp_path / "gb-gateway.log", "gb-crash")

    async def main() -> tuple[set[datetime], int, set[datetime]]:
        async with tail(kafka_bootstrap, GB32960_UPLINK) as uplinks:
            gateway.start()
            terminal = await GbTerminal.connect(gateway.port, vin)
            await terminal.send(0x01, login_body())
            assert (await terminal.receive(timeout_s=15)).header.response == Response.SUCCESS
            answered: set[datetime] = set()
            sent = 0

            async def read_answers() -> None:
                with contextlib.suppress(ConnectionError, OSError, TimeoutError):
                    while True:
                        answer = await terminal.receive(timeout_s=30)
                        if answer.header.command == 0x02 and answer.header.response == Response.SUCCESS:
                            assert isinstance(answer.body, TimeOnly)
                            answered.add(answer.body.time)

            reader = asyncio.create_task(read_answers())
            loop = asyncio.get_running_loop()
            deadline = loop.time() + 30
            killed_at: float | None = None
            with contextlib.suppress(ConnectionError, OSError):
                # keep frames flowing; SIGKILL once 100 were answered, with more still on their way to Kafka
                while loop.time() < deadline and (killed_at is None or loop.time() < killed_at + 1.0):
                    sent += 1
                    await terminal.send(0x02, realtime_body(nth_time(sent)))
                    if sent % 10 == 0:
                        await asyncio.sleep(0.005)
                    if killed_at is None and len(answered) >= 100:
                        gateway.kill()
                        killed_at = loop.time()
            assert killed_at is not None, f"fewer than 100 frames answered in 30 s ({len(answered)} of {sent})"
            await asyncio.wait_for(reader, 35)
            await terminal.close()
            stored = {datetime.fromisoformat(GbUplink.from_json(item).message["body"]["collected_at"])
                      for item in await uplinks.records(min_count=10**9, timeout_s=5)
                      if item.get("vin") == vin and item.get("command") == 0x02}
            return answered, sent, stored

    try:
        answered, sent, stored = asyncio.run(main())
    finally:
        gateway.kill()
    assert len(answered) >= 100, f"too few frames answered before the kill to prove anything: {len(answered)} of {sent}"
    assert len(answered) < sent, "killed too late: every frame was answered"
    lost = answered - stored
    assert not lost, f"{len(lost)} of {len(answered)} answered frames are missing from Kafka"
    print(f"sent {sent}, answered {len(answered)}, stored {len(stored)}")
