"""One attachment-server connection's state machine (``gateway/attachments.py`` runs it): the attachment
list 0x1210 and its admission by one-time alarm number, 0x1211 / data chunks / 0x1212 per file, and the
replies (0x8001, 0x9212). Frames are handled strictly in order.
"""

from __future__ import annotations

import itertools
import logging
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from fleet.addresses import source_ip
from fleet.phones import canonical_phone
from gateway import replies as r
from gateway.attachment_files import FileUpload
from gateway.attachment_grants import AlarmRef, UploadGrant
from protocols.jt808 import (
    AlarmAttachmentList,
    AttachmentFileDone,
    AttachmentFileDoneResponse,
    AttachmentFileInfo,
    Message,
    encode_frame,
)
from protocols.jt808.catalogue import (
    ALARM_ATTACHMENT_LIST,
    ATTACHMENT_FILE_DONE,
    ATTACHMENT_FILE_DONE_RESPONSE,
    ATTACHMENT_FILE_INFO,
    HEARTBEAT,
    PLATFORM_RESPONSE,
)

if TYPE_CHECKING:
    from gateway.attachments import AttachmentServer

log = logging.getLogger("gateway.attachments")

RESULT_COMPLETE = 0
RESULT_RESEND = 1
MAX_RANGES = 0xFF  # the count of missing ranges in 0x9212 is a BYTE
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,49}$")  # a plain file name (BYTE[50] on the wire)


