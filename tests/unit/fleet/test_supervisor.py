"""Supervision rules of `fleet up`, on tiny Python children (no servers)."""

from __future__ import annotations

import socket
import sys
import time
from pathlib import Path

import pytest

from fleet.services._system import PortInUseError, pid_alive
from fleet.supervisor import Child, ChildSpec, Health


def _spec(name: str, code: str, **kwargs) -> ChildSpec:  # type: ignore[no-untyped-def]
    return ChildSpec(name, "json", [sys.executable, "-c", code], **kwargs)


def test_child_whose_module_does_not_exist_is_reported_missing(tmp_path: Path) -> None:
    child = Child(ChildSpec("ghost", "no_such_package.__main__", ["true"]), tmp_path, {})
    child.start()
    assert child.state == "missing"
    assert child.missing == "no_such_package/__main__.py does not exist yet"
    assert child.pid is None


def test_crashed_child_restarts_with_growing_backoff(tmp_path: Path) -> None:
    child = Child(_spec("crasher", "import sys; sys.exit(3)"), tmp_path, {})
    child.start()
    assert child.proc is not None
    child.proc.wait(timeout=10)
    assert child.poll_crash() == 3
    first_delay = child.next_restart_at - time.monotonic()
    assert not child.restart_due()
    time.sleep(max(0.0, first_delay) + 0.05)
    assert child.restart_due()
    child.start()
    assert child.proc is not None
    child.proc.wait(timeout=10)
    child.poll_crash()
    assert child.next_restart_at - time.monotonic() > first_delay  # backoff doubled
    child.stop()
    assert "--- fleet up: starting" in (tmp_path / "crasher.log").read_text()


def test_stop_terminates_the_whole_process_group(tmp_path: Path) -> None:
    code = ("import subprocess, sys, time; "
            "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); "
            "print(p.pid, flush=True); time.sleep(60)")
    child = Child(_spec("parent", code), tmp_path, {})
    child.start()
    deadline = time.monotonic() + 10
    log = tmp_path / "parent.log"
    while time.monotonic() < deadline and not log.read_text().strip().splitlines()[-1].isdigit():
        time.sleep(0.05)
    grandchild = int(log.read_text().strip().splitlines()[-1])
    child.stop(timeout_s=5)
    time.sleep(0.2)
    assert not pid_alive(grandchild)
    assert child.state == "stopped"


def test_child_becomes_healthy_when_its_port_answers(tmp_path: Path, free_port) -> None:  # type: ignore[no-untyped-def]
    port = free_port()
    code = (f"import socket, time; s = socket.socket(); s.bind(('127.0.0.1', {port})); s.listen(); "
            "time.sleep(60)")
    child = Child(_spec("server", code, health=Health(tcp_port=port)), tmp_path, {})
    child.start()
    try:
        assert child.wait_healthy(timeout_s=10)
        assert child.state == "healthy"
    finally:
        child.stop()


def test_port_in_use_names_the_variable_that_moves_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from fleet import launcher
    from fleet.settings import StackSettings

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        monkeypatch.setenv("FLEET_GATEWAY_PORT", str(port))
        specs = launcher.child_specs(terminals=0, simulator=False)
        with pytest.raises(PortInUseError) as caught:
            launcher._check_ports(specs, StackSettings(), own_pg=False, own_kafka=False)
    assert str(caught.value) == f"port {port} is in use; set FLEET_GATEWAY_PORT"


def test_the_gb_gateways_emission_port_in_use_names_its_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    # the GB gateway listens on two ports (GB/T 32960 and GB 17691 / HJ 1239): both are checked before start
    from fleet import launcher
    from fleet.settings import StackSettings

    with socket.socket() as taken, socket.socket() as free:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        free.bind(("127.0.0.1", 0))
        port, free_port = taken.getsockname()[1], free.getsockname()[1]
        free.close()
        monkeypatch.setenv("FLEET_GB_GATEWAY_PORT", str(free_port))
        monkeypatch.setenv("FLEET_GB_GATEWAY_EMISSION_PORT", str(port))
        specs = [s for s in launcher.child_specs(terminals=0, simulator=False) if s.name == "gb-gateway"]
        assert [s.argv[1:] for s in specs] == [["-m", "gateway.gb"]]
        with pytest.raises(PortInUseError) as caught:
            launcher._check_ports(specs, StackSettings(), own_pg=False, own_kafka=False)
    assert str(caught.value) == f"port {port} is in use; set FLEET_GB_GATEWAY_EMISSION_PORT"


def test_fleet_up_check_passes_only_when_every_child_is_healthy(tmp_path: Path) -> None:
    """`fleet up --check`'s verdict (fleet.launcher.not_healthy): a child that exited before its health check
    passed and a child whose program is missing fail it, named in that order; healthy children do not."""
    from fleet.launcher import not_healthy

    serving = Child(_spec("serving", "import time; time.sleep(30)"), tmp_path, {})
    from tests.support.ports import free_port

    # its health is a port nobody listens on: it exits before passing it
    crashed = Child(_spec("crashed", "import sys; sys.exit(4)", health=Health(tcp_port=free_port())), tmp_path, {})
    ghost = Child(ChildSpec("ghost", "no_such_package.__main__", ["true"]), tmp_path, {})
    try:
        for child in (serving, crashed, ghost):
            child.start()
        assert serving.wait_healthy(5) and not crashed.wait_healthy(5)
        assert not_healthy([serving]) == []
        assert not_healthy([ghost, serving, crashed]) == ["crashed", "ghost"]
    finally:
        serving.stop()
