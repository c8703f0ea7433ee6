"""A simulated terminal's cameras: how it answers the JT/T 1078 commands.

| downlink | answer |
|---|---|
| 0x9101 (live, listen, talk) | 0x0001 result 0, then a media connection to the named server (``simulator/video.py``): the channel's clip and the cabin audio; talk also records what it is sent (``talk_dir/<phone>-ch<channel>.wav``) |
| 0x9102 | 0x0001; 0 close (or 4 close talk) ends the channel's session, 1 switches main/sub, 2 pauses, 3 resumes |
| 0x9205 | 0x1205: recordings of 10 minutes each over the last 6 hours per channel (the 30 newest that match) |
| 0x9201 | 0x1205 with the resources it will play, then a playback connection playing the clip from the start |
| 0x9202 | 0x0001; pause, resume, end, fast forward (x speed), seek |
| a channel the terminal does not have | 0x0001 result 1 (failure) |

A terminal without video (``warehouse.seed.terminal_has_video``) answers these 0x0001 result 3.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from protocols.jt808 import (
    AvResource,
    AvResourceList,
    AvTransmissionControl,
    PlaybackControl,
    PlaybackRequest,
    QueryAvResources,
    RealtimeAvRequest,
)
from protocols.jt808.messages.t9201_playback_request import MODE_FAST_FORWARD, SPEED_FACTORS
from simulator.video import MediaSession
from simulator.video_clips import ClipLibrary

log = logging.getLogger("simulator.video")

RECORDING_S = 600
RECORDED_HOURS = 6
MAX_LISTED = 30  # 6 + 30 x 28 bytes: one frame


@dataclass
class VideoTerminal:
    phone: str
    plate: str
    channels: tuple[int, ...] = (1, 2, 3, 4)
    talk_channels: tuple[int, ...] = (1, 36)
    clips: ClipLibrary | None = None
    talk_dir: Path | None = None
    sessions: dict[tuple[int, str], tuple[MediaSession, asyncio.Task[None]]] = field(default_factory=dict)
    started: int = 0

    def handles(self, body: Any) -> bool:
        return isinstance(body, RealtimeAvRequest | AvTransmissionControl | QueryAvResources | PlaybackRequest
                          | PlaybackControl)

    def answer(self, body: Any, seq: int, now: datetime) -> tuple[int, Any]:
        """(result for 0x0001, or -1 when ``body`` gets its own reply object) and the reply object."""
        if isinstance(body, RealtimeAvRequest):
            kind = {2: "talk", 3: "listen"}.get(body.data_type, "live")
            allowed = self.channels if kind == "live" else self.channels + self.talk_channels
            if body.channel not in allowed:
                return 1, None
            stream = "sub" if body.stream_type == 1 else "main"
            self._start(body.server_ip, body.tcp_port, body.channel, kind, stream, video=kind == "live" and
                        body.data_type != 3, audio=body.data_type != 1)
            return 0, None
        if isinstance(body, AvTransmissionControl):
            return self._control(body), None
        if isinstance(body, QueryAvResources):
            return -1, AvResourceList(seq, tuple(self.recordings(body.channel, body.start, body.end, now)))
        if isinstance(body, PlaybackRequest):
            if body.channel not in self.channels:
                return -1, AvResourceList(seq, ())
            items = tuple(self.recordings(body.channel, body.start, body.end, now))
            speed = SPEED_FACTORS.get(body.speed, 1) if body.playback_mode == MODE_FAST_FORWARD else 1
            self._start(body.server_ip, body.tcp_port, body.channel, "playback", "main",
                        video=body.media_type != 1, audio=body.media_type in (0, 1, 3), speed=speed,
                        recorded_from=body.start)
            return -1, AvResourceList(seq, items)
        assert isinstance(body, PlaybackControl)
        return self._playback_control(body), None

    def recordings(self, channel: int, start: datetime | None, end: datetime | None, now: datetime) -> list[AvResource]:
        """10-minute recordings of the last hours, newest first, that overlap [start, end]."""
        newest = now.replace(second=0, microsecond=0) - timedelta(minutes=now.minute % 10)
        out = []
        for index in range(RECORDED_HOURS * 3600 // RECORDING_S):
            begin = newest - timedelta(seconds=RECORDING_S * (index + 1))
            finish = begin + timedelta(seconds=RECORDING_S)
            if (start and finish <= start) or (end and begin >= end):
                continue
            for ch in (self.channels if channel == 0 else (channel,)):
                if ch in self.channels:
                    out.append(AvResource(ch, begin, finish, 0, 0, 1, 1, 60_000_000 + ch * 1000 + index))
            if len(out) >= MAX_LISTED:
                break
        return out[:MAX_LISTED]

    def _start(self, host: str, port: int, channel: int, kind: str, stream: str, *, video: bool, audio: bool,
               speed: float = 1.0, recorded_from: datetime | None = None) -> None:
        key = (channel, kind)
        self.stop(key)
        clips = self.clips or ClipLibrary()
        talk_file = None
        if kind == "talk" and self.talk_dir is not None:
            talk_file = self.talk_dir / f"{self.phone}-ch{channel}.wav"
        session = MediaSession(host, port, self.phone, channel, clips.clip(self.plate, channel, stream) if video else None,
                               clips.audio() if audio else None, kind=kind, speed=speed, talk_file=talk_file,
                               recorded_from=recorded_from)
        task = asyncio.get_running_loop().create_task(self._run(key, session))
        self.sessions[key] = (session, task)
        self.started += 1

    async def _run(self, key: tuple[int, str], session: MediaSession) -> None:
        try:
            await session.run()
        except (OSError, TimeoutError) as exc:
            log.info("terminal %s: media session %s ended: %r", self.phone, key, exc)
        finally:
            current = self.sessions.get(key)
            if current is not None and current[0] is session:
                del self.sessions[key]

    def stop(self, key: tuple[int, str]) -> None:
        current = self.sessions.pop(key, None)
        if current is not None:
            current[0].stop()

    def stop_all(self) -> None:
        for key in list(self.sessions):
            self.stop(key)

    def _control(self, body: AvTransmissionControl) -> int:
        kinds = ("talk",) if body.command == 4 else ("live", "listen")
        found = [key for key in self.sessions if key[0] == body.channel and key[1] in kinds]
        for key in found:
            session = self.sessions[key][0]
            if body.command in (0, 4):
                self.stop(key)
            elif body.command == 1 and session.clip is not None:
                session.clip = (self.clips or ClipLibrary()).clip(self.plate, body.channel,
                                                                   "sub" if body.stream_type == 1 else "main")
            elif body.command == 2:
                session.pause()
            elif body.command == 3:
                session.resume()
        return 0

    def _playback_control(self, body: PlaybackControl) -> int:
        current = self.sessions.get((body.channel, "playback"))
        if current is None:
            return 1
        session = current[0]
        if body.control == 0:
            session.resume(1.0)
        elif body.control == 1:
            session.pause()
        elif body.control == 2:
            self.stop((body.channel, "playback"))
        elif body.control in (3, 4):
            session.resume(float(SPEED_FACTORS.get(body.speed, 1)))
        elif body.control == 5 and body.seek_to is not None and session.recorded_from is not None:
            session.seek(max(0.0, (body.seek_to - session.recorded_from).total_seconds()))
        return 0


def utc_now() -> datetime:
    return datetime.now(UTC)
