"""G.711 A-law and µ-law (ITU-T G.711), 16-bit signed PCM <-> 8-bit codes, by table.

``alaw_encode(samples)`` takes native ints (-32768..32767); ``alaw_decode(codes)`` gives ints. The
encode tables (65536 entries each) are built on first use (~40 ms)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

_SEG_END = (0x1F, 0x3F, 0x7F, 0xFF, 0x1FF, 0x3FF, 0x7FF, 0xFFF)


def _alaw_one(sample: int) -> int:
    pcm = sample >> 3  # 13-bit magnitude domain
    if pcm >= 0:
        mask = 0xD5
    else:
        mask = 0x55
        pcm = -pcm - 1
    # segment search on the 13-bit magnitude (ITU-T G.711 reference implementation)
    seg = 0
    for end in _SEG_END:
        if pcm <= end:
            break
        seg += 1
    if seg >= 8:
        return 0x7F ^ mask
    code = seg << 4
    code |= (pcm >> 1) & 0x0F if seg < 2 else (pcm >> seg) & 0x0F
    return code ^ mask


def _alaw_decode_one(code: int) -> int:
    code ^= 0x55
    t = (code & 0x0F) << 4
    seg = (code & 0x70) >> 4
    if seg == 0:
        t += 8
    elif seg == 1:
        t += 0x108
    else:
        t = (t + 0x108) << (seg - 1)
    return t if code & 0x80 else -t


_BIAS = 0x84
_CLIP = 32635


def _ulaw_one(sample: int) -> int:
    sign = 0x80 if sample < 0 else 0
    if sign:
        sample = -sample
    sample = min(sample, _CLIP) + _BIAS
    exponent = 7
    mask = 0x4000
    while exponent > 0 and not sample & mask:
        exponent -= 1
        mask >>= 1
    mantissa = (sample >> (exponent + 3)) & 0x0F
    return ~(sign | exponent << 4 | mantissa) & 0xFF


def _ulaw_decode_one(code: int) -> int:
    code = ~code & 0xFF
    t = ((code & 0x0F) << 3) + _BIAS
    t <<= (code & 0x70) >> 4
    return _BIAS - t if code & 0x80 else t - _BIAS


ALAW_DECODE: tuple[int, ...] = tuple(_alaw_decode_one(c) for c in range(256))
ULAW_DECODE: tuple[int, ...] = tuple(_ulaw_decode_one(c) for c in range(256))


@cache
def _alaw_table() -> bytes:
    return bytes(_alaw_one(s - 65536 if s >= 32768 else s) for s in range(65536))


@cache
def _ulaw_table() -> bytes:
    return bytes(_ulaw_one(s - 65536 if s >= 32768 else s) for s in range(65536))


def alaw_encode(samples: Sequence[int]) -> bytes:
    table = _alaw_table()
    return bytes([table[s & 0xFFFF] for s in samples])


def ulaw_encode(samples: Sequence[int]) -> bytes:
    table = _ulaw_table()
    return bytes([table[s & 0xFFFF] for s in samples])


def alaw_decode(codes: bytes) -> list[int]:
    table = ALAW_DECODE
    return [table[c] for c in codes]


def ulaw_decode(codes: bytes) -> list[int]:
    table = ULAW_DECODE
    return [table[c] for c in codes]
