"""Push fan-out: routing by enterprise path, bounded outboxes, and a connection served end to end
over an in-memory WebSocket (heart-beats, silent clients, slow clients, DISCONNECT)."""

from __future__ import annotations

import json
import queue
import threading
import time
from dataclasses import dataclass

import pytest

from api.push import StompConnection
from api.push_hub import Outbox, Outgoing, PushHub, route_event
from api.stomp import AuthenticationFailed, Frame, FrameParser, StompSession, serialize


@dataclass(frozen=True)
class FakePrincipal:
    user_name: str
    enterprise_id: int


TOKENS = {"root": FakePrincipal("root", 1), "sub3": FakePrincipal("s3", 3), "sub4": FakePrincipal("s4", 4)}


def authenticate(token: str) -> FakePrincipal:
    if token not in TOKENS:
        raise AuthenticationFailed("bad token")
    return TOKENS[token]


def push_event(path: str, push_type: int = 1, enterprise_id: int = 3) -> dict:
    return {
        "kind": "push",
        "enterprise_id": enterprise_id,
        "enterprise_path": path,
        "push": {"type": push_type, "data": {"deviceId": 9}},
    }


def positions_event(path: str, n: int = 0) -> dict:
    return {"kind": "positions", "enterprise_id": 3, "enterprise_path": path, "fields": ["deviceId"], "rows": [[n]]}


# -- routing --------------------------------------------------------------------------------------


def routed(event: dict) -> tuple[Outgoing, list[int]]:
    result = route_event(event)
    assert result is not None
    return result.item, result.enterprise_ids


def test_routes_push_to_the_vehicle_enterprise_and_its_ancestors():
    item, ids = routed(push_event("/1/3/"))
    assert ids == [1, 3]
    assert item == Outgoing("message", b'{"type":1,"data":{"deviceId":9}}')


def test_routes_positions_as_a_typed_batch():
    item, ids = routed(positions_event("/1/3/7/"))
    assert ids == [1, 3, 7]
    assert json.loads(item.body) == {"type": "positions", "fields": ["deviceId"], "rows": [[0]]}
    assert item.kind == "positions"


def test_routes_by_enterprise_id_when_path_is_missing():
    event = push_event("")
    assert routed(event)[1] == [3]


@pytest.mark.parametrize(
    "event",
    [
        {"kind": "other", "enterprise_path": "/1/"},
        {"kind": "push", "enterprise_path": "/1/"},  # no push body
        {"kind": "positions", "enterprise_path": "/1/", "fields": ["deviceId"], "rows": "x"},
        {"kind": "positions", "enterprise_path": "/1/", "rows": [[1]]},  # no columns
        {"kind": "push", "push": {"type": 1}, "enterprise_path": "/1/x/"},
        {"kind": "push", "push": {"type": 1}},  # neither path nor id
        {"kind": "push", "push": {"type": 1}, "enterprise_id": True},
        {"kind": "push", "push": {"type": 1}, "enterprise_id": 3, "user_id": "7"},  # never widened to all
    ],
)
def test_unusable_events_are_not_routed(event):
    assert route_event(event) is None


@dataclass(eq=False)
class RecordingSubscriber:
    enterprise_id: int
    kinds: frozenset[str] = frozenset({"message", "positions"})
    user_id: int | None = None

    def __post_init__(self) -> None:
        self.items: list[Outgoing] = []

    def offer(self, item: Outgoing) -> None:
        self.items.append(item)


def test_hub_delivers_subsidiary_event_to_parent_and_subsidiary_but_not_sibling():
    hub = PushHub()
    root, sub3, sub4 = RecordingSubscriber(1), RecordingSubscriber(3), RecordingSubscriber(4)
    for s in (root, sub3, sub4):
        hub.attach(s)
    assert hub.dispatch(push_event("/1/3/")) == 2
    assert (len(root.items), len(sub3.items), len(sub4.items)) == (1, 1, 0)


