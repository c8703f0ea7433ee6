"""Field helpers shared by the active-safety attachment messages (0x9208, 0x1210-0x1212, 0x9212)."""

from __future__ import annotations

from protocols.jt808.errors import BodyError
from protocols.jt808.fields import decode_text

UUID_SIZE = 32  # the platform's alarm number (报警编号) in 0x9208/0x1210


def read_name(body: bytes, at: int, what: str) -> tuple[str, int]:
    """A BYTE-length-prefixed name from ``at``: (name, offset after it). Raises BodyError if short."""
    if at >= len(body):
        raise BodyError(f"{what}: name length missing at byte {at}")
    size = body[at]
    if at + 1 + size > len(body):
        raise BodyError(f"{what}: name of {size} bytes overruns the body ({len(body) - at - 1} left)")
    return decode_text(body[at + 1:at + 1 + size]), at + 1 + size


def write_name(name: str, what: str) -> bytes:
    """GBK name with its BYTE length. Raises BodyError for an empty name or one over 255 bytes."""
    raw = name.encode("gbk")
    if not raw or len(raw) > 0xFF:
        raise BodyError(f"{what}: file name must be 1-255 bytes, got {len(raw)}")
    return bytes((len(raw),)) + raw


def need(body: bytes, size: int, what: str) -> None:
    if len(body) < size:
        raise BodyError(f"{what} needs at least {size} bytes, got {len(body)}")


def uuid_bytes(alarm_uuid: str) -> bytes:
    raw = alarm_uuid.encode("ascii", errors="replace")
    if len(raw) != UUID_SIZE:
        raise BodyError(f"alarm uuid must be {UUID_SIZE} characters, got {len(alarm_uuid)}")
    return raw
