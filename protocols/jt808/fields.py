"""Field encodings shared by message bodies: text, fixed-width text, BCD time, versions.

Wire units never leave ``protocols/``: BCD time in GMT+8 becomes a timezone-aware UTC datetime here.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime

from protocols.china_time import CHINA_TZ, CHINA_UTC_OFFSET
from protocols.jt808.errors import BodyError, UnknownVersionError

VERSIONS = ("2011", "2013", "2019")

# BCD byte -> value; 255 marks a byte with a nibble above 9.
_BCD_VALUE = [
    (b >> 4) * 10 + (b & 0x0F) if (b >> 4) < 10 and (b & 0x0F) < 10 else 255 for b in range(256)
]

# Live positions arrive within seconds of their fix, so thousands of frames share a timestamp:
# caching the conversion saves a datetime construction per frame. Bounded: cleared when full.
_TIME_CACHE: dict[bytes, datetime] = {}
_TIME_CACHE_MAX = 8192
cached_utc_time = _TIME_CACHE.get  # hot-path lookup; falls back to bcd_time_to_utc on a miss
# The other way (positions encoded again: JT/T 809 forwarding, the simulator), by unix second.
_BCD_CACHE: dict[int, bytes] = {}


def check_version(version: str) -> str:
    """Return ``version`` or raise UnknownVersionError if it is not 2011/2013/2019."""
    if version not in VERSIONS:
        raise UnknownVersionError(f"unknown JT/T 808 version {version!r}; expected one of {VERSIONS}")
    return version


def bcd_time_to_utc(raw: bytes) -> datetime:
    """BCD[6] ``YYMMDDhhmmss`` in GMT+8 -> aware UTC datetime. Raises BodyError if not a valid time."""
    cached = _TIME_CACHE.get(raw)
    if cached is not None:
        return cached
    if len(raw) != 6:
        raise BodyError(f"BCD time needs 6 bytes, got {len(raw)}")
    v = _BCD_VALUE
    try:
        value = datetime(2000 + v[raw[0]], v[raw[1]], v[raw[2]], v[raw[3]], v[raw[4]], v[raw[5]], tzinfo=UTC)
    except ValueError:
        raise BodyError(f"invalid BCD time {raw.hex()}") from None
    value -= CHINA_UTC_OFFSET
    if len(_TIME_CACHE) >= _TIME_CACHE_MAX:
        _TIME_CACHE.clear()
    _TIME_CACHE[bytes(raw)] = value
    return value


def utc_to_bcd_time(moment: datetime) -> bytes:
    """Aware datetime -> BCD[6] in GMT+8. Raises ValueError for a naive datetime or a year outside 2000-2099."""
    if moment.tzinfo is None:
        raise ValueError("fix times must be timezone-aware (UTC)")
    second = math.floor(moment.timestamp())  # the encoding's resolution; the cache's key, like _TIME_CACHE's
    cached = _BCD_CACHE.get(second)
    if cached is not None:
        return cached
    local = moment.astimezone(CHINA_TZ)
    if not 2000 <= local.year <= 2099:
        raise ValueError(f"year {local.year} cannot be sent as BCD[6]")
    raw = bytes.fromhex(local.strftime("%y%m%d%H%M%S"))
    if len(_BCD_CACHE) >= _TIME_CACHE_MAX:
        _BCD_CACHE.clear()
    _BCD_CACHE[second] = raw
    return raw


def bcd_digits(raw: bytes) -> str:
    """BCD bytes -> digit string, leading zeros kept."""
    return raw.hex()


def digits_to_bcd(digits: str, size: int) -> bytes:
    """Digit string -> BCD[size], left-padded with zeros. Raises ValueError if it does not fit."""
    if not digits.isdigit() or len(digits) > size * 2:
        raise ValueError(f"{digits!r} is not at most {size * 2} decimal digits")
    return bytes.fromhex(digits.zfill(size * 2))


def _has_cjk(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


def decode_text(raw: bytes) -> str:
    """STRING -> str. NUL padding is stripped on both sides (some terminals pad on the left).

    The standard says GBK, but MicroPython and libjt808 terminals send UTF-8. UTF-8 wins only when it
    decodes strictly and yields a CJK ideograph: GBK text such as 鲁 (C2 B3) is also valid UTF-8
    ('³'), but never as an ideograph followed by ASCII. Undecodable bytes become U+FFFD, never an error.
    """
    raw = raw.strip(b"\x00")
    if raw.isascii():
        return raw.decode("ascii")
    try:
        text = raw.decode("utf-8")
        if _has_cjk(text):
            return text
    except UnicodeDecodeError:
        pass
    return raw.decode("gbk", errors="replace")


def decode_fixed_text(raw: bytes) -> str:
    """Fixed-width BYTE[n] text: NUL and space padding stripped on both sides."""
    return decode_text(raw.strip(b"\x00 "))


def encode_text(text: str) -> bytes:
    """str -> GBK bytes (the standard's encoding)."""
    return text.encode("gbk")


def encode_fixed_text(text: str, size: int) -> bytes:
    """str -> GBK, right-padded with NUL to ``size``. Raises ValueError if longer than ``size``."""
    raw = text.encode("gbk")
    if len(raw) > size:
        raise ValueError(f"{text!r} is {len(raw)} bytes, field holds {size}")
    return raw.ljust(size, b"\x00")
