"""0x8605 delete polygonal areas: count BYTE, ids DWORD (none: delete them all). Layout in ``_delete_areas``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from protocols.jt808.messages._delete_areas import DeleteAreas
from protocols.jt808.registry import register_body


@register_body
@dataclass(frozen=True)
class DeletePolygonAreas(DeleteAreas):
    MSG_ID: ClassVar[int] = 0x8605
