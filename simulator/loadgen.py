"""The Go load generator (simulator/loadgen/main.go): build it, run it, read its logs.

A Python virtual terminal costs ~150-250 µs of CPU per position (codec, asyncio, the driving model), more
than the gateway it measures; ``fleet-loadgen`` replays a frame template over thousands of connections
with the real protocol (registration, authentication, an ack per position, resends of the same serial,
0x0704 backlog after a reconnect) at a few µs per position (docs/performance.md).

``ensure_built()`` runs ``go build`` into ``var/bin/fleet-loadgen`` when the binary is missing or older
than its sources (scripts/install.sh calls it too when Go is installed). ``fleet loadgen`` runs it
against a gateway; ``benchmarks/ingest_bench.py --source loadgen`` reconciles its log with ``gps``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import NamedTuple

import click

SOURCE_DIR = Path(__file__).resolve().parent / "loadgen"
REPO = SOURCE_DIR.parent.parent
BINARY = REPO / "var" / "bin" / "fleet-loadgen"


class LoadgenUnavailable(RuntimeError):
    """No Go toolchain to build the load generator with (install Go, or use the Python simulator)."""


def _go() -> str:
    for candidate in (shutil.which("go"), "/usr/local/go/bin/go", "/usr/lib/go/bin/go"):
        if candidate and Path(candidate).exists():
            return candidate
    raise LoadgenUnavailable("the Go toolchain (go) is not installed; see simulator/README.md")


def ensure_built(binary: Path = BINARY) -> Path:
    """The load generator binary, built first when missing or older than its sources. Raises
    LoadgenUnavailable without Go, CalledProcessError when the build fails."""
    sources = [*SOURCE_DIR.glob("*.go"), SOURCE_DIR / "go.mod"]
    newest = max(path.stat().st_mtime for path in sources)
    if binary.exists() and binary.stat().st_mtime >= newest:
        return binary
    binary.parent.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "CGO_ENABLED": "0", "GOTOOLCHAIN": "local"}  # standard library only: no module download
    if "HOME" not in env:
        env.setdefault("GOCACHE", str(REPO / "var" / "go-cache"))
    subprocess.run([_go(), "build", "-trimpath", "-o", str(binary), "."], cwd=SOURCE_DIR, env=env, check=True)
    return binary


@dataclass(frozen=True)
class Options:
    host: str = "127.0.0.1"
    port: int = 7611
    terminals: int = 1000
    first: int = 1
    prefix: str = "0138"
    rate: float = 1000.0
    duration_s: float = 60.0
    drain_s: float = 30.0
    ack_timeout_s: float = 10.0
    retries: int = 3  # JT/T 808 parameter 0x0003: resends before the link is taken for broken
    ramp_per_s: float = 500.0
    procs: int = 1
    sources: tuple[str, ...] = ()
    fix_start: int = 0  # unix seconds of the first fix; 0: the loadgen picks it (last fix about now)
    heartbeat_s: float = 30.0  # a heartbeat 0x0002 once nothing was sent this long
    progress_s: float = 0.0  # one JSON line of the counters so far on stderr this often (0: none; read_progress)

    def argv(self, binary: Path, *, auth: Path | None, log: Path | None, stats: Path | None) -> list[str]:
        args = [str(binary), "-host", self.host, "-port", str(self.port), "-terminals", str(self.terminals),
                "-first", str(self.first), "-prefix", self.prefix, "-rate", str(self.rate),
                "-duration", str(self.duration_s), "-drain", str(self.drain_s), "-ack-timeout", str(self.ack_timeout_s),
                "-retries", str(self.retries),
                "-ramp", str(self.ramp_per_s), "-procs", str(self.procs), "-fix-start", str(self.fix_start),
                "-heartbeat", str(self.heartbeat_s), "-progress", str(self.progress_s)]
        if self.sources:
            args += ["-sources", ",".join(self.sources)]
        for flag, path in (("-auth", auth), ("-log", log), ("-stats", stats)):
            if path is not None:
                args += [flag, str(path)]
        return args


def start(options: Options, *, auth: Path | None = None, log: Path | None = None, stats: Path | None = None,
          output: Path | None = None) -> subprocess.Popen[bytes]:
    """Start one load generator process (built first if needed)."""
    binary = ensure_built()
    out = output.open("wb") if output is not None else subprocess.DEVNULL
    return subprocess.Popen(options.argv(binary, auth=auth, log=log, stats=stats), stdout=out,
                            stderr=subprocess.STDOUT)


def read_progress(path: Path) -> dict[str, float] | None:
    """The last progress line (``progress_s``) in a load generator's output file, or None before the first."""
    try:
        text = path.read_text(errors="replace")
    except FileNotFoundError:
        return None
    for line in reversed(text.splitlines()):
        if line.startswith('{"t":'):
            try:
                return dict(json.loads(line))
            except ValueError:
                continue  # the line being written
    return None


