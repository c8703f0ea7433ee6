"""Many connected terminals: held for a while, then all dropped at once and back (a reconnect storm).

    .venv/bin/python benchmarks/terminals_bench.py --terminals 100000 --gateways 6 --hold 600 --storm --ramp 150

A private PostgreSQL and Kafka (``ingest_bench.start_servers``), ``--terminals`` seeded devices with known auth
codes (the demo seed's phones, without cars), ``--gateways`` JT/T 808 gateways (``python -m gateway``, each its own
port), one streams worker, and one Go load generator per gateway (simulator/loadgen), its terminals spread over
``--sources`` loopback addresses of its own (the kernel's search for a free local port at connect() grows with the
sockets one source / destination pair holds: ~10 ms of its CPU a connect at 14,000, most of the machine's). Each
terminal authenticates (no registration: the codes are known; an unanswered 0x0102 is sent again on its link),
heartbeats once it sent nothing for ``--heartbeat`` s and reports positions so that together they send ``--rate``
a second (default one in ten every 10 s: terminals / 100 a second).

1. Hold: every terminal connects (``--ramp`` logins a second per load generator) and the run goes on for
   ``--hold`` s once all are online (``--hold 0``: no hold). Reported: terminals online (lowest seen once all had logged in), positions
   sent / acknowledged and their ack delay p50 / p99 / max, heartbeats sent / answered, and per gateway its
   connections, RSS and CPU over the hold (``benchmarks/procstat.py``), memory per connection against the RSS
   before the first terminal.
2. Storm (``--storm``): the terminals connect again in a new run; once all are online every gateway is killed
   (SIGKILL) at once and started again on its port. Reported: the time from the kill until 50 / 90 / 99 / 100 %
   are online again, the logins refused (``auth_failures``: a lookup that timed out answers 0x0102 result 1),
   the gateways' ``auth_failed`` counters and what closed connections before their login (the cap of connections
   waiting to log in, its displacements, the login deadline).

The fd limit of this process (and so of its children) is raised to its hard limit; each gateway and each load
generator must fit its connections under it (two sockets per terminal would not fit a balancer's one process,
which is why the gateways here take their terminals directly). Prints figures for docs/performance.md; never
a timed assertion.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import ingest_bench as ib
import psycopg
from procstat import cpu_s, rss_mib

from fleet.demo_fleet import device_phone, terminal_phone
from fleet.services._system import free_port, port_answers
from gateway.admission import SOMAXCONN
from simulator import loadgen


def listen_overflows() -> int:
    """The kernel's count of connections dropped at a full accept queue (TcpExt ListenOverflows)."""
    lines = Path("/proc/net/netstat").read_text().splitlines()
    for names, values in zip(lines[::2], lines[1::2], strict=False):
        if names.startswith("TcpExt:"):
            return int(dict(zip(names.split()[1:], values.split()[1:], strict=True)).get("ListenOverflows", 0))
    return 0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--terminals", type=int, default=100_000)
    p.add_argument("--gateways", type=int, default=6, help="gateway processes, each with terminals / gateways")
    p.add_argument("--hold", type=float, default=600.0, help="seconds held once every terminal is online (0: no hold)")
    p.add_argument("--rate", type=float, default=None, help="positions a second in all (default terminals / 100)")
    p.add_argument("--heartbeat", type=float, default=30.0, help="a terminal's heartbeat after this much silence")
    p.add_argument("--ramp", type=float, default=300.0, help="logins a second per load generator")
    p.add_argument("--sources", type=int, default=4, help="loopback source addresses per load generator")
    p.add_argument("--storm", action="store_true", help="then drop every connection at once (kill -9 the gateways)")
    p.add_argument("--storm-timeout", type=float, default=180.0, help="give up waiting for all to be back")
    p.add_argument("--profile", type=Path, default=None,
                   help="py-spy raw profiles of the restarted gateways over the storm's first 90 s, into this folder"
                        " (benchmarks/profile_summary.py reads them; py-spy is no project dependency)")
    p.add_argument("--somaxconn", type=int, default=None,
                   help="set net.core.somaxconn (the kernel's cap on the gateways' accept queue) for the run and restore it"
                        " after (needs the right to write /proc/sys/net/core/somaxconn)")
    p.add_argument("--database-url", default="")
    p.add_argument("--kafka-bootstrap", default="")
    args = p.parse_args(argv)
    args.durable, args.pg_statements, args.kafka_jfr, args.topology = False, False, None, "single"
    return args


