"""The ports given to servers the stack's tools and the tests start: the OS may hand a port it just handed out
again, so one process never gives the same port twice, and a caller may keep to its own share of them."""

from __future__ import annotations

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
        self.port = self.ports.pop(0)

    def getsockname(self) -> tuple[str, int]:
        return ("127.0.0.1", self.port)


@pytest.fixture
def os_ports(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    ports: list[int] = []
    monkeypatch.setattr(_system.socket, "socket", _Socket(ports))
    monkeypatch.setattr(_system, "_GIVEN_PORTS", set())
    return ports


def test_a_port_the_os_hands_out_again_is_not_given_twice(os_ports: list[int]) -> None:
    os_ports.extend([41001, 41001, 41001, 41002])
    assert [_system.free_port(), _system.free_port()] == [41001, 41002]


def test_a_caller_keeps_to_its_own_share_of_ports(os_ports: list[int]) -> None:
    os_ports.extend([41001, 41003, 41004, 41005, 41006])
    odd = lambda port: port % 2 == 1  # noqa: E731
    even = lambda port: port % 2 == 0  # noqa: E731
    assert [_system.free_port(accept=even), _system.free_port(accept=odd)] == [41004, 41005]


def test_real_ports_are_distinct_and_bindable() -> None:
    ports = [_system.free_port() for _ in range(50)]
    assert len(set(ports)) == 50
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", ports[-1]))
