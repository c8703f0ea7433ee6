"""A simulated terminal's JT/T 1078 media connection: what it does after 0x9101 / 0x9201.

``MediaSession.run()`` connects to the media server the command names and streams, paced in real time:

- video (live, playback): the clip's H.264 (``video_clips.py``), frame k sent when the wall clock is at
  frame k of the clip's 10 s loop; a session starts on the key frame before "now" and sends what it
  has since then at once (a terminal's pre-record buffer), so the first picture needs no wait;
- audio (live audio+video, listen, talk, playback with audio): the cabin's G.711A, 40 ms a packet;
- talk: what the platform sends on the same connection (the browser's voice, G.711A) is decoded and
  written to ``talk_file`` (a WAV, 8 kHz mono 16 bit) that the tests read.

Playback honours ``speed`` (x1 .. x16), ``pause()`` / ``resume()`` and ``seek(seconds)`` from 0x9202. Its
frames carry the recording's time: 40 ms a frame, continuous across the clip's loops, speed changes and
seeks, so a player sees time advance ``speed`` times faster than the wall clock, never backwards. A speed
change keeps the next frame's due time (no burst of frames); while fast-forwarding (speed above 1) it sends
no audio, as a recording played faster has no audio to speak of.
Packets: 2016 layout (12-digit SIM), at most 950 body bytes, sub-packages for bigger frames.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import struct
import time
import wave
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from protocols.jt1078 import AUDIO, I_FRAME, P_FRAME, Packet, PacketReader, encode_packet, packetize
from protocols.jt1078.g711 import alaw_decode, ulaw_decode
from protocols.jt1078.payload_types import G711A, G711U, H264
from simulator.video_clips import AUDIO_FRAME_BYTES, FRAME_MS, Clip, aligned_start

log = logging.getLogger("simulator.video")


@dataclass
class MediaCounters:
    video_frames: int = 0
    audio_frames: int = 0
    packets: int = 0
    bytes_sent: int = 0
    talk_frames: int = 0
    first_frame_at: float | None = None


@dataclass
class MediaSession:
    host: str
    port: int
    sim: str  # 12 digits (2016 layout)
    channel: int
    clip: Clip | None  # None: audio only (listen, talk)
    audio: bytes | None  # G.711A, 8 kHz; None: no audio
    kind: str = "live"  # live, listen, talk, playback
    speed: float = 1.0
    talk_file: Path | None = None
    recorded_from: datetime | None = None  # playback: the recording's start (0x9202 seeks from it)
    counters: MediaCounters = field(default_factory=MediaCounters)

    def __post_init__(self) -> None:
        self.sim = self.sim.zfill(12)[-12:]
        self._stop = asyncio.Event()
        self._resume = asyncio.Event()
        self._resume.set()
        self._seq = 0
        self._seek_to: int | None = None
        self._wav: wave.Wave_write | None = None

    def stop(self) -> None:
        self._stop.set()
        self._resume.set()

    def pause(self) -> None:
        self._resume.clear()

    def resume(self, speed: float | None = None) -> None:
        if speed:
            self.speed = speed
        self._resume.set()

    def seek(self, seconds: float) -> None:
        self._seek_to = max(0, int(seconds * 1000 / FRAME_MS))
        self._resume.set()

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    async def run(self) -> None:
        """Stream until ``stop()`` or until the server closes the connection."""
        async with asyncio.timeout(10):
            reader, writer = await asyncio.open_connection(self.host, self.port)
        listen = asyncio.create_task(self._read(reader))
        try:
            await self._send_loop(writer, listen)
        except (ConnectionError, OSError) as exc:
            log.debug("media session %s ch%s ended: %r", self.sim, self.channel, exc)
        finally:
            listen.cancel()
            await asyncio.gather(listen, return_exceptions=True)
            writer.close()
            with contextlib.suppress(Exception):
                async with asyncio.timeout(1):
                    await writer.wait_closed()
            if self._wav is not None:
                self._wav.close()
                self._wav = None

    def _write(self, writer: asyncio.StreamWriter, packets: list[Packet]) -> None:
        for packet in packets:
            raw = encode_packet(packet)
            writer.write(raw)
            self.counters.packets += 1
            self.counters.bytes_sent += len(raw)
        self._seq = (self._seq + len(packets)) & 0xFFFF

    async def _send_loop(self, writer: asyncio.StreamWriter, listen: asyncio.Task[None]) -> None:
        now_ms = int(time.time() * 1000)
        clip = self.clip
        audio = self.audio
        if self.kind == "playback":
            loop_start, index = now_ms, 0  # a recording plays from its start, paced from now
        elif clip is not None:
            loop_start, index = aligned_start(now_ms, clip)
        else:
            loop_start, index = now_ms, 0
        audio_at = 0
        audio_t0 = now_ms
        next_audio_ms = now_ms
        last_key_ms = loop_start
        media_start, played = loop_start, 0  # playback: the recording's time is media_start + played frames
        paced_speed = self.speed
        while not self._stop.is_set():
            if listen.done():
                return
            if not self._resume.is_set():
                paused_at = time.time()
                await self._resume.wait()
                shift = int((time.time() - paused_at) * 1000)
                loop_start += shift
                next_audio_ms += shift
                continue
            if self.speed != paced_speed:  # keep the next frame's due time: no burst, no gap
                loop_start += int(index * FRAME_MS / paced_speed) - int(index * FRAME_MS / self.speed)
                paced_speed = self.speed
            if self._seek_to is not None and clip is not None:
                wanted = self._seek_to % len(clip.frames)
                index = max((i for i in clip.key_indexes if i <= wanted), default=0)
                loop_start = int(time.time() * 1000) - int(index * FRAME_MS / self.speed)
                self._seek_to = None
            now_ms = int(time.time() * 1000)
            due_video = None
            if clip is not None:
                due_video = loop_start + int(index * FRAME_MS / self.speed)
            fast_forward = self.kind == "playback" and self.speed > 1
            if fast_forward:
                next_audio_ms = max(next_audio_ms, now_ms)  # resumes at the wall clock once back to x1
            elif audio is not None and next_audio_ms <= now_ms and (due_video is None or next_audio_ms <= due_video):
                chunk = audio[audio_at:audio_at + AUDIO_FRAME_BYTES]
                audio_at = (audio_at + AUDIO_FRAME_BYTES) % max(AUDIO_FRAME_BYTES, len(audio))
                # a playback's sound is on the recording's time, like its pictures
                ts = (media_start + played * FRAME_MS if self.kind == "playback" and clip is not None
                      else audio_t0 + (next_audio_ms - audio_t0))
                self._write(writer, packetize(G711A, self.sim, self.channel, AUDIO, chunk, seq=self._seq,
                                              timestamp_ms=ts))
                self.counters.audio_frames += 1
                next_audio_ms += 40
                continue
            if due_video is not None and due_video <= now_ms:
                assert clip is not None
                data, key = clip.frames[index]
                capture_ms = due_video if self.kind != "playback" else media_start + played * FRAME_MS
                played += 1
                if key:
                    last_key_ms = capture_ms
                self._write(writer, packetize(H264, self.sim, self.channel, I_FRAME if key else P_FRAME, data,
                                              seq=self._seq, timestamp_ms=capture_ms,
                                              last_i_interval_ms=min(0xFFFF, capture_ms - last_key_ms),
                                              last_frame_interval_ms=FRAME_MS))
                self.counters.video_frames += 1
                if self.counters.first_frame_at is None:
                    self.counters.first_frame_at = time.monotonic()
                index += 1
                if index == len(clip.frames):  # the clip loops (a long recording is the clip repeated)
                    index = 0
                    loop_start += int(len(clip.frames) * FRAME_MS / self.speed)
                continue
            await writer.drain()
            waits = [t for t in (due_video, next_audio_ms if audio is not None and not fast_forward else None)
                     if t is not None]
            delay = (min(waits) - int(time.time() * 1000)) / 1000 if waits else 0.5
            if delay > 0:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(min(delay, 0.5)):
                        await self._stop.wait()

    async def _read(self, reader: asyncio.StreamReader) -> None:
        """What the platform sends on this connection: the talk audio, recorded."""
        packets = PacketReader()
        while True:
            data = await reader.read(65536)
            if not data:
                return
            for item in packets.feed(data):
                if isinstance(item, Packet) and item.data_type == AUDIO:
                    self._record(item)

    def _record(self, packet: Packet) -> None:
        if self.talk_file is None:
            return
        if packet.payload_type == G711A:
            samples = alaw_decode(packet.payload)
        elif packet.payload_type == G711U:
            samples = ulaw_decode(packet.payload)
        else:
            return
        if self._wav is None:
            self.talk_file.parent.mkdir(parents=True, exist_ok=True)
            self._wav = wave.open(str(self.talk_file), "wb")
            self._wav.setnchannels(1)
            self._wav.setsampwidth(2)
            self._wav.setframerate(8000)
        self._wav.writeframes(struct.pack(f"<{len(samples)}h", *samples))  # patches the header too
        self._wav._file.flush()  # type: ignore[attr-defined]  # readable while the session lasts
        self.counters.talk_frames += 1
