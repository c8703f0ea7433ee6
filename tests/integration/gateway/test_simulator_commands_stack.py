"""The simulator's terminal against the real gateway (and Kafka, PostgreSQL): two commands written
back to back are each answered with the serial the gateway used, and a photo command ends with the
photo stored by the gateway and the terminal's upload completed by the gateway's 0x8800."""

from __future__ import annotations

import asyncio
import io
import random
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from fleet.media_store import LocalMediaStore
from fleet.topics import JT808_SENT, JT808_UPLINK
from protocols.jt808 import CameraShoot, QueryParameters, QuerySpecifiedParameters
from simulator.driving import Vehicle
from simulator.fleet import MemoryAuthStore
from simulator.terminal import TerminalConfig, VirtualTerminal
from tests.integration.gateway.support import TopicTail, insert_devices, running_gateway, tail, unique_phones

pytestmark = pytest.mark.timeout(120)


def _terminal(port: int, phone: str, code: str) -> VirtualTerminal:
    config = TerminalConfig(host="127.0.0.1", port=port, interval_s=1.0, heartbeat_interval_s=30, ack_timeout_s=10,
                            backlog_batch_items=20, reconnect_min_s=0.2, reconnect_max_s=1, reply_timeout_s=10)
    rng = random.Random(phone)
    return VirtualTerminal(index=1, phone=phone, terminal_id=f"SIM{phone[-7:]}", config=config,
                           vehicle=Vehicle(rng, 31.23, 121.47, 5), rng=rng, auth_store=MemoryAuthStore({phone: code}),
                           fix_clock=datetime.now(UTC).replace(microsecond=0), plate="沪A·12345")


async def _until(condition: Callable[[], bool], timeout_s: float = 20.0) -> None:
    async with asyncio.timeout(timeout_s):
        while not condition():
            await asyncio.sleep(0.02)


async def _mine(topic: TopicTail, canonical: str, timeout_s: float = 10.0) -> list[dict[str, Any]]:
    """Records of this test's terminal (its phone with or without the leading zero)."""
    records = await topic.records(min_count=1, timeout_s=timeout_s)
    return [r for r in records if str(r.get("phone", "")).lstrip("0") == canonical]


def _by_msg(records: list[dict[str, Any]], msg_id: int) -> list[dict[str, Any]]:
    return [r for r in records if r["msg_id"] == msg_id]


def test_simulated_terminal_answers_paced_commands_and_uploads_a_photo_the_gateway_stores(
        pg_url: str, kafka_bootstrap: str, free_port: Callable[[], int], tmp_path: Path) -> None:
    [phone] = unique_phones(1)
    canonical = phone.lstrip("0")
    insert_devices(pg_url, [canonical], auth_code="SIMCMD")
    store = LocalMediaStore(tmp_path / "media")

    async def main() -> tuple[list[dict[str, Any]], list[dict[str, Any]], VirtualTerminal]:
        port = free_port()
        async with running_gateway(pg_url, kafka_bootstrap, port) as server, \
                tail(kafka_bootstrap, JT808_UPLINK) as uplinks, tail(kafka_bootstrap, JT808_SENT) as sent:
            server.ctx.media_store = store  # type: ignore[union-attr]
            terminal = _terminal(port, phone, "SIMCMD")
            stop = asyncio.Event()
            task = asyncio.create_task(terminal.run(stop))
            try:
                await _until(lambda: terminal.counters.authenticated)
                got = await _mine(uplinks, canonical, timeout_s=30)  # the tail is live
                assert got, "no position on the uplink topic"
                for msg_id, body in ((0x8104, QueryParameters()), (0x8106, QuerySpecifiedParameters((0x0055,))),
                                     (0x8801, CameraShoot(1, 1, 0, 0, 1, 5, 128, 64, 64, 128))):
                    server.handle_downlink({"phone": phone, "msg_id": msg_id, "body_hex": body.encode("2013").hex(),
                                            "command_id": f"sim-{msg_id:04x}"})
                await _until(lambda: terminal.uploader.uploaded == 1)
                async with asyncio.timeout(30):
                    while not _by_msg(got, 0x0801):
                        got += await _mine(uplinks, canonical)
                wrote = await _mine(sent, canonical)
                async with asyncio.timeout(30):
                    while len([r for r in wrote if r.get("command_id")]) < 3:
                        wrote += await _mine(sent, canonical)
            finally:
                stop.set()
                terminal.wake()
                await asyncio.wait_for(task, 20)
            return got, wrote, terminal

    uplinks, sent, terminal = asyncio.run(main())
    seq_of = {r["command_id"]: r["seq"] for r in sent if r["event"] == "sent"}
    replies = _by_msg(uplinks, 0x0104)
    assert [r["message"]["body"]["reply_seq"] for r in replies] == [seq_of["sim-8104"], seq_of["sim-8106"]]
    assert len(replies[0]["message"]["body"]["params"]) > 40
    assert replies[1]["message"]["body"]["params"] == [
        {"id": 0x55, "name": "max_speed_kmh", "value": 100, "value_hex": "00000064"}]
    [shot] = _by_msg(uplinks, 0x0805)
    assert shot["message"]["body"]["reply_seq"] == seq_of["sim-8801"]
    assert shot["message"]["body"]["result"] == 0
    [media_id] = shot["message"]["body"]["media_ids"]
    [upload] = _by_msg(uplinks, 0x0801)
    body = upload["message"]["body"]
    assert body["media_id"] == media_id and body["media_type"] == 0 and body["event_code"] == 0
    with store.open(body["object_key"]) as f:
        assert Image.open(io.BytesIO(f.read())).size == (320, 240)
    assert terminal.uploader.failed == 0 and terminal.counters.answers == 3
