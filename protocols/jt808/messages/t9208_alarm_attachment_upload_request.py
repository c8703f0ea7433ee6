"""0x9208 alarm attachment upload request (platform -> terminal), Jiangsu 2017 table 4-22:
server IP length BYTE, server IP STRING, TCP port WORD, UDP port WORD, alarm number (16 bytes;
40 in the Guangdong 2019 variant), alarm uuid BYTE[32] (the platform's 报警编号), reserved BYTE[16].

The terminal answers 0x0001, connects to the server and sends 0x1210 there."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import ClassVar

from protocols.jt808.alarm_number import JIANGSU_2017, AlarmNumber, AlarmNumberLayout
from protocols.jt808.fields import decode_fixed_text
from protocols.jt808.messages._alarm_files import UUID_SIZE, need, read_name, uuid_bytes, write_name
from protocols.jt808.registry import register_body

_PORTS = struct.Struct(">HH")
_RESERVED = 16


@register_body
@dataclass(frozen=True)
class AlarmAttachmentUploadRequest:
    MSG_ID: ClassVar[int] = 0x9208
    ALARM_NO_LAYOUT: ClassVar[AlarmNumberLayout] = JIANGSU_2017
    server_ip: str
    tcp_port: int
    udp_port: int
    alarm_no: AlarmNumber
    alarm_uuid: str

    @classmethod
    def decode(cls, body: bytes, version: str) -> AlarmAttachmentUploadRequest:
        """Raises BodyError for a short body (the 16 reserved bytes may be missing)."""
        layout = cls.ALARM_NO_LAYOUT
        server_ip, at = read_name(body, 0, "0x9208 server address")
        need(body, at + _PORTS.size + layout.size + UUID_SIZE, "0x9208")
        tcp_port, udp_port = _PORTS.unpack_from(body, at)
        at += _PORTS.size
        alarm_no = layout.decode(body, at)
        at += layout.size
        return cls(server_ip, tcp_port, udp_port, alarm_no, decode_fixed_text(body[at:at + UUID_SIZE]))

    def encode(self, version: str) -> bytes:
        return (write_name(self.server_ip, "0x9208 server address") + _PORTS.pack(self.tcp_port, self.udp_port)
                + self.ALARM_NO_LAYOUT.encode(self.alarm_no) + uuid_bytes(self.alarm_uuid) + bytes(_RESERVED))
