"""A stream fed by pulling another platform's media server instead of by a terminal: fleetwatch as a JT/T 809
superior platform watches an inferior platform's vehicle (JT/T 1078-2016 §6.2, §8.2.1). The superior service
(exchange/superior/video.py) registers the stream with ``pullUrl``, the
``http://SERVER_IP:SERVER_PORT/<plate>.<colour>.<channel>.<av flag>.<code>`` the inferior's 0x1801 named; this
source GETs it and relays what comes back to the stream's viewers like a terminal connection's packets.

- The answer must be ``200`` within ``identify_deadline_s`` and its body the standard's table 18 packets (asked
  for by not asking for FLV); anything else ends the pull, logged with the status and the first bytes.
- A pull silent for ``source_idle_s`` is closed by the server's sweeper (``stale``), as a terminal is; a pull
  that ends leaves the stream without a source, dropped after ``source_grace_s``. Nothing is re-pulled: the
  superior service sees the stream gone and sends 0x9802, and an operator asks again.
- Bounded like a terminal connection: the head is at most ``HEAD_LIMIT`` bytes, a packet body at most
  ``max_packet_body``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from gateway.video.terminal import deliver, pump
from protocols.jt1078 import FrameAssembler, JT1078Error, PacketReader

if TYPE_CHECKING:
    from fleet.settings import MediaServerSettings
    from gateway.video.hub import Stream
    from gateway.video.server import MediaServer

log = logging.getLogger("gateway.video")
HEAD_LIMIT = 16 * 1024


class PullSource:
    """Bound to its stream from the start; ``run`` until the other side ends or ``close``."""

    def __init__(self, server: MediaServer, stream: Stream, url: str) -> None:
        self.server, self.stream, self.url = server, stream, url
        parts = urlsplit(url)
        self.host, self.port = parts.hostname or "", parts.port or 80
        self.path = parts.path + (f"?{parts.query}" if parts.query else "")
        self.peer = f"{self.host}:{self.port}"
        self.reader = PacketReader(max_body=server.settings.max_packet_body)
        self.assembler = FrameAssembler()
        self.closed = False
        self.packets = 0
        self.error: str | None = None
        self.opened_at = self.last_rx = time.monotonic()
        self._writer: asyncio.StreamWriter | None = None

    async def run(self) -> None:
        try:
            await self._pull()
        except (OSError, TimeoutError, asyncio.IncompleteReadError) as exc:
            self.error = self.error or f"{type(exc).__name__}: {exc}"
        finally:
            if self.error is not None:
                log.warning("pull of stream %s from %s ended: %s", self.stream.info.stream_id, self.peer, self.error)
            self.close()
            self.server.source_lost(self.stream, self)

    async def _pull(self) -> None:
        deadline = self.server.settings.identify_deadline_s
        async with asyncio.timeout(deadline):
            reader, self._writer = await asyncio.open_connection(self.host, self.port, limit=1 << 20)
            self._writer.write(f"GET {self.path} HTTP/1.1\r\nHost: {self.peer}\r\nUser-Agent: fleetwatch\r\n"
                               "Connection: close\r\n\r\n".encode())
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = await reader.read(4096)
                if not chunk or len(head) + len(chunk) > HEAD_LIMIT:
                    self.error = "no HTTP answer head"
                    return
                head += chunk
        head, _, body = head.partition(b"\r\n\r\n")
        status_line = head.split(b"\r\n", 1)[0]
        status = status_line.split()
        if len(status) < 2 or status[1] != b"200":
            self.error = f"answered {status_line[:80]!r}"
            return
        log.info("stream %s pulled from %s", self.stream.info.stream_id, self.peer)
        await pump(self, reader, body)

    def _feed(self, data: bytes) -> bool:
        for item in self.reader.feed(data):
            if isinstance(item, JT1078Error):
                if not self.packets:
                    self.error = f"not JT/T 1078 packets: {data[:16].hex()}"
                    return False
                log.debug("pull %s: %s", self.peer, item)
                continue
            self.packets += 1
            deliver(self.stream, self.assembler, item)
        return True

    def stale(self, now: float, settings: MediaServerSettings) -> str | None:
        """Why the sweeper should end the pull now: silent for longer than a terminal may be."""
        if self.closed or now - self.last_rx <= settings.source_idle_s:
            return None
        return f"pull of stream {self.stream.info.stream_id} silent for {now - self.last_rx:.0f} s"

    def send_talk(self, samples: list[int]) -> None:
        """A pull carries nothing back (JT/T 1078-2016 §6.2 defines no talk between platforms)."""

    def close(self) -> None:
        self.closed = True
        if self._writer is not None:
            with contextlib.suppress(Exception):
                self._writer.close()
