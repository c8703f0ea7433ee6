"""JT/T 809 forwarding end to end: terminals -> gateway -> Kafka -> link service -> the regulator in a box.

    .venv/bin/python benchmarks/exchange_chain_bench.py --rate 10000 --duration 300 [--vehicles N] [--without-streams]
    .venv/bin/python benchmarks/exchange_chain_bench.py --outage-seconds 300 --outage-rate 2000 --duration 420

The stack of benchmarks/ingest_bench.py (private PostgreSQL and Kafka, the demo seed's terminals, a gateway
and a streams worker, the Go load generator simulator/loadgen), plus the link service (``python -m
exchange.link``) with one superior platform row (JT/T 809-2019, every position: interval 0) dialling the
regulator in a box (``fleet exchange-sim``, schedule off) on loopback. Vehicles default to the rate, so each
terminal reports once a second (JT/T 809 fix times are whole seconds: the regulator counts two fixes of one
vehicle in the same second as a duplicate).

Measured:
- acknowledged vs forwarded: every position the terminals saw acknowledged (0x8001, the load generator's
  reconciliation log) looked up among what the regulator received (plate + fix second): lost, received more
  than once (duplicates), unexpected;
- latency from the terminal's acknowledgement to the 809 frame: from the instant the load generator read the
  0x8001 of a position (its log's event time) to the regulator's first receipt of a frame carrying it (0x1202
  or 0x1203), wall clocks of the same host. The link service reads the record as soon as Kafka has it, so the
  frame may arrive before the acknowledgement: that counts as 0 (and how many did is reported). Per 10 s of
  acknowledgements too, so a slow stretch (a reload, a rebalance) shows when it happened;
- latency from the gateway: from its receive time of the position (``gps.received_at``, written by the
  streams from the uplink record) to the regulator's receipt of the 0x1202 carrying it;
- CPU (user + system, /proc/<pid>/stat) of the link service and of the regulator from the start of the load
  to the last position received, per position forwarded; the other components' CPU for context.

Outage mode (``--outage-seconds T``, at ``--outage-rate``): 30 s into the load the regulator is stopped
(SIGTERM: its links close), T seconds later it is started again; the link service back-fills the gap as
0x1203. Then every acknowledged position must have arrived, at least once (what the lost links may not have
delivered is sent again as 0x1203: the resend window of exchange/link/resend.py; repeats are counted, the
superior de-duplicates by vehicle and fix time), and per vehicle the real-time positions (0x1202) and the
back-filled ones (0x1203) each in fix-time order over their first receipts (JT/T 809 §5.3.3.2.2, §5.3.3.2.3).
``--duration`` must leave time after the outage (it is the whole load).

``--without-streams``: no streams worker (nor its database writes): the forwarding chain alone, gateway ->
Kafka -> link service -> regulator, for what forwarding costs and how fast it is when the position path's
other consumers run elsewhere (the cluster topology); nothing is then checked in ``gps``.

The regulator runs as a child process of this script (``_regulator``): ``fleet exchange-sim``'s own command
with its tally wrapped to append "kind,plate,fix second,receipt time" per position to a file (buffered; its
cost, about a microsecond a position, is in the regulator's CPU figure).
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import defaultdict
from contextlib import ExitStack
from datetime import datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))
from benchmarks.procstat import cpu_s  # noqa: E402

USER, PASSWORD, CENTRE = 80900809, "chain809", 80900809
OUTAGE_AT_S = 30.0  # seconds into the load the regulator is stopped (outage mode)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rate", type=float, default=10000.0, help="positions per second (normal mode)")
    p.add_argument("--vehicles", type=int, default=0, help="terminals (default: the rate, one position a second each)")
    p.add_argument("--duration", type=float, default=300.0, help="seconds of load")
    p.add_argument("--outage-seconds", type=float, default=0.0, help="outage mode: the regulator away this long")
    p.add_argument("--outage-rate", type=float, default=2000.0, help="positions per second in outage mode")
    p.add_argument("--settle", type=float, default=60.0, help="give up when the regulator stops receiving this long")
    p.add_argument("--logs", type=Path, default=None, help="copy the processes' logs here at the end")
    p.add_argument("--without-streams", action="store_true",
                   help="no streams worker: the forwarding chain alone (nothing checked in gps)")
    return p.parse_args(argv)


# -- the regulator as a child process ------------------------------------------------------------

def regulator_child(out_path: str, argv: list[str]) -> None:
    """``fleet exchange-sim`` with every position it counts also written to ``out_path``."""
    from exchange.regulator.cli import exchange_sim_command
    from exchange.regulator.tally import Tally

    out = open(out_path, "w", buffering=1 << 20, encoding="utf-8")  # closed at exit (atexit), after the last position
    atexit.register(out.close)
    real_time, backfill = Tally.real_time, Tally.backfill

    def on_real_time(self: Tally, plate: str, colour: int, fix_at: datetime | None,
                     received_at: datetime | None = None) -> None:
        out.write(f"r,{plate},{int(fix_at.timestamp()) if fix_at else -1},{time.time():.4f}\n")
        real_time(self, plate, colour, fix_at, received_at)

    def on_backfill(self: Tally, plate: str, colour: int, fixes: list[datetime | None]) -> None:
        at = f"{time.time():.4f}"
        for fix_at in fixes:
            out.write(f"b,{plate},{int(fix_at.timestamp()) if fix_at else -1},{at}\n")
        backfill(self, plate, colour, fixes)

    Tally.real_time = on_real_time  # type: ignore[method-assign]
    Tally.backfill = on_backfill  # type: ignore[method-assign]
    exchange_sim_command.main(argv, standalone_mode=False)


class RegulatorProcess:
    """The regulator child: started and stopped again (outage mode), its CPU summed over its lives."""

    def __init__(self, workdir: Path, port: int, status_port: int) -> None:
        self.workdir, self.port, self.status_port = workdir, port, status_port
        self.proc: subprocess.Popen[bytes] | None = None
        self.files: list[Path] = []
        self.cpu_done_s = 0.0
        self.cpu_mark_s = 0.0  # CPU of the running instance at the start of the measurement

    def start(self) -> None:
        out = self.workdir / f"regulator{len(self.files)}.csv"
        self.files.append(out)
        argv = ["--port", str(self.port), "--status-port", str(self.status_port), "--host", "127.0.0.1",
                "--account", f"{USER}:{PASSWORD}:{CENTRE}:2019", "--inspection-minutes", "0",
                "--count-minutes", "0", "--no-urging", "--video-minutes", "0"]
        log = (self.workdir / f"regulator{len(self.files) - 1}.log").open("wb")
        self.proc = subprocess.Popen([sys.executable, __file__, "_regulator", str(out), *argv], cwd=REPO,
                                     env={**os.environ, "PYTHONPATH": str(REPO)}, stdout=log, stderr=subprocess.STDOUT)
        self.cpu_mark_s = 0.0
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                self.status()
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("the regulator did not start; see regulator*.log")

    def mark(self) -> None:
        """The measurement starts now: what the running instance used before is not counted."""
        assert self.proc is not None
        self.cpu_done_s, self.cpu_mark_s = 0.0, cpu_s(self.proc.pid)

    def cpu(self) -> float:
        running = cpu_s(self.proc.pid) - self.cpu_mark_s if self.proc and self.proc.poll() is None else 0.0
        return self.cpu_done_s + running

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.cpu_done_s += cpu_s(self.proc.pid) - self.cpu_mark_s
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def status(self) -> dict[str, Any]:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.status_port}/status?vehicles=0", timeout=10) as reply:
            return json.loads(reply.read())  # type: ignore[no-any-return]

    def linked(self) -> bool:
        try:
            links = self.status()["links"]
        except OSError:
            return False
        return bool(links) and links[0]["main"]["state"] == "up" and links[0]["sub"]["state"] == "up"

    def received(self) -> int:
        """Distinct positions (plate + fix second) the running instance counted (0 when it is down)."""
        try:
            return int(self.status()["counts"]["unique_fixes"])
        except OSError:
            return 0


def read_receipts(files: list[Path]) -> list[tuple[str, str, int, float]]:
    rows = []
    for path in files:
        with path.open(encoding="utf-8") as f:
            for line in f:
                kind, plate, fix, at = line.rstrip("\n").split(",")
                rows.append((kind, plate, int(fix), float(at)))
    return rows


# -- the chain -----------------------------------------------------------------------------------

def add_superior(db_url: str, port: int, down_link_port: int) -> int:
    import psycopg

    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("UPDATE superior_platform SET enabled = false")  # only this platform is linked
        conn.execute("UPDATE inferior_platform SET enabled = false")  # no superior service beside it
        root = conn.execute("SELECT id FROM enterprise WHERE parent_id IS NULL ORDER BY id LIMIT 1").fetchone()
        assert root is not None
        row = conn.execute(
            "INSERT INTO superior_platform (enterprise_id, name, host, port, user_id, password, centre_id, version, "
            "encrypted, down_link_host, down_link_port, position_interval_s, enabled) VALUES (%s, 'chain bench', "
            "'127.0.0.1', %s, %s, %s, %s, '2019', false, '127.0.0.1', %s, 0, true) RETURNING id",
            (root[0], port, USER, PASSWORD, CENTRE, down_link_port)).fetchone()
    assert row is not None
    return int(row[0])


def plates_of(db_url: str, device_ids: list[int]) -> dict[int, str]:
    import psycopg

    with psycopg.connect(db_url) as conn:
        rows = conn.execute("SELECT d.id, c.plate_number FROM device d JOIN car c ON c.id = d.car_id "
                            "WHERE d.id = ANY(%s)", (device_ids,)).fetchall()
    return {int(d): str(p) for d, p in rows}


def received_at(db_url: str, device_ids: list[int], first: datetime, last: datetime) -> dict[tuple[int, int], float]:
    """(device, fix second) -> the gateway's receive time (epoch seconds) of the stored position."""
    import psycopg

    with psycopg.connect(db_url) as conn:
        rows = conn.execute("SELECT device_id, extract(epoch FROM fix_at)::bigint, extract(epoch FROM received_at) "
                            "FROM gps WHERE device_id = ANY(%s) AND fix_at BETWEEN %s AND %s",
                            (device_ids, first, last)).fetchall()
    return {(int(d), int(f)): float(r) for d, f, r in rows}


