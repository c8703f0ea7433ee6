"""Uploading media as a real terminal does: 0x0801 sub-packaged (``package_bytes`` of body per package,
consecutive serials, header sub-package bit), then wait for the platform's 0x8800; resend the
packages it lists (or those a 0x8003 lists) until it answers with none. Uploads go one at a time;
positions keep flowing in between (the uploader yields after every package)."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Protocol

from protocols.jt808 import MediaUpload, MediaUploadResponse, ResendSubpackagesRequest, encode_subpackages
from protocols.jt808.catalogue import MEDIA_UPLOAD
from simulator.commands import StoredMedia

log = logging.getLogger("simulator.uploads")



class UploadLink(Protocol):
    """What the uploader needs from its terminal's connection."""

    def allocate_seqs(self, count: int) -> int: ...  # the first of ``count`` consecutive serials

    def write(self, frame: bytes) -> None: ...  # raises ConnectionError when not connected

    async def drain(self) -> None: ...


@dataclass
class _Upload:
    media_id: int
    first_seq: int
    frames: list[bytes]
    answer: asyncio.Future[MediaUploadResponse]


@dataclass
class MediaUploader:
    phone: str  # as written in the header (2019: 20 digits)
    version: str
    package_bytes: int = 900
    reply_timeout_s: float = 10.0
    max_rounds: int = 5
    uploaded: int = 0
    failed: int = 0
    resent_packages: int = 0
    _current: _Upload | None = field(default=None, init=False)

    def payload(self, media: StoredMedia) -> bytes:
        return MediaUpload(media.media_id, media.media_type, media.media_format, media.event_code, media.channel,
                           media.location, media.data).encode(self.version)

    def frames_for(self, payload: bytes, first_seq: int) -> list[bytes]:
        return encode_subpackages(MEDIA_UPLOAD, payload, phone=self.phone, seq=first_seq, version=self.version,
                                  max_body=self.package_bytes)

    async def upload(self, link: UploadLink, media: StoredMedia) -> bool:
        """Send ``media`` and see it through to an 0x8800 without retransmit ids. False when the
        platform stops answering (after ``reply_timeout_s``) or still misses packages after
        ``max_rounds`` answers. Raises ConnectionError when the connection drops."""
        payload = self.payload(media)
        first_seq = link.allocate_seqs(max(1, -(-len(payload) // self.package_bytes)))
        frames = self.frames_for(payload, first_seq)
        loop = asyncio.get_running_loop()
        upload = _Upload(media.media_id, first_seq, frames, loop.create_future())
        self._current = upload
        try:
            await self._send(link, frames)
            for _ in range(self.max_rounds):
                try:
                    async with asyncio.timeout(self.reply_timeout_s):
                        answer = await asyncio.shield(upload.answer)
                except TimeoutError:
                    log.info("terminal %s: no 0x8800 for media %d", self.phone, media.media_id)
                    self.failed += 1
                    return False
                if not answer.retransmit_ids:
                    self.uploaded += 1
                    return True
                upload.answer = loop.create_future()
                wanted = [frames[i - 1] for i in answer.retransmit_ids if 1 <= i <= len(frames)]
                self.resent_packages += len(wanted)
                await self._send(link, wanted)
            self.failed += 1
            return False
        finally:
            self._current = None

    async def _send(self, link: UploadLink, frames: list[bytes]) -> None:
        for frame in frames:
            link.write(frame)
            await link.drain()
            await asyncio.sleep(0)  # let position reports and replies go out between packages

    def on_media_response(self, body: MediaUploadResponse) -> bool:
        """An 0x8800 arrived: True when it answers the upload in progress."""
        current = self._current
        if current is None or current.media_id != body.media_id or current.answer.done():
            return False
        current.answer.set_result(body)
        return True

    def on_resend_request(self, link: UploadLink, body: ResendSubpackagesRequest) -> bool:
        """An 0x8003 for the upload in progress: resend those packages (without waiting)."""
        current = self._current
        if current is None or body.original_seq != current.first_seq:
            return False
        for index in body.package_ids:
            if 1 <= index <= len(current.frames):
                link.write(current.frames[index - 1])
                self.resent_packages += 1
        return True