def test_an_addressed_push_reaches_only_its_user_and_not_the_other_users_of_the_enterprise():
    hub = PushHub()
    sender, colleague, parent_user, app = (RecordingSubscriber(3, user_id=7), RecordingSubscriber(3, user_id=8),
                                           RecordingSubscriber(1, user_id=9), RecordingSubscriber(3))
    for s in (sender, colleague, parent_user, app):
        hub.attach(s)
    assert hub.dispatch({**push_event("/1/3/", push_type=11), "user_id": 7}) == 1
    assert (len(sender.items), len(colleague.items), len(parent_user.items), len(app.items)) == (1, 0, 0, 0)
    assert hub.dispatch(push_event("/1/3/", push_type=11)) == 4  # the platform's own command: everyone


def test_an_addressed_push_does_not_reach_its_user_outside_the_vehicle_enterprise():
    hub = PushHub()
    elsewhere = RecordingSubscriber(4, user_id=7)
    hub.attach(elsewhere)
    assert hub.dispatch({**push_event("/1/3/", push_type=11), "user_id": 7}) == 0


def test_hub_does_not_match_enterprise_id_as_a_substring_of_the_path():
    hub = PushHub()
    sub1 = RecordingSubscriber(1)
    hub.attach(sub1)
    assert hub.dispatch(push_event("/11/13/", enterprise_id=13)) == 0


def test_hub_delivers_only_subscribed_kinds():
    hub = PushHub()
    only_messages = RecordingSubscriber(3, frozenset({"message"}))
    hub.attach(only_messages)
    hub.dispatch(positions_event("/1/3/"))
    hub.dispatch(push_event("/1/3/"))
    assert [i.kind for i in only_messages.items] == ["message"]


def test_hub_skips_malformed_values_and_keeps_going():
    hub = PushHub()
    sub = RecordingSubscriber(3)
    hub.attach(sub)
    assert hub.dispatch_value(b"\xff not json") == 0
    assert hub.dispatch_value(b"[1, 2]") == 0
    assert hub.dispatch_value(json.dumps(push_event("/1/3/")).encode()) == 1


def test_hub_detach_stops_delivery():
    hub = PushHub()
    sub = RecordingSubscriber(3)
    hub.attach(sub)
    hub.detach(sub)
    hub.detach(sub)  # twice is harmless
    assert hub.dispatch(push_event("/1/3/")) == 0
    assert hub.subscriber_count() == 0


class FakeSource:
    def __init__(self) -> None:
        self.ready = threading.Event()
        self.ready.set()
        self.stopped = False

    def stop(self) -> None:
        self.stopped = True


def test_hub_starts_its_source_once_on_first_attach_and_stops_it_on_close():
    started: list[FakeSource] = []

    def start(on_value):
        started.append(FakeSource())
        return started[-1]

    hub = PushHub(start)
    assert started == []  # nothing at construction
    hub.attach(RecordingSubscriber(1))
    hub.attach(RecordingSubscriber(3))
    assert len(started) == 1
    hub.close()
    assert started[0].stopped


def test_a_hub_started_by_the_worker_delivers_from_the_first_subscription_without_a_second_source():
    """The API worker starts the consumer as it boots: an event dispatched right after a SUBSCRIBE reaches
    the subscriber, and the subscription starts no second consumer."""
    started: list[FakeSource] = []
    fed: list[object] = []

    def start(on_value):
        fed.append(on_value)
        started.append(FakeSource())
        return started[-1]

    hub = PushHub(start)
    assert hub.start() is hub.start()  # once, however often it is called
    assert len(started) == 1
    subscriber = RecordingSubscriber(7)
    hub.attach(subscriber)
    assert len(started) == 1
    fed[0](b'{"kind":"push","enterprise_id":7,"enterprise_path":"/7/","push":{"type":2,"data":{"alarmId":1}}}')
    assert [json.loads(item.body)["type"] for item in subscriber.items] == [2]
    hub.close()
    assert started[0].stopped


# -- outbox ---------------------------------------------------------------------------------------


def test_outbox_drops_oldest_position_batch_first():
    box = Outbox(capacity=3)
    for item in (Outgoing("positions", b"p1"), Outgoing("message", b"m1"), Outgoing("positions", b"p2")):
        box.put(item)
    box.put(Outgoing("message", b"m2"))
    assert [i.body for i in box.drain()] == [b"m1", b"p2", b"m2"]
    assert (box.dropped_positions, box.dropped_messages) == (1, 0)


