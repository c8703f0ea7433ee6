"""Registry of 0x0200 additional-information items (id, length, value).

Each item is declared once as an ItemSpec: the key it gets in ``LocationReport.extras`` (unit in the
name), the wire lengths it accepts, and a decode/encode pair. Standard items live in this package;
vendor or regional items register from their own module with ``register_item`` and never touch the
decode loop.

Decoding never raises: an unregistered id, a registered id with a length its spec does not accept
(0x05 with 40 bytes on a real device), a value its decoder rejects, or a second occurrence of an id
goes to ``unknown_items`` as ``{id, hex}``; an item overrunning the body keeps its remaining bytes
with ``truncated=True``. The basic position is never lost because of an extra.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ItemSpec:
    item_id: int
    name: str
    decode: Callable[[bytes], Any]  # wire bytes -> JSON-safe value with units applied
    encode: Callable[[Any], bytes]  # value -> wire bytes
    lengths: frozenset[int] | None = None  # accepted value lengths; None accepts any


@dataclass(frozen=True)
class UnknownItem:
    """An item kept raw. ``truncated``: the item's length byte overran the body."""

    id: int
    hex: str
    truncated: bool = False


_BY_ID: dict[int, ItemSpec] = {}
_BY_NAME: dict[str, ItemSpec] = {}


def register_item(spec: ItemSpec, *, replace: bool = False) -> ItemSpec:
    """Register an item. Raises ValueError if its id or name is taken and ``replace`` is False."""
    if not 0 <= spec.item_id <= 0xFF:
        raise ValueError(f"item id {spec.item_id} is not a byte")
    by_id, by_name = _BY_ID.get(spec.item_id), _BY_NAME.get(spec.name)
    if not replace and (by_id is not None or by_name is not None):
        taken = by_id or by_name
        raise ValueError(f"item 0x{spec.item_id:02X} {spec.name!r} clashes with {taken}")
    if by_id is not None:
        _BY_NAME.pop(by_id.name, None)
    _BY_ID[spec.item_id] = spec
    _BY_NAME[spec.name] = spec
    return spec


def item_spec(item_id: int) -> ItemSpec | None:
    return _BY_ID.get(item_id)


def decode_items(raw: bytes) -> tuple[dict[str, Any], tuple[UnknownItem, ...]]:
    """Split the items after the 28-byte basic block into named extras and raw unknown items."""
    extras: dict[str, Any] = {}
    unknown: list[UnknownItem] = []
    by_id = _BY_ID
    pos, end = 0, len(raw)
    while pos < end:
        item_id = raw[pos]
        if pos + 2 > end:
            unknown.append(UnknownItem(item_id, "", truncated=True))
            break
        start = pos + 2
        stop = start + raw[pos + 1]
        if stop > end:
            unknown.append(UnknownItem(item_id, raw[start:].hex(), truncated=True))
            break
        value = raw[start:stop]
        spec = by_id.get(item_id)
        if (
            spec is None
            or (spec.lengths is not None and len(value) not in spec.lengths)
            or spec.name in extras
        ):
            unknown.append(UnknownItem(item_id, value.hex()))
        else:
            try:
                extras[spec.name] = spec.decode(value)
            except Exception:  # a vendor decoder's bug must not make the position unreadable
                unknown.append(UnknownItem(item_id, value.hex()))
        pos = stop
    return extras, tuple(unknown)


def encode_items(extras: Mapping[str, Any], unknown_items: Iterable[UnknownItem]) -> bytes:
    """Named extras (in their order), then unknown items. A truncated item is dropped: its length
    byte was wrong, so re-sending it could only misframe what follows. Raises ValueError for an
    unregistered name or a value longer than 255 bytes."""
    out = bytearray()
    for name, value in extras.items():
        spec = _BY_NAME.get(name)
        if spec is None:
            raise ValueError(f"no additional item is registered as {name!r}")
        _append(out, spec.item_id, spec.encode(value))
    for item in unknown_items:
        if not item.truncated:
            _append(out, item.id, bytes.fromhex(item.hex))
    return bytes(out)


def _append(out: bytearray, item_id: int, data: bytes) -> None:
    if len(data) > 0xFF:
        raise ValueError(f"item 0x{item_id:02X} value of {len(data)} bytes exceeds 255")
    out.append(item_id)
    out.append(len(data))
    out += data
