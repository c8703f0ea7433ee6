"""Regional variants of the active-safety protocol: named sets of 0x0200 item specs and message body
classes that replace the registered ones only when selected.

``use_variant("guangdong2019")`` re-registers the variant's items (``register_item(replace=True)``)
and bodies (``register_body(replace=True)``); the decode loops only look ids up, so they never branch
on the region. The default is ``jiangsu2017`` (T/JSATL12-2017). The choice is process-wide: one
gateway serves one regional standard (``variant(name)`` is a context manager for tests and tools).
Raises KeyError for a name no module registered.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from protocols.jt808.extras.registry import ItemSpec, register_item
from protocols.jt808.registry import register_body


@dataclass(frozen=True)
class Variant:
    name: str
    description: str
    items: tuple[ItemSpec, ...]
    bodies: tuple[Any, ...]  # body classes (MSG_ID, decode, encode)


_VARIANTS: dict[str, Variant] = {}
_ACTIVE: list[str] = ["jiangsu2017"]


def register_variant(definition: Variant) -> Variant:
    """Raises ValueError when the name is taken by another definition."""
    if _VARIANTS.get(definition.name, definition) != definition:
        raise ValueError(f"variant {definition.name!r} is already registered")
    _VARIANTS[definition.name] = definition
    return definition


def variant_names() -> list[str]:
    return sorted(_VARIANTS)


def active_variant() -> str:
    return _ACTIVE[0]


def use_variant(name: str) -> Variant:
    """Make ``name`` the codec's active variant. Raises KeyError for an unknown name."""
    if name not in _VARIANTS:
        raise KeyError(f"unknown protocol variant {name!r}; known: {', '.join(variant_names())}")
    chosen = _VARIANTS[name]
    for spec in chosen.items:
        register_item(spec, replace=True)
    for body in chosen.bodies:
        register_body(body, replace=True)
    _ACTIVE[0] = name
    return chosen


@contextmanager
def variant(name: str) -> Iterator[Variant]:
    """Use ``name`` inside the block, then go back to the variant active before."""
    previous = active_variant()
    chosen = use_variant(name)
    try:
        yield chosen
    finally:
        use_variant(previous)


from protocols.jt808.variants import guangdong2019, jiangsu2017  # noqa: E402,F401  (register themselves)
