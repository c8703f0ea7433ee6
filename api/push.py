"""Console push: console.events.v1 from Kafka, fanned out over STOMP 1.2 on the ``/wss/stomp`` WebSocket.

One ``PushHub`` per API process holds the connected subscribers indexed by enterprise id. Its Kafka
consumer (a daemon thread, no consumer group: every API process sees every event, positioned at the
end of each partition) starts on the first subscription, never at import or fork. An event goes to
every subscriber whose enterprise id is a segment of the event's ``enterprise_path``, i.e. the
vehicle's enterprise and its ancestors.

Each WebSocket is served by its own (gunicorn gthread / werkzeug) thread, plus a small reader
thread. The hub never writes to a socket: it appends to the connection's bounded ``Outbox`` and
wakes the connection's thread, so a slow client delays only itself. When an outbox is full the
oldest position batch goes first; pushes (``/message``) are dropped only when no position batch
is left to drop.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from api.stomp import (
    KIND_MESSAGE,
    KIND_POSITIONS,
    AuthenticationFailed,
    Frame,
    FrameParser,
    PrincipalLike,
    StompError,
    StompSession,
    serialize,
)
from fleet.topics import CONSOLE_EVENTS

log = logging.getLogger(__name__)

PUSH_PATH = "/wss/stomp"
SERVER_HEARTBEAT_MS = (10000, 10000)  # we can send every 10 s; we want the client's every 10 s
OUTBOX_CAPACITY = 256  # pending MESSAGE bodies per connection
CONNECT_TIMEOUT_S = 10.0  # a socket that sends no CONNECT by then is closed
READY_TIMEOUT_S = 10.0  # how long a first SUBSCRIBE waits for the consumer to be positioned


@dataclass(frozen=True)
class Outgoing:
    kind: str  # KIND_MESSAGE or KIND_POSITIONS
    body: bytes  # JSON, shared by every recipient


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

    def offer(self, item: Outgoing) -> None: ...


def route_event(event: Mapping[str, Any]) -> tuple[Outgoing, list[int]] | None:
    """The body to push for a console.events.v1 value and the enterprise ids that receive it
    (the path's ids, i.e. the vehicle's enterprise and its ancestors). None for an unusable event."""
    kind = event.get("kind")
    if kind == "push" and isinstance(event.get("push"), dict):
        item = Outgoing(KIND_MESSAGE, _json_bytes(event["push"]))
    elif kind == "positions" and isinstance(event.get("positions"), list):
        item = Outgoing(KIND_POSITIONS, _json_bytes({"type": "positions", "data": event["positions"]}))
    else:
        return None
    path = event.get("enterprise_path")
    if isinstance(path, str) and path.strip("/"):
        segments = path.strip("/").split("/")
        if not all(s.isdigit() for s in segments):
            return None
        return item, [int(s) for s in segments]
    enterprise_id = event.get("enterprise_id")
    if isinstance(enterprise_id, int) and not isinstance(enterprise_id, bool):
        return item, [enterprise_id]
    return None


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

    def attach(self, subscriber: Subscriber) -> None:
        """Start delivering to ``subscriber``; the first call starts the event source and waits
        (bounded) until it is positioned, so events produced after this returns are delivered."""
        with self._lock:
            self._by_enterprise.setdefault(subscriber.enterprise_id, set()).add(subscriber)
            if self._source is None and self._start_source is not None:
                self._source = self._start_source(self.dispatch_value)
            source = self._source
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
        item, enterprise_ids = routed
        with self._lock:
            recipients = [s for eid in enterprise_ids for s in self._by_enterprise.get(eid, ())]
        delivered = 0
        for subscriber in recipients:
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

        consumer = KafkaConsumer(
            bootstrap_servers=self.bootstrap,
            group_id=None,
            enable_auto_commit=False,
            client_id="fleet-api-push",
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


class WebSocketLike(Protocol):
    def send(self, data: str | bytes) -> None: ...

    def receive(self, timeout: float | None = None) -> str | bytes | None: ...

    def close(self, reason: int | None = None, message: str | None = None) -> None: ...


class StompConnection:
    """Serves one WebSocket: STOMP frames in, replies, MESSAGEs and heart-beats out.

    ``run`` returns when the client disconnects, the session errs, or the client stays silent for
    more than twice its negotiated heart-beat interval.
    """

    def __init__(
        self,
        ws: WebSocketLike,
        session: StompSession,
        hub: PushHub,
        *,
        outbox_capacity: int = OUTBOX_CAPACITY,
        connect_timeout_s: float = CONNECT_TIMEOUT_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.ws = ws
        self.session = session
        self.hub = hub
        self.outbox = Outbox(outbox_capacity)
        self.kinds: frozenset[str] = frozenset()
        self._connect_timeout_s = connect_timeout_s
        self._clock = clock
        self._parser = FrameParser()
        self._cond = threading.Condition()
        self._inbox: deque[str | bytes] = deque()
        self._peer_closed = False
        self._attached = False

    @property
    def enterprise_id(self) -> int:
        return int(self.session.principal.enterprise_id)

    def offer(self, item: Outgoing) -> None:
        with self._cond:
            self.outbox.put(item)
            self._cond.notify()

    def run(self) -> None:
        reader = threading.Thread(target=self._read, name="stomp-reader", daemon=True)
        reader.start()
        started = self._last_rx = self._last_tx = self._clock()
        try:
            while True:
                with self._cond:
                    if not (self._inbox or self.outbox or self._peer_closed):
                        self._cond.wait(self._wait_s(started))
                    inbound = list(self._inbox)
                    self._inbox.clear()
                    outbound = self.outbox.drain()
                    peer_closed = self._peer_closed
                if inbound:
                    self._last_rx = self._clock()
                    self._receive(inbound)
                if not self.session.closing:
                    for item in outbound:
                        self._send(self.session.message_frames(item.kind, item.body))
                if self.session.closing or peer_closed or self._timed_out(started):
                    return
                self._beat()
        finally:
            if self._attached:
                self.hub.detach(self)
            self._close()

    def _read(self) -> None:
        """Relays the socket into the inbox, so the serving thread can wait on one condition."""
        try:
            while True:
                data = self.ws.receive()
                if data is not None:
                    with self._cond:
                        self._inbox.append(data)
                        self._cond.notify()
        except Exception as exc:  # simple_websocket.ConnectionClosed, or a socket error
            log.debug("stomp reader ends: %r", exc)
        finally:
            with self._cond:
                self._peer_closed = True
                self._cond.notify()

    def _receive(self, inbound: list[str | bytes]) -> None:
        for data in inbound:
            try:
                frames = self._parser.feed(data.encode() if isinstance(data, str) else data)
            except StompError as exc:
                self._send(self.session.error("malformed frame", detail=str(exc)))
                return
            for frame in frames:
                replies = self.session.handle(frame)
                self.kinds = self.session.kinds
                if self.kinds and not self._attached:
                    self.hub.attach(self)  # before the RECEIPT: once subscribed, nothing is missed
                    self._attached = True
                self._send(replies)
                if self.session.closing:
                    return

    def _send(self, frames: list[Frame]) -> None:
        for frame in frames:
            self.ws.send(serialize(frame).decode())
            self._last_tx = self._clock()

    def _beat(self) -> None:
        send_ms = self.session.heartbeat[0]
        if send_ms and self._clock() - self._last_tx >= send_ms / 1000:
            self.ws.send("\n")
            self._last_tx = self._clock()

    def _timed_out(self, started: float) -> bool:
        now = self._clock()
        if not self.session.connected:
            if now - started >= self._connect_timeout_s:
                self._send(self.session.error(f"no CONNECT frame within {self._connect_timeout_s:g} s"))
                return True
            return False
        expect_ms = self.session.heartbeat[1]
        if expect_ms and now - self._last_rx > 2 * expect_ms / 1000:
            log.info("closing STOMP connection silent for more than 2 x %d ms", expect_ms)
            return True
        return False

    def _wait_s(self, started: float) -> float:
        now = self._clock()
        if not self.session.connected:
            return max(0.0, started + self._connect_timeout_s - now)
        send_ms, expect_ms = self.session.heartbeat
        deadlines = [3600.0]
        if send_ms:
            deadlines.append(self._last_tx + send_ms / 1000 - now)
        if expect_ms:
            deadlines.append(self._last_rx + 2 * expect_ms / 1000 - now + 0.001)
        return max(0.0, min(deadlines))

    def _close(self) -> None:
        try:
            self.ws.close()
        except Exception as exc:  # already closed by the peer
            log.debug("closing websocket: %r", exc)


def token_authenticator(app_or_settings: Any) -> Callable[[str], PrincipalLike]:
    """Adapts the API's ``verify_access_token`` to the session's ``authenticate``."""
    from api.auth import AuthError, verify_access_token

    def authenticate(token: str) -> PrincipalLike:
        try:
            principal: PrincipalLike = verify_access_token(app_or_settings, token)
        except AuthError as exc:
            raise AuthenticationFailed(str(exc) or "token rejected") from None
        return principal

    return authenticate


STOMP_SUBPROTOCOLS = ("v12.stomp", "v11.stomp", "v10.stomp")


def register_push(
    app: Any,
    sock: Any = None,
    *,
    kafka_bootstrap: str | None = None,
    authenticate: Callable[[str], PrincipalLike] | None = None,
    hub: PushHub | None = None,
    server_heartbeat_ms: tuple[int, int] = SERVER_HEARTBEAT_MS,
    outbox_capacity: int = OUTBOX_CAPACITY,
) -> PushHub:
    """Adds the STOMP route ``/wss/stomp`` to ``app`` (on ``sock``, a ``flask_sock.Sock``; one is
    made when None) and returns its hub, also kept in ``app.extensions["fleet_push"]``.

    Nothing connects to Kafka here: the consumer starts on the first subscription.
    ``kafka_bootstrap`` defaults to ``fleet.settings.kafka_bootstrap()``; ``authenticate`` to the
    API's ``verify_access_token(app, token)``.
    """
    from flask import request
    from flask_sock import Sock

    if sock is None:
        sock = Sock(app)
    # Browsers (stompjs) offer STOMP's WebSocket subprotocols and refuse a handshake that selects
    # none of them; flask-sock hands these options to simple-websocket at each handshake.
    options = dict(app.config.get("SOCK_SERVER_OPTIONS", {}))
    options.setdefault("subprotocols", list(STOMP_SUBPROTOCOLS))
    app.config["SOCK_SERVER_OPTIONS"] = options
    if authenticate is None:
        authenticate = token_authenticator(app)
    if hub is None:
        if kafka_bootstrap is None:
            from fleet.settings import kafka_bootstrap as configured_bootstrap

            kafka_bootstrap = configured_bootstrap()
        hub = PushHub(kafka_source_starter(kafka_bootstrap))
    app.extensions["fleet_push"] = hub
    auth = authenticate
    push_hub = hub

    @sock.route(PUSH_PATH)
    def stomp_socket(ws: WebSocketLike) -> None:
        session = StompSession(
            auth, server_heartbeat=server_heartbeat_ms, query_token=request.args.get("access_token")
        )
        StompConnection(ws, session, push_hub, outbox_capacity=outbox_capacity).run()

    return hub
