"""Child processes of `fleet up`: a data-driven spec per child, health checks, restart with backoff.

A child runs in its own session (so a terminal's Ctrl-C reaches only the launcher, which stops
children in order) and dies with the launcher if the launcher is killed (PR_SET_PDEATHSIG).
"""

from __future__ import annotations

import ctypes
import importlib.util
import logging
import os
import signal
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from fleet.services._system import port_answers

log = logging.getLogger(__name__)

_PR_SET_PDEATHSIG = 1


@dataclass(frozen=True)
class Health:
    """How to tell a child is serving: a TCP port answering, an HTTP URL replying 2xx, or alive."""

    tcp_port: int | None = None
    http_url: str | None = None

    def check(self) -> bool:
        if self.http_url:
            try:
                with urllib.request.urlopen(self.http_url, timeout=2) as reply:
                    return 200 <= reply.status < 300
            except (urllib.error.URLError, OSError, ValueError):
                return False
        if self.tcp_port:
            return port_answers(self.tcp_port)
        return True

    def describe(self) -> str:
        if self.http_url:
            return self.http_url
        if self.tcp_port:
            return f"tcp 127.0.0.1:{self.tcp_port}"
        return "process alive"


@dataclass(frozen=True)
class ChildSpec:
    """One supervised process. `module` must be importable (``gateway.__main__``) or it is 'missing'."""

    name: str
    module: str
    argv: list[str]
    health: Health = field(default_factory=Health)
    port: int | None = None          # must be free before start
    port_env: str | None = None      # the variable that moves that port
    more_ports: tuple[tuple[int, str], ...] = ()  # (port, variable) of other listeners, also free before start
    start_timeout_s: float = 60.0
    env: tuple[tuple[str, str], ...] = ()  # this child's own variables over the stack's (one of several gateways)

    def missing_reason(self) -> str | None:
        try:
            found = importlib.util.find_spec(self.module) is not None
        except (ImportError, ValueError):
            found = False
        if found:
            return None
        return f"{self.module.replace('.', '/')}.py does not exist yet"


def _die_with_parent() -> None:  # runs in the child between fork and exec
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    except OSError:
        pass


class Child:
    """A running (or crashed, or missing) child and its restart bookkeeping."""

    MIN_BACKOFF_S = 1.0
    MAX_BACKOFF_S = 30.0
    STABLE_AFTER_S = 60.0

    def __init__(self, spec: ChildSpec, log_dir: Path, env: dict[str, str]) -> None:
        self.spec = spec
        self.log_file = log_dir / f"{spec.name}.log"
        self.env = {**env, **dict(spec.env)}
        self.proc: subprocess.Popen[bytes] | None = None
        self.missing = spec.missing_reason()
        self.state = "missing" if self.missing else "stopped"
        self.restarts = 0
        self.started_at = 0.0
        self.next_restart_at = 0.0
        self._backoff_s = self.MIN_BACKOFF_S
        self._log: IO[bytes] | None = None

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None and self.proc.poll() is None else None

    def start(self) -> None:
        if self.missing:
            return
        self.log_file.parent.mkdir(parents=True, exist_ok=True)
        if self._log is None:
            self._log = open(self.log_file, "ab")  # kept open across restarts, closed by stop()
        self._log.write(f"\n--- fleet up: starting {' '.join(self.spec.argv)}\n".encode())
        self._log.flush()
        self.proc = subprocess.Popen(
            self.spec.argv, env=self.env, stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT,
            # pdeathsig follows the forking *thread*: children are only started from the main thread
            start_new_session=True, preexec_fn=_die_with_parent,
        )
        self.started_at = time.monotonic()
        self.state = "starting"

    def wait_healthy(self, timeout_s: float | None = None) -> bool:
        """Poll the health check until it passes, the process exits, or the timeout elapses."""
        if self.proc is None:
            return False
        deadline = time.monotonic() + (timeout_s or self.spec.start_timeout_s)
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self.state = f"exited {self.proc.returncode}"
                return False
            if self.spec.health.check():
                self.state = "healthy"
                return True
            time.sleep(0.3)
        self.state = "unhealthy"
        return False

    def poll_crash(self) -> int | None:
        """Exit code when the child died since the last poll (and schedules its restart), else None."""
        if self.proc is None or self.missing:
            return None
        code = self.proc.poll()
        if code is None:
            if time.monotonic() - self.started_at > self.STABLE_AFTER_S:
                self._backoff_s = self.MIN_BACKOFF_S
            return None
        self.proc = None
        self.state = f"exited {code}, restarting"
        self.next_restart_at = time.monotonic() + self._backoff_s
        self._backoff_s = min(self._backoff_s * 2, self.MAX_BACKOFF_S)
        return code

    def restart_due(self) -> bool:
        return self.proc is None and not self.missing and self.state.endswith("restarting") \
            and time.monotonic() >= self.next_restart_at

    def stop(self, timeout_s: float = 15.0) -> None:
        """SIGTERM to the child's process group, wait, SIGKILL the group after `timeout_s`."""
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            _signal_group(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                log.warning("%s ignored SIGTERM for %.0fs; killing it", self.spec.name, timeout_s)
                _signal_group(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)
            _signal_group(proc.pid, signal.SIGKILL)  # stragglers of the group (e.g. gunicorn workers)
        if not self.missing:
            self.state = "stopped"
        if self._log is not None:
            self._log.close()
            self._log = None


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass
