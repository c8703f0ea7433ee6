"""Database cost of a terminal's login at the gateway: ``gateway.devices.PostgresDeviceDirectory``'s
``register`` then ``find`` (what a 0x0100 and its 0x0102 cost), one at a time, for ``--logins`` of the demo's
terminals, twice (first registration: no code yet; re-registration: same identity again).

    .venv/bin/python benchmarks/registration_cost_bench.py setup DIR [--terminals 10000]
    PYTHONPATH=<tree> .venv/bin/python benchmarks/registration_cost_bench.py run DIR [--logins 2000]
    .venv/bin/python benchmarks/registration_cost_bench.py indexes DIR drop|create
    PYTHONPATH=<tree> .venv/bin/python benchmarks/registration_cost_bench.py storm DIR [--logins 10000]
        [--rate 1000 --linger-ms 5]

``setup`` starts a private PostgreSQL under DIR (left running; stop it with ``pg_ctl stop -D DIR/pg``),
migrates it and seeds ``--terminals`` devices. ``run`` measures the ``gateway.devices`` of the tree on
PYTHONPATH (e.g. a ``git archive`` of an older commit) against it: wall time, PostgreSQL CPU (every server
process, from /proc) and this process's CPU per login. ``indexes`` drops or creates migration 0044's indexes,
for a before / after on one database. ``storm`` is a reconnect storm's database side: ``find`` (a 0x0102's lookup) of
``--logins`` terminals all at once, as after a gateway's restart, through the directory's pool (4 connections, the
gateway's default): the time until the last is answered, each lookup's wait, the queries and PostgreSQL's CPU;
with ``--rate`` the logins arrive spread at that rate instead (a storm as terminals dial back over seconds), and
``--linger-ms`` is the directory's lookup linger (``FLEET_GATEWAY_LOOKUP_LINGER_MS``; 0 is the old behaviour).
Prints figures; never a timed assertion.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import sys
import time
from pathlib import Path

import psycopg

INDEXES = {
    "device_sn_live_idx": "ON device (enterprise_id, device_sn) WHERE record_state = 1",
    "device_registered_terminal_id_idx": "ON device (enterprise_id, registered_terminal_id) WHERE record_state = 1",
}


def setup(workdir: Path, terminals: int) -> None:
    from fleet.services._system import free_port
    from fleet.services.postgres import PostgresServer
    from warehouse.migrate import apply
    from warehouse.seed import seed_demo

    pg = PostgresServer(workdir / "pg", free_port(), fast=True)
    pg.start()
    apply(pg.url)
    seed_demo(pg.url, terminals=terminals)
    (workdir / "url").write_text(pg.url)
    (workdir / "pid").write_text((pg.data_dir / "postmaster.pid").read_text().split()[0])
    print(f"PostgreSQL pid {(workdir / 'pid').read_text()} seeded with {terminals} terminals")


def postgres_cpu_s(postmaster: int) -> float:
    ticks = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(entry) == postmaster or int(fields[1]) == postmaster:
            ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


async def run(workdir: Path, logins: int) -> None:
    from gateway import devices

    url, postmaster = (workdir / "url").read_text(), int((workdir / "pid").read_text())
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("UPDATE device SET auth_code = NULL, registered_terminal_id = NULL, registered_manufacturer_id = NULL,"
                     " registered_terminal_model = NULL, registered_at = NULL")
        phones = [row[0] for row in conn.execute(
            "SELECT phone FROM device WHERE NOT unassigned ORDER BY phone LIMIT %s", (logins,))]
    directory = devices.PostgresDeviceDirectory(url)
    await directory.open()
    await directory.find(phones[0])
    for label in ("first registration", "re-registration"):
        cpu0, own0, t0 = postgres_cpu_s(postmaster), resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
        for i, phone in enumerate(phones):
            outcome = await directory.register(phone, devices.RegistrationInfo(f"{i + 1:07d}", "FLEET", "SIM-808", "2013"))
            assert outcome.result == 0, outcome
            await directory.find(phone)
        t1, own1, cpu1 = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF), postgres_cpu_s(postmaster)
        own = own1.ru_utime + own1.ru_stime - own0.ru_utime - own0.ru_stime
        print(f"{label}: {len(phones)} logins: wall {1e3 * (t1 - t0) / len(phones):.2f} ms, PostgreSQL CPU "
              f"{1e3 * (cpu1 - cpu0) / len(phones):.2f} ms, client CPU {1e3 * own / len(phones):.2f} ms per login")
    await directory.close()


async def storm(workdir: Path, logins: int, rate: float = 0.0, linger_ms: float = 0.0) -> None:
    from gateway import devices

    url, postmaster = (workdir / "url").read_text(), int((workdir / "pid").read_text())
    with psycopg.connect(url, autocommit=True) as conn:
        phones = [row[0] for row in conn.execute(
            "SELECT phone FROM device WHERE NOT unassigned ORDER BY phone LIMIT %s", (logins,))]
        calls0 = _statement_calls(conn)
    directory = devices.PostgresDeviceDirectory(url, lookup_linger_s=linger_ms / 1000)
    await directory.open()
    await directory.find(phones[0])
    waits: list[float] = []
    failed = 0

    async def login(phone: str, at: float = 0.0) -> None:
        if at:
            await asyncio.sleep(at)
        nonlocal failed
        started = time.perf_counter()
        try:
            assert await directory.find(phone) is not None
        except Exception:  # the pool's wait timed out: the terminal would have been answered 0x8001 result 1
            failed += 1
            return
        waits.append(time.perf_counter() - started)

    cpu0, own0, t0 = postgres_cpu_s(postmaster), resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    await asyncio.gather(*(login(phone, index / rate if rate else 0.0) for index, phone in enumerate(phones)))
    t1, own1, cpu1 = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF), postgres_cpu_s(postmaster)
    await directory.close()
    await asyncio.sleep(1.5)  # sessions report their counts when they end, the collector within a second
    with psycopg.connect(url, autocommit=True) as conn:
        queries = _statement_calls(conn) - calls0
    waits.sort()
    own = own1.ru_utime + own1.ru_stime - own0.ru_utime - own0.ru_stime

    def pct(q: float) -> float:
        return 1e3 * waits[min(len(waits) - 1, int(q * len(waits)))] if waits else float("nan")

    arrival = f"at {rate:.0f} a second" if rate else "at once"
    print(f"storm of {len(phones)} logins {arrival}, linger {linger_ms:g} ms: all answered in {t1 - t0:.2f} s; answered "
          f"{len(waits)}, failed {failed}; wait p50 {pct(0.5):.1f} ms, p99 {pct(0.99):.1f} ms, max {pct(1.0):.0f} ms; "
          f"{queries} transactions; PostgreSQL CPU {cpu1 - cpu0:.2f} s, client CPU {own:.2f} s "
          f"({1e6 * own / max(len(phones), 1):.0f} µs a login)")


def _statement_calls(conn: psycopg.Connection) -> int:
    """Transactions PostgreSQL has run (committed and rolled back, all databases): one per statement in autocommit."""
    row = conn.execute("SELECT sum(xact_commit + xact_rollback) FROM pg_stat_database").fetchone()
    return int(row[0]) if row and row[0] is not None else 0


def indexes(workdir: Path, action: str) -> None:
    with psycopg.connect((workdir / "url").read_text(), autocommit=True) as conn:
        for name, definition in INDEXES.items():
            conn.execute(f"DROP INDEX IF EXISTS {name}" if action == "drop"
                         else f"CREATE INDEX IF NOT EXISTS {name} {definition}")
        conn.execute("ANALYZE device")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("command", choices=("setup", "run", "indexes", "storm"))
    p.add_argument("workdir", type=Path)
    p.add_argument("action", nargs="?", choices=("drop", "create"))
    p.add_argument("--terminals", type=int, default=10000)
    p.add_argument("--logins", type=int, default=2000)
    p.add_argument("--rate", type=float, default=0.0, help="storm: logins a second, spread evenly (0: all at once)")
    p.add_argument("--linger-ms", type=float, default=0.0, help="storm: the directory's lookup linger")
    args = p.parse_args(argv)
    args.workdir.mkdir(parents=True, exist_ok=True)
    if args.command == "setup":
        setup(args.workdir, args.terminals)
    elif args.command == "run":
        asyncio.run(run(args.workdir, args.logins))
    elif args.command == "storm":
        asyncio.run(storm(args.workdir, args.logins, args.rate, args.linger_ms))
    else:
        indexes(args.workdir, args.action or "create")
    return 0


if __name__ == "__main__":
    sys.exit(main())
