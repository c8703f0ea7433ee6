"""GB/T 32960.3-2025 security commands as one public implementation reads them (baichangda/MyFramework
``v2025``; we did not read the 2025 text and no public vector exists, so the tests are built from this
layout): 0x09 activation and 0x0B data-encryption key exchange. In a 2016 (``##``) frame these ids are
reserved and their data units stay bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar

from protocols.gb32960.codec import register_body
from protocols.gb32960.errors import BodyError
from protocols.gb32960.header import Protocol
from protocols.gb32960.messages.blocks_2025 import Signature
from protocols.gb32960.values import need, read_text, read_time, read_uint, write_text, write_time

CHIP_ID_BYTES = 16
VIN_BYTES = 17


@dataclass(frozen=True)
class ActivationAnswer:
    """The platform's answer to 0x09: activation status and an information code (2 bytes)."""

    status: int
    info: int

    def encode(self, protocol: Protocol) -> bytes:
        return bytes((self.status, self.info))


@register_body
@dataclass(frozen=True)
class ActivationRequest:
    """0x09 from the terminal: time, security chip id (16), public key (2-byte length), VIN, signature.
    A 2-byte data unit under 0x09 is the platform's ``ActivationAnswer``."""

    COMMAND: ClassVar[int] = 0x09
    time: datetime
    chip_id: str
    public_key: bytes
    vin: str
    signature: Signature

    @classmethod
    def decode(cls, data: bytes, protocol: Protocol) -> Any:
        if protocol is not Protocol.GB32960_2025:
            return bytes(data)
        if len(data) == 2:
            return ActivationAnswer(data[0], data[1])
        time, at = read_time(data, 0)
        chip_id, at = read_text(data, at, CHIP_ID_BYTES, "chip id")
        size, at = read_uint(data, at, 2, "public key length")
        need(data, at, size, "public key")
        key, at = bytes(data[at : at + size]), at + size
        vin, at = read_text(data, at, VIN_BYTES, "VIN")
        signature, at = Signature.decode(data, at)
        if at != len(data):
            raise BodyError(f"activation: {len(data) - at} bytes after the signature")
        return cls(time, chip_id, key, vin, signature)

    def encode(self, protocol: Protocol) -> bytes:
        return (write_time(self.time) + write_text(self.chip_id, CHIP_ID_BYTES, "chip id")
                + len(self.public_key).to_bytes(2, "big") + self.public_key + write_text(self.vin, VIN_BYTES, "VIN")
                + self.signature.encode())


@register_body
@dataclass(frozen=True)
class KeyExchange:
    """0x0B data-unit encryption key exchange: key type, key (2-byte length), valid from / until."""

    COMMAND: ClassVar[int] = 0x0B
    key_type: int
    key: bytes
    valid_from: datetime
    valid_until: datetime

    @classmethod
    def decode(cls, data: bytes, protocol: Protocol) -> Any:
        if protocol is not Protocol.GB32960_2025:
            return bytes(data)
        key_type, at = read_uint(data, 0, 1, "key type")
        size, at = read_uint(data, at, 2, "key length")
        need(data, at, size, "key")
        key, at = bytes(data[at : at + size]), at + size
        valid_from, at = read_time(data, at, "valid from")
        valid_until, at = read_time(data, at, "valid until")
        if at != len(data):
            raise BodyError(f"key exchange: {len(data) - at} bytes after the validity")
        return cls(key_type, key, valid_from, valid_until)

    def encode(self, protocol: Protocol) -> bytes:
        return (bytes((self.key_type,)) + len(self.key).to_bytes(2, "big") + self.key + write_time(self.valid_from)
                + write_time(self.valid_until))
