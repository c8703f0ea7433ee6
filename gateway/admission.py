"""Who may try to log in, and how often: the pool of connections waiting to authenticate (shared
fairly between source addresses) and the back-off of 0x0102 attempts after wrong codes.

Both exist because a terminal's phone, terminal id, maker and model are not secrets: what keeps a
stranger out is the auth code, so guessing it must be slow, and a host that opens many silent sockets
must not keep genuine terminals from logging in.
"""

from __future__ import annotations

import ipaddress
import logging
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, Protocol, TypeVar

T = TypeVar("T")


class WaitingConnection(Protocol):
    """What `admit_connection` needs of a terminal connection (JT/T 808 or GB)."""

    connection_id: str
    peer: str | None

    def log_hostile(self, level: int, msg: str, *args: object) -> None: ...

    def close(self, reason: str, abort: bool = False) -> None: ...


class DisplacementCounter(Protocol):
    unauthenticated_displaced: int

SOMAXCONN = Path("/proc/sys/net/core/somaxconn")


def accept_queue(requested: int, somaxconn: Path = SOMAXCONN) -> int:
    """The accept queue a listening socket asked for ``requested`` gets: Linux caps it at net.core.somaxconn
    (where that cannot be read, the request)."""
    try:
        return min(requested, int(somaxconn.read_text()))
    except (OSError, ValueError):
        return requested


def accept_queue_note(requested: int) -> str:
    """The accept queue for a gateway's "listening on" line, and what to do when the kernel cut it."""
    queue = accept_queue(requested)
    if queue >= requested:
        return f"accept queue {queue}"
    return (f"accept queue {queue}, not the {requested} asked: net.core.somaxconn caps it, and a reconnect storm of "
            f"more terminals than the queue waits on TCP's retry timers (docs/operations.md)")


IPV6_PREFIX = 64  # one IPv6 host usually holds a whole /64: counting exact addresses would not cap it


def address_key(peer: str | None) -> str:
    """The source a connection is counted under: the IPv4 address, or the /64 of an IPv6 one
    (an IPv4-mapped IPv6 address is its IPv4 address). `peer` is "host:port"; None or garbage -> ""."""
    if not peer:
        return ""
    host = peer.rsplit(":", 1)[0].strip("[]")
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, IPV6_PREFIX), strict=False))
    return str(address)


class UnauthenticatedPool(Generic[T]):
    """Connections waiting to authenticate, at most `limit` in all, shared by source address.

    Rule: while the pool has room everyone gets in. When it is full, a newcomer whose address holds
    fewer waiting connections than the address holding the most (after the newcomer's admission)
    takes the place of that address's oldest waiting connection, which the caller closes; otherwise
    the newcomer is refused. So one host can fill the pool only while nobody else needs it: a host
    over its share is refused, any other host still gets in."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._by_address: dict[str, OrderedDict[T, None]] = {}
        self._address_of: dict[T, str] = {}

    def __len__(self) -> int:
        return len(self._address_of)

    def __contains__(self, item: object) -> bool:
        return item in self._address_of

    def waiting_from(self, address: str) -> int:
        held = self._by_address.get(address)
        return len(held) if held else 0

    def admit(self, item: T, address: str) -> tuple[bool, T | None]:
        """(admitted, the connection it displaced, to be closed)."""
        displaced = None
        if len(self._address_of) >= self.limit:
            top = max(self._by_address, key=lambda a: len(self._by_address[a]), default=None)
            if top is None or self.waiting_from(address) + 1 >= len(self._by_address[top]):
                return False, None
            displaced = next(iter(self._by_address[top]))
            self.discard(displaced)
        self._by_address.setdefault(address, OrderedDict())[item] = None
        self._address_of[item] = address
        return True, displaced

    def discard(self, item: T) -> None:
        address = self._address_of.pop(item, None)
        if address is None:
            return
        held = self._by_address[address]
        held.pop(item, None)
        if not held:
            del self._by_address[address]


W = TypeVar("W", bound=WaitingConnection)


def admit_connection(pool: UnauthenticatedPool[W], conn: W, counters: DisplacementCounter) -> bool:
    """Admit a new connection to the pool of those not yet logged in (`UnauthenticatedPool`'s rule);
    a connection it displaces is logged and closed here. False: the caller closes `conn`."""
    admitted, displaced = pool.admit(conn, address_key(conn.peer))
    if displaced is not None:
        counters.unauthenticated_displaced += 1
        displaced.log_hostile(logging.WARNING, "conn %s (%s): closed to make room for %s (its host holds the "
                              "most connections waiting to authenticate)", displaced.connection_id,
                              displaced.peer, conn.peer)
        displaced.close("refused", abort=True)
    return admitted


@dataclass
class _Failures:
    count: int = 0
    next_at: float = 0.0  # no attempt is checked before this (loop time)
    last_at: float = 0.0


class AuthBackoff:
    """Back-off of 0x0102 attempts, per connection and per phone (canonical).

    The first `free_failures` wrong codes cost nothing (a terminal with a stale code, then its
    re-registration); after that each wrong code makes the next attempt wait `base_s`, doubling per
    failure, at most `max_s`. A success forgets the failures. Phones are remembered for `forget_s`
    after their last failure, at most `phones_max` of them (the oldest are forgotten first), so
    made-up phones cannot grow memory without bound."""

    def __init__(self, *, free_failures: int, base_s: float, max_s: float, phones_max: int) -> None:
        self.free_failures = free_failures
        self.base_s = base_s
        self.max_s = max_s
        self.phones_max = phones_max
        self.forget_s = 4 * max_s
        self._phones: OrderedDict[str, _Failures] = OrderedDict()

    def delay_s(self, failures: int) -> float:
        over = failures - self.free_failures
        if over <= 0:
            return 0.0
        return float(min(self.max_s, self.base_s * 2 ** min(over - 1, 30)))

    def phone_ready_at(self, phone: str) -> float:
        entry = self._phones.get(phone)
        return entry.next_at if entry else 0.0

    def phone_failed(self, phone: str, now: float) -> None:
        entry = self._phones.pop(phone, None) or _Failures()
        if now - entry.last_at >= self.forget_s:
            entry.count = 0
        entry.count += 1
        entry.last_at = now
        entry.next_at = now + self.delay_s(entry.count)
        self._phones[phone] = entry  # most recent last
        while len(self._phones) > self.phones_max:
            self._phones.popitem(last=False)

    def phone_succeeded(self, phone: str) -> None:
        self._phones.pop(phone, None)

    def sweep(self, now: float) -> None:
        """Forget phones whose last failure is older than `forget_s`."""
        while self._phones:
            phone, entry = next(iter(self._phones.items()))
            if now - entry.last_at < self.forget_s:
                break
            del self._phones[phone]
