"""``media_bench.py --attachment-idle N``: the attachment server (port 7613, ``python -m gateway.attachments``)
while N idle sockets are held open against it: how many genuine uploads of one alarm's evidence complete
and how long each takes, first with no idle socket, then with the N held. The idle sockets come from
loop-back addresses 127.0.1.1 ... (4 per address), the uploads from 127.0.0.1 as the terminal's session.

The 0x9208 is the streams worker's (``streams.alarm_commands``), so the run works against any version of
the server: the value it carries is whatever that version sends. Never a timed assertion.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import psycopg

START = datetime(2026, 11, 25, 2, 30, tzinfo=UTC)
ALARM_NO = {"terminal_id": "SIM0001", "time": START.isoformat(), "seq": 1, "attachments": 2}
PHONE = "13710000001"


def alarm_of_a_terminal(url: str) -> tuple[int, int, str]:
    """(device id, alarm id, warn_uuid) of a new device with a DSM alarm; its session recorded from
    127.0.0.1 where the database has ``device.session_address``."""
    warn_uuid = os.urandom(16).hex()
    with psycopg.connect(url, autocommit=True) as conn:
        ent = conn.execute("INSERT INTO enterprise (name, short_name) VALUES ('att-bench', 'att-bench') RETURNING id"
                           ).fetchone()
        assert ent is not None
        device = conn.execute("INSERT INTO device (enterprise_id, phone, device_sn) VALUES (%s, %s, 'SIM0000001')"
                              " RETURNING id", (ent[0], PHONE)).fetchone()
        assert device is not None
        alarm = conn.execute(
            "INSERT INTO alarm (enterprise_id, device_id, phone, type, key, level, start_time, end_time, lat, lng,"
            " speed, warn_uuid, attachment_count, alarm_no) VALUES (%s, %s, %s, 6, 'dsm_1', 1, %s, %s, 31.2, 121.5,"
            " 40, %s, 2, %s) RETURNING id",
            (ent[0], device[0], PHONE, START, START, warn_uuid, orjson.dumps(ALARM_NO).decode())).fetchone()
        assert alarm is not None
        try:
            conn.execute("UPDATE device SET session_address = '127.0.0.1' WHERE id = %s", (device[0],))
        except psycopg.errors.UndefinedColumn:  # a version without session addresses
            pass
    return int(device[0]), int(alarm[0]), warn_uuid


async def ask(url: str, device_id: int, alarm_id: int, warn_uuid: str, port: int) -> Any:
    from protocols.jt808 import AlarmAttachmentUploadRequest
    from streams.alarm_commands import AttachmentRequests
    from streams.db import Database

    sent: list[dict[str, Any]] = []

    async def send(topic: str, key: bytes, value: bytes) -> None:
        sent.append(orjson.loads(value))

    db = Database(url, name="attachment-bench")
    try:
        row = {"id": alarm_id, "warn_uuid": warn_uuid, "attachment_count": 2, "device_id": device_id,
               "alarm_no": ALARM_NO}
        await AttachmentRequests(db, send, "127.0.0.1", port).request([row], {device_id: datetime.now(UTC)})
    finally:
        await db.close()
    return AlarmAttachmentUploadRequest.decode(bytes.fromhex(sent[0]["body_hex"]), "2013")


async def uploads(port: int, request: Any, runs: int, size: int, tag: str) -> list[float | None]:
    """Seconds per upload (None: refused or failed), one after the other."""
    from simulator.attachments import upload

    out: list[float | None] = []
    for run in range(runs):
        started = time.monotonic()
        try:
            async with asyncio.timeout(30):
                await upload("127.0.0.1", port, request, [(f"{tag}{run}.jpg", 0, os.urandom(size))],
                             "SIM0000001", phone="0" + PHONE)
            out.append(time.monotonic() - started)
        except Exception as exc:  # refused, reset or timed out: counted as not done
            print(f"  upload {tag}{run} failed after {time.monotonic() - started:.2f} s: {exc!r}", flush=True)
            out.append(None)
    return out


Held = list[tuple[asyncio.StreamReader, asyncio.StreamWriter]]


async def hold_idle(port: int, count: int) -> Held:
    held: Held = []
    for i in range(count):
        try:
            held.append(await asyncio.open_connection(
                "127.0.0.1", port, local_addr=(f"127.0.{1 + i // 1000}.{1 + (i // 4) % 250}", 0)))
        except OSError:
            pass
        if i % 100 == 99:
            await asyncio.sleep(0.05)
    await asyncio.sleep(0.5)
    return held


def still_open(held: Held) -> int:
    """Idle sockets the server has not closed (a close shows as EOF or a reset on the reader)."""
    return sum(1 for reader, _ in held if not reader.at_eof() and reader.exception() is None)


def row(case: str, times: list[float | None]) -> str:
    done = [t for t in times if t is not None]
    p50 = f"{statistics.median(done):.3f}" if done else "-"
    worst = f"{max(done):.3f}" if done else "-"
    return f"| {case} | {len(done)}/{len(times)} | {p50} | {worst} |"


def run(stack: Any, idle: int, runs: int, size_kib: int) -> None:
    from tests.support.ports import free_port
    from tests.support.processes import wait_for_port

    url, bootstrap = stack.database_url(), stack.kafka_bootstrap()
    device_id, alarm_id, warn_uuid = alarm_of_a_terminal(url)
    port = free_port()
    env = {**os.environ, "FLEET_DATABASE_URL": url, "FLEET_KAFKA_BOOTSTRAP": bootstrap,
           "FLEET_ATTACHMENTS_HOST": "127.0.0.1", "FLEET_ATTACHMENTS_PORT": str(port),
           "FLEET_MEDIA_ROOT": str(stack.dir / "media")}
    log_path = stack.dir / "attachments.log"
    server = subprocess.Popen([sys.executable, "-m", "gateway.attachments"], env=env, stdout=log_path.open("wb"),
                              stderr=subprocess.STDOUT, cwd=Path(__file__).resolve().parent.parent)
    try:
        wait_for_port(port, 60, server)
        request = asyncio.run(ask(url, device_id, alarm_id, warn_uuid, port))

        async def measure() -> tuple[list[float | None], list[float | None], int, int]:
            quiet = await uploads(port, request, runs, size_kib * 1024, "quiet")
            held = await hold_idle(port, idle)
            opened = len(held)
            loaded = await uploads(port, request, runs, size_kib * 1024, "idle")
            left = still_open(held)
            for _, writer in held:
                writer.close()
            return quiet, loaded, opened, left

        quiet, loaded, opened, left = asyncio.run(measure())
        print()
        print(f"attachment server pid {server.pid}, log {log_path}; {opened} idle sockets opened, "
              f"{left} still open after the uploads")
        print("| case | uploads done | upload s p50 | upload s max |")
        print("|---|---|---|---|")
        print(row(f"no idle socket, {size_kib} KiB", quiet))
        print(row(f"{idle} idle sockets held, {size_kib} KiB", loaded))
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