def test_outbox_full_of_pushes_drops_incoming_positions_not_pushes():
    box = Outbox(capacity=2)
    box.put(Outgoing("message", b"m1"))
    box.put(Outgoing("message", b"m2"))
    box.put(Outgoing("positions", b"p"))
    assert [i.body for i in box.drain()] == [b"m1", b"m2"]
    assert box.dropped_positions == 1


def test_outbox_full_of_pushes_drops_its_oldest_push():
    box = Outbox(capacity=2)
    for body in (b"m1", b"m2", b"m3"):
        box.put(Outgoing("message", body))
    assert [i.body for i in box.drain()] == [b"m2", b"m3"]
    assert box.dropped_messages == 1


# -- a served connection ----------------------------------------------------------------------------

_CLOSED = object()


class FakeWebSocket:
    """In-memory stand-in for simple_websocket.Server; ``gate`` cleared makes send block (slow client)."""

    def __init__(self) -> None:
        self.incoming: queue.Queue = queue.Queue()
        self.parser = FrameParser()
        self.frames: queue.Queue[Frame] = queue.Queue()
        self.beats = 0
        self.closed = threading.Event()
        self.gate = threading.Event()
        self.gate.set()

    def receive(self, timeout=None):
        item = self.incoming.get()
        if item is _CLOSED:
            raise ConnectionError("closed")
        return item

    def send(self, data) -> None:
        self.gate.wait()
        before = self.parser.heartbeats
        for frame in self.parser.feed(data.encode()):
            self.frames.put(frame)
        self.beats += self.parser.heartbeats - before

    def close(self, reason=None, message=None) -> None:
        self.closed.set()
        self.incoming.put(_CLOSED)

    def client_sends(self, frame: Frame) -> None:
        self.incoming.put(serialize(frame).decode())

    def next_frame(self, timeout: float = 2.0) -> Frame:
        return self.frames.get(timeout=timeout)


def serve(hub: PushHub, ws: FakeWebSocket, server_heartbeat=(10000, 10000), **kwargs) -> threading.Thread:
    session = StompSession(authenticate, server_heartbeat=server_heartbeat)
    connection = StompConnection(ws, session, hub, **kwargs)
    thread = threading.Thread(target=connection.run, daemon=True)
    thread.start()
    return thread


def connect(ws: FakeWebSocket, token: str, heart_beat: str = "0,0") -> Frame:
    ws.client_sends(Frame("CONNECT", {"accept-version": "1.2", "passcode": token, "heart-beat": heart_beat}))
    return ws.next_frame()


def subscribe(ws: FakeWebSocket, destination: str, sub_id: str = "s") -> None:
    ws.client_sends(Frame("SUBSCRIBE", {"id": sub_id, "destination": destination, "receipt": "r-" + sub_id}))
    assert ws.next_frame() == Frame("RECEIPT", {"receipt-id": "r-" + sub_id})


def test_served_connection_delivers_message_frames_after_subscribe():
    hub, ws = PushHub(), FakeWebSocket()
    serve(hub, ws)
    assert connect(ws, "sub3").command == "CONNECTED"
    subscribe(ws, "/user/3/message")
    hub.dispatch(push_event("/1/3/", push_type=6))
    frame = ws.next_frame()
    assert frame.command == "MESSAGE"
    assert frame.headers["destination"] == "/user/3/message"
    assert json.loads(frame.body) == {"type": 6, "data": {"deviceId": 9}}


def test_disconnect_gets_receipt_then_socket_closes_and_hub_forgets_it():
    hub, ws = PushHub(), FakeWebSocket()
    thread = serve(hub, ws)
    connect(ws, "sub3")
    subscribe(ws, "/user/3/message")
    ws.client_sends(Frame("DISCONNECT", {"receipt": "bye"}))
    assert ws.next_frame() == Frame("RECEIPT", {"receipt-id": "bye"})
    thread.join(2)
    assert ws.closed.is_set() and not thread.is_alive()
    assert hub.subscriber_count() == 0


