"""Kafka records of ``jt808.uplink.v1`` -> the uplink events the steps see (docs/topics.md).

A record holds one uplink (a JSON object) or a batch of them (a JSON array, header ``fleet.batch``;
fleet/uplink_records.py). The steps work on uplinks, one event each, index-aligned with their parse
(streams.uplinks), so a batch record is expanded here into one :class:`UplinkEvent` per uplink, in
order; a single record stays the event it is. Every expanded event names its record (topic, partition,
offset: a dead letter says where it came from) and its place in it (``index``). Acknowledging is per
record (the caller acks the Faust events once every uplink of them is done).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from fleet.uplink_records import is_batch
from streams.deadletter import EventLike, MessageLike


@dataclass(frozen=True, slots=True)
class UplinkEvent:
    """One uplink of a batch record: ``value`` is its parsed JSON (a dict when well-formed)."""

    key: bytes | None
    value: Any
    message: MessageLike
    index: int


def expand(events: Sequence[EventLike]) -> list[EventLike]:
    """The uplink events of a take of records, in order. A batch that is not JSON stays one event
    (its parse fails and it is dead-lettered whole, as a bad single record is)."""
    out: list[EventLike] = []
    for event in events:
        value = event.value
        if not isinstance(value, bytes | bytearray | str) or not is_batch(value):
            out.append(event)
            continue
        try:
            items = orjson.loads(value)
        except orjson.JSONDecodeError:
            out.append(event)
            continue
        message = event.message
        for index, item in enumerate(items):
            phone = item.get("phone") if isinstance(item, dict) else None
            key = phone.encode() if isinstance(phone, str) else event.key
            out.append(UplinkEvent(key, item, message, index))
    return out