def wait_forwarded(regulator: RegulatorProcess, earlier: int, expected: int, settle_s: float) -> float:
    """Until the regulator has received ``expected`` positions (every one the terminals sent, acknowledged or
    not: the acknowledged ones alone can be reached while some of them are still on the way; ``earlier``: what
    stopped instances received) or nothing more for ``settle_s``; returns the monotonic time of the last growth."""
    last, last_growth = -1, time.monotonic()
    while True:
        got = earlier + regulator.received()
        if got != last:
            last, last_growth = got, time.monotonic()
        # only one instance's distinct count is comparable with ``expected``; after an outage, wait for quiet
        if (not earlier and got >= expected) or time.monotonic() - last_growth > settle_s:
            return last_growth
        time.sleep(0.5)


def ack_times(workdir: Path, device_of_phone: dict[str, int]) -> dict[tuple[int, int], float]:
    """(device, fix second) -> when the terminal read the position's 0x8001 (the load generators' logs)."""
    from fleet.phones import canonical_phone
    from simulator import loadgen

    out: dict[tuple[int, int], float] = {}
    for log_path in workdir.glob("loadgen*.log"):
        for event in loadgen.read_log(log_path):
            device = device_of_phone.get(canonical_phone(event.phone))
            if event.kind == "a" and device is not None:
                out[(device, int(event.fix_at.timestamp()))] = event.at
    return out


