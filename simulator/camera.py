"""The simulated camera: a real JPEG of the requested size with the plate number and the time drawn
in it (Pillow). Chinese plates are drawn with a CJK font from /usr/share/fonts (fonts-noto-cjk, which
scripts/install.sh installs) when one is present, else the plate is drawn in ASCII (province
character replaced)."""

from __future__ import annotations

import io
from datetime import datetime
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from protocols.jt808.fields import TERMINAL_TZ
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
    stamp = when.astimezone(TERMINAL_TZ).strftime("%Y-%m-%d %H:%M:%S")
    margin = max(4, width // 40)
    draw.text((margin, margin), text, font=font, fill=(255, 255, 0))
    if caption:
        shown = caption if cjk else (caption_ascii or _ascii(caption))
        draw.text((margin, margin * 2 + max(10, height // 12)), shown, font=small, fill=(255, 80, 80))
    draw.text((margin, height - margin - max(8, height // 20)), f"CH{channel}  {stamp}", font=small,
              fill=(255, 255, 255))
    out = io.BytesIO()
    image.save(out, format="JPEG", quality=jpeg_quality(quality))
    return out.getvalue()