class LogEvent(NamedTuple):
    """One line of a reconciliation log: ``kind`` ``s`` first sent or ``a`` acknowledged, the terminal's phone,
    the position's fix time, and when it was sent or acknowledged (unix seconds, the load generator's clock)."""

    kind: str
    phone: str
    fix_at: datetime
    at: float


def read_log(path: Path) -> Iterator[LogEvent]:
    """The events of a reconciliation log, in the order they were written."""
    with path.open() as f:
        for line in f:
            kind, phone, fix, at_ms = line.rstrip("\n").split(",")
            yield LogEvent(kind, phone, datetime.fromtimestamp(int(fix), UTC), int(at_ms) / 1000)


@click.command("loadgen")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=7611, show_default=True, type=int)
@click.option("--terminals", default=1000, show_default=True, type=int, help="one connection each")
@click.option("--first", default=1, show_default=True, type=int, help="first terminal index (phone = prefix + index)")
@click.option("--prefix", default="0138", show_default=True, help="phone prefix (the demo seed's)")
@click.option("--rate", default=1000.0, show_default=True, type=float, help="positions per second, all terminals")
@click.option("--duration", default=60.0, show_default=True, type=float, help="seconds of generating")
@click.option("--drain", default=30.0, show_default=True, type=float, help="seconds to wait for the last acks")
@click.option("--ack-timeout", default=10.0, show_default=True, type=float,
              help="JT/T 808 timeout T: resends after T, 2T, 6T (T(n+1) = T(n) x (n+1))")
@click.option("--retries", default=3, show_default=True, type=click.IntRange(0, 8),
              help="JT/T 808 parameter 0x0003: resends, then reconnect and upload the rest as 0x0704 backlog")
@click.option("--procs", default=1, show_default=True, type=int, help="GOMAXPROCS")
@click.option("--auth", type=click.Path(path_type=Path), default=None, help="auth codes JSON (read and written back)")
@click.option("--log", "log_path", type=click.Path(path_type=Path), default=None, help="reconciliation log (s/a,phone,fix)")
@click.option("--stats", type=click.Path(path_type=Path), default=None, help="stats JSON at the end")
def loadgen_command(host: str, port: int, terminals: int, first: int, prefix: str, rate: float, duration: float,
                    drain: float, ack_timeout: float, retries: int, procs: int, auth: Path | None, log_path: Path | None,
                    stats: Path | None) -> None:
    """Drive a gateway with the Go load generator (built on first use; needs Go).

    Terminals register when no auth code is known, authenticate, report positions at RATE in total and
    resend what is not acknowledged; prints the stats as JSON at the end.
    """
    options = Options(host=host, port=port, terminals=terminals, first=first, prefix=prefix, rate=rate,
                      duration_s=duration, drain_s=drain, ack_timeout_s=ack_timeout, retries=retries, procs=procs)
    try:
        binary = ensure_built()
    except LoadgenUnavailable as exc:
        raise click.ClickException(str(exc)) from exc
    result = subprocess.run(options.argv(binary, auth=auth, log=log_path, stats=stats), check=False)
    sys.exit(result.returncode)


def load_stats(path: Path) -> dict[str, float]:
    return dict(json.loads(path.read_text()))
