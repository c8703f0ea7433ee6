"""Who may feed a stream, and how many connections one address may hold (docs/architecture.md
"Terminal ports").

A terminal's media connection is bound to a stream only when all of these hold:

1. the platform asked for it: a stream of the packet's SIM and channel is registered (the API registers
   before its 0x9101 / 0x9201) and the request is unexpired: the last registration is at most
   ``connect_timeout_s`` old, or the stream's source dropped at most ``source_grace_s`` ago (the terminal
   reconnecting); a console's heartbeats keep a stream, never a request;
2. the stream has no live source: a second connection never replaces the one that feeds it;
3. it comes from the terminal asked, by the source policy (``MediaServerSettings.source_policy``):
   ``address``: its source IP is that of the terminal's authenticated JT/T 808 session, which the API
   read (``device.session_address``) and registered with the stream; ``port``: it arrived on the
   one-time port that this request's 0x9101 / 0x9201 named (carrier NAT, where the media connection
   may come from another address than the 808 session), which is closed once a terminal is bound.

Everything else is refused and logged with both addresses; the connection is closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gateway.video.hub import Stream

log = logging.getLogger("gateway.video")


@dataclass(frozen=True)
class Arrival:
    """Where a terminal connection came from and on which of our ports it arrived."""

    ip: str | None
    peer: str
    local_port: int


def source_alive(stream: Stream) -> bool:
    return stream.source is not None and not stream.source.closed


def request_open(stream: Stream, now: float, connect_timeout_s: float, source_grace_s: float) -> bool:
    """Rule 1: the platform's request for ``stream`` still stands for a new terminal connection."""
    if stream.source_lost_at is not None and now - stream.source_lost_at <= source_grace_s:
        return True
    return now - stream.registered_at <= connect_timeout_s


def refusal(stream: Stream, arrival: Arrival, policy: str) -> str | None:
    """Rule 3: why ``arrival`` is not the terminal asked for ``stream`` (None: it is)."""
    if policy == "port":
        if stream.one_time_port is None or arrival.local_port != stream.one_time_port:
            return f"not on the one-time port {stream.one_time_port} of this request"
        return None
    expected = stream.info.source_address
    if expected is None:
        return "no session address is known for the terminal (its JT/T 808 session must authenticate again)"
    if arrival.ip != expected:
        return f"source address is not the terminal's session address {expected}"
    return None


class BoundedLog:
    """Refusals are logged at most once per key (what, source IP) every ``every_s``, with how many there
    were since: a flood must not become a log flood (the server's counters count every one)."""

    def __init__(self, every_s: float = 10.0, max_keys: int = 10_000) -> None:
        self.every_s, self.max_keys = every_s, max_keys
        self._logged_at: dict[tuple[str, str], float] = {}
        self._pending: Counter[tuple[str, str]] = Counter()

    def due(self, what: str, ip: str | None, now: float) -> int:
        """Count one refusal; how many to report now (0: stay quiet)."""
        key = (what, ip or "?")
        self._pending[key] += 1
        if now - self._logged_at.get(key, -self.every_s) < self.every_s:
            return 0
        if len(self._logged_at) >= self.max_keys:  # memory stays bounded whatever addresses come
            self._logged_at.clear()
            self._pending = Counter({key: self._pending[key]})
        self._logged_at[key] = now
        return self._pending.pop(key)


class AddressCounter:
    """Open connections per source IP, capped (0: no cap)."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.open: Counter[str] = Counter()

    def acquire(self, ip: str | None) -> bool:
        key = ip or "?"
        if self.cap and self.open[key] >= self.cap:
            return False
        self.open[key] += 1
        return True

    def release(self, ip: str | None) -> None:
        key = ip or "?"
        self.open[key] -= 1
        if self.open[key] <= 0:
            del self.open[key]


def parse_port_range(text: str) -> range:
    """``"7620-7699"`` -> range(7620, 7700). Raises ValueError for anything else."""
    first, _, last = text.partition("-")
    low, high = int(first), int(last or first)
    if not 0 < low <= high <= 65535:
        raise ValueError(f"bad port range {text!r}")
    return range(low, high + 1)


Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


class OneTimePorts:
    """The ``port`` policy's listeners: one per waiting request, on a free port of the range, closed once
    a terminal is bound to its stream, or the stream is dropped."""

    def __init__(self, host: str, ports: range, handler: Handler) -> None:
        self.host, self.ports, self.handler = host, ports, handler
        self.servers: dict[int, asyncio.Server] = {}

    async def open(self) -> int:
        """A listening one-time port. Raises OSError when every port of the range is taken."""
        for port in self.ports:
            if port in self.servers:
                continue
            try:
                server = await asyncio.start_server(self.handler, self.host, port, limit=1 << 20, reuse_address=True)
            except OSError:
                continue  # taken by something else
            self.servers[port] = server
            return port
        raise OSError(f"no free one-time port in {self.ports.start}-{self.ports.stop - 1}")

    def close(self, port: int | None) -> None:
        server = self.servers.pop(port, None) if port is not None else None
        if server is not None:
            server.close()

    async def close_all(self) -> None:
        for port in list(self.servers):
            server = self.servers.pop(port)
            server.close()
            with contextlib.suppress(Exception):
                async with asyncio.timeout(1):
                    await server.wait_closed()
