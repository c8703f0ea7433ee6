"""What every terminal connection of the two uplink gateways does the same way (the JT/T 808 connection,
`gateway/connection.py`, and the GB one, `gateway/gb/connection.py`): strict order with bounded memory,
back-pressure, the per-connection flood limit and coalesced writes.

- Frames are handled one by one from `_pending` by the subclass's `_handle`; while the connection is
  blocked (a database step `_busy`, `_throttled` past `max_frames_per_s`, `_backpressured` by the shared
  uplink buffer, or `connection_in_flight_max` of its own records awaiting Kafka) further frames wait and
  reading from the socket pauses, so a connection holds at most one read beyond its framer's buffer.
- Replies written during one read, or while the acknowledgements of one Kafka record run (the pipeline's
  cork), go out in one write at its end: one syscall per terminal, not one per reply.
- A terminal that does not read what we send (past `write_buffer_bytes`) is dropped rather than buffered.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from typing import Any

log = logging.getLogger("gateway.flow")


class FlowControlledConnection(asyncio.Protocol):
    """Subclasses set `ctx` (with `settings`, `counters`, `loop`, `pipeline`), call `_init_flow()` in their
    `__init__`, and provide `_handle(item)`, `who` (the terminal's name in logs) and `log_hostile`."""

    ctx: Any

    def _init_flow(self) -> None:
        self._transport: asyncio.Transport | None = None
        self._pending: deque[Any] = deque()
        self._busy = False            # a database step is running
        self._throttled = False       # too many frames this second
        self._backpressured = False   # the shared uplink buffer is full
        self._reading_paused = False
        self._close_reason: str | None = None
        self.closed = False
        self.in_flight = 0
        self.last_rx_at = 0.0
        self._window_start = 0.0
        self._window_frames = 0
        self._out: list[bytes] = []  # frames to write at the end of this read / batch of Kafka acks
        self._flush_scheduled = False
        self._in_read = False

    @property
    def who(self) -> str | None:
        raise NotImplementedError

    def _handle(self, item: Any) -> None:
        raise NotImplementedError

    def log_hostile(self, level: int, msg: str, *args: object) -> None:
        raise NotImplementedError

    # ------------------------------------------------------------------ flow control

    def pause_writing(self) -> None:
        # The terminal is not reading what we send: drop it rather than buffer without bound.
        self.ctx.counters.slow_reader_dropped += 1
        log.warning("conn %s (%s): terminal not reading, dropping", getattr(self, "connection_id", "?"), self.who)
        self.close("closed", abort=True)

    def pause_for_backpressure(self) -> None:
        self._backpressured = True
        self._update_reading()

    def resume_after_backpressure(self) -> None:
        self._backpressured = False
        if not self.closed:
            self._drain()

    def _blocked(self) -> bool:
        return (self._busy or self._throttled or self._backpressured or self.closed
                or self.in_flight >= self.ctx.settings.connection_in_flight_max)

    def _drain(self) -> None:
        pending = self._pending
        pipeline = self.ctx.pipeline
        while pending and not self._blocked():
            if pipeline.saturated:
                pipeline.wait_for_capacity(self)
                break
            self._handle(pending.popleft())
        self._update_reading()

    def _update_reading(self) -> None:
        transport = self._transport
        if transport is None or self.closed:
            return
        want_pause = self._blocked() or bool(self._pending)
        if want_pause and not self._reading_paused:
            transport.pause_reading()
            self._reading_paused = True
        elif not want_pause and self._reading_paused:
            transport.resume_reading()
            self._reading_paused = False

    def _count_frame(self) -> None:
        ctx = self.ctx
        ctx.counters.frames_in += 1
        now = self.last_rx_at
        if now - self._window_start >= 1.0:
            self._window_start, self._window_frames = now, 0
        self._window_frames += 1
        if self._window_frames >= ctx.settings.max_frames_per_s and not self._throttled:
            ctx.counters.flood_throttled += 1
            self.log_hostile(logging.WARNING, "conn %s (%s): over %d frames/s, pausing reads",
                             getattr(self, "connection_id", "?"), self.who, ctx.settings.max_frames_per_s)
            self._throttled = True
            ctx.loop.call_at(self._window_start + 1.0, self._end_throttle)

    def _end_throttle(self) -> None:
        self._throttled = False
        self._window_start, self._window_frames = self.ctx.loop.time(), 0
        if not self.closed:
            self._drain()

    # ------------------------------------------------------------------ writing

    def _write(self, data: bytes) -> None:
        """Write a frame; coalesced within a read or a Kafka record's acknowledgements (module doc)."""
        if self._in_read:
            self._out.append(data)
            return
        cork = self.ctx.pipeline.cork
        if cork.depth:
            self._out.append(data)
            if not self._flush_scheduled:
                self._flush_scheduled = True
                cork.pending.append(self._flush_out)
            return
        if self._out:
            self._out.append(data)
            self._flush_out()
            return
        transport = self._transport
        if transport is not None and not transport.is_closing():
            transport.write(data)

    def _flush_out(self) -> None:
        self._flush_scheduled = False
        out = self._out
        if not out:
            return
        self._out = []
        transport = self._transport
        if transport is None or transport.is_closing():
            return
        transport.write(out[0] if len(out) == 1 else b"".join(out))

    def close(self, reason: str, abort: bool = False) -> None:
        if self._close_reason is None:
            self._close_reason = reason
        transport = self._transport
        if self._out and not abort:
            self._flush_out()  # replies written before the close (e.g. the ack of a logout)
        if transport is not None and not transport.is_closing():
            if abort:
                transport.abort()
            else:
                transport.close()
