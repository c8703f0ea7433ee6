"""0x0102 terminal authentication.

2011/2013: the whole body is the auth code. 2019: code length BYTE, code STRING, IMEI BYTE[15],
software version BYTE[20] (NUL-padded).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from protocols.jt808.errors import BodyError
from protocols.jt808.fields import (
    check_version,
    decode_fixed_text,
    decode_text,
    encode_fixed_text,
    encode_text,
)
from protocols.jt808.registry import register_body

IMEI_BYTES = 15
SOFTWARE_VERSION_BYTES = 20


@register_body
@dataclass(frozen=True)
class Authentication:
    """``imei`` and ``software_version`` exist from 2019 on; None before."""

    MSG_ID: ClassVar[int] = 0x0102
    auth_code: str
    imei: str | None = None
    software_version: str | None = None

    @classmethod
    def decode(cls, body: bytes, version: str) -> Authentication:
        if version != "2019":
            return cls(decode_text(body))
        if not body:
            raise BodyError("0x0102 (2019) body is empty")
        code_end = 1 + body[0]
        needed = code_end + IMEI_BYTES + SOFTWARE_VERSION_BYTES
        if len(body) < needed:
            raise BodyError(f"0x0102 (2019) needs {needed} bytes, got {len(body)}")
        imei_end = code_end + IMEI_BYTES
        return cls(
            decode_text(body[1:code_end]),
            decode_fixed_text(body[code_end:imei_end]),
            decode_fixed_text(body[imei_end : imei_end + SOFTWARE_VERSION_BYTES]),
        )

    def encode(self, version: str) -> bytes:
        code = encode_text(self.auth_code)
        if check_version(version) != "2019":
            return code
        if len(code) > 255:
            raise ValueError("a 2019 auth code is at most 255 bytes")
        return (
            bytes((len(code),))
            + code
            + encode_fixed_text(self.imei or "", IMEI_BYTES)
            + encode_fixed_text(self.software_version or "", SOFTWARE_VERSION_BYTES)
        )
