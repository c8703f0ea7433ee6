"""Dead letters (``fleet.deadletter.v1``) and the small event/sender interfaces the agents use.

The agents depend on these protocols rather than on Faust, so their steps run in unit tests with
plain objects and a list as the "topic".
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import orjson

from fleet.topics import DEAD_LETTER


class MessageLike(Protocol):
    topic: str
    partition: int
    offset: int


class EventLike(Protocol):
    """What the agents read from a Faust event."""

    @property
    def key(self) -> Any: ...

    @property
    def value(self) -> Any: ...

    @property
    def message(self) -> MessageLike: ...


# send(topic, key, value): produce one record; Faust's producer flushes before any offset commit.
Send = Callable[[str, bytes | None, bytes], Awaitable[None]]


def as_text(value: Any) -> str:
    if isinstance(value, bytes | bytearray):
        return bytes(value).decode("utf-8", errors="replace")
    return value if isinstance(value, str) else json.dumps(value, default=str)


def as_key(key: Any) -> bytes | None:
    if key is None or isinstance(key, bytes):
        return key
    return str(key).encode()


def dead_letter_record(event: EventLike, agent: str, error: str) -> dict[str, Any]:
    """The documented record: ``{source_topic, partition, offset, agent, error, value}``, plus
    ``batch_index`` for one uplink of a batch record (streams.records): ``value`` is then that uplink."""
    record = {
        "source_topic": event.message.topic,
        "partition": event.message.partition,
        "offset": event.message.offset,
        "agent": agent,
        "error": error,
        "value": as_text(event.value),
    }
    index = getattr(event, "index", None)
    if index is not None:
        record["batch_index"] = index
    return record


def encode(value: dict[str, Any]) -> bytes:
    """Compact UTF-8 JSON (orjson: the live positions messages are large and sent every window)."""
    return orjson.dumps(value)


class DeadLetters:
    """Sends dead letters for one agent, keyed by the original key."""

    def __init__(self, send: Send, agent: str) -> None:
        self._send = send
        self.agent = agent
        self.sent = 0

    async def __call__(self, event: EventLike, error: str) -> None:
        self.sent += 1
        await self._send(DEAD_LETTER, as_key(event.key), encode(dead_letter_record(event, self.agent, error)))
