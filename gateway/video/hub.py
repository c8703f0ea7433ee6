"""Streams and viewers: one terminal connection in, many viewers out, nobody waiting for anybody.

A ``Stream`` is registered by the API (``StreamInfo``: which device, channel and purpose) before its
9101 / 9201 goes out; the terminal's media connection then becomes its source. Frames are muxed once
into FLV tags (``flv.py``) and the same bytes go to every ``Viewer``:

- a new viewer gets the FLV header, the sequence headers and the cached group of pictures (from the last
  key frame) at once, so it starts decoding immediately;
- each viewer has its own queue; one that falls ``viewer_queue_bytes`` behind loses its queue and
  resumes at the next key frame (its picture jumps, it never stalls the others or the terminal); one
  still behind after ``viewer_lag_drop_s`` is disconnected.

Purposes (``kind``): ``live`` (0x9101 data type 0 audio+video, 1 video), ``listen`` (3), ``talk`` (2:
audio both ways), ``playback`` (0x9201).
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from fleet.addresses import source_ip
from fleet.video_streams import AUTHORIZE_CODE, PullLocation, SuperiorPull
from gateway.video import flv
from gateway.video.audio import AudioTrack
from gateway.video.nal import H264Converter, H265Converter
from protocols.jt1078 import ATOMIC, AUDIO, FIRST, I_FRAME, TRANSPARENT, Frame, Packet, encode_packet
from protocols.jt1078.payload_types import H264, H265

log = logging.getLogger("gateway.video")

KINDS = ("live", "listen", "talk", "playback")
AUDIO_WAIT_S = 0.5  # an audio+video stream waits this long after its first key frame for audio to show up


def kind_of(data_type: int) -> str:
    """0x9101 data type -> stream kind."""
    return {2: "talk", 3: "listen"}.get(data_type, "live")


@dataclass(frozen=True)
class StreamInfo:
    """What the API registers: the stream's identity and who owns it."""

    stream_id: str
    kind: str
    sim: str  # the terminal's phone digits as its 1078 packets carry them (leading zeros do not matter)
    channel: int
    data_type: int  # 0x9101 data type (playback: 0 audio+video, 1 audio, 2 video)
    stream_type: int
    enterprise_id: int
    device_id: int
    car_id: int | None = None
    plate_number: str | None = None
    phone: str = ""  # canonical phone (Kafka key of the 9102 downlink)
    protocol_version: str = "2013"
    source_address: str | None = None  # IP of the terminal's authenticated JT/T 808 session (policy `address`)
    user_id: int | None = None  # who asked for it (the live log's "who opened it"; 0 / None: an app, no user)
    superior: SuperiorPull | None = None  # a superior platform may pull it with this code (gateway/video/superior.py)
    pull_url: str | None = None  # fed by pulling another platform's media server, not by a terminal (pull.py)

    @property
    def pulled(self) -> bool:
        """Fed by a pull: no device of ours, so no 0x9102, push 14, video log or live log row (pull.py)."""
        return self.pull_url is not None

    @property
    def wants_video(self) -> bool:
        return self.kind in ("live", "playback") and self.data_type != (3 if self.kind == "live" else 1)

    @property
    def wants_audio(self) -> bool:
        if self.kind in ("talk", "listen"):
            return True
        return self.data_type != (1 if self.kind == "live" else 2)


def stream_info_of(body: Any) -> StreamInfo:
    """The API's registration body (``POST /internal/streams``). Raises ValueError for a bad one."""
    if not isinstance(body, dict):
        raise ValueError("body must be an object")
    try:
        address = None if body.get("sourceAddress") is None else source_ip(str(body["sourceAddress"]))
        info = StreamInfo(
            stream_id=str(body["streamId"]), kind=str(body["kind"]), sim=str(body["sim"]), channel=int(body["channel"]),
            data_type=int(body.get("dataType", 0)), stream_type=int(body.get("streamType", 0)),
            enterprise_id=int(body["enterpriseId"]), device_id=int(body["deviceId"]),
            car_id=None if body.get("carId") is None else int(body["carId"]), plate_number=body.get("plateNumber"),
            phone=str(body.get("phone") or body["sim"]), protocol_version=str(body.get("protocolVersion") or "2013"),
            source_address=address, user_id=None if body.get("userId") is None else int(body["userId"]),
            superior=_superior_of(body.get("superior")), pull_url=_pull_url_of(body.get("pullUrl")))
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(repr(exc)) from None
    if info.kind not in KINDS or not info.sim.isdigit() or not re.match(r"^[A-Za-z0-9_-]{1,64}$", info.stream_id):
        raise ValueError("kind, sim or streamId")
    return info


