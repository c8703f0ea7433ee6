"""Media upload benchmark: a 1 MB photo sub-packaged as 0x0801 from a TCP terminal to the
gateway's final 0x8800 (file written to the media store, record acknowledged by Kafka), and the
gateway's memory (RSS) while 100 terminals upload 1 MB each at once.

    .venv/bin/python benchmarks/media_bench.py [--terminals 100] [--size-kib 1024] [--runs 3]
        [--max-frames-per-s 200]
    .venv/bin/python benchmarks/media_bench.py --attachment-idle 1000 [--size-kib 1024] [--runs 5]

``--attachment-idle N`` measures the attachment server (port 7613) instead: genuine uploads with no idle
socket, then with N idle sockets held open against it (``benchmarks/attachment_idle.py``).

Starts private PostgreSQL and Kafka (or uses FLEET_DATABASE_URL / FLEET_KAFKA_BOOTSTRAP), inserts the
devices with auth codes, runs `python -m gateway` as a subprocess on a free loopback port with its
media store in a temporary folder, and drives raw terminals from this process (packages of 1,023 body
bytes, the most a JT/T 808 package holds, written as fast as TCP takes them; missing packages are
resent when the gateway asks with 0x8800). Checks every stored file's sha256 against what was sent.
Prints markdown rows for docs/performance.md. Never a timed assertion.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import os
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from protocols.jt808.catalogue import AUTHENTICATION, MEDIA_UPLOAD

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import psycopg

from benchmarks.procstat import rss_mib
from protocols.jt808 import (
    Authentication,
    FrameReader,
    LocationReport,
    MediaUpload,
    MediaUploadResponse,
    PlatformResponse,
    decode_frame,
    encode_frame,
    encode_subpackages,
)
from tests.support.ports import free_port
from tests.support.processes import wait_for_port

PHONE_PREFIX = "1370"


def insert_devices(url: str, count: int) -> list[tuple[str, str, int]]:
    """(phone, auth code, device id) of `count` new devices."""
    out = []
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("INSERT INTO enterprise (name, short_name) VALUES ('media-bench', 'media-bench')"
                           " RETURNING id").fetchone()
        assert row is not None
        for i in range(1, count + 1):
            phone, code = f"{PHONE_PREFIX}{i:07d}", f"M{i:07d}"
            device = conn.execute("INSERT INTO device (enterprise_id, phone, device_sn, auth_code) VALUES (%s, %s, %s, %s)"
                                  " RETURNING id", (row[0], phone, f"SIM{i:07d}", code)).fetchone()
            assert device is not None
            out.append((phone, code, int(device[0])))
    return out


async def upload(port: int, phone: str, code: str, data: bytes, media_id: int) -> tuple[float, int]:
    """Seconds from the first package written to the final 0x8800, and packages resent."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    frames = FrameReader()
    inbox: asyncio.Queue[object] = asyncio.Queue()

    async def read() -> None:
        while chunk := await reader.read(65536):
            for frame in frames.feed(chunk):
                if isinstance(frame, bytes):
                    await inbox.put(decode_frame(frame).body)

    reading = asyncio.create_task(read())
    try:
        writer.write(encode_frame(AUTHENTICATION, Authentication(code), phone=phone, seq=1))
        async with asyncio.timeout(30):
            while not isinstance(body := await inbox.get(), PlatformResponse):
                pass
        assert body.result == 0, f"{phone} not authenticated: {body}"
        location = LocationReport(0, 3, 39.9, 116.4, 50, 0.0, 0, datetime.now(UTC).replace(microsecond=0))
        packages = encode_subpackages(MEDIA_UPLOAD, MediaUpload(media_id, 0, 0, 0, 1, location, data), phone=phone,
                                      seq=10, max_body=1023)
        loop = asyncio.get_running_loop()
        started = loop.time()
        writer.write(b"".join(packages))
        resent = 0
        while True:
            async with asyncio.timeout(300):
                body = await inbox.get()
            if isinstance(body, MediaUploadResponse) and body.media_id == media_id:
                if not body.retransmit_ids:
                    return loop.time() - started, resent
                resent += len(body.retransmit_ids)
                writer.write(b"".join(packages[i - 1] for i in body.retransmit_ids))
    finally:
        reading.cancel()
        writer.close()


