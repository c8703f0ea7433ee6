"""The console event hub: console.events.v1 from Kafka, routed to the subscribers of each enterprise.

One ``PushHub`` per API process holds the connected subscribers indexed by enterprise id. Its Kafka
consumer (``KafkaEventSource``: a daemon thread, a greenlet under gunicorn's gevent worker; no consumer
group: every API process sees every event, positioned at the end of each partition) starts as the API
worker boots (``api.server``, after the fork, under gevent), or on the first subscription where nothing
started it (a plain WSGI server, tests); never at import or in gunicorn's master. An event goes to every subscriber whose enterprise id is a segment
of the event's ``enterprise_path``, i.e. the vehicle's enterprise and its ancestors; an event that names a
``user_id`` (a command's answer, the file it asked for) goes only to that user's subscribers among them,
never to the other users of the enterprise. The hub never writes
to a socket: it appends to each subscriber's bounded ``Outbox`` (``api.push`` serves the sockets).
"""

from __future__ import annotations

import json
import logging
import threading
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from api.push_language import localised_bodies
from api.stomp import KIND_MESSAGE, KIND_POSITIONS
from fleet.topics import CONSOLE_EVENTS

log = logging.getLogger("api.push")

OUTBOX_CAPACITY = 256  # pending MESSAGE bodies per connection
READY_TIMEOUT_S = 10.0  # how long a first SUBSCRIBE waits for the consumer to be positioned


@dataclass(frozen=True)
class Outgoing:
    kind: str  # KIND_MESSAGE or KIND_POSITIONS
    body: bytes  # JSON, shared by every recipient
    localised: Mapping[str, bytes] | None = None  # the body in a language where it reads differently

    def body_for(self, language: str) -> bytes:
        """The body a subscriber speaking ``language`` gets (``api.push_language``)."""
        return (self.localised or {}).get(language, self.body)


class Outbox:
    """A bounded queue of pending bodies for one connection (not thread-safe: its owner locks).

    Full: drop the oldest position batch; with none queued, an incoming position batch is dropped
    itself, and only a queue full of pushes drops its oldest push.
    """

    def __init__(self, capacity: int = OUTBOX_CAPACITY) -> None:
        self.capacity = capacity
        self.dropped_positions = 0
        self.dropped_messages = 0
        self._items: deque[Outgoing] = deque()

    def __len__(self) -> int:
        return len(self._items)

    def put(self, item: Outgoing) -> None:
        if len(self._items) >= self.capacity and not self._drop_oldest_positions():
            if item.kind == KIND_POSITIONS:
                self.dropped_positions += 1
                return
            self._items.popleft()
            self.dropped_messages += 1
        self._items.append(item)

    def drain(self) -> list[Outgoing]:
        items = list(self._items)
        self._items.clear()
        return items

    def _drop_oldest_positions(self) -> bool:
        for index, queued in enumerate(self._items):
            if queued.kind == KIND_POSITIONS:
                del self._items[index]
                self.dropped_positions += 1
                return True
        return False


class Subscriber(Protocol):
    @property
    def enterprise_id(self) -> int: ...

    @property
    def kinds(self) -> frozenset[str]: ...

    @property
    def user_id(self) -> int | None:
        """The signed-in user (None for a session that is not a user's, e.g. an open platform app)."""
        ...

    def offer(self, item: Outgoing) -> None: ...


@dataclass(frozen=True)
class Route:
    item: Outgoing
    enterprise_ids: list[int]  # the path's ids: the vehicle's enterprise and its ancestors
    user_id: int | None = None  # only this user's sessions among them


