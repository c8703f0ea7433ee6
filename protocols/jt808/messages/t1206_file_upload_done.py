"""0x1206 file upload completion notice (JT/T 1078-2016 table 28): reply serial WORD (of the 0x9206),
result BYTE (0 success, 1 failure)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from protocols.jt808.messages._layout import Declared, Layout
from protocols.jt808.registry import register_body


@register_body
@dataclass(frozen=True)
class FileUploadDone(Declared):
    MSG_ID: ClassVar[int] = 0x1206
    LAYOUT: ClassVar[Layout] = Layout("0x1206", "reply_seq:u16 result:u8")
    reply_seq: int
    result: int
