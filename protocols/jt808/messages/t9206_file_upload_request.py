"""0x9206 file upload instruction (JT/T 1078-2016 table 26): the terminal uploads recordings to an FTP
server.

| field | wire |
|---|---|
| server_ip | BYTE length + STRING |
| port | WORD |
| user, password, path | BYTE length + STRING each |
| channel | BYTE |
| start, end | BCD[6] each (GMT+8); all zeros: none |
| alarm_flags | 64BITS |
| media_type | BYTE: 0 audio+video, 1 audio, 2 video, 3 video or audio+video |
| stream_type | BYTE: 0 all, 1 main, 2 sub |
| storage | BYTE: 0 main or backup, 1 main, 2 backup |
| condition | BYTE, bits: 0 on Wi-Fi, 1 on LAN, 2 on 3G/4G |

The terminal answers 0x0001, then 0x1206 when the upload ends. SmallChi/JT808's serializer writes
the alarm flags as a DWORD (vector BODY-9206-SMALLCHI, kept as a quirk); the standard and
yezhihao/jt808-server say 64 bits, which is what we read and write."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from protocols.jt808.messages._layout import Declared, Layout
from protocols.jt808.registry import register_body


@register_body
@dataclass(frozen=True)
class FileUploadRequest(Declared):
    MSG_ID: ClassVar[int] = 0x9206
    LAYOUT: ClassVar[Layout] = Layout(
        "0x9206", "server_ip:str8 port:u16 user:str8 password:str8 path:str8 channel:u8 start:opt_time "
        "end:opt_time alarm_flags:u64 media_type:u8 stream_type:u8 storage:u8 condition:u8")
    server_ip: str
    port: int
    user: str
    password: str
    path: str
    channel: int
    start: datetime | None
    end: datetime | None
    alarm_flags: int
    media_type: int
    stream_type: int
    storage: int
    condition: int
