"""Reassembly of sub-packaged messages (header bit 13: package total + index), per connection.

A message is identified by (msg_id, serial of its first package): packages carry consecutive serial
numbers, so package i of a message has serial first + i - 1 (mod 2^16). Packages may arrive out of order
and twice. Missing packages are requested with 0x8003 when the last package arrived with gaps, and again
after `resend_after_s` of silence; a message incomplete after `timeout_s` is dropped.

Memory: every connection has its own bound (`connection_max_bytes`) inside one byte budget shared by
all connections (`ReassemblyBudget`). A connection that would exceed its bound, or finds the shared
budget full, loses its OWN oldest incomplete messages first; another connection's are never touched,
so two hostile terminals filling their shares cannot refuse a third terminal's upload.
"""

from __future__ import annotations

from dataclasses import dataclass, field


class ReassemblyBudget:
    """Bytes held in partial messages across all connections."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.used_bytes = 0

    def take(self, n: int) -> bool:
        if self.used_bytes + n > self.max_bytes:
            return False
        self.used_bytes += n
        return True

    def give_back(self, n: int) -> None:
        self.used_bytes = max(0, self.used_bytes - n)


@dataclass
class PartialMessage:
    msg_id: int
    first_seq: int
    total: int
    started_at: float
    last_package_at: float
    frames: dict[int, bytes] = field(default_factory=dict)  # index -> raw frame
    bodies: dict[int, bytes] = field(default_factory=dict)  # index -> body bytes
    size_bytes: int = 0
    resend_requests: int = 0

    def missing(self) -> list[int]:
        return [i for i in range(1, self.total + 1) if i not in self.bodies]


@dataclass(frozen=True)
class Completed:
    msg_id: int
    first_seq: int
    body: bytes
    frames: list[bytes]  # raw frames in package order


@dataclass(frozen=True)
class ResendRequest:
    msg_id: int
    first_seq: int
    missing_indexes: list[int]
    head: bytes = field(default=b"", compare=False)  # first bytes of package 1 if it arrived (a 0x0801's media id)


class SubpackageAssembler:
    def __init__(self, budget: ReassemblyBudget, *, timeout_s: float, resend_after_s: float,
                 max_resend_requests: int = 2, connection_max_bytes: int | None = None) -> None:
        self._budget = budget
        self._max_bytes = budget.max_bytes if connection_max_bytes is None else connection_max_bytes
        self.used_bytes = 0
        self.evicted = 0  # own messages dropped to make room (read and reset by the connection)
        self._timeout_s = timeout_s
        self._resend_after_s = resend_after_s
        self._max_resend_requests = max_resend_requests
        self._partials: dict[tuple[int, int], PartialMessage] = {}
        self.dropped = 0

    def __len__(self) -> int:
        return len(self._partials)

    def add(self, msg_id: int, seq: int, total: int, index: int, body: bytes, frame: bytes,
            now: float) -> Completed | ResendRequest | None:
        """Store one package. Returns the completed message, a request for missing packages (when the
        last package arrived with gaps), or None. Raises ValueError for impossible package fields, or
        when this message alone does not fit the connection's bound or the shared budget even after
        this connection's older messages were evicted (the message is dropped; the caller answers
        with a failure)."""
        if total < 1 or not 1 <= index <= total:
            raise ValueError(f"package {index} of {total}")
        first_seq = (seq - index + 1) & 0xFFFF
        key = (msg_id, first_seq)
        partial = self._partials.get(key)
        if partial is None:
            partial = PartialMessage(msg_id, first_seq, total, now, now)
            self._partials[key] = partial
        elif partial.total != total:
            raise ValueError(f"package total changed from {partial.total} to {total}")
        partial.last_package_at = now
        if index not in partial.bodies:
            size = len(body) + len(frame)
            while self.used_bytes + size > self._max_bytes and self._evict_oldest_except(key):
                pass
            if self.used_bytes + size > self._max_bytes:
                self._discard(key)
                raise ValueError("message exceeds this connection's reassembly bound")
            while not self._budget.take(size):
                if not self._evict_oldest_except(key):
                    self._discard(key)
                    raise ValueError("reassembly memory budget exhausted")
            partial.size_bytes += size
            self.used_bytes += size
            partial.bodies[index] = body
            partial.frames[index] = frame
        if len(partial.bodies) == total:
            self._discard(key)
            order = range(1, total + 1)
            return Completed(msg_id, first_seq, b"".join(partial.bodies[i] for i in order),
                             [partial.frames[i] for i in order])
        if index == total:
            partial.resend_requests += 1
            return ResendRequest(msg_id, first_seq, partial.missing(), partial.bodies.get(1, b"")[:8])
        return None

    def sweep(self, now: float) -> list[ResendRequest]:
        """Drop timed-out messages; ask again for the missing packages of quiet ones."""
        requests = []
        for key, partial in list(self._partials.items()):
            if now - partial.started_at >= self._timeout_s:
                self._discard(key)
                self.dropped += 1
            elif (now - partial.last_package_at >= self._resend_after_s
                  and partial.resend_requests < self._max_resend_requests):
                partial.resend_requests += 1
                partial.last_package_at = now
                requests.append(ResendRequest(partial.msg_id, partial.first_seq, partial.missing(),
                                              partial.bodies.get(1, b"")[:8]))
        return requests

    def clear(self) -> None:
        for key in list(self._partials):
            self._discard(key)

    def _evict_oldest_except(self, key: tuple[int, int]) -> bool:
        """Drop this connection's oldest incomplete message other than `key`; False if none."""
        others = [(p.started_at, k) for k, p in self._partials.items() if k != key]
        if not others:
            return False
        self._discard(min(others)[1])
        self.evicted += 1
        return True

    def _discard(self, key: tuple[int, int]) -> None:
        partial = self._partials.pop(key, None)
        if partial is not None:
            self._budget.give_back(partial.size_bytes)
            self.used_bytes -= partial.size_bytes
