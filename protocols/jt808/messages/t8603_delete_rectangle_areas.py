"""0x8603 delete rectangular areas: count BYTE, ids DWORD (none: delete them all). Layout in ``_delete_areas``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from protocols.jt808.messages._delete_areas import DeleteAreas
from protocols.jt808.registry import register_body


@register_body
@dataclass(frozen=True)
class DeleteRectangleAreas(DeleteAreas):
    MSG_ID: ClassVar[int] = 0x8603
