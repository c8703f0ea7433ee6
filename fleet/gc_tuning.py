"""Garbage collector settings of the hot-path processes (gateway, streams worker).

CPython's cyclic collector runs a young collection every 700 net allocations, and an older one every
10 of those: a worker that builds dicts and dataclasses for thousands of uplinks a second ran it
hundreds of times a second, each pass also walking the survivors (Faust, aiokafka, psycopg objects)
of the older generations. Measured on the streams worker draining batch records: 61 -> 44 µs of CPU per
position with the threshold at 50,000 (docs/performance.md). Objects alive at start (modules, the app)
are frozen out of the collector's view.

Reference counting still frees every acyclic object at once; only cycles wait a little longer.
"""

from __future__ import annotations

import gc


def tune_gc(threshold: int) -> None:
    """Freeze what is alive now and collect the young generation every ``threshold`` allocations
    (0: leave Python's defaults)."""
    if threshold <= 0:
        return
    gc.collect()
    gc.freeze()
    gc.set_threshold(threshold, 20, 100)
