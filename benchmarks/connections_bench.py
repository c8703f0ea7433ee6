"""Connections benchmark: how many idle, authenticated, heartbeating terminals one gateway holds,
and the gateway's memory (RSS) per connection.

    .venv/bin/python benchmarks/connections_bench.py [--terminals 5000,10000,19000] [--hold 30]

Starts private PostgreSQL and Kafka (or uses FLEET_DATABASE_URL / FLEET_KAFKA_BOOTSTRAP), inserts the
devices with auth codes, runs `python -m gateway` as a subprocess on a free loopback port, and ramps up
simulated terminals (heartbeats only, `--heartbeat` s) in this process, using several 127.0.0.x
source addresses past 25,000. For each step it waits until all are authenticated (bounded by
`--ramp-timeout`), holds them for `--hold` s, and records connections still authenticated, gateway
RSS, and gateway CPU during the hold. The open-file limit is raised to its hard limit for both
processes. Prints markdown rows for docs/performance.md. Never a timed assertion.

    .venv/bin/python benchmarks/connections_bench.py --silent-flood 10000 [--trials 5]

Availability under a silent-socket flood instead: one address (127.0.0.1) opens that many sockets that
never send a byte, then a genuine terminal from another address (127.0.0.2) registers and
authenticates, `--trials` times; prints the time each took, or how it failed (the gateway's default
`unauthenticated_max` is 10,000, so a flood of that size fills the pool).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

from protocols.jt808.catalogue import AUTHENTICATION, REGISTRATION

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import psycopg

from benchmarks.procstat import cpu_s, rss_mib
from fleet.phones import canonical_phone
from fleet.settings import SimulatorSettings
from simulator.fleet import MemoryAuthStore, collect_stats, phone_of
from simulator.fleet import build_terminals as build_fleet
from tests.support.ports import free_port

PREFIX = "0137"


def raise_fd_limit() -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


def insert_devices(url: str, settings: SimulatorSettings, count: int) -> MemoryAuthStore:
    store = MemoryAuthStore()
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("INSERT INTO enterprise (name, short_name) VALUES ('bench', 'bench') RETURNING id").fetchone()
        assert row is not None
        with conn.cursor() as cur, cur.copy("COPY device (enterprise_id, phone, device_sn, auth_code) FROM STDIN") as copy:
            for i in range(1, count + 1):
                phone = phone_of(settings, i)
                copy.write_row((row[0], canonical_phone(phone), f"SIM{i:07d}", f"B{i:07d}"))
                store.put(phone, f"B{i:07d}")
    return store


async def hold_step(settings: SimulatorSettings, store: MemoryAuthStore, terminals: int, heartbeat_s: float,
                    ramp_timeout_s: float, hold_s: float, gateway_pid: int) -> dict[str, float]:
    settings = settings.model_copy(update={"heartbeat_interval_s": heartbeat_s, "ack_timeout_s": 60.0})
    fleet = build_fleet(settings, terminals, 0.0, auth_store=store)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    started = loop.time()
    tasks = []
    for n, terminal in enumerate(fleet):
        tasks.append(loop.create_task(terminal.run(stop)))
        if n % 100 == 99:
            await asyncio.sleep(0.1)  # about 1,000 logins/s
    while loop.time() - started < ramp_timeout_s:
        if collect_stats(fleet).authenticated >= terminals:
            break
        await asyncio.sleep(0.5)
    ramp_s = loop.time() - started
    authenticated = collect_stats(fleet).authenticated
    cpu_before = cpu_s(gateway_pid)
    await asyncio.sleep(hold_s)
    stats = collect_stats(fleet)
    result = {
        "terminals": terminals, "authenticated": authenticated, "held": stats.authenticated,
        "ramp_s": ramp_s, "rss_mib": rss_mib(gateway_pid),
        "gateway_cpu_pct": 100 * (cpu_s(gateway_pid) - cpu_before) / hold_s,
        "heartbeats": stats.heartbeats, "reconnects": stats.connects - terminals,
    }
    stop.set()
    for terminal in fleet:
        terminal.wake()
    await asyncio.gather(*tasks, return_exceptions=True)
    return result


async def genuine_login(port: int, phone: str, timeout_s: float) -> str:
    """Register and authenticate a terminal from 127.0.0.2; the time it took, or how it failed."""
    from protocols.jt808 import Authentication, Registration, RegistrationResponse
    from tests.integration.gateway.support import TerminalClient

    started = time.monotonic()
    try:
        async with asyncio.timeout(timeout_s):
            reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=("127.0.0.2", 0))
            client = TerminalClient(reader, writer, phone)
            await client.send(REGISTRATION, Registration(11, 100, "FLEET", "SIM-808", phone[-7:], 2, ""))
            reply = await client.receive(timeout_s=timeout_s)
            if not isinstance(reply.body, RegistrationResponse) or not reply.body.auth_code:
                return f"registration refused ({reply.body})"
            await client.send(AUTHENTICATION, Authentication(reply.body.auth_code))
            ack = await client.receive(timeout_s=timeout_s)
            await client.close()
            if getattr(ack.body, "result", None) != 0:
                return "authentication refused"
    except TimeoutError:
        return f"no answer in {timeout_s:.0f} s"
    except (ConnectionError, OSError) as exc:
        return f"closed by the gateway ({type(exc).__name__})"
    return f"{(time.monotonic() - started) * 1000:.0f} ms"


async def silent_flood_step(port: int, flood: int, phones: list[str], timeout_s: float) -> list[str]:
    for _ in range(300):  # the gateway may still be starting
        try:
            _, probe = await asyncio.open_connection("127.0.0.1", port, local_addr=("127.0.0.3", 0))
            probe.close()
            break
        except OSError:
            await asyncio.sleep(0.1)
    sockets = []
    for n in range(flood):
        try:
            sockets.append(await asyncio.open_connection("127.0.0.1", port))
        except OSError:
            break
        if n % 500 == 499:
            await asyncio.sleep(0.05)
    await asyncio.sleep(1.0)
    print(f"{len(sockets)} silent sockets open from 127.0.0.1", flush=True)
    results = [await genuine_login(port, phone, timeout_s) for phone in phones]
    for _, writer in sockets:
        writer.close()
    return results


def silent_flood(args: argparse.Namespace) -> None:
    from tests.support.stack import SessionStack

    raise_fd_limit()
    stack = SessionStack()
    gateway: subprocess.Popen[bytes] | None = None
    try:
        db_url, bootstrap = stack.database_url(), stack.kafka_bootstrap()
        port = free_port()
        settings = SimulatorSettings().model_copy(update={"gateway_port": port, "phone_prefix": PREFIX})
        insert_devices(db_url, settings, args.trials)
        with psycopg.connect(db_url, autocommit=True) as conn:  # genuine terminals register afresh
            conn.execute("UPDATE device SET auth_code = NULL")  # a private database: only the bench's
        env = {**os.environ, "FLEET_DATABASE_URL": db_url, "FLEET_KAFKA_BOOTSTRAP": bootstrap,
               "FLEET_GATEWAY_HOST": "127.0.0.1", "FLEET_GATEWAY_PORT": str(port), "FLEET_GATEWAY_STATUS_INTERVAL_S": "1"}
        log_path = stack.dir / "gateway.log"
        gateway = subprocess.Popen([sys.executable, "-m", "gateway"], env=env, stdout=log_path.open("wb"),
                                   stderr=subprocess.STDOUT)
        time.sleep(3)
        phones = [phone_of(settings, i) for i in range(1, args.trials + 1)]
        results = asyncio.run(silent_flood_step(port, args.silent_flood, phones, args.login_timeout))
        print(f"| silent sockets (127.0.0.1) | genuine terminal (127.0.0.2): register + authenticate, {args.trials} tries |")
        print("|---|---|")
        print(f"| {args.silent_flood} | {'; '.join(results)} |", flush=True)
        time.sleep(1.5)
        counters = [line for line in log_path.read_text(errors="replace").splitlines() if "gateway counters" in line]
        print("gateway:", counters[-1].split("gateway counters", 1)[1].strip() if counters else "no counters line")
    finally:
        if gateway is not None:
            gateway.terminate()
            try:
                gateway.wait(10)
            except subprocess.TimeoutExpired:
                gateway.kill()
        stack.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--terminals", default="1000,5000,10000,19000", help="comma-separated steps")
    parser.add_argument("--hold", type=float, default=30.0, help="seconds to hold each step")
    parser.add_argument("--heartbeat", type=float, default=20.0, help="terminal heartbeat interval, s")
    parser.add_argument("--ramp-timeout", type=float, default=120.0, help="longest ramp per step, s")
    parser.add_argument("--silent-flood", type=int, default=0,
                        help="instead: this many silent sockets from one address, then genuine logins from another")
    parser.add_argument("--trials", type=int, default=5, help="genuine logins under --silent-flood")
    parser.add_argument("--login-timeout", type=float, default=10.0, help="longest wait for one genuine login, s")
    args = parser.parse_args()
    if args.silent_flood:
        silent_flood(args)
        return
    steps = [int(s) for s in args.terminals.split(",")]
    limit = raise_fd_limit()
    steps = [min(s, limit - 500) for s in steps]  # leave room for the gateway's own files and Kafka

    from tests.support.stack import SessionStack

    stack = SessionStack()
    gateway: subprocess.Popen[bytes] | None = None
    try:
        db_url, bootstrap = stack.database_url(), stack.kafka_bootstrap()
        port = free_port()
        settings = SimulatorSettings().model_copy(update={"gateway_port": port, "phone_prefix": PREFIX})
        store = insert_devices(db_url, settings, max(steps))
        env = {**os.environ, "FLEET_DATABASE_URL": db_url, "FLEET_KAFKA_BOOTSTRAP": bootstrap,
               "FLEET_GATEWAY_HOST": "127.0.0.1", "FLEET_GATEWAY_PORT": str(port),
               "FLEET_GATEWAY_HEARTBEAT_INTERVAL_S": str(args.heartbeat), "FLEET_GATEWAY_STATUS_INTERVAL_S": "30"}
        log_path = stack.dir / "gateway.log"
        gateway = subprocess.Popen([sys.executable, "-m", "gateway"], env=env, stdout=log_path.open("wb"),
                                   stderr=subprocess.STDOUT)
        time.sleep(3)
        baseline = rss_mib(gateway.pid)
        print(f"fd limit {limit}; gateway pid {gateway.pid}, idle RSS {baseline:.1f} MiB; log {log_path}")
        print("| terminals | authenticated | still held after hold | ramp s | gateway RSS MiB | KiB/conn | gateway CPU % (hold) |")
        print("|---|---|---|---|---|---|---|")
        for step in steps:
            r = asyncio.run(hold_step(settings, store, step, args.heartbeat, args.ramp_timeout, args.hold, gateway.pid))
            per_conn = (r["rss_mib"] - baseline) * 1024 / max(1, r["held"])
            print(f"| {step} | {r['authenticated']:.0f} | {r['held']:.0f} | {r['ramp_s']:.1f} | "
                  f"{r['rss_mib']:.1f} | {per_conn:.1f} | {r['gateway_cpu_pct']:.1f} |", flush=True)
            time.sleep(2)  # let the gateway see the closes
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
