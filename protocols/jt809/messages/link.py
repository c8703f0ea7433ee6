"""Link management bodies (JT/T 809-2011 §5.2 / -2019 §5.3): main link 0x1001-0x1008, sub link
0x9001-0x9008. The layouts are the same in both versions except 0x1001, which in 2019 carries the
platform's GNSS centre id between the password and the sub-link address.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from enum import IntEnum
from typing import ClassVar

from protocols.jt809.codec import register_body
from protocols.jt809.messages._fields import decode_fixed, encode_fixed, exact

PASSWORD_BYTES = 8
IP_BYTES = 32


class LoginResult(IntEnum):
    """0x1002 RESULT."""

    OK = 0
    IP_INCORRECT = 1
    ACCESS_CODE_INCORRECT = 2
    USER_NOT_REGISTERED = 3
    PASSWORD_WRONG = 4
    RESOURCES_BUSY = 5
    OTHER = 6


class SubLinkLoginResult(IntEnum):
    """0x9002 RESULT."""

    OK = 0
    VERIFY_CODE_WRONG = 1
    RESOURCES_BUSY = 2
    OTHER = 3


@register_body
@dataclass(frozen=True)
class LoginRequest:
    """0x1001 main link login. ``centre_id`` exists in 2019 only (None in 2011)."""

    MSG_ID: ClassVar[int] = 0x1001
    user_id: int
    password: str
    down_link_ip: str
    down_link_port: int
    centre_id: int | None = None

    @classmethod
    def decode(cls, body: bytes, version: str) -> LoginRequest:
        centre = 4 if version == "2019" else 0
        exact(body, 4 + PASSWORD_BYTES + centre + IP_BYTES + 2, f"0x1001 ({version})")
        user_id = int.from_bytes(body[:4], "big")
        password = decode_fixed(body[4:12], "password")
        centre_id = int.from_bytes(body[12:16], "big") if centre else None
        ip_at = 12 + centre
        ip = decode_fixed(body[ip_at : ip_at + IP_BYTES], "down link ip")
        (port,) = struct.unpack_from(">H", body, ip_at + IP_BYTES)
        return cls(user_id, password, ip, port, centre_id)

    def encode(self, version: str) -> bytes:
        out = struct.pack(">I", self.user_id) + encode_fixed(self.password, PASSWORD_BYTES, "password")
        if version == "2019":
            out += struct.pack(">I", self.centre_id or 0)
        return out + encode_fixed(self.down_link_ip, IP_BYTES, "down link ip") + struct.pack(">H", self.down_link_port)


@register_body
@dataclass(frozen=True)
class LoginResponse:
    """0x1002 main link login answer: ``result`` (LoginResult) and the verify code the sub link uses."""

    MSG_ID: ClassVar[int] = 0x1002
    result: int
    verify_code: int

    @classmethod
    def decode(cls, body: bytes, version: str) -> LoginResponse:
        exact(body, 5, "0x1002")
        return cls(_result(LoginResult, body[0]), int.from_bytes(body[1:5], "big"))

    def encode(self, version: str) -> bytes:
        return struct.pack(">BI", self.result, self.verify_code)


@register_body
@dataclass(frozen=True)
class LogoutRequest:
    """0x1003 main link logout."""

    MSG_ID: ClassVar[int] = 0x1003
    user_id: int
    password: str

    @classmethod
    def decode(cls, body: bytes, version: str) -> LogoutRequest:
        exact(body, 4 + PASSWORD_BYTES, "0x1003")
        return cls(int.from_bytes(body[:4], "big"), decode_fixed(body[4:], "password"))

    def encode(self, version: str) -> bytes:
        return struct.pack(">I", self.user_id) + encode_fixed(self.password, PASSWORD_BYTES, "password")


def _result(kind: type[IntEnum], value: int) -> int:
    """A known code as its enum member; an unknown one stays a plain int (peers send new codes)."""
    try:
        return kind(value)
    except ValueError:
        return value


class _Empty:
    """A message with no body; any stray bytes are refused."""

    MSG_ID: ClassVar[int]

    @classmethod
    def decode(cls, body: bytes, version: str) -> _Empty:
        exact(body, 0, f"0x{cls.MSG_ID:04X}")
        return cls()

    def encode(self, version: str) -> bytes:
        return b""


@register_body
@dataclass(frozen=True)
class LogoutResponse(_Empty):
    MSG_ID: ClassVar[int] = 0x1004


@register_body
@dataclass(frozen=True)
class Heartbeat(_Empty):
    MSG_ID: ClassVar[int] = 0x1005


@register_body
@dataclass(frozen=True)
class HeartbeatResponse(_Empty):
    MSG_ID: ClassVar[int] = 0x1006


@register_body
@dataclass(frozen=True)
class SubLinkLogoutResponse(_Empty):
    MSG_ID: ClassVar[int] = 0x9004


@register_body
@dataclass(frozen=True)
class SubLinkHeartbeat(_Empty):
    MSG_ID: ClassVar[int] = 0x9005


@register_body
@dataclass(frozen=True)
class SubLinkHeartbeatResponse(_Empty):
    MSG_ID: ClassVar[int] = 0x9006


class _Code:
    """A one-byte code (error, reason or result)."""

    MSG_ID: ClassVar[int]
    code: int

    @classmethod
    def decode(cls, body: bytes, version: str) -> _Code:
        exact(body, 1, f"0x{cls.MSG_ID:04X}")
        return cls(body[0])  # type: ignore[call-arg]

    def encode(self, version: str) -> bytes:
        return bytes((self.code,))


@register_body
@dataclass(frozen=True)
class DisconnectNotice(_Code):
    """0x1007 main link broken notice (sent on the sub link): 0 main link cannot connect, 1 other."""

    MSG_ID: ClassVar[int] = 0x1007
    code: int


@register_body
@dataclass(frozen=True)
class InferiorClosingNotice(_Code):
    """0x1008 the inferior platform closes the links: 0 restart, 1 other."""

    MSG_ID: ClassVar[int] = 0x1008
    code: int


@register_body
@dataclass(frozen=True)
class SubLinkLoginResponse(_Code):
    """0x9002 sub link login answer: ``code`` is a SubLinkLoginResult."""

    MSG_ID: ClassVar[int] = 0x9002
    code: int

    @classmethod
    def decode(cls, body: bytes, version: str) -> SubLinkLoginResponse:
        exact(body, 1, "0x9002")
        return cls(_result(SubLinkLoginResult, body[0]))


@register_body
@dataclass(frozen=True)
class SubLinkDisconnectNotice(_Code):
    """0x9007 sub link broken notice (sent on the main link): 0 sub link cannot connect, 1 other."""

    MSG_ID: ClassVar[int] = 0x9007
    code: int


@register_body
@dataclass(frozen=True)
class SuperiorClosingNotice(_Code):
    """0x9008 the superior platform closes the links: 0 restart, 1 other."""

    MSG_ID: ClassVar[int] = 0x9008
    code: int


class _VerifyCode:
    MSG_ID: ClassVar[int]
    verify_code: int

    @classmethod
    def decode(cls, body: bytes, version: str) -> _VerifyCode:
        exact(body, 4, f"0x{cls.MSG_ID:04X}")
        return cls(int.from_bytes(body, "big"))  # type: ignore[call-arg]

    def encode(self, version: str) -> bytes:
        return struct.pack(">I", self.verify_code)


@register_body
@dataclass(frozen=True)
class SubLinkLoginRequest(_VerifyCode):
    """0x9001 sub link login: the verify code from the 0x1002 answer."""

    MSG_ID: ClassVar[int] = 0x9001
    verify_code: int


@register_body
@dataclass(frozen=True)
class SubLinkLogoutRequest(_VerifyCode):
    """0x9003 sub link logout, with the same verify code."""

    MSG_ID: ClassVar[int] = 0x9003
    verify_code: int
