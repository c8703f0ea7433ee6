"""Who may hold one of the attachment server's connections, so that idle sockets never lock out an upload.

A connection is *pending* from accept until its attachment list (0x1210) is accepted, then *identified*.
Pending connections are capped per address (``max_pending_per_address``; an IPv6 address counts by its /64,
what one host is usually given) and, with the identified ones, by ``max_connections``. At either cap a new
connection does not wait and is not refused: the OLDEST pending connection (of that address, or of all)
is closed to make room. A genuine terminal sends its list at once, so a flood of silent sockets can only
push out other silent sockets; identified uploads are never closed for room. Only when every connection
is an identified upload is a new one closed at accept.
"""

from __future__ import annotations

import ipaddress
from collections import Counter, OrderedDict
from collections.abc import Callable

IPV6_PREFIX = 64


def address_group(host: str) -> str:
    """The key a connection's source address is capped by: the IPv4 address, or the IPv6 /64."""
    try:
        ip = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, IPV6_PREFIX), strict=False))
    return str(ip)


class Admission:
    """The connection table. ``admit`` registers a connection with the callable that closes it."""

    def __init__(self, max_connections: int, max_pending_per_address: int) -> None:
        self.max_connections = max_connections
        self.max_pending_per_address = max_pending_per_address
        self._pending: OrderedDict[str, tuple[str, Callable[[str], None]]] = OrderedDict()  # oldest first
        self._pending_by_group: Counter[str] = Counter()
        self._identified: set[str] = set()
        self.evicted = 0
        self.refused = 0

    @property
    def identified(self) -> int:
        return len(self._identified)

    @property
    def open(self) -> int:
        return len(self._pending) + len(self._identified)

    def admit(self, connection_id: str, host: str, close: Callable[[str], None]) -> bool:
        """Room for a new connection from ``host`` (closing older pending ones if need be); False: none."""
        group = address_group(host)
        if self._pending_by_group[group] >= self.max_pending_per_address:
            oldest = next(cid for cid, (g, _) in self._pending.items() if g == group)
            self._evict(oldest, f"{self.max_pending_per_address} connections from {group} without a list yet")
        if self.open >= self.max_connections:
            if not self._pending:
                self.refused += 1
                return False
            self._evict(next(iter(self._pending)), f"{self.max_connections} connections open")
        self._pending[connection_id] = (group, close)
        self._pending_by_group[group] += 1
        return True

    def identify(self, connection_id: str) -> None:
        """The connection's attachment list was accepted: it is never closed for room. A connection closed
        for room meanwhile (its list was being checked) stays closed and is not counted."""
        if self._forget(connection_id):
            self._identified.add(connection_id)

    def release(self, connection_id: str) -> None:
        """The connection ended."""
        self._forget(connection_id)
        self._identified.discard(connection_id)

    def _forget(self, connection_id: str) -> bool:
        entry = self._pending.pop(connection_id, None)
        if entry is None:
            return False
        group = entry[0]
        self._pending_by_group[group] -= 1
        if not self._pending_by_group[group]:
            del self._pending_by_group[group]
        return True

    def _evict(self, connection_id: str, why: str) -> None:
        close = self._pending[connection_id][1]
        self._forget(connection_id)
        self.evicted += 1
        close(f"closed to make room: {why}")
