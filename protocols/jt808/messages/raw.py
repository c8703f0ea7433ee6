"""RawBody: the body of a message id nobody registered, or of one sub-package, kept as hex."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RawBody:
    hex: str

    @classmethod
    def from_bytes(cls, body: bytes) -> RawBody:
        return cls(body.hex())

    def encode(self, version: str) -> bytes:
        return bytes.fromhex(self.hex)