def _pull_url_of(value: Any) -> str | None:
    """``pullUrl``: ``http://host:port/path`` of another platform's stream (JT/T 1078-2016 §6.2); raises
    ValueError for anything else."""
    if value is None:
        return None
    url = urlsplit(str(value))
    if url.scheme != "http" or not url.hostname or not url.path.startswith("/") or len(str(value)) > 512:
        raise ValueError("pullUrl: http://host:port/path")
    url.port  # noqa: B018 -- raises ValueError for a port that is not one
    return str(value)


def _superior_of(value: Any) -> SuperiorPull | None:
    """The registration's ``superior`` ({plate, plateColour, channel, avFlag, code[, location]}); raises
    ValueError for a bad one."""
    if value is None:
        return None
    code = str(value["code"])
    if not AUTHORIZE_CODE.match(code):
        raise ValueError("superior code: letters and digits, at most 64")
    av_flag = int(value.get("avFlag", 0))
    if av_flag not in (0, 1, 2, 3):
        raise ValueError("superior avFlag: 0 to 3")
    location = value.get("location")
    return SuperiorPull(str(value["plate"])[:21], int(value["plateColour"]), int(value["channel"]), av_flag, code,
                        None if location is None else PullLocation.of_json(location))


def same_sim(a: str, b: str) -> bool:
    return a.lstrip("0") == b.lstrip("0")


class Viewer:
    """One player. ``offer`` never blocks; ``pump`` (its own task) writes the queue out."""

    _ids = 0

    def __init__(self, user_id: int | None, transport: str, peer: str, max_queue: int, lag_drop_s: float,
                 *, packets: bool = False) -> None:
        Viewer._ids += 1
        self.id = Viewer._ids
        self.user_id, self.transport, self.peer = user_id, transport, peer
        self.max_queue, self.lag_drop_s = max_queue, lag_drop_s
        # packets: the terminal's JT/T 1078 packets as they arrive (a superior's pull, JT/T 1078-2016 §6.1),
        # from the first packet of an I frame on; else FLV tags
        self.packets = packets
        self.queue: deque[bytes] = deque()
        self.queued = 0
        self.waiting_key = packets
        self.lag_since: float | None = None
        self.skips = 0
        self.sent_bytes = 0
        self.started_at = datetime.now(UTC)
        self.closed: str | None = None
        self.wake = asyncio.Event()
        self.log_id: int | None = None
        self.session_key: str | None = None  # the live session watched (Stream.session_key), set when added
        self.abort: Callable[[], None] | None = None  # set by the server: cut the connection now

    def offer(self, data: bytes, *, keyframe: bool = False, config: bool = False) -> None:
        if self.closed:
            return
        if not config and self.waiting_key:
            if not keyframe:
                return
            self.waiting_key = False
        if not config and self.queued and self.queued + len(data) > self.max_queue:
            self.queue.clear()
            self.queued = 0
            self.waiting_key = True
            self.skips += 1
            now = time.monotonic()
            if self.lag_since is None:
                self.lag_since = now
            elif now - self.lag_since > self.lag_drop_s:
                self.close("too slow")
            return
        self.queue.append(data)
        self.queued += len(data)
        self.wake.set()

    def close(self, why: str) -> None:
        """Stop sending. A viewer dropped for being too slow is cut at once (its writes may be stuck)."""
        if not self.closed:
            self.closed = why
            self.wake.set()
            if why == "too slow" and self.abort is not None:
                self.abort()

    async def pump(self, write: Callable[[bytes], None], drain: Callable[[], Any]) -> None:
        """Write queued bytes until closed. ``write`` frames them (a WebSocket message or raw bytes)."""
        while not self.closed:
            await self.wake.wait()
            self.wake.clear()
            while self.queue and not self.closed:
                chunk = self.queue.popleft()
                self.queued -= len(chunk)
                write(chunk)
                self.sent_bytes += len(chunk)
                await drain()
            if not self.queue:
                self.lag_since = None


