"""A deadline on reading a request's body (the gevent worker, ``api.server``).

Rule: a body may take ``body_timeout_s`` plus its size at ``body_min_rate_bytes_s`` from the moment
its headers were read; at every read, the bytes received so far must have arrived by
``start + body_timeout_s + received / body_min_rate_bytes_s``. A client trickling a byte a second
is cut after about ``body_timeout_s``, a large upload at any usable speed is served to its end (the
rule of Kestrel's MinRequestBodyDataRate). Past the deadline the reader raises ``BodyTimeout``,
which the app answers with a 408 envelope, and the connection is closed after the reply (the rest
of the body is never read: where the next request would start is unknown).

Reads are cut into pieces of READ_PIECE bytes so that one ``read()`` of a large body is judged
piece by piece, not as a whole against the deadline of its first byte. Imported by gunicorn's
master: gevent and the standard library only.
"""

from __future__ import annotations

import time
from typing import Any

import gevent

READ_PIECE = 16 * 1024
GRACE_S = 0.05  # a read past the deadline still takes what is already buffered


class BodyTimeout(Exception):
    """The request body did not arrive within its deadline (see the module doc)."""

    def __init__(self, timeout_s: float, min_rate: int) -> None:
        super().__init__(f"request body not received within {timeout_s:g} s plus its size at {min_rate} bytes/s")
        self.timeout_s = timeout_s
        self.min_rate = min_rate


class DeadlineBody:
    """Wraps gunicorn's ``Body`` (``read``, ``readline``, ``readlines``, iteration) with the deadline.

    ``failed`` is set when the deadline passed (and ``on_expiry()`` called: the worker marks the
    request "close", so the reply says so): gunicorn's parser then closes the connection instead of
    draining the rest."""

    def __init__(self, body: Any, timeout_s: float, min_rate: int, clock: Any = time.monotonic,
                 on_expiry: Any = None) -> None:
        self._body = body
        self._on_expiry = on_expiry
        self._timeout_s = timeout_s
        self._min_rate = max(1, min_rate)
        self._clock = clock
        self._start = clock()
        self._received = 0
        self.failed = False

    def _deadline(self) -> float:
        return self._start + self._timeout_s + self._received / self._min_rate

    def _call(self, method: Any, *args: Any) -> Any:
        if self.failed:
            raise BodyTimeout(self._timeout_s, self._min_rate)
        wait_s = max(GRACE_S, self._deadline() - self._clock())
        timer = gevent.Timeout(wait_s)
        timer.start()
        try:
            data = method(*args)
        except gevent.Timeout as expired:
            if expired is not timer:
                raise
            self.failed = True
            if self._on_expiry is not None:
                self._on_expiry()
            raise BodyTimeout(self._timeout_s, self._min_rate) from None
        finally:
            timer.close()
        self._received += len(data)
        return data

    def read(self, size: int | None = None) -> bytes:
        want = -1 if size is None or size < 0 else size
        pieces: list[bytes] = []
        got = 0
        while want < 0 or got < want:
            piece = READ_PIECE if want < 0 else min(READ_PIECE, want - got)
            data: bytes = self._call(self._body.read, piece)
            if not data:
                break
            pieces.append(data)
            got += len(data)
        return b"".join(pieces)

    def readline(self, size: int | None = None) -> bytes:
        line: bytes = self._call(self._body.readline, size)
        return line

    def readlines(self, size: int | None = None) -> list[bytes]:
        lines = []
        total = 0
        while size is None or size <= 0 or total < size:
            line = self.readline()
            if not line:
                break
            lines.append(line)
            total += len(line)
        return lines

    def __iter__(self) -> DeadlineBody:
        return self

    def __next__(self) -> bytes:
        line = self.readline()
        if not line:
            raise StopIteration
        return line
