"""The record shapes of ``jt808.uplink.v1`` (docs/topics.md): one uplink, or a batch of them.

A record's value is either one uplink (a JSON object, as producers wrote it from the start) or a
**batch**: a JSON array of uplink objects, in the order the gateway received them (so a terminal's
uplinks keep their order inside the record, and records of one partition keep it between them). A
batch record says so in its header ``fleet.batch`` (the number of uplinks, ASCII digits), and its key
is the distinct phones inside, comma-separated in first-appearance order: a batch of one terminal has
that terminal's phone as key, like a single record. The gateway picks a batch's partition itself, as
Kafka's default partitioner would for each phone inside (murmur2 of the phone), so every uplink of a
terminal lands on the partition a single record keyed by its phone would.

Why batches: the stream worker's per-record cost (Faust's event machinery, ~100 µs) and the broker's
are paid once per record; a record of 20-500 uplinks pays them once for all (docs/performance.md).

Pure functions, used by the gateway (``batch_value``, ``batch_key``, ``partition_of``), the worker
(``split_value``), the tests and ``fleet decode-record``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import orjson

BATCH_HEADER = "fleet.batch"  # header of a batch record: how many uplinks its value holds


def batch_value(values: Sequence[bytes]) -> bytes:
    """The value of a batch record from uplink values already encoded as JSON objects (no re-encoding)."""
    return b"[" + b",".join(values) + b"]"


def batch_key(phones: Iterable[str]) -> bytes:
    """Distinct phones in first-appearance order, comma-separated."""
    return ",".join(dict.fromkeys(phones)).encode()


def batch_headers(count: int) -> list[tuple[str, bytes]]:
    return [(BATCH_HEADER, str(count).encode())]


def is_batch(value: bytes | bytearray | memoryview | str) -> bool:
    """True when a value is a JSON array (a batch); a single uplink is an object. Whitespace before
    the first character is allowed (a third party's producer may pretty-print)."""
    if isinstance(value, str):
        return value.lstrip()[:1] == "["
    data = bytes(value[:64]) if not isinstance(value, bytes) else value
    return data.lstrip()[:1] == b"["


def split_value(value: bytes | bytearray | memoryview | str) -> list[Any]:
    """The uplinks of one record's value as parsed JSON: one item for a single uplink, the items of
    a batch in order. Raises ValueError (orjson.JSONDecodeError) when the value is not JSON; an item
    that is not an object is returned as is (the caller refuses it)."""
    parsed = orjson.loads(value)
    return parsed if isinstance(parsed, list) else [parsed]


def murmur2(data: bytes) -> int:
    """Kafka's murmur2 (org.apache.kafka.common.utils.Utils.murmur2), as its default partitioner uses."""
    length = len(data)
    seed = 0x9747B28C
    m = 0x5BD1E995
    h = seed ^ length
    length4 = length // 4
    for i in range(length4):
        i4 = i * 4
        k = (data[i4] & 0xFF) + ((data[i4 + 1] & 0xFF) << 8) + ((data[i4 + 2] & 0xFF) << 16) \
            + ((data[i4 + 3] & 0xFF) << 24)
        k = (k * m) & 0xFFFFFFFF
        k ^= (k % 0x100000000) >> 24
        k = (k * m) & 0xFFFFFFFF
        h = (h * m) & 0xFFFFFFFF
        h ^= k
    extra = length % 4
    if extra >= 3:
        h ^= (data[(length & ~3) + 2] & 0xFF) << 16
    if extra >= 2:
        h ^= (data[(length & ~3) + 1] & 0xFF) << 8
    if extra >= 1:
        h ^= data[length & ~3] & 0xFF
        h = (h * m) & 0xFFFFFFFF
    h ^= (h % 0x100000000) >> 13
    h = (h * m) & 0xFFFFFFFF
    h ^= (h % 0x100000000) >> 15
    if h & 0x80000000:  # as a signed 32-bit integer, like Java's
        h -= 0x100000000
    return h


def partition_of(key: bytes, partitions: int) -> int:
    """The partition Kafka's default partitioner gives ``key`` among ``partitions`` (0..n-1)."""
    return (murmur2(key) & 0x7FFFFFFF) % partitions