def seed(db_url: str, terminals: int) -> dict[str, str]:
    """The demo enterprises and ``terminals`` JT/T 808 devices of the root enterprise, each with an auth code, in one
    set-based insert (the demo seed's terminals have no auth code yet and come with cars, drivers and SIMs); no
    cars: a terminal authenticates, heartbeats and has its positions acknowledged without one. The terminal's phone as it sends it -> code (the load
    generator's auth file)."""
    from warehouse.seed import seed_demo

    seed_demo(db_url, terminals=0)
    with psycopg.connect(db_url) as conn:
        row = conn.execute("SELECT id FROM enterprise WHERE parent_id IS NULL ORDER BY id LIMIT 1").fetchone()
        assert row is not None
        conn.execute(
            "INSERT INTO device (enterprise_id, phone, device_sn, device_name, protocol, protocol_version, auth_code)"
            " SELECT %s, '138' || lpad(i::text, 8, '0'), 'TB' || lpad(i::text, 8, '0'), 'bench ' || i, 'jt808', '2013',"
            " 'B' || i FROM generate_series(1, %s) AS i", (row[0], terminals))
        rows = conn.execute("SELECT phone, auth_code FROM device WHERE device_sn LIKE 'TB%%'").fetchall()
        conn.commit()
    sent_as = {device_phone(i): terminal_phone(i) for i in range(1, terminals + 1)}
    codes = {sent_as[str(phone)]: str(code) for phone, code in rows if str(phone) in sent_as}
    if len(codes) != terminals:
        raise SystemExit(f"{len(codes)} devices seeded of {terminals}")
    return codes


class Gateways:
    def __init__(self, stack: ExitStack, workdir: Path, env: dict[str, str], count: int) -> None:
        self.stack, self.workdir, self.env = stack, workdir, env
        self.ports = [free_port() for _ in range(count)]
        self.procs: list[Any] = []
        self.restarts = 0
        for index in range(count):
            self.procs.append(self._start(index))
        self.wait_listening()

    def _start(self, index: int) -> Any:
        log = self._log(index)
        return ib.spawn(self.stack, "gateway", {
            **self.env, "FLEET_GATEWAY_PORT": str(self.ports[index]), "FLEET_GATEWAY_HOST": "127.0.0.1",
            "FLEET_GATEWAY_GATEWAY_ID": f"gw-{index + 1}", "FLEET_GATEWAY_STATUS_INTERVAL_S": "2"}, log)

    def wait_listening(self) -> None:
        deadline = time.monotonic() + 60
        while not all(port_answers(port) for port in self.ports):
            if time.monotonic() > deadline:
                raise SystemExit(f"gateways not listening; see {self.workdir}/gateway*.log")
            time.sleep(0.05)

    def all_listening(self) -> bool:
        """Every running gateway has logged that it listens (read from the logs: in a reconnect storm a test
        connection waits behind the terminals' in the accept queue, which once delayed this by ~30 s)."""
        return all(log.exists() and " listening on " in log.read_text(errors="replace") for log in self.logs())

    def logs(self) -> list[Path]:
        """The running gateways' log files (a restarted one writes a new file)."""
        return [self._log(index) for index in range(len(self.ports))]

    def _log(self, index: int) -> Path:
        return self.workdir / f"gateway{index + 1}{'-restarted' * self.restarts}.log"

    def kill_and_restart(self) -> float:
        """SIGKILL every gateway at once, start each again; the monotonic time of the kill."""
        killed_at = time.monotonic()
        for proc in self.procs:
            os.kill(proc.pid, signal.SIGKILL)
        for proc in self.procs:
            proc.wait()
        self.restarts += 1
        self.procs = [self._start(index) for index in range(len(self.ports))]
        return killed_at

    def counters(self) -> dict[str, int]:
        """The gateways' last counter lines (every 2 s), summed over the processes that are running now."""
        return ib.summed_counters(self.logs())


