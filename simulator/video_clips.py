"""The simulated cameras' H.264 and the cabin's G.711A, made once and cached as files.

A clip is ``CLIP_S`` seconds at 25 fps, one I-frame per second (GOP 25, no B-frames, baseline profile,
SPS/PPS before every I-frame), drawn with Pillow and encoded with the libx264 that PyAV's wheel bundles:
a moving textured background (so the bit rate is a camera's, about 1 Mbit/s at 720p), the plate, the
channel, a clock and the frame counter as text, and the same counter as a **binary stripe** a browser
can read from a canvas:

- the stripe: ``STRIPE_BITS`` (16) squares in a row at the bottom left, most significant bit first,
  white = 1, black = 0, on a black band. With H the picture height: square side ``b = H // 18``, pitch
  ``b * 5 // 4``, first square's left edge ``b // 4``, top edge ``H - b - b // 4`` (720p: 40 px squares,
  50 px apart, x from 10, y from 670). Read a square's centre luma: > 128 is a 1.
- the counter is the frame's index in the clip (0 .. 249); the simulator sends frame k of the clip at the
  wall-clock instant when ``epoch_ms % (CLIP_S * 1000) == k * 40`` (``frame_due_ms``), so a viewer's
  glass-to-glass latency is ``(now_ms - k * 40) mod 10000`` with no side channel (latency < 10 s).
- the clock drawn is that same clip time (``t=07.320`` = the wall clock's seconds modulo 10 at capture).

Clips live in ``FLEET_STACK_VAR_DIR/video-clips`` (``clip_dir()``); ``scripts/install.sh`` makes the
generic ones (channels 1-4, main and sub stream) and a vehicle's own (its plate drawn in) is made on
first use in a worker thread while the generic one plays. Audio: espeak-ng speaking a sentence when it
is installed (scripts/install.sh installs it), else a tone pattern, as 8 kHz G.711A.
"""

from __future__ import annotations

import hashlib
import io
import logging
import math
import random
import shutil
import struct
import subprocess
import tempfile
import threading
import wave
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

from protocols.jt1078.g711 import alaw_encode
from simulator.camera import _ascii, _font

log = logging.getLogger("simulator.video")

FPS = 25
FRAME_MS = 1000 // FPS
CLIP_S = 10
CLIP_FRAMES = CLIP_S * FPS
STRIPE_BITS = 16
SIZES = {"main": (1280, 720), "sub": (640, 360)}
BIT_RATES = {"main": 1_000_000, "sub": 300_000}
VERSION = "v1"  # bump when the drawing changes: old cached clips are then ignored
AUDIO_FRAME_BYTES = 320  # 40 ms of 8 kHz G.711A


@dataclass(frozen=True)
class Clip:
    frames: tuple[tuple[bytes, bool], ...]  # Annex B access units and whether each is a key frame
    width: int
    height: int

    @property
    def key_indexes(self) -> list[int]:
        return [i for i, (_, key) in enumerate(self.frames) if key]


def clip_dir() -> Path:
    from fleet.settings import StackSettings

    return StackSettings().var_dir / "video-clips"


