"""The simple encryption of JT/T 809 (2011 §4.3 / 2019 §4.4): a linear congruential keystream.

For every body byte: ``key = IA1 * (key mod M1) + IC1`` (unsigned 32-bit), then
``byte ^= (key >> 20) & 0xFF``. The first key is the header's ENCRYPT_KEY; a key of 0 is replaced by 1
(the public 2019 captures send key 0 with the flag set and decrypt only with that rule). Only the body
is encrypted; the same function encrypts and decrypts.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

_U32 = 0xFFFFFFFF


@dataclass(frozen=True, slots=True)
class CipherKeys:
    """M1, IA1, IC1 as agreed between the two platforms (unsigned 32-bit; M1 not 0)."""

    m1: int
    ia1: int
    ic1: int

    def __post_init__(self) -> None:
        for name in ("m1", "ia1", "ic1"):
            value = getattr(self, name)
            if not 0 <= value <= _U32:
                raise ValueError(f"{name.upper()} must be an unsigned 32-bit integer, got {value}")
        if self.m1 == 0:
            raise ValueError("M1 must not be 0 (the keystream divides by it)")


def crypt(data: bytes, key: int, keys: CipherKeys) -> bytes:
    """Encrypt or decrypt ``data`` with the header key ``key``.

    The keystream depends only on the key and the three constants, and a link usually keeps one key, so
    it is computed once per key (in 256-byte steps of length) and XORed in as one big integer.
    """
    size = len(data)
    if not size:
        return b""
    stream = _keystream((key & _U32) or 1, keys, -(-size // _STEP) * _STEP)[:size]
    return (int.from_bytes(data, "big") ^ int.from_bytes(stream, "big")).to_bytes(size, "big")


_STEP = 256


@lru_cache(maxsize=256)
def _keystream(key: int, keys: CipherKeys, size: int) -> bytes:
    m1, ia1, ic1 = keys.m1, keys.ia1, keys.ic1
    out = bytearray(size)
    for i in range(size):
        key = (ia1 * (key % m1) + ic1) & _U32
        out[i] = (key >> 20) & 0xFF
    return bytes(out)
