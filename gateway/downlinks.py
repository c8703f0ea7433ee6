"""Downlink pacing per connection and `jt808.sent.v1` records.

Real terminals answer only the first of two frames that arrive in one read, so commands to one terminal
are paced: at most `downlink_in_flight` (default 1) await their reply; the others wait in a queue of at
most `downlink_queue_max` (past it: failed, `queue_full`). The awaited one is released by the uplink
whose body `reply_seq` is the serial the gateway used (a 0x0001 must also name its `msg_id`; 0x0104,
0x0201, 0x0802, 0x0805 carry `reply_seq` too) or after `downlink_reply_wait_s`; then the next is written.
A reply whose body does not decode but names an awaited serial releases it too, and fails that downlink
with reason `reply_malformed`: the terminal answered, and the command says how.
Messages that expect no reply (0x8001, 0x8003, 0x8100, 0x8800, ...) are written at once. A connection
closing with queued or awaited downlinks fails them (`closed`).

Every frame written (and every downlink given up) is reported on `jt808.sent.v1`, except the per-uplink
0x8001 general replies, through `SentRecorder`: its own bounded queue and pump into the gateway's Kafka
producer, so a slow broker never blocks the event loop nor holds back uplinks (records past the bound
are dropped and counted).
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from gateway.counters import GatewayCounters
from gateway.pipeline import RecordSink
from protocols.jt808.catalogue import (
    AV_RESOURCE_LIST,
    CAMERA_SHOOT_RESPONSE,
    LOCATION_QUERY_RESPONSE,
    MEDIA_UPLOAD_RESPONSE,
    PLATFORM_RESPONSE,
    QUERY_PARAMETERS_RESPONSE,
    REGISTRATION_RESPONSE,
    RESEND_SUBPACKAGES_REQUEST,
    SERVER_TIME_RESPONSE,
    STORED_MEDIA_SEARCH_RESPONSE,
    TERMINAL_RESPONSE,
    VEHICLE_CONTROL_RESPONSE,
)

log = logging.getLogger("gateway.downlinks")

# Platform messages the terminal does not answer (or answers with data, not a reply): never paced.
NO_REPLY_EXPECTED = frozenset({PLATFORM_RESPONSE, RESEND_SUBPACKAGES_REQUEST, SERVER_TIME_RESPONSE,
                               REGISTRATION_RESPONSE, MEDIA_UPLOAD_RESPONSE})
# Uplinks that answer a downlink and start with the WORD serial they answer (streams/commands.py OWN_REPLIES)
REPLY_MSG_IDS = frozenset({TERMINAL_RESPONSE, QUERY_PARAMETERS_RESPONSE, LOCATION_QUERY_RESPONSE,
                           STORED_MEDIA_SEARCH_RESPONSE, CAMERA_SHOOT_RESPONSE, AV_RESOURCE_LIST,
                           VEHICLE_CONTROL_RESPONSE})
# Downlinks a pacer remembers after they expired unanswered, to know a late answer (one that names no serial)
EXPIRED_KEPT = 8


@dataclass
class Downlink:
    msg_id: int
    body: bytes
    command_id: str | None = None
    seqs: tuple[int, ...] = ()               # serials used (one per package) once written
    timer: asyncio.TimerHandle | None = field(default=None, repr=False)


WriteFn = Callable[[Downlink], bool]          # writes, sets `seqs`; False when nothing was written
FailFn = Callable[[Downlink, str], None]      # records a failed downlink with its reason


class DownlinkPacer:
    """The per-connection queue: a small state machine driven by `submit`, `on_reply`, timers, `close`."""

    def __init__(self, write: WriteFn, fail: FailFn, *, in_flight_max: int, queue_max: int, reply_wait_s: float,
                 loop: asyncio.AbstractEventLoop, counters: GatewayCounters | None = None) -> None:
        self._write = write
        self._fail = fail
        self._in_flight_max = max(1, in_flight_max)
        self._queue_max = max(0, queue_max)
        self._reply_wait_s = reply_wait_s
        self._loop = loop
        self._counters = counters
        self.queue: deque[Downlink] = deque()
        self.awaiting: dict[int, Downlink] = {}   # every serial of an awaited downlink -> it
        self._awaited: list[Downlink] = []        # awaited downlinks in write order
        self._expired_recently: deque[Downlink] = deque(maxlen=EXPIRED_KEPT)  # released unanswered, newest last
        self.closed = False

    def submit(self, downlink: Downlink) -> None:
        if self.closed:
            self._fail(downlink, "closed")
            return
        if downlink.msg_id in NO_REPLY_EXPECTED:
            self._write(downlink)
            return
        if not self.queue and len(self._awaited) < self._in_flight_max:
            self._start(downlink)
            return
        if len(self.queue) >= self._queue_max:
            self._count("downlinks_queue_full")
            self._fail(downlink, "queue_full")
            return
        self.queue.append(downlink)

    def on_reply(self, msg_id: int, body: Any) -> bool:
        """An uplink arrived; True if it answered an awaited downlink (which is then released)."""
        if not self._awaited:
            return False
        reply_seq = getattr(body, "reply_seq", None)
        if not isinstance(reply_seq, int):
            return False
        downlink = self.awaiting.get(reply_seq)
        if downlink is None:
            return False
        if msg_id == TERMINAL_RESPONSE and getattr(body, "reply_msg_id", downlink.msg_id) != downlink.msg_id:
            return False
        self._release(downlink)
        return True

    def on_answer(self, msg_id: int, echoed: bytes = b"") -> bool:
        """An answer that names no serial (a GB/T 32960 terminal's answer carries its command only, and its data
        unit starts with the answered command's time, GB/T 32960.3-2016 §6.3.2: ``echoed``). It releases the
        awaited downlink of `msg_id` whose body starts with `echoed`; when none does, a downlink that expired
        unanswered lately and starts with it means a late answer, which releases nothing (counted
        `downlink_late_answers`); otherwise (a terminal that echoes another time) the oldest awaited one of
        `msg_id`. True if one was released."""
        candidates = [d for d in self._awaited if d.msg_id == msg_id]
        if echoed:
            chosen = next((d for d in candidates if d.body.startswith(echoed)), None)
            if chosen is None and any(d.msg_id == msg_id and d.body.startswith(echoed)
                                      for d in self._expired_recently):
                self._count("downlink_late_answers")
                return False
            if chosen is not None:
                candidates = [chosen]
        if not candidates:
            return False
        self._release(candidates[0])
        return True

    def on_malformed_reply(self, reply_seq: int, reply_msg_id: int | None) -> bool:
        """A reply that did not decode named `reply_seq`: release that downlink and fail it `reply_malformed`."""
        downlink = self.awaiting.get(reply_seq)
        if downlink is None or (reply_msg_id is not None and reply_msg_id != downlink.msg_id):
            return False
        self._count("downlink_replies_malformed")
        self._fail(downlink, "reply_malformed")
        self._release(downlink)
        return True

    def close(self) -> None:
        """The connection is gone: every awaited and queued downlink fails (`closed`)."""
        if not self.closed:
            self.fail_all()
            self.closed = True

    def fail_all(self) -> None:
        """Fail (`closed`) every awaited and queued downlink, e.g. when the terminal on the socket changes."""
        pending = [*self._awaited, *self.queue]
        for downlink in self._awaited:
            if downlink.timer is not None:
                downlink.timer.cancel()
        self._awaited.clear()
        self.awaiting.clear()
        self.queue.clear()
        for downlink in pending:
            self._fail(downlink, "closed")

    def _start(self, downlink: Downlink) -> None:
        if not self._write(downlink) or not downlink.seqs:
            return  # nothing written (recorded as failed by the writer): nothing to wait for
        self._awaited.append(downlink)
        for seq in downlink.seqs:
            self.awaiting[seq] = downlink
        downlink.timer = self._loop.call_later(self._reply_wait_s, self._expired, downlink)

    def _expired(self, downlink: Downlink) -> None:
        if downlink in self._awaited:
            self._count("downlink_reply_timeouts")
            log.info("no reply to 0x%04x (serial %s, command %s) within %.1fs; writing the next", downlink.msg_id,
                     downlink.seqs[0] if downlink.seqs else None, downlink.command_id, self._reply_wait_s)
            self._expired_recently.append(downlink)
            self._release(downlink)

    def _release(self, downlink: Downlink) -> None:
        if downlink.timer is not None:
            downlink.timer.cancel()
            downlink.timer = None
        if downlink in self._awaited:
            self._awaited.remove(downlink)
        for seq in downlink.seqs:
            if self.awaiting.get(seq) is downlink:
                del self.awaiting[seq]
        while self.queue and len(self._awaited) < self._in_flight_max and not self.closed:
            self._start(self.queue.popleft())

    def _count(self, name: str) -> None:
        if self._counters is not None:
            setattr(self._counters, name, getattr(self._counters, name) + 1)


def sent_value(*, phone: str, device_id: int, car_id: int | None, enterprise_id: int, msg_id: int, seq: int | None,
               packages: int, raw_hex: str | None, body_hex: str, command_id: str | None, event: str,
               reason: str | None, connection_id: str, gateway_id: str, at: str) -> bytes:
    """A `jt808.sent.v1` value (docs/topics.md)."""
    return orjson.dumps({
        "phone": phone, "device_id": device_id, "car_id": car_id, "enterprise_id": enterprise_id,
        "msg_id": msg_id, "seq": seq, "packages": packages, "raw_hex": raw_hex, "body_hex": body_hex,
        "command_id": command_id, "event": event, "reason": reason, "connection_id": connection_id,
        "gateway_id": gateway_id, "at": at,
    })


class SentRecorder:
    """Bounded, ordered hand-off of `jt808.sent.v1` records to the producer, separate from the uplink
    pipeline: it never pauses connections and never delays an uplink. At `limit` records not yet stored
    by Kafka, further records are dropped (`sent_records_dropped`)."""

    def __init__(self, sink: RecordSink, counters: GatewayCounters, topic: str, *, limit: int,
                 retry_backoff_s: float = 0.5) -> None:
        self._sink = sink
        self._counters = counters
        self._topic = topic
        self._limit = max(1, limit)
        self._retry_backoff_s = retry_backoff_s
        self._queue: deque[tuple[bytes, bytes]] = deque()
        self._wakeup = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.in_flight = 0

    def start(self) -> None:
        self._task = asyncio.create_task(self._pump(), name="sent-records")

    async def stop(self, drain_timeout_s: float = 5.0) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + drain_timeout_s
        while self.in_flight and loop.time() < deadline:
            await asyncio.sleep(0.05)
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    def submit(self, key: bytes, value: bytes) -> None:
        if self.in_flight >= self._limit:
            self._counters.sent_records_dropped += 1
            return
        self.in_flight += 1
        self._queue.append((key, value))
        self._wakeup.set()

    async def _pump(self) -> None:
        queue = self._queue
        while True:
            if not queue:
                self._wakeup.clear()
                await self._wakeup.wait()
                continue
            await self._sink.wait_ready()
            key, value = queue[0]
            try:
                future = await self._sink.enqueue(self._topic, key, value)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("kafka enqueue of a sent record failed (%s); %d waiting", exc, self.in_flight)
                await asyncio.sleep(self._retry_backoff_s)
                continue
            queue.popleft()
            future.add_done_callback(functools.partial(self._on_done))

    def _on_done(self, future: asyncio.Future[object]) -> None:
        self.in_flight -= 1
        if not future.cancelled() and future.exception() is None:
            self._counters.sent_records += 1
        else:
            self._counters.sent_records_dropped += 1
            log.warning("kafka delivery of a sent record failed: %s",
                        "cancelled" if future.cancelled() else future.exception())