class Terminals:
    """One load generator per gateway, each with its slice of the terminals and its own source address."""

    def __init__(self, stack: ExitStack, workdir: Path, name: str, ports: list[int], codes: dict[str, str],
                 args: argparse.Namespace, duration_s: float) -> None:
        auth = workdir / "auth.json"
        auth.write_text(json.dumps(codes))
        count, n = args.terminals, len(ports)
        rate = args.rate if args.rate is not None else count / 100
        self.outputs, self.stats, self.procs = [], [], []
        for index, port in enumerate(ports):
            lo, hi = index * count // n, (index + 1) * count // n
            options = loadgen.Options(port=port, terminals=hi - lo, first=1 + lo, rate=rate * (hi - lo) / count,
                                      duration_s=duration_s, drain_s=30.0, ramp_per_s=args.ramp,
                                      sources=tuple(f"127.0.{1 + index}.{1 + s}" for s in range(args.sources)),
                                      heartbeat_s=args.heartbeat, progress_s=1.0)
            output, stats = workdir / f"{name}{index + 1}.out", workdir / f"{name}{index + 1}.json"
            self.outputs.append(output)
            self.stats.append(stats)
            self.procs.append(loadgen.start(options, auth=auth, stats=stats, output=output))
        stack.callback(self._kill)  # an interrupted run leaves none behind

    def _kill(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()

    def progress(self) -> dict[str, float]:
        totals: dict[str, float] = {}
        for output in self.outputs:
            for key, value in (loadgen.read_progress(output) or {}).items():
                if key != "t":
                    totals[key] = totals.get(key, 0) + value
        return totals

    def finish(self, interrupt: bool) -> dict[str, float]:
        for proc in self.procs:
            if interrupt:
                proc.send_signal(signal.SIGINT)
        for proc in self.procs:
            proc.wait()
        totals: dict[str, float] = {}
        for path in self.stats:
            for key, value in loadgen.load_stats(path).items():
                if key.startswith("ack_"):
                    totals[key] = max(totals.get(key, 0.0), value)  # the worst load generator
                else:
                    totals[key] = totals.get(key, 0) + value
        return totals


def wait_online(terminals: Terminals, count: int, timeout_s: float, since: float,
                marks: tuple[float, ...] = (), logins_before: float = 0,
                on_poll: Callable[[], None] = lambda: None) -> dict[str, Any]:
    """Waits until ``count`` terminals logged in since the load generators' count was ``logins_before`` and are
    online; the seconds since ``since`` each share of ``marks`` took. ``on_poll`` runs at each look (4 a second)."""
    reached: dict[str, Any] = {}
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        on_poll()
        progress = terminals.progress()
        back = min(progress.get("authenticated", 0) - logins_before, progress.get("online", 0))
        for mark in marks:
            if back >= mark * count and f"{mark:.0%}" not in reached:
                reached[f"{mark:.0%}"] = round(time.monotonic() - since, 1)
        if back >= count:
            reached["all"] = round(time.monotonic() - since, 1)
            return reached
        time.sleep(0.25)
    reached["back_at_timeout"] = back
    return reached


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    per_process = -(-args.terminals // args.gateways)
    if per_process + 1000 > hard:
        raise SystemExit(f"{per_process} connections per gateway do not fit the fd limit {hard}: more --gateways")
    loadgen.ensure_built()
    report: dict[str, Any] = {"terminals": args.terminals, "gateways": args.gateways, "fd_limit": hard}
    with tempfile.TemporaryDirectory(prefix="terminals-bench-") as tmp, ExitStack() as stack:  # processes first
        if args.somaxconn is not None:
            was = SOMAXCONN.read_text()
            SOMAXCONN.write_text(f"{args.somaxconn}\n")
            stack.callback(SOMAXCONN.write_text, was)
        workdir = Path(tmp)
        db_url, bootstrap = ib.start_servers(stack, workdir, args)
        t0 = time.monotonic()
        codes = seed(db_url, args.terminals)
        report["seed_s"] = round(time.monotonic() - t0, 1)
        env = {**os.environ, "FLEET_DATABASE_URL": db_url, "FLEET_KAFKA_BOOTSTRAP": bootstrap}
        ib.start_worker(stack, workdir, env, ib.new_group(bootstrap), 0)
        gateways = Gateways(stack, workdir, env, args.gateways)
        idle_rss = [rss_mib(proc.pid) for proc in gateways.procs]

        ramp_s = args.terminals / args.gateways / args.ramp
        if args.hold > 0:
            hold_phase(stack, workdir, gateways, codes, args, idle_rss, report, ramp_s)
        if args.storm:
            storm_phase(stack, workdir, gateways, codes, args, report, ramp_s)
        print(json.dumps(report, ensure_ascii=False, indent=1))
    return 0


def hold_phase(stack: ExitStack, workdir: Path, gateways: Gateways, codes: dict[str, str], args: argparse.Namespace,
               idle_rss: list[float], report: dict[str, Any], ramp_s: float) -> None:
    """Every terminal online, then held ``--hold`` s (see the module's doc)."""
    began = time.monotonic()
    hold = Terminals(stack, workdir, "hold", gateways.ports, codes, args, duration_s=ramp_s + 30 + args.hold)
    report["ramp"] = wait_online(hold, args.terminals, ramp_s * 3 + 120, began, (0.5, 0.9, 0.99))
    cpu0 = [cpu_s(proc.pid) for proc in gateways.procs]
    held_from, lowest = time.monotonic(), args.terminals
    at_start = hold.progress()
    while time.monotonic() - held_from < args.hold:
        lowest = min(lowest, int(hold.progress().get("online", 0)))
        time.sleep(1.0)
    at_end = hold.progress()
    seconds = time.monotonic() - held_from
    cpu1 = [cpu_s(proc.pid) for proc in gateways.procs]
    rss = [rss_mib(proc.pid) for proc in gateways.procs]
    counters = gateways.counters()
    report["hold"] = {
        "seconds": round(seconds), "lowest_online": lowest,
        "heartbeats_in_hold": int(at_end.get("heartbeats", 0) - at_start.get("heartbeats", 0)),
        "heartbeat_acks_in_hold": int(at_end.get("heartbeat_acks", 0) - at_start.get("heartbeat_acks", 0)),
        "positions_in_hold": int(at_end.get("sent", 0) - at_start.get("sent", 0)),
        "acks_in_hold": int(at_end.get("acked", 0) - at_start.get("acked", 0)),
        "gateway_cpu_pct": [round(100 * (b - a) / seconds, 1) for a, b in zip(cpu0, cpu1, strict=True)],
        "gateway_rss_mib": [round(r, 1) for r in rss],
        "gateway_idle_rss_mib": [round(r, 1) for r in idle_rss],
        "gateway_kib_per_connection": round(1024 * (sum(rss) - sum(idle_rss)) / args.terminals, 2),
        "gateway_connections_open": counters.get("connections_open"),
        "gateway_auth_failed": counters.get("auth_failed", 0),
    }
    stats = hold.finish(interrupt=False)
    report["hold_loadgen"] = {k: stats.get(k) for k in (
        "authenticated", "connects", "auth_failures", "sent", "acked", "unacked", "resent", "link_timeouts",
        "heartbeats", "heartbeat_acks", "ack_p50_ms", "ack_p99_ms", "ack_max_ms", "cpu_s")}
    print(json.dumps(report, ensure_ascii=False, indent=1), flush=True)


def storm_phase(stack: ExitStack, workdir: Path, gateways: Gateways, codes: dict[str, str], args: argparse.Namespace,
                report: dict[str, Any], ramp_s: float) -> None:
    """Every terminal online, then every gateway killed at once and started again (see the module's doc)."""
    began = time.monotonic()
    storm = Terminals(stack, workdir, "storm", gateways.ports, codes, args,
                      duration_s=ramp_s + 60 + args.storm_timeout + 120)
    online = wait_online(storm, args.terminals, ramp_s * 3 + 120, began)
    time.sleep(2.0)  # every load generator's progress line counts the last login
    before = storm.progress()
    overflows_before = listen_overflows()
    killed_at = gateways.kill_and_restart()
    if args.profile is not None:
        args.profile.mkdir(parents=True, exist_ok=True)
        for index, proc in enumerate(gateways.procs):
            stack.enter_context(subprocess.Popen(
                [*ib.PY_SPY_RECORD, "--duration", "90", "--pid", str(proc.pid),
                 "--output", str(args.profile / f"gateway{index + 1}.raw")],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    listening: dict[str, float] = {}

    def note_listening() -> None:
        if "s" not in listening and gateways.all_listening():
            listening["s"] = round(time.monotonic() - killed_at, 1)

    report["storm"] = wait_online(storm, args.terminals, args.storm_timeout, killed_at,
                                  (0.5, 0.9, 0.99), before.get("authenticated", 0), on_poll=note_listening)
    report["storm"]["gateways_listening_again_s"] = listening.get("s")
    # connects the kernel dropped because a gateway's accept queue was full (this network namespace, all ports):
    # each is dialled again only after TCP's doubling timers
    report["storm"]["listen_overflows"] = listen_overflows() - overflows_before
    report["storm"]["somaxconn"] = int(SOMAXCONN.read_text())
    report["storm"]["gateway_cpu_s"] = round(sum(cpu_s(proc.pid) for proc in gateways.procs), 1)  # since the restart
    report["storm"]["ramp_before"] = online
    after = storm.progress()
    report["storm"]["logins_after_kill"] = int(after.get("authenticated", 0) - before.get("authenticated", 0))
    counters = gateways.counters()
    # what became of the connects beyond one a terminal: refused or displaced at the cap of connections
    # waiting to log in, closed at the login deadline, or the terminal's own hang-up (the rest); and the logins
    # sent again after their success, answered as the first copy was
    for name in ("auth_failed", "authenticated", "connections_opened", "unauthenticated_refused",
                 "unauthenticated_displaced", "auth_deadline_closed", "login_resends_answered"):
        report["storm"][f"gateway_{name}"] = counters.get(name, 0)
    stats = storm.finish(interrupt=True)
    report["storm_loadgen"] = {k: stats.get(k) for k in (
        "authenticated", "connects", "auth_failures", "login_resends", "link_timeouts", "sent", "acked", "cpu_s")}


if __name__ == "__main__":
    raise SystemExit(main())
