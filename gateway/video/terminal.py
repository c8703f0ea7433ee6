"""One terminal media connection: JT/T 1078 packets -> frames -> the stream it was admitted to
(``admission.py``), and the operator's talk audio back to it."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Protocol

from gateway.video.admission import Arrival
from protocols.jt1078 import ATOMIC, AUDIO, FrameAssembler, JT1078Error, Packet, PacketReader, encode_packet
from protocols.jt1078.g711 import alaw_encode
from protocols.jt1078.payload_types import G711A

if TYPE_CHECKING:
    from fleet.settings import MediaServerSettings
    from gateway.video.hub import Stream
    from gateway.video.server import MediaServer

log = logging.getLogger("gateway.video")


def deliver(stream: Stream, assembler: FrameAssembler, packet: Packet) -> None:
    """One packet to its stream: relayed as it is (a superior's pull) and assembled into frames (viewers)."""
    stream.on_packet(packet)
    for frame in assembler.push(packet):
        stream.on_frame(frame)


class Fed(Protocol):
    closed: bool
    last_rx: float

    def _feed(self, data: bytes) -> bool: ...


async def pump(source: Fed, reader: asyncio.StreamReader, data: bytes) -> None:
    """Feed ``source`` what ``reader`` gives, starting with ``data``, until it ends, the source is closed or
    refuses what came (``_feed`` False); ``last_rx`` is when something last arrived."""
    while not source.closed:
        if data and not source._feed(data):
            return
        data = await reader.read(65536)
        if not data:
            return
        source.last_rx = time.monotonic()


class TerminalSource:
    """Bound on its first whole packet, or closed. ``last_rx`` feeds the server's idle and
    identification deadlines (its sweeper closes a connection that is silent or never identified)."""

    def __init__(self, server: MediaServer, writer: asyncio.StreamWriter, arrival: Arrival) -> None:
        self.server, self.writer, self.arrival = server, writer, arrival
        self.peer = arrival.peer
        self.reader = PacketReader(max_body=server.settings.max_packet_body)
        self.assembler = FrameAssembler()
        self.stream: Stream | None = None
        self.closed = False
        self.talk_seq = 0
        self.sim: str | None = None
        self.opened_at = self.last_rx = time.monotonic()

    async def run(self, reader: asyncio.StreamReader, first: bytes) -> None:
        try:
            await pump(self, reader, first)
        finally:
            self.closed = True
            if self.stream is not None:
                self.server.source_lost(self.stream, self)

    def _feed(self, data: bytes) -> bool:
        for item in self.reader.feed(data):
            if isinstance(item, JT1078Error):
                log.debug("terminal %s: %s", self.peer, item)
                continue
            if self.stream is None:
                self.sim = item.sim
                self.stream = self.server.bind_source(self, item)
                if self.stream is None:
                    return False
            deliver(self.stream, self.assembler, item)
        return True

    def stale(self, now: float, settings: MediaServerSettings) -> str | None:
        """Why the server should close this connection now: no whole packet within the identification
        deadline, or silent for longer than its stream allows (a paused playback sends nothing)."""
        if self.closed:
            return None
        if self.stream is None:
            if now - self.opened_at > settings.identify_deadline_s:
                return f"no whole packet in {settings.identify_deadline_s:.0f} s"
            return None
        allowed = settings.playback_idle_s if self.stream.info.kind == "playback" else settings.source_idle_s
        if now - self.last_rx > allowed:
            return f"stream {self.stream.info.stream_id} silent for {now - self.last_rx:.0f} s"
        return None

    def send_talk(self, samples: list[int]) -> None:
        """Browser audio to the terminal: one G.711A audio packet on this connection, with the SIM and
        layout the terminal itself uses. Only the stream's admitted source is ever given talk audio."""
        if self.closed or self.stream is None or self.sim is None:
            return
        packet = Packet(G711A, self.talk_seq, self.sim, self.stream.info.channel, AUDIO, ATOMIC, alaw_encode(samples),
                        int(time.time() * 1000), version=self.reader.version or "2016")
        self.talk_seq = (self.talk_seq + 1) & 0xFFFF
        self.writer.write(encode_packet(packet))

    def close(self) -> None:
        self.closed = True
        self.writer.close()
