"""Small OS helpers shared by the local services: apt installs, port checks, process checks."""

from __future__ import annotations

import collections
import itertools
import logging
import os
import random
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger(__name__)

_apt_updated = False


class ServiceError(RuntimeError):
    """A local server could not be installed, started or stopped; the message says why."""


class PortInUseError(ServiceError):
    def __init__(self, port: int, env_var: str | None = None) -> None:
        hint = f"; set {env_var}" if env_var else ""
        super().__init__(f"port {port} is in use{hint}")
        self.port = port
        self.env_var = env_var


def is_root() -> bool:
    return os.geteuid() == 0


def apt_install(*packages: str) -> None:
    """Install Debian packages (only possible as root).

    Raises ServiceError when not root or when apt fails, naming the packages.
    """
    if not is_root():
        raise ServiceError(f"missing system packages {' '.join(packages)}; install them (apt-get install -y ...)")
    global _apt_updated
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    if not _apt_updated:
        log.info("apt-get update")
        subprocess.run(["apt-get", "update", "-q"], check=True, env=env, stdout=subprocess.DEVNULL)
        _apt_updated = True
    log.info("apt-get install %s", " ".join(packages))
    proc = subprocess.run(
        ["apt-get", "install", "-y", "-q", "--no-install-recommends", *packages],
        env=env, capture_output=True, text=True,
    )
    if proc.returncode != 0:
        raise ServiceError(f"apt-get install {' '.join(packages)} failed:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")


def ensure_command(command: str, package: str) -> str:
    """Path of `command`, installing `package` when it is missing."""
    path = shutil.which(command)
    if path is None:
        apt_install(package)
        path = shutil.which(command)
    if path is None:
        raise ServiceError(f"`{command}` is still missing after installing {package}")
    return path


def port_is_free(port: int, host: str = "127.0.0.1") -> bool:
    """True when nothing listens on host:port and we could bind it."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


def port_answers(port: int, host: str = "127.0.0.1", timeout_s: float = 0.5) -> bool:
    """True when something accepts TCP connections on host:port."""
    try:
        with socket.create_connection((host, port), timeout=timeout_s):
            return True
    except OSError:
        return False


_GIVEN_PORTS: set[int] = set()
_GIVEN_ORDER: collections.deque[int] = collections.deque()
_GIVEN_KEPT = 4096  # a port given this long ago is bound by now, or free again (the bind below tells)
_GIVEN_LOCK = threading.Lock()


def free_port(host: str = "127.0.0.1", within: range | None = None) -> int:
    """A port free right now (racy by nature; bind soon), none of the last ports this process gave: the OS
    may hand a released port out again at once, and two servers started on one port find each other's clients
    (a balancer that failed to bind its front port went unnoticed while a server answered there). ``within``:
    a port of that range, tried in random order (the OS's own choice, ``bind(0)``, when None)."""
    with _GIVEN_LOCK:
        candidates = random.sample(within, len(within)) if within is not None else itertools.repeat(0, 10_000)
        for candidate in candidates:
            if candidate in _GIVEN_PORTS:
                continue
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
                try:
                    sock.bind((host, candidate))
                except OSError:
                    continue
                port = int(sock.getsockname()[1])
            if port not in _GIVEN_PORTS:
                _GIVEN_PORTS.add(port)
                _GIVEN_ORDER.append(port)
                if len(_GIVEN_ORDER) > _GIVEN_KEPT:
                    _GIVEN_PORTS.discard(_GIVEN_ORDER.popleft())
                return port
    raise RuntimeError(f"no free port on {host} left to give")


def pid_alive(pid: int) -> bool:
    """True when the process exists and is not a zombie."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"


def wait_until(predicate: Callable[[], bool], timeout_s: float, interval_s: float = 0.2) -> bool:
    deadline = time.monotonic() + timeout_s
    while True:
        if predicate():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(interval_s)


def tail(path: Path, lines: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return f"(no log at {path})"
