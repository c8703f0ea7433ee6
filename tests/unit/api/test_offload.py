"""CPU-heavy calls (argon2) run a bounded number at a time, off the gevent hub when gevent is active."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from api.offload import Offloader


def test_thirty_concurrent_calls_run_at_most_concurrency_at_once() -> None:
    offloader = Offloader(concurrency=2)
    running, peak = 0, 0
    lock = threading.Lock()

    def heavy(n: int) -> int:
        nonlocal running, peak
        with lock:
            running += 1
            peak = max(peak, running)
        time.sleep(0.01)  # stands for argon2's work; the assertion is on overlap, not time
        with lock:
            running -= 1
        return n * 2

    with ThreadPoolExecutor(max_workers=30) as pool:
        results = list(pool.map(lambda n: offloader.run(heavy, n), range(30)))
    assert results == [n * 2 for n in range(30)]
    assert peak == 2


def test_a_caller_that_finds_no_free_slot_in_time_gets_timeout_error() -> None:
    offloader = Offloader(concurrency=1, wait_s=0.05)
    release = threading.Event()
    holder = threading.Thread(target=offloader.run, args=(release.wait, 5))
    holder.start()
    try:
        for _ in range(100):
            if not offloader._slots.acquire(blocking=False):
                break
            offloader._slots.release()
            time.sleep(0.01)
        with pytest.raises(TimeoutError):
            offloader.run(lambda: None)
    finally:
        release.set()
        holder.join()


GEVENT_PROBE = """
from gevent import monkey
monkey.patch_all()
import gevent
from api.offload import Offloader
from warehouse.passwords import hash_password, verify_password

stored = hash_password("right-password-1")
state = {"running": False, "ticks": 0}

def ticker():
    while True:
        gevent.sleep(0.001)
        if state["running"]:
            state["ticks"] += 1

def ticks_during(call):
    state["ticks"], state["running"] = 0, True
    gevent.joinall([gevent.spawn(call, verify_password, stored, "wrong") for _ in range(4)])
    state["running"] = False
    return state["ticks"]

gevent.spawn(ticker)
gevent.sleep(0.01)
direct = ticks_during(lambda fn, *args: fn(*args))
offloaded = ticks_during(Offloader(2).run)
print(direct, offloaded)
"""


def test_under_gevent_password_checks_leave_the_hub_free_for_other_greenlets() -> None:
    """Called directly, four argon2 checks freeze every other greenlet; offloaded, a ticker greenlet
    keeps running while they are checked."""
    import subprocess
    import sys

    from fleet.settings import REPO_ROOT

    out = subprocess.run([sys.executable, "-c", GEVENT_PROBE], cwd=REPO_ROOT, capture_output=True, text=True,
                         timeout=120, check=True).stdout.split()
    direct, offloaded = int(out[0]), int(out[1])
    assert direct <= 2  # the hub was blocked: the ticker could not run
    assert offloaded >= 10