class AttachmentSession:
    """One terminal connection's state machine. ``write`` sends a frame; ``close`` ends the connection.
    Frames are handled strictly in order (``on_frame`` is awaited before the next item is read)."""

    def __init__(self, server: AttachmentServer, connection_id: str, write: Callable[[bytes], None],
                 peer_host: str = "") -> None:
        self.server = server
        self.connection_id = connection_id
        self.peer_host = peer_host
        self._write = write
        self._seq = itertools.count(1)
        self.alarm: AlarmRef | None = None
        self.number: str | None = None  # the 0x9208's one-time alarm number the list was accepted with
        self.alarm_no: dict[str, Any] | None = None
        self.files: dict[str, FileUpload] = {}
        self.closing: str | None = None  # set: close after writing what is queued

    # -- replies -----------------------------------------------------------------------------------
    def _reply(self, msg: Message, msg_id: int, body: bytes | Any) -> None:
        h = msg.header
        self._write(encode_frame(msg_id, body, phone=h.phone, seq=next(self._seq) & 0xFFFF, version=h.version,
                                 protocol_version=h.protocol_version or 1))

    def _ack(self, msg: Message, result: int) -> None:
        self._reply(msg, PLATFORM_RESPONSE, r.platform_ack_body(msg.header.seq, msg.header.msg_id, result))

    def _refuse(self, msg: Message, reason: str, *, close: bool) -> None:
        log.warning("attachments %s (%s): refused 0x%04X from %s: %s", self.connection_id, self.peer_host,
                    msg.header.msg_id, msg.header.phone, reason)
        self._ack(msg, r.ACK_FAILURE)
        if close:
            self.closing = reason

    def _refuse_file(self, upload: FileUpload, reason: str) -> None:
        upload.refused = reason
        upload.drop()
        self.server.counters.att_files_refused += 1
        log.warning("attachments %s: file %s refused: %s", self.connection_id, upload.name, reason)

    # -- input -------------------------------------------------------------------------------------
    def on_chunk(self, name: str, offset: int, data: bytes) -> None:
        upload = self.files.get(name)
        if upload is None or upload.file_type is None:
            self.closing = f"data for {name!r}, a file not announced by 0x1211"
            return
        if upload.refused or upload.stored is not None:
            return
        end = offset + len(data)
        if end > upload.size:
            self._refuse_file(upload, f"chunk [{offset}, {end}) beyond the declared size {upload.size}")
            return
        try:
            refused = upload.write(offset, data)
        except OSError as exc:
            refused = f"not buffered: {exc}"
        if refused:
            self._refuse_file(upload, refused)

    async def on_frame(self, msg: Message) -> None:
        msg_id = msg.header.msg_id
        body = msg.body
        if msg_id == ALARM_ATTACHMENT_LIST and isinstance(body, AlarmAttachmentList):
            await self._on_list(msg, body)
        elif msg_id == ATTACHMENT_FILE_INFO and isinstance(body, AttachmentFileInfo):
            self._on_info(msg, body)
        elif msg_id == ATTACHMENT_FILE_DONE and isinstance(body, AttachmentFileDone):
            await self._on_done(msg, body)
        elif msg_id == HEARTBEAT:
            self._ack(msg, r.ACK_OK)
        else:
            self._ack(msg, r.ACK_NOT_SUPPORTED)

    async def _grant_refusal(self, number: str, phone: str) -> tuple[UploadGrant | None, str | None]:
        """The grant of ``number`` for terminal ``phone``, or why a 0x1210 with it is refused."""
        grant = await self.server.lookup.find(number) if len(number) == 32 else None
        if grant is None:
            return None, f"alarm number {number!r} was not issued by a 0x9208"
        if not _same_phone(grant.device_phone, phone):
            return None, f"alarm number {number!r} was issued to another terminal, not {phone}"
        if grant.expired:
            return None, f"alarm number {number!r} has expired"
        if self.server.settings.require_session_address:
            expected = await self.server.session_address(grant.device_id)
            if expected is None:
                return None, f"terminal {phone} has no authenticated session to compare the address with"
            if source_ip(self.peer_host) != expected:
                return None, f"connection from {self.peer_host}, but terminal {phone}'s session is from {expected}"
        return grant, None

    async def _on_list(self, msg: Message, body: AlarmAttachmentList) -> None:
        settings = self.server.settings
        number = body.alarm_uuid.strip("\x00 ")
        if self.number is not None and number != self.number:
            self._refuse(msg, "a second alarm number on one connection", close=True)
            return
        grant, refusal = await self._grant_refusal(number, msg.header.phone)
        if grant is None:
            self.server.counters.att_unknown_alarms += 1
            self._refuse(msg, refusal or "no grant", close=True)
            return
        if len(body.files) > settings.max_files:
            self._refuse(msg, f"{len(body.files)} files announced, at most {settings.max_files}", close=True)
            return
        for item in body.files:
            if not _NAME.match(item.name):
                self._refuse(msg, f"file name {item.name!r} is not a plain file name", close=True)
                return
            if item.size > settings.max_file_bytes:
                self._refuse(msg, f"file {item.name} of {item.size} bytes is over {settings.max_file_bytes}",
                             close=True)
                return
        alarm = grant.alarm
        self.alarm, self.number = alarm, number
        self.alarm_no = body.alarm_no.to_json()
        for item in body.files:
            if item.name not in self.files:
                self.files[item.name] = FileUpload(item.name, item.size, item.name.replace(number, alarm.warn_uuid))
        self.server.admission.identify(self.connection_id)
        self._ack(msg, r.ACK_OK)

    def _on_info(self, msg: Message, body: AttachmentFileInfo) -> None:
        if self.alarm is None:
            self._refuse(msg, "0x1211 before the attachment list 0x1210", close=True)
            return
        upload = self.files.get(body.name)
        if upload is None:
            self._refuse(msg, f"file {body.name!r} is not in the attachment list", close=False)
            return
        if body.size != upload.size:
            self._refuse_file(upload, f"0x1211 size {body.size} differs from the listed {upload.size}")
            self._refuse(msg, upload.refused or "", close=False)
            return
        for other in self.files.values():  # one buffer per connection: a file left unfinished starts over
            if other is not upload and other.buffered and other.stored is None:
                other.drop()
        upload.file_type = body.file_type
        self._ack(msg, r.ACK_OK)

    async def _on_done(self, msg: Message, body: AttachmentFileDone) -> None:
        upload = self.files.get(body.name)
        if self.alarm is None or upload is None or upload.file_type is None:
            self._refuse(msg, f"0x1212 for {body.name!r}, a file not announced", close=False)
            return
        if upload.refused:
            self._refuse(msg, f"file {body.name}: {upload.refused}", close=False)
            return
        missing = upload.missing
        if missing:
            self.server.counters.att_resend_requests += 1
            self._done_reply(msg, upload, RESULT_RESEND, missing[:MAX_RANGES])
            return
        if await self.server.keep(self, msg, upload):
            self._done_reply(msg, upload, RESULT_COMPLETE, [])
        elif upload.refused:
            self._refuse(msg, f"file {body.name}: {upload.refused}", close=False)
        else:
            self._ack(msg, r.ACK_FAILURE)  # not stored or not on Kafka: the terminal sends 0x1212 again

    def _done_reply(self, msg: Message, upload: FileUpload, result: int, missing: list[tuple[int, int]]) -> None:
        self._reply(msg, ATTACHMENT_FILE_DONE_RESPONSE, AttachmentFileDoneResponse(
            upload.name, upload.file_type or 0, result, tuple(missing)))


def _same_phone(a: str, b: str) -> bool:
    try:
        return canonical_phone(a) == canonical_phone(b)
    except ValueError:
        return False