def route_event(event: Mapping[str, Any]) -> Route | None:
    """The body to push for a console.events.v1 value and who receives it. None for an unusable
    event (a ``user_id`` that is not an integer included: an addressed push never falls back to all)."""
    kind = event.get("kind")
    if kind == "push" and isinstance(event.get("push"), dict):
        item = Outgoing(KIND_MESSAGE, _json_bytes(event["push"]), localised_bodies(event["push"], _json_bytes) or None)
    elif kind == "positions" and isinstance(event.get("fields"), list) and isinstance(event.get("rows"), list):
        # fleet.position_wire: the bulk read's columns, one row per vehicle
        item = Outgoing(KIND_POSITIONS, _json_bytes({"type": "positions", "fields": event["fields"],
                                                     "rows": event["rows"]}))
    else:
        return None
    user_id = event.get("user_id")
    if user_id is not None and not _is_int(user_id):
        return None
    path = event.get("enterprise_path")
    if isinstance(path, str) and path.strip("/"):
        segments = path.strip("/").split("/")
        if not all(s.isdigit() for s in segments):
            return None
        return Route(item, [int(s) for s in segments], user_id)
    enterprise_id = event.get("enterprise_id")
    if isinstance(enterprise_id, int) and not isinstance(enterprise_id, bool):
        return Route(item, [enterprise_id], user_id)
    return None


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _json_bytes(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


class EventSource(Protocol):
    ready: threading.Event

    def stop(self) -> None: ...


class PushHub:
    """Subscribers by enterprise id, and the fan-out of console events to them.

    ``start_source(on_value)`` starts the event source (the Kafka consumer thread) and returns it;
    it is called once, on the first ``attach``. Without it (unit tests) events come only through
    ``dispatch``/``dispatch_value``.
    """

    def __init__(
        self,
        start_source: Callable[[Callable[[bytes], object]], EventSource] | None = None,
        *,
        ready_timeout_s: float = READY_TIMEOUT_S,
    ) -> None:
        self._start_source = start_source
        self._ready_timeout_s = ready_timeout_s
        self._lock = threading.Lock()
        self._by_enterprise: dict[int, set[Subscriber]] = {}
        self._source: EventSource | None = None

    def start(self) -> EventSource | None:
        """Start the event source unless it runs (the API worker calls this as it boots, so the consumer is
        positioned before the first browser subscribes: a push produced between a console's SUBSCRIBE and a
        lazily started consumer's positioning would be lost). Returns the source; None without one."""
        with self._lock:
            if self._source is None and self._start_source is not None:
                self._source = self._start_source(self.dispatch_value)
            return self._source

    def attach(self, subscriber: Subscriber) -> None:
        """Start delivering to ``subscriber``; starts the event source if the worker has not, and waits
        (bounded) until it is positioned, so events produced after this returns are delivered."""
        with self._lock:
            self._by_enterprise.setdefault(subscriber.enterprise_id, set()).add(subscriber)
        source = self.start()
        if source is not None and not source.ready.wait(self._ready_timeout_s):
            log.warning("console event consumer not positioned after %.0f s", self._ready_timeout_s)

    def detach(self, subscriber: Subscriber) -> None:
        with self._lock:
            subscribers = self._by_enterprise.get(subscriber.enterprise_id)
            if subscribers is not None:
                subscribers.discard(subscriber)
                if not subscribers:
                    del self._by_enterprise[subscriber.enterprise_id]

    def subscriber_count(self) -> int:
        with self._lock:
            return sum(len(s) for s in self._by_enterprise.values())

    def dispatch_value(self, value: bytes) -> int:
        """Fan out one raw Kafka value; a malformed one is logged and skipped."""
        try:
            event = json.loads(value)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            log.warning("skipping console event that is not JSON: %s", exc)
            return 0
        if not isinstance(event, dict):
            log.warning("skipping console event that is not an object")
            return 0
        return self.dispatch(event)

    def dispatch(self, event: Mapping[str, Any]) -> int:
        """Offer one event to its recipients; returns how many subscribers got it."""
        routed = route_event(event)
        if routed is None:
            log.warning("skipping console event without usable kind/body/enterprise: %.200r", event)
            return 0
        item = routed.item
        with self._lock:
            recipients = [s for eid in routed.enterprise_ids for s in self._by_enterprise.get(eid, ())]
        delivered = 0
        for subscriber in recipients:
            if routed.user_id is not None and subscriber.user_id != routed.user_id:
                continue
            if item.kind in subscriber.kinds:
                subscriber.offer(item)
                delivered += 1
        return delivered

    def close(self) -> None:
        with self._lock:
            source, self._source = self._source, None
        if source is not None:
            source.stop()


class KafkaEventSource(threading.Thread):
    """Reads every partition of ``topic`` from its end, without a consumer group, and hands each
    value to ``on_value``. Kafka errors are logged and the consumer is rebuilt after a pause
    (positioned at the end again: a push missed during an outage is not replayed; the console
    resyncs over REST after reconnecting)."""

    def __init__(
        self, bootstrap: str, on_value: Callable[[bytes], object], topic: str = CONSOLE_EVENTS
    ) -> None:
        super().__init__(name="console-events-consumer", daemon=True)
        self.bootstrap = bootstrap
        self.topic = topic
        self.on_value = on_value
        self.ready = threading.Event()
        self._stopping = threading.Event()

    def stop(self) -> None:
        self._stopping.set()
        self.join(timeout=5)

    def run(self) -> None:
        while not self._stopping.is_set():
            try:
                self._consume()
            except Exception:
                log.exception("console event consumer failed; restarting in 2 s")
                self._stopping.wait(2.0)

    def _consume(self) -> None:
        from kafka import KafkaConsumer, TopicPartition

        from fleet.kafka_clients import kafka_python_options

        consumer = KafkaConsumer(
            bootstrap_servers=self.bootstrap,
            group_id=None,
            enable_auto_commit=False,
            client_id="fleet-api-push",
            **kafka_python_options(),
        )
        try:
            partitions: set[int] = set()
            while not partitions and not self._stopping.is_set():
                partitions = consumer.partitions_for_topic(self.topic)
                if not partitions:
                    log.info("waiting for topic %s to exist", self.topic)
                    self._stopping.wait(1.0)
            if not partitions:
                return
            assigned = [TopicPartition(self.topic, p) for p in sorted(partitions)]
            consumer.assign(assigned)
            consumer.seek_to_end()
            for tp in assigned:  # resolve the end offsets now, so "ready" means positioned
                consumer.position(tp)
            self.ready.set()
            while not self._stopping.is_set():
                for records in consumer.poll(timeout_ms=500).values():
                    for record in records:
                        if record.value is not None:
                            self.on_value(record.value)
        finally:
            consumer.close()


def kafka_source_starter(bootstrap: str) -> Callable[[Callable[[bytes], object]], EventSource]:
    def start(on_value: Callable[[bytes], object]) -> EventSource:
        source = KafkaEventSource(bootstrap, on_value)
        source.start()
        return source

    return start
