"""Where a command's CPU goes, by component, exactly: every process it starts is moved into a cpuacct cgroup named
after what it is (Chromium, Kafka, PostgreSQL, the console's node tools, a pytest worker, the API, a streams worker,
...), and its children inherit the group, so nothing that exits early is missed (sampling /proc is). Prints the CPU
of each group, the machine's busy share, and a timeline per minute (busy share and the four largest groups).

    sudo .venv/bin/python benchmarks/suite_cpu.py -- scripts/test.sh -p no:cacheprovider
    CI=true PYTHONPATH=$PWD .venv/bin/python benchmarks/suite_cpu.py --timeline var/suite-cpu.tsv -- scripts/test.sh

Needs root and the cgroup v1 cpuacct hierarchy (/sys/fs/cgroup/cpuacct). A process is charged to its parent's group
until a scan (every 0.3 s) moves it; one is looked at for its first 5 s (a child runs its parent's command line
until it execs). The command's exit status is this script's.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path("/sys/fs/cgroup/cpuacct")
PREFIX = "suitecpu-"
PYTHON_MODULES = ("api", "streams", "gateway", "exchange", "simulator", "ipykernel_launcher", "mypy", "dagster")


def group_of(argv: list[str]) -> str | None:
    """The group a command line belongs in; None leaves the process in its parent's group."""
    if not argv:
        return None
    exe = argv[0].rsplit("/", 1)[-1]
    line = " ".join(argv)
    if "chromium" in exe or "headless_shell" in exe:
        return "chromium"
    if exe == "java":
        return "kafka" if "kafka" in line.lower() else "java"
    if exe.startswith("postgres"):
        return "postgres"
    if exe in ("node", "npm", "npx", "esbuild"):
        return "node"
    if exe in ("haproxy", "ruff", "go", "fleet-loadgen"):
        return exe
    if exe == "pytest" or (len(argv) > 1 and argv[1].endswith("/pytest")):
        return "pytest-main"
    if exe.startswith("python") or exe == "fleet":
        if "-m" in argv[:-1]:
            module = argv[argv.index("-m") + 1]
            top = module.split(".")[0]
            if top in PYTHON_MODULES:
                return f"py-{module if top == 'gateway' else top}"
        if len(argv) > 2 and argv[1:3] == ["-u", "-c"]:
            return "pytest-worker"  # pytest-xdist's execnet worker
        if "dagster" in line:
            return "dagster"
        if exe == "fleet" and "up" in argv[1:2]:
            return "fleet-up"
    return None


def usage_s(path: Path) -> float:
    return int((path / "cpuacct.usage").read_text()) / 1e9


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--timeline", type=Path, help="also write every 5 s: time, root usage, each group's usage")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("name the command to run after --")
    if not (ROOT / "cpuacct.usage").exists() or os.geteuid() != 0:
        print(f"needs root and the cgroup v1 cpuacct hierarchy at {ROOT}", file=sys.stderr)
        return 2

    groups: dict[str, Path] = {}
    first_seen: dict[int, float] = {}
    settled: set[int] = set()
    placed: dict[int, str] = {}
    started, root0 = time.monotonic(), usage_s(ROOT)
    samples: list[tuple[float, float, dict[str, float]]] = []
    timeline = args.timeline.open("w") if args.timeline else None
    proc = subprocess.Popen(command)
    groups["command"] = ROOT / f"{PREFIX}command"  # the command and whatever of it no other group names
    groups["command"].mkdir(exist_ok=True)
    (groups["command"] / "cgroup.procs").write_text(str(proc.pid))
    last_sample = 0.0
    while proc.poll() is None:
        scan = time.monotonic()
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            pid = int(entry)
            # A child runs its parent's command line until it execs: a process is looked at again for its first 5 s.
            if pid in settled or scan - first_seen.setdefault(pid, scan) > 5:
                settled.add(pid)
                continue
            try:
                argv = Path(f"/proc/{entry}/cmdline").read_bytes().decode(errors="replace").split("\0")
                name = group_of([a for a in argv if a])
                if name is None or placed.get(pid) == name:
                    continue
                if name not in groups:
                    groups[name] = ROOT / f"{PREFIX}{name}"
                    groups[name].mkdir(exist_ok=True)
                (groups[name] / "cgroup.procs").write_text(entry)
                placed[pid] = name
            except OSError:
                settled.add(pid)  # gone already, or a kernel thread
        now = time.monotonic()
        if now - last_sample >= 5:
            last_sample = now
            row = {name: usage_s(path) for name, path in groups.items()}
            samples.append((now - started, usage_s(ROOT) - root0, row))
            if timeline:
                cells = "\t".join(f"{n}={v:.1f}" for n, v in sorted(row.items()))
                timeline.write(f"{now - started:.0f}\t{samples[-1][1]:.1f}\t{cells}\n")
                timeline.flush()
        time.sleep(0.3)
    wall, total = time.monotonic() - started, usage_s(ROOT) - root0
    used = {name: usage_s(path) for name, path in groups.items()}
    cores = os.cpu_count() or 1
    print(f"\n{command[0]}: exit {proc.returncode}, {wall:.0f} s wall, {total:.0f} s CPU "
          f"({total / wall / cores:.0%} of {cores} cores busy)")
    for name, value in sorted(used.items(), key=lambda item: -item[1]):
        print(f"{value:9.1f} s  {name}")
    print(f"{total - sum(used.values()):9.1f} s  outside the command (this script, the rest of the machine)")
    print("\nper minute: busy share of the cores, the four largest groups (cores)")
    for before, after in zip(samples[::12], samples[12::12], strict=False):
        span = after[0] - before[0]
        shares = {n: (after[2].get(n, 0) - before[2].get(n, 0)) / span for n in after[2]}
        top = sorted(shares.items(), key=lambda item: -item[1])[:4]
        print(f"{after[0]:6.0f} s  {(after[1] - before[1]) / span / cores:5.0%}  "
              + "  ".join(f"{n} {v:.2f}" for n, v in top))
    for path in groups.values():
        for leftover in (path / "cgroup.procs").read_text().split():
            try:
                (ROOT / "cgroup.procs").write_text(leftover)  # a process still running goes back to the root group
            except OSError:
                pass
        try:
            path.rmdir()
        except OSError:
            pass
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
