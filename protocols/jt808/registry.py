"""Message-body registry: each body module registers its class under its ``MSG_ID``.

Vendor or regional messages register the same way from their own module; the decode path only
looks the id up, it never branches on vendors.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Protocol, TypeVar


class MessageBody(Protocol):
    """What every body offers: ``encode(version) -> bytes``. Decodable ones also have
    ``MSG_ID`` and a classmethod ``decode(body: bytes, version: str)``."""

    def encode(self, version: str) -> bytes: ...


class DecodableBody(Protocol):
    MSG_ID: ClassVar[int]

    @classmethod
    def decode(cls, body: bytes, version: str) -> Any: ...

    def encode(self, version: str) -> bytes: ...


_BODIES: dict[int, type[DecodableBody]] = {}
# msg id -> bound ``cls.decode``: saves a method lookup per frame on the hot path.
DECODERS: dict[int, Callable[[bytes, str], Any]] = {}

T = TypeVar("T", bound=type[DecodableBody])


def register_body(cls: T, *, replace: bool = False) -> T:
    """Register a body class under ``cls.MSG_ID`` (usable as a decorator).

    Raises ValueError if the id is taken and ``replace`` is False, so two modules cannot silently
    fight over one id.
    """
    msg_id = cls.MSG_ID
    existing = _BODIES.get(msg_id)
    if existing is not None and existing is not cls and not replace:
        raise ValueError(f"message 0x{msg_id:04X} already registered by {existing.__name__}")
    _BODIES[msg_id] = cls
    DECODERS[msg_id] = cls.decode
    return cls


def body_class(msg_id: int) -> type[DecodableBody] | None:
    return _BODIES.get(msg_id)


def registered_ids() -> list[int]:
    return sorted(_BODIES)
