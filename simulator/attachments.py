"""Uploading an active-safety alarm's attachments as a terminal does after 0x9208.

``upload`` opens a new TCP connection to the attachment server named in the request, sends 0x1210
(the list), then per file 0x1211 (info; each answered 0x8001), the data as ``0x30316364`` chunks of
``chunk_bytes`` (``protocols/jt808/attachment_stream.py``) and 0x1212 (done); 0x9212 result 1 lists the
(offset, length) ranges to send again, which it sends before another 0x1212, until result 0.
``drop_chunk`` (0-based over all chunks of the upload) leaves one chunk out of the first pass so the
server has a gap to ask for. A refusal (0x8001 result not 0) raises ``AttachmentRefused``.
"""

from __future__ import annotations

import asyncio
import itertools
import re
from dataclasses import dataclass, field

from protocols.jt808 import (
    AlarmAttachmentList,
    AlarmAttachmentUploadRequest,
    AttachmentFile,
    AttachmentFileDone,
    AttachmentFileDoneResponse,
    AttachmentFileInfo,
    FrameReader,
    JT808Error,
    Message,
    PlatformResponse,
    decode_frame,
    encode_frame,
)
from protocols.jt808.attachment_stream import encode_chunk
from protocols.jt808.catalogue import (
    ALARM_ATTACHMENT_LIST,
    ATTACHMENT_FILE_DONE,
    ATTACHMENT_FILE_DONE_RESPONSE,
    ATTACHMENT_FILE_INFO,
    PLATFORM_RESPONSE,
)


class AttachmentRefused(Exception):
    """The server refused a message (0x8001 result not 0) or closed the connection."""


@dataclass
class UploadResult:
    files_done: list[str] = field(default_factory=list)
    resend_requests: list[tuple[str, tuple[tuple[int, int], ...]]] = field(default_factory=list)
    chunks_sent: int = 0
    dropped: list[tuple[str, int, int]] = field(default_factory=list)  # (name, offset, length) left out


def simulator_phone(terminal_id: str) -> str:
    """The phone of simulated terminal ``SIMnnnnnnn`` (simulator/fleet.py numbering)."""
    from fleet.settings import SimulatorSettings
    from simulator.fleet import phone_of

    found = re.fullmatch(r"SIM(\d{7})", terminal_id)
    if not found:
        raise ValueError(f"terminal id {terminal_id!r} is not a simulated one: pass phone=")
    return phone_of(SimulatorSettings(), int(found.group(1)))


class _Link:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, phone: str, version: str,
                 timeout_s: float) -> None:
        self.reader, self.writer, self.phone, self.version = reader, writer, phone, version
        self.timeout_s = timeout_s
        self._frames = FrameReader()
        self._pending: list[Message] = []
        self._seq = itertools.count(1)

    def send(self, msg_id: int, body: object) -> int:
        seq = next(self._seq) & 0xFFFF
        self.writer.write(encode_frame(msg_id, body, phone=self.phone, seq=seq, version=self.version))  # type: ignore[arg-type]
        return seq

    async def reply(self, msg_id: int) -> Message:
        """The next platform message with ``msg_id`` (others are skipped)."""
        await self.writer.drain()
        while True:
            while self._pending:
                msg = self._pending.pop(0)
                if msg.header.msg_id == msg_id or msg.header.msg_id == PLATFORM_RESPONSE:
                    return msg
            async with asyncio.timeout(self.timeout_s):
                data = await self.reader.read(65536)
            if not data:
                raise AttachmentRefused("the attachment server closed the connection")
            for item in self._frames.feed(data):
                if isinstance(item, JT808Error):
                    continue
                try:
                    self._pending.append(decode_frame(item))
                except JT808Error:
                    continue

    async def acked(self, msg_id: int, body: object) -> None:
        seq = self.send(msg_id, body)
        msg = await self.reply(PLATFORM_RESPONSE)
        ack = msg.body
        if not isinstance(ack, PlatformResponse) or ack.reply_seq != seq or ack.result != 0:
            raise AttachmentRefused(f"0x{msg_id:04X} refused: {ack}")


async def upload(host: str, port: int, request: AlarmAttachmentUploadRequest,
                 files: list[tuple[str, int, bytes]], terminal_id: str, drop_chunk: int | None = None, *,
                 phone: str | None = None, version: str = "2013", chunk_bytes: int = 8192,
                 timeout_s: float = 10.0, max_rounds: int = 5, local_host: str | None = None) -> UploadResult:
    """Upload ``files`` (name, file type 0 picture .. 4 other, bytes) for the alarm of ``request``, from
    ``local_host`` when given (tests: another loop-back address than the terminal's session)."""
    phone = phone or simulator_phone(terminal_id)
    reader, writer = await asyncio.open_connection(host, port, local_addr=(local_host, 0) if local_host else None)
    link = _Link(reader, writer, phone, version, timeout_s)
    result = UploadResult()
    chunk_no = itertools.count()
    try:
        await link.acked(ALARM_ATTACHMENT_LIST, AlarmAttachmentList(
            terminal_id=terminal_id[-AlarmAttachmentList.ALARM_NO_LAYOUT.terminal_id_size:], alarm_no=request.alarm_no, alarm_uuid=request.alarm_uuid, info_type=0,
            files=tuple(AttachmentFile(name, len(data)) for name, _, data in files)))
        for name, file_type, data in files:
            await link.acked(ATTACHMENT_FILE_INFO, AttachmentFileInfo(name, file_type, len(data)))
            for offset in range(0, len(data), chunk_bytes):
                piece = data[offset:offset + chunk_bytes]
                if next(chunk_no) == drop_chunk:
                    result.dropped.append((name, offset, len(piece)))
                    continue
                writer.write(encode_chunk(name, offset, piece))
                result.chunks_sent += 1
                await writer.drain()
            for _ in range(max_rounds):
                link.send(ATTACHMENT_FILE_DONE, AttachmentFileDone(name, file_type, len(data)))
                msg = await link.reply(ATTACHMENT_FILE_DONE_RESPONSE)
                answer = msg.body
                if not isinstance(answer, AttachmentFileDoneResponse):
                    raise AttachmentRefused(f"0x1212 of {name} refused: {answer}")
                if answer.result == 0:
                    result.files_done.append(name)
                    break
                result.resend_requests.append((name, tuple(answer.missing)))
                for offset, length in answer.missing:
                    for start in range(offset, offset + length, chunk_bytes):
                        end = min(offset + length, start + chunk_bytes)
                        writer.write(encode_chunk(name, start, data[start:end]))
                        result.chunks_sent += 1
                await writer.drain()
            else:
                raise AttachmentRefused(f"{name} still incomplete after {max_rounds} rounds")
    finally:
        writer.close()
        try:
            await writer.wait_closed()
        except (ConnectionError, OSError):
            pass
    return result
