"""Field encodings shared by JT/T 809 bodies: fixed-width GBK text (NUL-padded), plates, byte codes."""

from __future__ import annotations

from protocols.jt809.errors import BodyError

PLATE_BYTES = 21
PLATFORM_ID_BYTES = 11


def need(body: bytes, size: int, what: str) -> None:
    """Raise BodyError unless ``body`` has at least ``size`` bytes."""
    if len(body) < size:
        raise BodyError(f"{what} needs {size} bytes, got {len(body)}")


def exact(body: bytes, size: int, what: str) -> None:
    """Raise BodyError unless ``body`` has exactly ``size`` bytes."""
    if len(body) != size:
        raise BodyError(f"{what} is {size} bytes, got {len(body)}")


def decode_fixed(raw: bytes, what: str) -> str:
    """Fixed-width GBK text: everything from the first NUL on is padding."""
    text = raw.split(b"\x00", 1)[0]
    try:
        return text.decode("gbk")
    except UnicodeDecodeError:
        raise BodyError(f"{what} is not GBK text: {raw.hex()}") from None


def encode_fixed(text: str, size: int, what: str) -> bytes:
    """GBK text NUL-padded to ``size`` bytes. Raises ValueError when it does not fit."""
    raw = text.encode("gbk")
    if len(raw) > size:
        raise ValueError(f"{what} {text!r} is {len(raw)} bytes in GBK; at most {size}")
    return raw.ljust(size, b"\x00")


def decode_id(raw: bytes) -> str:
    """An 11-byte platform id. Latin-1 keeps any byte (real captures fill it with 0x01) so it re-encodes."""
    return raw.rstrip(b"\x00").decode("latin-1")


def encode_id(text: str) -> bytes:
    raw = text.encode("latin-1")
    if len(raw) > PLATFORM_ID_BYTES:
        raise ValueError(f"platform id {text!r} is longer than {PLATFORM_ID_BYTES} bytes")
    return raw.ljust(PLATFORM_ID_BYTES, b"\x00")
