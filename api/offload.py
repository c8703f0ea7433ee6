"""CPU-heavy calls (argon2 password checks) off the gevent hub, a bounded number at a time.

argon2id with the library's defaults costs 64 MiB and tens of milliseconds per check and releases
the GIL. Under gevent's worker a direct call would stall every greenlet of the process, so it runs
on gevent's thread pool; without gevent it runs in the calling thread. Either way at most
``concurrency`` checks run at once per process: unthrottled, 32 concurrent checks took the API
from 92 MB to 2.1 GB (32 x 64 MiB). Callers beyond that wait their turn.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


def _gevent_active() -> bool:
    try:
        from gevent import monkey
    except ImportError:
        return False
    return bool(monkey.is_module_patched("threading"))


class Offloader:
    """``run(fn, *args)``: ``fn(*args)`` with at most ``concurrency`` running at once.

    Raises TimeoutError when no slot frees within ``wait_s`` (the caller answers "busy")."""

    def __init__(self, concurrency: int, wait_s: float = 30.0) -> None:
        self.concurrency = max(1, concurrency)
        self.wait_s = wait_s
        self._slots = threading.BoundedSemaphore(self.concurrency)  # a gevent semaphore once patched
        self._pool: Any = None

    def run(self, fn: Callable[..., T], *args: Any) -> T:
        if not self._slots.acquire(timeout=self.wait_s):
            raise TimeoutError("no free slot for a CPU-heavy call")
        try:
            if _gevent_active():
                result: T = self._gevent_pool().apply(fn, args)
                return result
            return fn(*args)
        finally:
            self._slots.release()

    def _gevent_pool(self) -> Any:
        if self._pool is None:
            from gevent.threadpool import ThreadPool

            self._pool = ThreadPool(self.concurrency)
        return self._pool
