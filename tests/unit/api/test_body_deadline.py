"""The request body deadline (``api.body_deadline``): a trickling body is cut, a large body at a
usable speed is served to its end, and the connection is marked to close."""

from __future__ import annotations

import time

import gevent
import pytest

from api.body_deadline import BodyTimeout, DeadlineBody


class TricklingBody:
    """gunicorn's Body as a client sending ``piece`` bytes every ``every_s`` seconds (gevent sleeps)."""

    def __init__(self, total: int, piece: int, every_s: float) -> None:
        self.left, self.piece, self.every_s = total, piece, every_s

    def read(self, size: int | None = None) -> bytes:
        want = self.left if size is None or size < 0 else min(size, self.left)
        out = b""
        while len(out) < want:
            gevent.sleep(self.every_s)
            take = min(self.piece, want - len(out))
            out += b"x" * take
            self.left -= take
        return out

    def readline(self, size: int | None = None) -> bytes:
        return self.read(1)


def test_a_body_trickling_a_byte_at_a_time_is_cut_at_the_deadline_and_marks_the_connection() -> None:
    closed: list[bool] = []
    body = DeadlineBody(TricklingBody(200, 1, 0.05), timeout_s=0.3, min_rate=8192, on_expiry=lambda: closed.append(True))
    started = time.monotonic()
    with pytest.raises(BodyTimeout):
        body.read()
    assert 0.25 < time.monotonic() - started < 1.0
    assert body.failed and closed == [True]
    with pytest.raises(BodyTimeout):  # a later read (gunicorn's drain) fails at once
        body.read(10)


def test_a_large_body_at_a_usable_speed_is_read_to_its_end() -> None:
    # 256 KiB in 4 KiB pieces every 10 ms (~400 KiB/s): far past 0.3 s, yet above the minimum rate
    body = DeadlineBody(TricklingBody(256 * 1024, 4096, 0.01), timeout_s=0.3, min_rate=64 * 1024)
    assert len(body.read()) == 256 * 1024 and not body.failed


def test_readline_and_iteration_answer_to_the_deadline_too() -> None:
    body = DeadlineBody(TricklingBody(3, 1, 0.01), timeout_s=1.0, min_rate=1)
    assert list(body) == [b"x", b"x", b"x"]
    slow = DeadlineBody(TricklingBody(3, 1, 0.5), timeout_s=0.1, min_rate=1)
    with pytest.raises(BodyTimeout):
        slow.readline()