async def many(port: int, devices: list[tuple[str, str, int]], data: bytes, pid: int) -> tuple[list[float], int, float, float]:
    peak = 0.0
    done = asyncio.Event()

    async def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, rss_mib(pid))
            await asyncio.sleep(0.05)

    sampler = asyncio.create_task(sample())
    started = time.monotonic()
    results = await asyncio.gather(*(upload(port, phone, code, data, 1000 + n)
                                     for n, (phone, code, _) in enumerate(devices)), return_exceptions=True)
    wall = time.monotonic() - started
    done.set()
    await sampler
    times = [r[0] for r in results if isinstance(r, tuple)]
    resent = sum(r[1] for r in results if isinstance(r, tuple))
    for r in results:
        if isinstance(r, BaseException):
            print(f"upload failed: {r!r}")
    return times, resent, wall, peak


def check_files(root: Path, data: bytes) -> tuple[int, int]:
    """(files in the store, files whose bytes differ from what every terminal sent)."""
    want = hashlib.sha256(data).hexdigest()
    files = list(root.rglob("*.jpg"))
    return len(files), sum(1 for p in files if hashlib.sha256(p.read_bytes()).hexdigest() != want)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--terminals", type=int, default=100)
    parser.add_argument("--size-kib", type=int, default=1024)
    parser.add_argument("--runs", type=int, default=3, help="single-terminal uploads timed")
    parser.add_argument("--max-frames-per-s", type=int, default=0,
                        help="FLEET_GATEWAY_MAX_FRAMES_PER_S for the gateway (0: its default)")
    parser.add_argument("--attachment-idle", type=int, default=0,
                        help="measure the attachment server with this many idle sockets held instead")
    args = parser.parse_args()

    from tests.support.stack import SessionStack

    stack = SessionStack()
    if args.attachment_idle:
        from benchmarks.attachment_idle import run

        try:
            run(stack, args.attachment_idle, args.runs, args.size_kib)
        finally:
            stack.close()
        return
    gateway: subprocess.Popen[bytes] | None = None
    try:
        db_url, bootstrap = stack.database_url(), stack.kafka_bootstrap()
        devices = insert_devices(db_url, args.terminals + args.runs)
        port = free_port()
        media_root = stack.dir / "media"
        env = {**os.environ, "FLEET_DATABASE_URL": db_url, "FLEET_KAFKA_BOOTSTRAP": bootstrap,
               "FLEET_GATEWAY_HOST": "127.0.0.1", "FLEET_GATEWAY_PORT": str(port),
               "FLEET_MEDIA_ROOT": str(media_root)}
        if args.max_frames_per_s:
            env["FLEET_GATEWAY_MAX_FRAMES_PER_S"] = str(args.max_frames_per_s)
        log_path = stack.dir / "gateway.log"
        gateway = subprocess.Popen([sys.executable, "-m", "gateway"], env=env, stdout=log_path.open("wb"),
                                   stderr=subprocess.STDOUT)
        wait_for_port(port, 60, gateway)
        time.sleep(2)
        data = os.urandom(args.size_kib * 1024)
        baseline = rss_mib(gateway.pid)
        print(f"gateway pid {gateway.pid}, idle RSS {baseline:.1f} MiB; log {log_path}")
        singles = []
        for run in range(args.runs):
            phone, code, _ = devices[args.terminals + run]
            seconds, resent = asyncio.run(upload(port, phone, code, data, 1 + run))
            singles.append(seconds)
            print(f"single upload {run + 1}: {seconds:.2f} s ({resent} packages resent)", flush=True)
        times, resent, wall, peak = asyncio.run(many(port, devices[:args.terminals], data, gateway.pid))
        files, bad = check_files(media_root, data)
        times.sort()
        p50 = statistics.median(times) if times else float("nan")
        p99 = times[min(len(times) - 1, int(len(times) * 0.99))] if times else float("nan")
        print()
        print("| case | uploads done | upload s p50 | upload s p99 / max | wall s | gateway RSS MiB idle -> peak | files ok |")
        print("|---|---|---|---|---|---|---|")
        print(f"| 1 terminal, {args.size_kib} KiB | {len(singles)}/{args.runs} | {statistics.median(singles):.2f} | "
              f"{max(singles):.2f} | - | {baseline:.1f} | - |")
        print(f"| {args.terminals} terminals at once, {args.size_kib} KiB each | {len(times)}/{args.terminals} | "
              f"{p50:.2f} | {p99:.2f} | {wall:.1f} | {baseline:.1f} -> {peak:.1f} | {files - bad}/{files} |")
        print(f"packages resent after 0x8800 requests: {resent}")
        if len(times) < args.terminals:
            gateway.terminate()
            gateway.wait(10)
            lines = log_path.read_text(errors="replace").splitlines()
            print("\n".join([line for line in lines if "WARNING" in line][:10] + lines[-3:]))
    finally:
        if gateway is not None:
            gateway.terminate()
            try:
                gateway.wait(10)
            except subprocess.TimeoutExpired:
                gateway.kill()
        stack.close()


if __name__ == "__main__":
    main()
