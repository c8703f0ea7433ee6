"""The ports given to servers the stack's tools and the tests start: the OS may hand a port it just handed out
again, so one process never gives the same port twice; a caller may take its ports from its own range."""

from __future__ import annotations

import collections
import socket
from typing import Any

import pytest

from fleet.services import _system


class _Socket:
    """A socket whose bind(port 0) is given the next port of a fixed sequence, as an OS may hand them out."""

    def __init__(self, ports: list[int]) -> None:
        self.ports = ports
        self.port = 0

    def __call__(self, *args: Any) -> _Socket:
        return self

    def __enter__(self) -> _Socket:
        return self

    def __exit__(self, *args: Any) -> None:
        return None

    def bind(self, address: tuple[str, int]) -> None:
        self.port = address[1] or self.ports.pop(0)

    def getsockname(self) -> tuple[str, int]:
        return ("127.0.0.1", self.port)


@pytest.fixture
def given(monkeypatch: pytest.MonkeyPatch) -> set[int]:
    ports: set[int] = set()
    monkeypatch.setattr(_system, "_GIVEN_PORTS", ports)
    monkeypatch.setattr(_system, "_GIVEN_ORDER", collections.deque())
    return ports


def test_a_port_the_os_hands_out_again_is_not_given_twice(monkeypatch: pytest.MonkeyPatch, given: set[int]) -> None:
    monkeypatch.setattr(_system.socket, "socket", _Socket([41001, 41001, 41001, 41002]))
    assert [_system.free_port(), _system.free_port()] == [41001, 41002]


def test_only_the_last_ports_given_are_kept_out(monkeypatch: pytest.MonkeyPatch, given: set[int]) -> None:
    monkeypatch.setattr(_system, "_GIVEN_KEPT", 2)
    monkeypatch.setattr(_system.socket, "socket", _Socket([41001, 41002, 41002, 41003, 41001]))
    assert [_system.free_port() for _ in range(4)] == [41001, 41002, 41003, 41001]


def test_ports_of_a_range_are_each_given_once_and_only_free_ones(given: set[int]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        busy = taken.getsockname()[1]
        taken.listen()
        span = range(busy - 2, busy + 3)
        ports = []
        for _ in range(5):
            try:
                ports.append(_system.free_port(within=span))
            except RuntimeError:
                break  # another process holds a port of the span: the rest was still given once each
        assert busy not in ports and len(set(ports)) == len(ports) and set(ports) <= set(span)
        assert len(ports) >= 2
        with pytest.raises(RuntimeError, match="no free port"):
            for _ in range(5):
                _system.free_port(within=span)


def test_the_test_workers_ranges_are_below_the_ephemeral_ports_and_apart() -> None:
    from tests.support import ports

    low, high = (int(n) for n in open("/proc/sys/net/ipv4/ip_local_port_range").read().split())
    assert ports._MINE.stop <= low  # never a port the OS gives to bind(0) or to a client connection
    port = ports.free_port()
    assert port in ports._MINE
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", port))