def test_forbidden_destination_gets_error_and_close():
    hub, ws = PushHub(), FakeWebSocket()
    thread = serve(hub, ws)
    connect(ws, "sub3")
    ws.client_sends(Frame("SUBSCRIBE", {"id": "x", "destination": "/user/4/message"}))
    frame = ws.next_frame()
    assert (frame.command, frame.headers["message"]) == ("ERROR", "无权订阅该地址")
    thread.join(2)
    assert ws.closed.is_set()


def test_bad_token_gets_error_and_close():
    hub, ws = PushHub(), FakeWebSocket()
    thread = serve(hub, ws)
    frame = connect(ws, "wrong")
    assert frame.command == "ERROR"
    assert frame.headers["message"] == "认证失败"
    thread.join(2)
    assert ws.closed.is_set()


def test_malformed_bytes_get_error_and_close():
    hub, ws = PushHub(), FakeWebSocket()
    thread = serve(hub, ws)
    ws.incoming.put("connect\n\n\x00")
    frame = ws.next_frame()
    assert frame.command == "ERROR"
    assert frame.headers["message"] == "STOMP 帧格式错误"
    assert b"invalid command" in frame.body
    thread.join(2)
    assert ws.closed.is_set()


def test_socket_without_connect_is_closed_after_the_connect_timeout():
    hub, ws = PushHub(), FakeWebSocket()
    thread = serve(hub, ws, connect_timeout_s=0.2)
    frame = ws.next_frame()
    assert frame.command == "ERROR" and "秒内未收到 CONNECT 帧" in frame.headers["message"]
    thread.join(2)
    assert ws.closed.is_set()


def test_server_sends_heartbeat_eols_at_the_negotiated_interval():
    hub, ws = PushHub(), FakeWebSocket()
    serve(hub, ws, server_heartbeat=(100, 0))
    assert connect(ws, "sub3", heart_beat="0,100").headers["heart-beat"] == "100,0"
    time.sleep(0.55)
    assert 3 <= ws.beats <= 6


def test_client_silent_for_more_than_twice_its_interval_is_dropped():
    hub, ws = PushHub(), FakeWebSocket()
    thread = serve(hub, ws, server_heartbeat=(0, 100))
    connect(ws, "sub3", heart_beat="100,0")
    for _ in range(4):  # beating keeps it open
        time.sleep(0.1)
        ws.incoming.put("\n")
    assert not ws.closed.is_set()
    ws.closed.wait(1.0)
    thread.join(1)
    assert ws.closed.is_set() and not thread.is_alive()


def test_slow_client_is_bounded_and_does_not_delay_others():
    hub = PushHub()
    slow, fast = FakeWebSocket(), FakeWebSocket()
    serve(hub, slow, outbox_capacity=5)
    serve(hub, fast)
    for ws in (slow, fast):
        connect(ws, "sub3")
        subscribe(ws, "/user/3/message", "m")
        subscribe(ws, "/user/3/positions", "p")
    slow.gate.clear()  # the slow client's socket stops draining
    hub.dispatch(positions_event("/1/3/", -1))
    time.sleep(0.1)  # the serving thread is now stuck in send() with that batch
    started = time.monotonic()
    hub.dispatch(push_event("/1/3/", push_type=1))
    for n in range(50):
        hub.dispatch(positions_event("/1/3/", n))
    hub.dispatch(push_event("/1/3/", push_type=6))
    assert time.monotonic() - started < 0.5  # dispatch never waited for the slow socket
    fast_bodies = [json.loads(fast.next_frame().body) for _ in range(53)]
    assert [b["type"] for b in fast_bodies].count("positions") == 51
    slow.gate.set()
    slow_bodies = []
    while True:
        try:
            slow_bodies.append(json.loads(slow.next_frame(0.5).body))
        except queue.Empty:
            break
    types = [b["type"] for b in slow_bodies]
    assert 1 in types and 6 in types  # both pushes survived
    assert len(slow_bodies) <= 1 + 5  # the in-flight batch plus the bounded outbox
    latest = [b["rows"][0][0] for b in slow_bodies if b["type"] == "positions"]
    assert latest[-1] == 49  # the newest batches are kept, the oldest dropped