@dataclass
class StreamCounters:
    frames: int = 0
    video_frames: int = 0
    audio_frames: int = 0
    bytes_in: int = 0
    tags: int = 0


class Stream:
    def __init__(self, info: StreamInfo, *, gop_cache_bytes: int, audio: AudioTrack) -> None:
        self.info = info
        self.created_at = time.monotonic()
        self.registered_at = self.created_at  # the last registration (each 0x9101 / 0x9201 renews the request)
        self.one_time_port: int | None = None  # policy `port`: where this request's terminal must connect
        self.last_heartbeat = time.monotonic()  # the console's heartbeat: reported, never keeps a stream alone
        self.last_viewer_at = time.monotonic()  # the last moment someone watched (or asked for) it
        self.talk_sockets = 0  # open talk sockets: a talk is watched while its microphone is open
        self.source: Any = None  # the TerminalSource feeding it
        self.source_lost_at: float | None = None
        self.viewers: dict[int, Viewer] = {}
        self.gop_cache_bytes = gop_cache_bytes
        self.audio = audio
        self.counters = StreamCounters()
        self.video_codec: int | None = None
        self._converter: H264Converter | H265Converter | None = None
        self.video_config_tag: bytes | None = None
        self.audio_config_tag: bytes | None = None
        self.head: bytes | None = None  # FLV header + metadata + sequence headers, once ready
        self.has_audio = self.has_video = False
        self.gop: list[bytes] = []
        self._gop_bytes = 0
        self._gop_ok = False
        self._first_key_at: float | None = None
        self._t0: int | None = None
        self._last_ts: dict[int, int] = {}
        self.first_frame_wall: datetime | None = None
        self.last_frame_wall: datetime | None = None
        self.last_frame_mono: float | None = None
        self.online = False
        self.on_ready: list[Callable[[Stream], None]] = []
        # the live log (migration 0056): this life of the stream, from its request to its drop
        self.session_key = str(uuid.uuid4())
        self.requested_at = datetime.now(UTC)
        self.heartbeats = 0
        self.last_heartbeat_wall: datetime | None = None
        self.peak_viewers = 0
        self.ended_at: datetime | None = None
        self.end_reason: str | None = None  # the media server's words (server.py ``_drop``)

    # -- timestamps --------------------------------------------------------------------------------
    def _flv_ts(self, frame_ts: int | None, track: int) -> int:
        now_ms = int(time.monotonic() * 1000)
        ts = frame_ts if frame_ts is not None else now_ms
        if self._t0 is None or not -10_000 < ts - self._t0 - self._last_ts.get(track, 0) < 60_000:
            # first frame, or a terminal clock jump: continue from where the track is
            self._t0 = ts - self._last_ts.get(track, 0)
        value = max(ts - self._t0, self._last_ts.get(track, 0))
        self._last_ts[track] = value
        return value

    # -- frames in ---------------------------------------------------------------------------------
    def on_frame(self, frame: Frame) -> None:
        self.counters.frames += 1
        self.counters.bytes_in += len(frame.data)
        self.last_frame_mono = time.monotonic()
        self.last_frame_wall = datetime.now(UTC)
        if self.first_frame_wall is None:
            self.first_frame_wall = self.last_frame_wall
        if frame.data_type == TRANSPARENT:
            return
        if frame.data_type == AUDIO:
            self.counters.audio_frames += 1
            if self.info.wants_audio:
                self._on_audio(frame)
            return
        self.counters.video_frames += 1
        if self.info.wants_video:
            self._on_video(frame)

    def _on_video(self, frame: Frame) -> None:
        if self._converter is None:
            if frame.payload_type == H265:
                self._converter, self.video_codec = H265Converter(), flv.CODEC_HEVC
            else:  # 98 H.264; AVS / SVAC are not playable anywhere near a browser: try H.264 parsing
                if frame.payload_type != H264:
                    log.warning("stream %s: video PT %s taken as H.264", self.info.stream_id, frame.payload_type)
                self._converter, self.video_codec = H264Converter(), flv.CODEC_AVC
        unit = self._converter.convert(frame.data)
        assert self.video_codec is not None
        ts = self._flv_ts(frame.timestamp_ms, 9)
        if unit.config is not None:
            self.video_config_tag = flv.video_config_tag(self.video_codec, unit.config, ts)
            if self.head is not None:
                self._publish(self.video_config_tag, config=True)
                self.head = self._build_head()
        if not unit.payload or self.video_config_tag is None:
            return
        keyframe = unit.keyframe or frame.keyframe
        tag = flv.video_tag(self.video_codec, ts, unit.payload, keyframe)
        if keyframe:
            self.gop, self._gop_bytes, self._gop_ok = [], 0, True
            if self._first_key_at is None:
                self._first_key_at = time.monotonic()
        was_ready = self.head is not None
        self._cache(tag)
        self._check_ready()
        if was_ready:  # a viewer started just now got this tag with the cached GOP: not twice
            self._publish(tag, keyframe=keyframe)

    def _on_audio(self, frame: Frame) -> None:
        if frame.timestamp_ms is None:
            return
        aac = self.audio.push(frame.payload_type, frame.data, frame.timestamp_ms)
        if self.audio.config is not None and self.audio_config_tag is None:
            self.audio_config_tag = flv.aac_config_tag(self.audio.config)
        for item in aac:
            tag = flv.aac_tag(self._flv_ts(item.timestamp_ms, 8), item.data)
            was_ready = self.head is not None
            cached = self._gop_ok or not self.info.wants_video
            if cached:
                self._cache(tag)
            self._check_ready()
            if was_ready or (self.head is not None and not cached):
                self._publish(tag)
        self._check_ready()

    def _cache(self, tag: bytes) -> None:
        if not self.info.wants_video:  # audio only: a short tail is enough to start
            self.gop.append(tag)
            if len(self.gop) > 8:
                del self.gop[0]
            return
        if not self._gop_ok:
            return
        if self._gop_bytes + len(tag) > self.gop_cache_bytes:
            self.gop, self._gop_bytes, self._gop_ok = [], 0, False  # too long a GOP: wait for the next key
            return
        self.gop.append(tag)
        self._gop_bytes += len(tag)

    def _check_ready(self) -> None:
        if self.head is not None:
            return
        if self.info.wants_video:
            if self.video_config_tag is None or self._first_key_at is None:
                return
            if self.info.wants_audio and self.audio_config_tag is None \
                    and time.monotonic() - self._first_key_at < AUDIO_WAIT_S:
                return
        elif self.audio_config_tag is None:
            return
        self.has_video = self.video_config_tag is not None
        self.has_audio = self.audio_config_tag is not None
        self.head = self._build_head()
        for viewer in list(self.viewers.values()):
            if not viewer.packets:
                self._start_viewer(viewer)
        for callback in self.on_ready:
            callback(self)

    def _build_head(self) -> bytes:
        meta: dict[str, Any] = {"duration": 0, "streamId": self.info.stream_id, "channel": self.info.channel}
        if self.has_video and self.video_codec is not None:
            meta["videocodecid"] = self.video_codec
        if self.has_audio:
            meta["audiocodecid"] = flv.SOUND_AAC
            meta["audiosamplerate"] = self.audio.sample_rate
            meta["stereo"] = False
        if self._t0 is not None:
            meta["terminalTimestampAtZero"] = self._t0  # terminal clock (ms) of FLV time 0
        head = flv.header(self.has_audio, self.has_video) + flv.metadata_tag(meta)
        if self.has_video and self.video_config_tag:
            head += self.video_config_tag
        if self.has_audio and self.audio_config_tag:
            head += self.audio_config_tag
        return head

    def _publish(self, tag: bytes, *, keyframe: bool = False, config: bool = False) -> None:
        self.counters.tags += 1
        for viewer in self.viewers.values():
            if not viewer.packets:
                viewer.offer(tag, keyframe=keyframe, config=config)

    def on_packet(self, packet: Packet) -> None:
        """A terminal packet, re-encoded as it came (its own version, SIM and channel), to the packet viewers:
        JT/T 1078-2016 §6.1 has the client get table 18's packets. Audio or video only when the stream's
        request wants it; each viewer starts at an I frame's first packet."""
        viewers = [v for v in self.viewers.values() if v.packets]
        if not viewers or packet.data_type == TRANSPARENT:
            return
        if not (self.info.wants_audio if packet.data_type == AUDIO else self.info.wants_video):
            return
        raw = encode_packet(packet)
        keyframe = packet.data_type == I_FRAME and packet.subpackage in (ATOMIC, FIRST)
        for viewer in viewers:
            viewer.offer(raw, keyframe=keyframe)

    # -- viewers -----------------------------------------------------------------------------------
    def add_viewer(self, viewer: Viewer) -> None:
        self.viewers[viewer.id] = viewer
        viewer.session_key = self.session_key
        self.peak_viewers = max(self.peak_viewers, len(self.viewers))
        if viewer.packets:
            viewer.waiting_key = self.info.wants_video  # audio only (listen): from the next packet
        elif self.head is not None:
            self._start_viewer(viewer)

    def _start_viewer(self, viewer: Viewer) -> None:
        assert self.head is not None
        viewer.offer(self.head, config=True)
        for tag in self.gop:
            viewer.offer(tag, config=True)  # the cached GOP starts with its key frame

    def remove_viewer(self, viewer: Viewer) -> None:
        self.viewers.pop(viewer.id, None)
        self.last_viewer_at = time.monotonic()

    @property
    def watched(self) -> bool:
        """Someone is on the other end: a viewer, or an operator's open microphone (talk)."""
        return bool(self.viewers) or self.talk_sockets > 0

    def unwatched_for(self, now: float) -> float:
        """Seconds since the last viewer left (or since the stream was last asked for); 0 while watched."""
        return 0.0 if self.watched else now - max(self.last_viewer_at, self.registered_at)

    def close_viewers(self, why: str) -> None:
        for viewer in list(self.viewers.values()):
            viewer.close(why)

    def status(self) -> dict[str, Any]:
        """What the API's stream info answers (console-spec §3 stream status: ``updateTime`` means up)."""
        def ms(at: datetime | None) -> int | None:
            return None if at is None else int(at.timestamp() * 1000)

        info = self.info
        return {
            "streamId": info.stream_id, "kind": info.kind, "deviceId": info.device_id, "channelId": info.channel,
            "dataType": info.data_type, "streamType": info.stream_type, "enterpriseId": info.enterprise_id,
            "online": self.source is not None and self.last_frame_wall is not None,
            "updateTime": ms(self.last_frame_wall) if self.source is not None else None,
            "startTime": ms(self.first_frame_wall), "currentTime": int(time.time() * 1000),
            "viewers": len(self.viewers), "hasVideo": self.has_video, "hasAudio": self.has_audio,
            "videoCodec": {flv.CODEC_AVC: "H.264", flv.CODEC_HEVC: "H.265"}.get(self.video_codec or 0),
            "browserPlayable": self.video_codec != flv.CODEC_HEVC,
            "audioCodec": self.audio.codec_name, "audioUnsupported": self.audio.unsupported,
            "frames": self.counters.frames, "bytesIn": self.counters.bytes_in,
        }
