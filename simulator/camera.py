"""The simulated camera: a real JPEG of the requested size with the plate number and the time drawn
in it (Pillow), and an alarm's short MP4 clip of the same scene with the time running (``record_clip``,
H.264 by PyAV's libx264). Chinese plates are drawn with a CJK font from /usr/share/fonts (fonts-noto-cjk, which
scripts/install.sh installs) when one is present, else the plate is drawn in ASCII (province
character replaced)."""

from __future__ import annotations

import io
from datetime import datetime, timedelta
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from protocols.china_time import CHINA_TZ
from protocols.jt808.messages.t8801_camera_shoot import RESOLUTIONS

DEFAULT_SIZE = (640, 480)
_FONT_DIRS = (Path("/usr/share/fonts"),)
_FONT_NAMES = ("NotoSansCJK-Regular.ttc", "NotoSansCJK-Bold.ttc", "NotoSerifCJK-Regular.ttc",
               "NotoSansCJKsc-Regular.otf", "wqy-zenhei.ttc", "wqy-microhei.ttc", "DroidSansFallbackFull.ttf")

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont


def resolution_size(resolution: int) -> tuple[int, int]:
    """0x8801 resolution code -> (width, height); unknown codes give 640x480."""
    return RESOLUTIONS.get(resolution, DEFAULT_SIZE)


def jpeg_quality(quality: int) -> int:
    """0x8801 quality 1 (best) .. 10 (most compressed) -> Pillow quality 95 .. 50."""
    q = min(10, max(1, quality or 5))
    return 95 - (q - 1) * 5


@lru_cache(maxsize=1)
def cjk_font_path() -> Path | None:
    for root in _FONT_DIRS:
        if not root.is_dir():
            continue
        for name in _FONT_NAMES:
            found = next(root.rglob(name), None)
            if found is not None:
                return found
    return None


@lru_cache(maxsize=16)
def _font(size: int) -> tuple[Font, bool]:
    """(font, draws CJK)."""
    path = cjk_font_path()
    if path is not None:
        try:
            return ImageFont.truetype(str(path), size), True
        except OSError:
            pass
    return ImageFont.load_default(size), False


def _ascii(text: str) -> str:
    return "".join(ch if ch.isascii() else "?" for ch in text)


def take_photo(plate: str, when: datetime, *, size: tuple[int, int] = DEFAULT_SIZE, quality: int = 5,
               channel: int = 1, brightness: int = 128, caption: str = "", caption_ascii: str = "") -> bytes:
    """A JPEG of ``size`` showing a road scene placeholder, ``plate`` and ``when`` (GMT+8, as a
    terminal's on-screen-display would), and ``caption`` (an alarm's text; ``caption_ascii`` instead
    when no CJK font is installed). Deterministic for the same arguments."""
    image = _scene(plate, when, size, channel, brightness, caption, caption_ascii)
    out = io.BytesIO()
    image.save(out, format="JPEG", quality=jpeg_quality(quality))
    return out.getvalue()


CLIP_SIZE = (352, 288)  # CIF, what in-cab DSM cameras record their alarm clips at
CLIP_FPS = 10


def record_clip(plate: str, when: datetime, *, seconds: float = 3.0, size: tuple[int, int] = CLIP_SIZE,
                channel: int = 1, caption: str = "", caption_ascii: str = "") -> bytes:
    """An MP4 (H.264 baseline, yuv420p, ``CLIP_FPS`` fps, as Chromium's <video> plays) of ``seconds`` of the ``take_photo`` scene, its on-screen clock running from
    ``when``: what a DSM terminal uploads as the alarm's video attachment. Raises RuntimeError when
    PyAV or its libx264 is not there (the caller sends photos only)."""
    try:
        import av
    except ImportError as exc:  # pragma: no cover - av is a dependency; a stripped install may lack it
        raise RuntimeError(f"PyAV is not installed: {exc}") from None
    out = io.BytesIO()
    frames = max(1, round(seconds * CLIP_FPS))
    try:
        with av.open(out, "w", format="mp4") as container:
            stream = container.add_stream("libx264", rate=CLIP_FPS, options={
                "preset": "veryfast", "profile": "baseline", "bframes": "0", "g": str(CLIP_FPS)})
            stream.width, stream.height, stream.pix_fmt = size[0], size[1], "yuv420p"
            for index in range(frames):
                at = when + timedelta(seconds=index / CLIP_FPS)
                image = _scene(plate, at, size, channel, 128, caption, caption_ascii)
                frame = av.VideoFrame.from_image(image).reformat(format="yuv420p")
                frame.pts = index
                container.mux(stream.encode(frame))
            container.mux(stream.encode(None))
    except (av.FFmpegError, ValueError) as exc:  # no libx264 in this FFmpeg, or it refused the options
        raise RuntimeError(f"the clip could not be encoded: {exc}") from None
    return out.getvalue()


def _scene(plate: str, when: datetime, size: tuple[int, int], channel: int, brightness: int, caption: str,
           caption_ascii: str) -> Image.Image:
    width, height = size
    shade = max(20, min(235, brightness))
    image = Image.new("RGB", size, (shade // 3, shade // 2, shade))
    draw = ImageDraw.Draw(image)
    # horizon, road and lane marks: a picture with some structure, not one flat colour
    horizon = height * 2 // 5
    draw.rectangle((0, horizon, width, height), fill=(70, 70, 75))
    for x in range(0, width, max(8, width // 12)):
        draw.rectangle((x, height * 3 // 4, x + width // 24, height * 3 // 4 + max(2, height // 60)),
                       fill=(230, 230, 230))
    font, cjk = _font(max(10, height // 12))
    small, _ = _font(max(8, height // 20))
    text = plate if cjk else _ascii(plate)
    stamp = when.astimezone(CHINA_TZ).strftime("%Y-%m-%d %H:%M:%S")
    margin = max(4, width // 40)
    draw.text((margin, margin), text, font=font, fill=(255, 255, 0))
    if caption:
        shown = caption if cjk else (caption_ascii or _ascii(caption))
        draw.text((margin, margin * 2 + max(10, height // 12)), shown, font=small, fill=(255, 80, 80))
    draw.text((margin, height - margin - max(8, height // 20)), f"CH{channel}  {stamp}", font=small,
              fill=(255, 255, 255))
    return image