def stripe_geometry(height: int) -> tuple[int, int, int, int]:
    """(square side, pitch, x of the first square, y of the squares' top)."""
    side = max(4, height // 18)
    return side, side * 5 // 4, side // 4, height - side - side // 4


def draw_stripe(draw: ImageDraw.ImageDraw, value: int, height: int) -> None:
    side, pitch, x0, y0 = stripe_geometry(height)
    draw.rectangle((0, y0 - side // 4, x0 + pitch * STRIPE_BITS, height), fill=(0, 0, 0))
    for bit in range(STRIPE_BITS):
        on = value >> (STRIPE_BITS - 1 - bit) & 1
        x = x0 + bit * pitch
        draw.rectangle((x, y0, x + side - 1, y0 + side - 1), fill=(255, 255, 255) if on else (0, 0, 0))


def read_stripe(luma: Any, width: int, height: int) -> int:
    """The counter of a decoded picture: ``luma`` is indexable as ``luma[y][x]`` or a PIL 'L' image."""
    side, pitch, x0, y0 = stripe_geometry(height)
    value = 0
    for bit in range(STRIPE_BITS):
        cx, cy = x0 + bit * pitch + side // 2, y0 + side // 2
        level = luma.getpixel((cx, cy)) if hasattr(luma, "getpixel") else luma[cy][cx]
        value = value << 1 | (1 if level > 128 else 0)
    return value


def _background(size: tuple[int, int], seed: int) -> Image.Image:
    rng = random.Random(seed)
    width, height = size
    tile = Image.new("RGB", (width // 8, height // 8))
    tile.putdata([(rng.randrange(40, 120), rng.randrange(60, 140), rng.randrange(80, 170))
                  for _ in range(tile.width * tile.height)])
    big = tile.resize((width * 2, height), Image.Resampling.BILINEAR)
    draw = ImageDraw.Draw(big)
    for x in range(0, width * 2, max(16, width // 20)):  # lane marks that move
        draw.rectangle((x, height * 3 // 4, x + width // 40, height * 3 // 4 + max(2, height // 80)),
                       fill=(230, 230, 230))
    return big


def render_clip(plate: str, channel: int, stream: str = "main", *, frames: int = CLIP_FRAMES,
                size: tuple[int, int] | None = None, bit_rate: int | None = None) -> Clip:
    """Draw and encode a clip (seconds of CPU for 720p x 250 frames). Raises RuntimeError when PyAV has
    no libx264."""
    import av

    width, height = size or SIZES[stream]
    codec: Any = av.CodecContext.create("libx264", "w")
    codec.width, codec.height, codec.pix_fmt = width, height, "yuv420p"
    codec.time_base, codec.framerate = Fraction(1, FPS), Fraction(FPS, 1)
    codec.gop_size = FPS
    codec.bit_rate = bit_rate or BIT_RATES.get(stream, 1_000_000)
    codec.options = {"preset": "ultrafast", "tune": "zerolatency", "bframes": "0", "keyint_min": str(FPS),
                     "sc_threshold": "0", "profile": "baseline", "x264-params": "repeat-headers=1:annexb=1"}
    codec.open()
    seed = int(hashlib.sha256(f"{plate}:{channel}".encode()).hexdigest()[:8], 16)
    background = _background((width, height), seed)
    big, cjk = _font(max(12, height // 10))
    small, _ = _font(max(10, height // 16))
    plate_text = plate if cjk else _ascii(plate)
    shift = max(1, width // 320)
    out: list[tuple[bytes, bool]] = []
    for index in range(frames):
        x = (index * shift) % width
        image = background.crop((x, 0, x + width, height))
        draw = ImageDraw.Draw(image)
        margin = max(4, width // 64)
        draw.rectangle((0, 0, width, margin * 2 + height // 10 + height // 16), fill=(0, 0, 0))
        draw.text((margin, margin), plate_text, font=big, fill=(255, 255, 0))
        draw.text((width // 2, margin), f"CH{channel} {stream}", font=big, fill=(255, 255, 255))
        t_ms = index * FRAME_MS
        draw.text((margin, margin + height // 10), f"t={t_ms // 1000:02d}.{t_ms % 1000:03d}  #{index:04d}",
                  font=small, fill=(0, 255, 128))
        draw_stripe(draw, index, height)
        frame = av.VideoFrame.from_image(image).reformat(format="yuv420p")
        frame.pts = index
        out += [(bytes(p), bool(p.is_keyframe)) for p in codec.encode(frame)]
    out += [(bytes(p), bool(p.is_keyframe)) for p in codec.encode(None)]
    return Clip(tuple(out), width, height)


def save_clip(clip: Clip, path: Path) -> None:
    buf = io.BytesIO()
    buf.write(struct.pack(">4sHHI", b"FWC1", clip.width, clip.height, len(clip.frames)))
    for data, key in clip.frames:
        buf.write(struct.pack(">IB", len(data), 1 if key else 0))
        buf.write(data)
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=path.parent, delete=False) as tmp:
        tmp.write(buf.getvalue())
    Path(tmp.name).chmod(0o644)
    Path(tmp.name).replace(path)


def load_clip(path: Path) -> Clip:
    raw = path.read_bytes()
    magic, width, height, count = struct.unpack_from(">4sHHI", raw)
    if magic != b"FWC1":
        raise ValueError(f"{path} is not a clip")
    at = 12
    frames = []
    for _ in range(count):
        size, key = struct.unpack_from(">IB", raw, at)
        frames.append((raw[at + 5:at + 5 + size], bool(key)))
        at += 5 + size
    return Clip(tuple(frames), width, height)


def _slug(plate: str) -> str:
    return hashlib.sha1(plate.encode()).hexdigest()[:10]


def clip_path(directory: Path, channel: int, stream: str, plate: str | None = None) -> Path:
    who = f"p{_slug(plate)}" if plate else "generic"
    return directory / f"{VERSION}-{who}-ch{channel}-{stream}.clip"


def ensure_generic(directory: Path, channels: range = range(1, 5)) -> list[Path]:
    """The install-time clips (a few seconds each); existing files are kept."""
    made = []
    for channel in channels:
        for stream in SIZES:
            path = clip_path(directory, channel, stream)
            if not path.exists():
                save_clip(render_clip("SIMULATOR", channel, stream), path)
                made.append(path)
    audio = directory / f"{VERSION}-cabin.alaw"
    if not audio.exists():
        audio.write_bytes(make_cabin_audio())
        made.append(audio)
    return made


def make_cabin_audio(text: str = "This is the simulated cabin microphone. Drive safely. 这里是驾驶室。") -> bytes:
    """8 kHz G.711A: espeak-ng's speech when it is installed, else a tone pattern (both about 5 s)."""
    pcm = _espeak(text) if shutil.which("espeak-ng") else None
    if pcm is None:
        pcm = [round(6000 * math.sin(2 * math.pi * (440 if (n // 4000) % 2 else 660) * n / 8000)
                     * (1 if (n // 2000) % 2 == 0 else 0.2)) for n in range(8000 * 5)]
    pad = (-len(pcm)) % 320
    return alaw_encode(pcm + [0] * pad)


def _espeak(text: str) -> list[int] | None:
    try:
        with tempfile.TemporaryDirectory() as tmp:
            wav = Path(tmp) / "speech.wav"
            subprocess.run(["espeak-ng", "-v", "en", "-s", "150", "-w", str(wav), text], check=True,
                           capture_output=True, timeout=30)
            with wave.open(str(wav)) as source:
                rate, width, raw = source.getframerate(), source.getsampwidth(), source.readframes(source.getnframes())
    except (OSError, subprocess.SubprocessError, wave.Error) as exc:
        log.warning("espeak-ng failed (%r); the cabin audio is a tone", exc)
        return None
    if width != 2:
        return None
    samples = struct.unpack(f"<{len(raw) // 2}h", raw)
    step = rate / 8000  # nearest-sample resampling is plenty for a test voice
    return [samples[int(i * step)] for i in range(int(len(samples) / step))]


class ClipLibrary:
    """Clips by (plate, channel, stream): the vehicle's own when made, else the generic one (made now
    if missing); the vehicle's is rendered in one background thread, one at a time."""

    def __init__(self, directory: Path | None = None, *, per_plate: bool = True) -> None:
        self.directory = directory or clip_dir()
        self.per_plate = per_plate
        self._cache: dict[Path, Clip] = {}
        self._lock = threading.Lock()
        self._pending: set[Path] = set()
        self._audio: bytes | None = None

    def clip(self, plate: str, channel: int, stream: str = "main") -> Clip:
        stream = stream if stream in SIZES else "main"
        own = clip_path(self.directory, channel, stream, plate)
        if own in self._cache:
            return self._cache[own]
        if own.exists():
            return self._load(own)
        if self.per_plate:
            self._render_later(own, plate, channel, stream)
        generic_channel = (channel - 1) % 4 + 1
        generic = clip_path(self.directory, generic_channel, stream)
        if not generic.exists():
            with self._lock:
                if not generic.exists():
                    save_clip(render_clip("SIMULATOR", generic_channel, stream), generic)
        return self._load(generic)

    def audio(self) -> bytes:
        if self._audio is None:
            path = self.directory / f"{VERSION}-cabin.alaw"
            if not path.exists():
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(make_cabin_audio())
            self._audio = path.read_bytes()
        return self._audio

    def _load(self, path: Path) -> Clip:
        clip = self._cache.get(path)
        if clip is None:
            clip = self._cache[path] = load_clip(path)
        return clip

    def _render_later(self, path: Path, plate: str, channel: int, stream: str) -> None:
        with self._lock:
            if path in self._pending:
                return
            self._pending.add(path)

        def work() -> None:
            try:
                save_clip(render_clip(plate, channel, stream), path)
            except Exception as exc:  # a failed render keeps the generic clip
                log.warning("clip of %s channel %s not rendered: %r", plate, channel, exc)

        threading.Thread(target=work, name="clip-render", daemon=True).start()


def frame_due_ms(index: int, loop_start_ms: int) -> int:
    return loop_start_ms + index * FRAME_MS


def aligned_start(now_ms: int, clip: Clip) -> tuple[int, int]:
    """(loop start in epoch ms, index of the key frame to start on) so that frame k is due when
    ``epoch_ms % (CLIP_S * 1000) == k * 40``: the key frame at or before now."""
    period = len(clip.frames) * FRAME_MS
    loop_start = now_ms - now_ms % period
    current = min(len(clip.frames) - 1, (now_ms - loop_start) // FRAME_MS)
    key = max((i for i in clip.key_indexes if i <= current), default=0)
    return loop_start, key


def iter_schedule(clip: Clip, loop_start_ms: int, first: int) -> Iterator[tuple[int, int]]:
    """(frame index, due epoch ms) forever, from ``first``, wrapping the clip."""
    period = len(clip.frames) * FRAME_MS
    index, start = first, loop_start_ms
    while True:
        yield index, start + index * FRAME_MS
        index += 1
        if index == len(clip.frames):
            index, start = 0, start + period


def main() -> None:
    """``python -m simulator.video_clips``: make the generic clips and the cabin audio (scripts/install.sh)."""
    logging.basicConfig(level=logging.INFO, format="[clips] %(message)s")
    made = ensure_generic(clip_dir())
    log.info("video clips in %s: %s", clip_dir(), f"{len(made)} made" if made else "up to date")


if __name__ == "__main__":
    main()