def timeline(after_ack: list[tuple[float, float]], step_s: float = 10.0) -> list[list[Any]]:
    """Rows per ``step_s`` of acknowledgement time from the first acknowledgement: positions, and their
    ack -> 809 wait p50 / p99 / max (ms)."""
    buckets: dict[int, list[float]] = defaultdict(list)
    started = min(acked for acked, _ in after_ack)
    for acked, lag in after_ack:
        buckets[int((acked - started) // step_s)].append(max(0.0, lag))
    return [[f"{b * step_s:.0f}-{(b + 1) * step_s:.0f}", len(waits), round(percentile(waits, 0.5) * 1000, 1),
             round(percentile(waits, 0.99) * 1000, 1), round(max(waits) * 1000, 1)]
            for b, waits in sorted(buckets.items())]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    import ingest_bench as ib
    from tabulate import tabulate

    from fleet.services._system import free_port

    outage = args.outage_seconds > 0
    rate = args.outage_rate if outage else args.rate
    vehicles = args.vehicles or int(rate)
    if outage and args.duration < OUTAGE_AT_S + args.outage_seconds + 30:
        raise SystemExit(f"--duration must cover {OUTAGE_AT_S:.0f} s, the outage and 30 s after it")
    with ExitStack() as stack:
        workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="exchange-chain-bench-")))
        workdir.chmod(0o755)
        ib_args = ib.parse_args([])
        db_url, bootstrap = ib.start_servers(stack, workdir, ib_args)
        env = {**os.environ, "FLEET_DATABASE_URL": db_url, "FLEET_KAFKA_BOOTSTRAP": bootstrap}
        terms = ib.devices(db_url, vehicles)
        if not args.without_streams:
            ib.start_worker(stack, workdir, env, ib.new_group(bootstrap), 0)

        regulator = RegulatorProcess(workdir, free_port(), free_port())
        regulator.start()
        stack.callback(regulator.stop)
        add_superior(db_url, regulator.port, free_port())
        link_env = {**env, "FLEET_EXCHANGE_RECONNECT_MIN_S": "0.5",
                    "FLEET_EXCHANGE_RECONNECT_MAX_S": "2", "FLEET_EXCHANGE_LOG_LEVEL": "info"}
        link = ib.spawn(stack, "exchange.link", link_env, workdir / "exchange.log")
        deadline = time.monotonic() + 90
        while not regulator.linked():
            if time.monotonic() > deadline or link.poll() is not None:
                raise SystemExit(f"the link service did not link up; see {workdir / 'exchange.log'}")
            time.sleep(0.5)

        report: dict[str, Any] = {}

        def during(port: int) -> None:
            regulator.mark()  # CPU.start() ran just before the load generators
            if not outage:
                return
            time.sleep(OUTAGE_AT_S)
            regulator.stop()
            report["outage_started"] = time.time()
            time.sleep(args.outage_seconds)
            report["earlier_received"] = len(read_receipts(regulator.files))
            regulator.start()
            report["outage_ended"] = time.time()

        load_before = os.getloadavg()
        started = time.monotonic()
        sent, acked = ib.send_loadgen(stack, workdir, env, terms, rate, args.duration, None, report, 1, 10.0, during)
        earlier = int(report.get("earlier_received", 0))
        last_growth = wait_forwarded(regulator, earlier, len({(d, int(f.timestamp())) for d, f in sent}), args.settle)
        cpu_all = ib.CPU.stop()
        link_cpu = cpu_all.get("exchange.link", 0.0)
        regulator_cpu = regulator.cpu()
        load_after = os.getloadavg()
        regulator.stop()
        count = "not run" if args.without_streams else ib.wait_drained(db_url, sent, 30.0)[0]

        plate = plates_of(db_url, [t.device_id for t in terms])
        device_of = {p: d for d, p in plate.items()}
        receipts = read_receipts(regulator.files)
        seen: dict[tuple[int, int], list[tuple[str, float]]] = defaultdict(list)
        unknown = 0
        for kind, car, fix, at in receipts:
            device = device_of.get(car)
            if device is None:
                unknown += 1
                continue
            seen[(device, fix)].append((kind, at))
        acked_keys = {(d, int(f.timestamp())) for d, f in acked}
        lost = acked_keys - seen.keys()
        duplicates = sum(len(v) - 1 for v in seen.values())
        sent_keys = {(d, int(f.timestamp())) for d, f in sent}

        # order per vehicle, in receipt order: the real-time ones ascending, the back-filled ones ascending
        order: dict[str, dict[int, list[int]]] = {"r": defaultdict(list), "b": defaultdict(list)}
        first_seen: set[tuple[str, int]] = set()  # a position sent again (at least once) is a duplicate, not disorder
        for kind, car, fix, _ in receipts:
            if car in device_of and (car, fix) not in first_seen:
                first_seen.add((car, fix))
                order[kind][device_of[car]].append(fix)
        unordered = {kind: sum(1 for fixes in per.values() if any(b < a for a, b in zip(fixes, fixes[1:], strict=False)))
                     for kind, per in order.items()}

        first, last = min(f for _, f in sent), max(f for _, f in sent)
        received = {} if args.without_streams else received_at(db_url, sorted({d for d, _ in sent}), first, last)
        lags = [at - received[key] for key, got in seen.items() for kind, at in got[:1] if kind == "r"
                and key in received]
        acked_at = ack_times(workdir, {t.phone: t.device_id for t in terms})
        after_ack = [(acked_at[key], got[0][1] - acked_at[key]) for key, got in seen.items() if key in acked_at]
        backfilled = sum(1 for got in seen.values() if got[0][0] == "b")
        t_load = max(last_growth - started, 1e-9)
        forwarded = len(receipts)
        result: dict[str, Any] = {
            "mode": f"outage {args.outage_seconds:.0f} s" if outage else "steady",
            "vehicles": len(terms), "target_rate_per_s": rate, "duration_s": args.duration,
            "loadgen_sent": len(sent_keys), "acknowledged": len(acked_keys), "stored_in_gps": count,
            "regulator_received": forwarded, "received_unique": len(seen), "acked_not_received": len(lost),
            "received_twice_or_more": duplicates, "received_not_sent": len(seen.keys() - sent_keys) + unknown,
            "real_time_0x1202": sum(1 for r in receipts if r[0] == "r"),
            "backfilled_0x1203": sum(1 for r in receipts if r[0] == "b"), "first_received_as_backfill": backfilled,
            "vehicles_real_time_out_of_order": unordered["r"], "vehicles_backfill_out_of_order": unordered["b"],
        }
        if lags:
            result.update({"latency_from": "gps.received_at (gateway receive) -> regulator receipt of 0x1202",
                           "latency_n": len(lags), "latency_p50_ms": round(percentile(lags, 0.5) * 1000, 1),
                           "latency_p95_ms": round(percentile(lags, 0.95) * 1000, 1),
                           "latency_p99_ms": round(percentile(lags, 0.99) * 1000, 1),
                           "latency_max_ms": round(max(lags) * 1000, 1)})
        if after_ack:
            waits = [max(0.0, lag) for _, lag in after_ack]
            result.update({"ack_to_809_n": len(waits),
                           "ack_to_809_before_the_ack": sum(1 for _, lag in after_ack if lag <= 0),
                           "ack_to_809_p50_ms": round(percentile(waits, 0.5) * 1000, 1),
                           "ack_to_809_p95_ms": round(percentile(waits, 0.95) * 1000, 1),
                           "ack_to_809_p99_ms": round(percentile(waits, 0.99) * 1000, 1),
                           "ack_to_809_max_ms": round(max(waits) * 1000, 1)})
        if outage and "outage_ended" in report:
            backfill_at = [at for kind, _, _, at in receipts if kind == "b"]
            if backfill_at:
                result["backfill_done_after_restart_s"] = round(max(backfill_at) - report["outage_ended"], 1)
        result.update({
            "cpu_s_link_service": round(link_cpu, 1), "cpu_s_regulator": round(regulator_cpu, 1),
            "cpu_us_per_forwarded_link_service": round(link_cpu / max(forwarded, 1) * 1e6, 1),
            "cpu_us_per_forwarded_regulator": round(regulator_cpu / max(forwarded, 1) * 1e6, 1),
            "link_service_cores": round(link_cpu / t_load, 2),
            "load_s_to_last_received": round(t_load, 1),
            "loadavg_before": " / ".join(f"{x:.2f}" for x in load_before),
            "loadavg_after": " / ".join(f"{x:.2f}" for x in load_after),
        })
        for name, seconds in cpu_all.items():
            if name != "exchange.link":
                result[f"cpu_s_{name}"] = seconds
        result.update({k: v for k, v in report.items() if k.startswith("loadgen_")})
        print(tabulate(sorted(result.items()), headers=["metric", "value"], tablefmt="github"))
        if after_ack:
            print()
            print(tabulate(timeline(after_ack), tablefmt="github",
                           headers=["acknowledged, s after the first acknowledgement", "positions", "ack -> 809 p50 ms", "p99 ms",
                                    "max ms"]))
        if args.logs is not None:
            import shutil

            args.logs.mkdir(parents=True, exist_ok=True)
            for log_file in [*workdir.glob("*.log"), *workdir.glob("*.out"), *workdir.glob("*.csv")]:
                shutil.copy(log_file, args.logs / log_file.name)
        ok = not lost and not unordered["r"] and not unordered["b"] and (outage or not duplicates)
        return 0 if ok else 1


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "_regulator":
        regulator_child(sys.argv[2], sys.argv[3:])
    else:
        sys.exit(main())
