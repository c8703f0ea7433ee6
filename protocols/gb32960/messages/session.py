"""Session commands (GB/T 32960.3-2016 §7.1, §7.3-7.5, §7.7; GB 17691-2018 annex Q.6.1 / Q.6.4):
vehicle login 0x01 / logout 0x04, platform login 0x05 / logout 0x06, heartbeat 0x07, time
calibration 0x08. Every time is the terminal's GMT+8 clock, returned as aware UTC.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from protocols.gb32960.codec import register_body
from protocols.gb32960.errors import BodyError
from protocols.gb32960.header import Protocol
from protocols.gb32960.values import need, read_text, read_time, read_uint, write_text, write_time

ICCID_BYTES = 20
USER_BYTES = 12
PASSWORD_BYTES = 20


def _exact_end(data: bytes, at: int, what: str) -> None:
    if at != len(data):
        raise BodyError(f"{what}: {len(data) - at} bytes after the end of its layout")


@register_body
@dataclass(frozen=True)
class VehicleLogin:
    """0x01 (32960): time, login serial (1 ... 65531, restarting each day), ICCID, and the codes of the
    rechargeable storage subsystems (``subsystem_count`` codes of ``code_length`` bytes each)."""

    COMMAND: ClassVar[int] = 0x01
    time: datetime
    serial: int
    iccid: str
    code_length: int
    codes: tuple[str, ...]

    @classmethod
    def decode(cls, data: bytes, protocol: Protocol) -> VehicleLogin:
        time, at = read_time(data, 0)
        serial, at = read_uint(data, at, 2, "login serial")
        iccid, at = read_text(data, at, ICCID_BYTES, "ICCID")
        count, at = read_uint(data, at, 1, "subsystem count")
        size, at = read_uint(data, at, 1, "code length")
        need(data, at, count * size, f"{count} subsystem codes of {size} bytes")
        codes = tuple(data[at + i * size : at + (i + 1) * size].decode("latin-1") for i in range(count))
        _exact_end(data, at + count * size, "vehicle login")
        return cls(time, serial, iccid, size, codes)

    def encode(self, protocol: Protocol) -> bytes:
        if any(len(c.encode("latin-1")) != self.code_length for c in self.codes):
            raise ValueError(f"every subsystem code must be {self.code_length} bytes")
        return (write_time(self.time) + struct.pack(">H", self.serial) + write_text(self.iccid, ICCID_BYTES, "ICCID")
                + bytes((len(self.codes), self.code_length)) + "".join(self.codes).encode("latin-1"))


@register_body
@dataclass(frozen=True)
class EmissionLogin:
    """0x01 (GB 17691 annex Q / HJ 1239): time, login serial, ICCID. From the standard's layout, no capture."""

    COMMAND: ClassVar[int] = 0x01
    FAMILIES: ClassVar[tuple[str, ...]] = ("gb17691",)
    time: datetime
    serial: int
    iccid: str

    @classmethod
    def decode(cls, data: bytes, protocol: Protocol) -> EmissionLogin:
        time, at = read_time(data, 0)
        serial, at = read_uint(data, at, 2, "login serial")
        iccid, at = read_text(data, at, ICCID_BYTES, "ICCID")
        _exact_end(data, at, "vehicle login")
        return cls(time, serial, iccid)

    def encode(self, protocol: Protocol) -> bytes:
        return write_time(self.time) + struct.pack(">H", self.serial) + write_text(self.iccid, ICCID_BYTES, "ICCID")


@dataclass(frozen=True)
class _TimeSerial:
    """A time and a serial (the logout layouts)."""

    time: datetime
    serial: int

    @classmethod
    def decode(cls, data: bytes, protocol: Protocol) -> _TimeSerial:
        time, at = read_time(data, 0)
        serial, at = read_uint(data, at, 2, "serial")
        _exact_end(data, at, cls.__name__)
        return cls(time, serial)

    def encode(self, protocol: Protocol) -> bytes:
        return write_time(self.time) + struct.pack(">H", self.serial)


@register_body
@dataclass(frozen=True)
class VehicleLogout(_TimeSerial):
    """0x04: time and the serial of the login it ends (the same layout in 32960 and 17691)."""

    COMMAND: ClassVar[int] = 0x04
    FAMILIES: ClassVar[tuple[str, ...]] = ("gb32960", "gb17691")


@register_body
@dataclass(frozen=True)
class PlatformLogout(_TimeSerial):
    """0x06: time and the serial of the platform login it ends."""

    COMMAND: ClassVar[int] = 0x06


@register_body
@dataclass(frozen=True)
class PlatformLogin:
    """0x05: time, serial, user name (12), password (20), encryption rule (0x01 none, 0x02 RSA, 0x03 AES128)."""

    COMMAND: ClassVar[int] = 0x05
    time: datetime
    serial: int
    user: str
    password: str
    encryption_rule: int

    @classmethod
    def decode(cls, data: bytes, protocol: Protocol) -> PlatformLogin:
        time, at = read_time(data, 0)
        serial, at = read_uint(data, at, 2, "serial")
        user, at = read_text(data, at, USER_BYTES, "user name")
        password, at = read_text(data, at, PASSWORD_BYTES, "password")
        rule, at = read_uint(data, at, 1, "encryption rule")
        _exact_end(data, at, "platform login")
        return cls(time, serial, user, password, rule)

    def encode(self, protocol: Protocol) -> bytes:
        return (write_time(self.time) + struct.pack(">H", self.serial) + write_text(self.user, USER_BYTES, "user name")
                + write_text(self.password, PASSWORD_BYTES, "password") + bytes((self.encryption_rule,)))


@register_body
@dataclass(frozen=True)
class Heartbeat:
    """0x07: an empty data unit."""

    COMMAND: ClassVar[int] = 0x07

    @classmethod
    def decode(cls, data: bytes, protocol: Protocol) -> Heartbeat:
        _exact_end(data, 0, "heartbeat")
        return cls()

    def encode(self, protocol: Protocol) -> bytes:
        return b""


@register_body
@dataclass(frozen=True)
class TimeCalibration:
    """0x08 (32960) / 0x05 (17691): the terminal's request is empty; the platform's answer carries its
    time (that answer decodes as ``TimeOnly``)."""

    COMMAND: ClassVar[int] = 0x08

    @classmethod
    def decode(cls, data: bytes, protocol: Protocol) -> TimeCalibration:
        _exact_end(data, 0, "time calibration")
        return cls()

    def encode(self, protocol: Protocol) -> bytes:
        return b""


@register_body
@dataclass(frozen=True)
class EmissionTimeCalibration(TimeCalibration):
    COMMAND: ClassVar[int] = 0x05
    FAMILIES: ClassVar[tuple[str, ...]] = ("gb17691",)
