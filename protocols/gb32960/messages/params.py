"""Parameter query 0x80, parameter set 0x81 and terminal control 0x82 (GB/T 32960.3-2016 §7.6-7.8,
tables 24-27).

Parameters are (id, value) items; each id has a fixed width except the two domain names, whose length
is the value of the item before them (0x04 for 0x05, 0x0D for 0x0E). Numbers decode to ints, the
versions (0x07 / 0x08, 5 bytes) and domains to text. An id outside the table cannot be skipped (its
width is unknown), so it is a BodyError. Terminal control keeps its parameter bytes as they are
(an upgrade URL string, an alarm level ...), with the command id typed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import IntEnum
from typing import ClassVar, Self

from protocols.gb32960.codec import register_body
from protocols.gb32960.errors import BodyError
from protocols.gb32960.header import Protocol
from protocols.gb32960.values import need, read_time, read_uint, write_time

# id -> (name, width); width 0 = text whose length is the previous item's value, -5 = 5-byte text
PARAMETERS: dict[int, tuple[str, int]] = {
    0x01: ("local_storage_period_ms", 2), 0x02: ("report_period_s", 2), 0x03: ("alarm_report_period_ms", 2),
    0x04: ("platform_domain_length", 1), 0x05: ("platform_domain", 0), 0x06: ("platform_port", 2),
    0x07: ("hardware_version", -5), 0x08: ("firmware_version", -5), 0x09: ("heartbeat_period_s", 1),
    0x0A: ("terminal_response_timeout_s", 2), 0x0B: ("platform_response_timeout_s", 2),
    0x0C: ("login_retry_interval_min", 1), 0x0D: ("public_domain_length", 1), 0x0E: ("public_domain", 0),
    0x0F: ("public_port", 2), 0x10: ("sampling_test", 1),
}

ParamValue = int | str


def _read_items(data: bytes, at: int, count: int) -> tuple[tuple[tuple[int, ParamValue], ...], int]:
    items: list[tuple[int, ParamValue]] = []
    for i in range(count):
        pid, at = read_uint(data, at, 1, f"parameter id {i + 1} of {count}")
        if pid not in PARAMETERS:
            raise BodyError(f"parameter id 0x{pid:02X} is not in the standard's table (its width is unknown)")
        width = PARAMETERS[pid][1]
        if width > 0:
            value: ParamValue
            value, at = read_uint(data, at, width, PARAMETERS[pid][0])
        else:
            size = -width if width < 0 else (items[-1][1] if items and isinstance(items[-1][1], int) else -1)
            if size < 0:
                raise BodyError(f"parameter 0x{pid:02X} must follow its length item")
            need(data, at, int(size), PARAMETERS[pid][0])
            value, at = data[at : at + int(size)].decode("latin-1"), at + int(size)
        items.append((pid, value))
    return tuple(items), at


def _write_items(items: tuple[tuple[int, ParamValue], ...]) -> bytes:
    out = b""
    for pid, value in items:
        width = PARAMETERS[pid][1]
        out += bytes((pid,))
        if isinstance(value, int):
            out += value.to_bytes(width, "big")
        else:
            out += value.encode("latin-1")
    return out


@register_body
@dataclass(frozen=True)
class ParameterQuery:
    """0x80: the platform's query is time + ids (``values`` empty); the terminal's answer is time + items
    (``ids`` empty). Which one a data unit is follows from its length."""

    COMMAND: ClassVar[int] = 0x80
    time: datetime
    ids: tuple[int, ...] = ()
    values: tuple[tuple[int, ParamValue], ...] = ()

    @classmethod
    def decode(cls, data: bytes, protocol: Protocol) -> Self:
        time, at = read_time(data, 0)
        count, at = read_uint(data, at, 1, "parameter count")
        if len(data) - at == count:
            return cls(time, tuple(data[at:]))
        items, at = _read_items(data, at, count)
        if at != len(data):
            raise BodyError(f"parameter answer: {len(data) - at} bytes after {count} items")
        return cls(time, values=items)

    def encode(self, protocol: Protocol) -> bytes:
        if self.values:
            return write_time(self.time) + bytes((len(self.values),)) + _write_items(self.values)
        return write_time(self.time) + bytes((len(self.ids),)) + bytes(self.ids)


@register_body
@dataclass(frozen=True)
class ParameterSet:
    """0x81: time and the items to set."""

    COMMAND: ClassVar[int] = 0x81
    time: datetime
    values: tuple[tuple[int, ParamValue], ...]

    @classmethod
    def decode(cls, data: bytes, protocol: Protocol) -> Self:
        time, at = read_time(data, 0)
        count, at = read_uint(data, at, 1, "parameter count")
        items, at = _read_items(data, at, count)
        if at != len(data):
            raise BodyError(f"parameter set: {len(data) - at} bytes after {count} items")
        return cls(time, items)

    def encode(self, protocol: Protocol) -> bytes:
        return write_time(self.time) + bytes((len(self.values),)) + _write_items(self.values)


class ControlCommand(IntEnum):
    """Terminal control command ids (table 27)."""

    REMOTE_UPGRADE = 0x01
    SHUTDOWN = 0x02
    RESET = 0x03
    FACTORY_RESET = 0x04
    DISCONNECT = 0x05
    ALARM = 0x06
    SAMPLING_LINK = 0x07


@register_body
@dataclass(frozen=True)
class TerminalControl:
    """0x82: time, command id, and the command's parameter bytes (empty for most)."""

    COMMAND: ClassVar[int] = 0x82
    time: datetime
    command: int
    parameters: bytes = b""

    @classmethod
    def decode(cls, data: bytes, protocol: Protocol) -> Self:
        time, at = read_time(data, 0)
        command, at = read_uint(data, at, 1, "control command")
        return cls(time, command, bytes(data[at:]))

    def encode(self, protocol: Protocol) -> bytes:
        return write_time(self.time) + bytes((self.command,)) + self.parameters
