"""Service processes for cross-component tests: the gateway, the attachment server and HAProxy as
subprocesses, waiting for ports."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def wait_for_port(port: int, timeout_s: float, proc: subprocess.Popen[bytes] | None = None) -> None:
    """Returns once something accepts on 127.0.0.1:port; raises AssertionError on timeout or exit."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"process exited with {proc.returncode} before port {port} opened")
        with socket.socket() as sock:
            sock.settimeout(0.5)
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise AssertionError(f"nothing listens on port {port} after {timeout_s:.0f} s")


class ServiceProcess:
    """A service under test run as a subprocess with its output in `log_file`: stop and log tail."""

    log_file: Path
    proc: subprocess.Popen[bytes] | None = None

    def kill(self) -> None:
        """SIGKILL, as a crash would."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)

    def kill_with_children(self) -> None:
        """SIGKILL the process and its descendants at once, as a crashed host loses them (a gunicorn master
        killed alone leaves its workers serving their sockets until they notice)."""
        if self.proc is None or self.proc.poll() is not None:
            return
        parents: dict[int, int] = {}
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                parents[int(stat.parent.name)] = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
        family, todo = [], [self.proc.pid]
        while todo:
            pid = todo.pop()
            children = [child for child, parent in parents.items() if parent == pid]
            family += children
            todo += children
        for pid in family:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.kill()

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after 20 s."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_file.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"


class GatewayProcess(ServiceProcess):
    """``python -m gateway`` on a given port, logging to a file, stopped with SIGTERM."""

    def __init__(self, env: dict[str, str], port: int, log_file: Path, gateway_id: str) -> None:
        self.port = port
        self.log_file = log_file
        self.env = {**env, "FLEET_GATEWAY_PORT": str(port), "FLEET_GATEWAY_HOST": "127.0.0.1",
                    "FLEET_GATEWAY_GATEWAY_ID": gateway_id}

    def start(self) -> None:
        log = self.log_file.open("ab")
        self.proc = subprocess.Popen([sys.executable, "-m", "gateway"], cwd=REPO_ROOT, env=self.env,
                                     stdout=log, stderr=subprocess.STDOUT)
        log.close()
        wait_for_port(self.port, 60, self.proc)

    def wait_downlinks_ready(self, timeout_s: float = 60) -> None:
        """Returns once the gateway reads jt808.downlink.v1 (a downlink produced later reaches its terminals)."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc is not None and self.proc.poll() is not None:
                raise AssertionError(f"gateway exited with {self.proc.returncode}:\n{self.log_tail()}")
            if "downlink consumer reading" in self.log_tail(400):
                return
            time.sleep(0.1)
        raise AssertionError(f"the gateway's downlink consumer did not start in {timeout_s:.0f} s:\n{self.log_tail()}")


class AttachmentServerProcess(ServiceProcess):
    """``python -m gateway.attachments`` (the active-safety attachment server, as ``fleet up`` runs it) on
    127.0.0.1:port, logging to a file. Its media store is ``FLEET_MEDIA_ROOT`` of ``env``; the streams
    worker names the same port in 0x9208 when given ``FLEET_ATTACHMENTS_PORT`` (see ``env_for``)."""

    def __init__(self, env: dict[str, str], port: int, log_file: Path) -> None:
        self.port = port
        self.log_file = log_file
        self.env = {**env, **self.env_for(port), "FLEET_ATTACHMENTS_HOST": "127.0.0.1"}

    @staticmethod
    def env_for(port: int) -> dict[str, str]:
        """What the streams worker needs to send terminals here in 0x9208."""
        return {"FLEET_ATTACHMENTS_PORT": str(port), "FLEET_ATTACHMENTS_PUBLIC_HOST": "127.0.0.1"}

    def start(self) -> None:
        log = self.log_file.open("ab")
        self.proc = subprocess.Popen([sys.executable, "-m", "gateway.attachments"], cwd=REPO_ROOT, env=self.env,
                                     stdout=log, stderr=subprocess.STDOUT)
        log.close()
        wait_for_port(self.port, 60, self.proc)


class Balancer(ServiceProcess):
    """HAProxy in the foreground with a configuration of fleet/cluster.py's ``balancer_config``; ``port`` is
    the front port it is ready on."""

    def __init__(self, config: str, tmp: Path, port: int) -> None:
        self.port = port
        self.config = tmp / "haproxy.cfg"
        self.config.write_text(config)
        self.log_file = tmp / "haproxy.log"

    def start(self) -> None:
        from fleet.cluster import haproxy_binary

        with self.log_file.open("ab") as log:
            self.proc = subprocess.Popen([haproxy_binary(), "-db", "-f", str(self.config)], stdout=log,
                                         stderr=subprocess.STDOUT)
        wait_for_port(self.port, 20, self.proc)


class MediaServerProcess(ServiceProcess):
    """``python -m gateway.video`` (the JT/T 1078 media server) on a given port with the stack's database
    and Kafka; the API must get the same ``FLEET_MEDIA_SERVER_PORT`` and ``FLEET_MEDIA_SERVER_SECRET``."""

    def __init__(self, env: dict[str, str], port: int, log_file: Path) -> None:
        self.port = port
        self.log_file = log_file
        self.env = {**env, "FLEET_MEDIA_SERVER_PORT": str(port), "FLEET_MEDIA_SERVER_HOST": "127.0.0.1",
                    "FLEET_MEDIA_SERVER_PUBLIC_HOST": "127.0.0.1"}

    def start(self) -> None:
        log = self.log_file.open("ab")
        self.proc = subprocess.Popen([sys.executable, "-m", "gateway.video"], cwd=REPO_ROOT, env=self.env,
                                     stdout=log, stderr=subprocess.STDOUT)
        log.close()
        wait_for_port(self.port, 60, self.proc)


class GbGatewayProcess(ServiceProcess):
    """``python -m gateway.gb`` (the GB/T 32960 and GB 17691 / HJ 1239 gateway, as ``fleet up`` runs it) on
    127.0.0.1 with the given ports, logging to a file."""

    def __init__(self, env: dict[str, str], port: int, emission_port: int, log_file: Path, gateway_id: str) -> None:
        self.port = port
        self.emission_port = emission_port
        self.log_file = log_file
        self.env = {**env, "FLEET_GB_GATEWAY_PORT": str(port), "FLEET_GB_GATEWAY_EMISSION_PORT": str(emission_port),
                    "FLEET_GB_GATEWAY_HOST": "127.0.0.1", "FLEET_GB_GATEWAY_GATEWAY_ID": gateway_id}

    def start(self) -> None:
        log = self.log_file.open("ab")
        self.proc = subprocess.Popen([sys.executable, "-m", "gateway.gb"], cwd=REPO_ROOT, env=self.env,
                                     stdout=log, stderr=subprocess.STDOUT)
        log.close()
        wait_for_port(self.port, 60, self.proc)
        wait_for_port(self.emission_port, 10, self.proc)
