"""Terminal media uploads (0x0801): store the file once, forward a record without the bytes, answer 0x8800.

A 0x0801 (usually sub-packaged; ``reassembly.py`` joins it, keeping package bodies only, not frames)
is handled here once complete:

1. Its 36-byte head is parsed (media id DWORD, media type, format, event code, channel BYTEs, then the
   28-byte basic 0x0200 block); the rest is the file.
2. The file is written to the media store (``fleet/media_store.py``) in an executor, never on the event
   loop, under a key made from the AUTHENTICATED connection's device id (``media_key``): nothing the
   terminal sent chooses the folder, so one terminal cannot land a file in another's.
   The connection's later frames wait meanwhile (``_run_locked``), so order is kept.
3. An uplink record (msg_id 2049) goes to ``jt808.uplink.v1``: ``message.body`` = head fields, location,
   ``object_key``, ``size``, ``sha256``, ``file_store_type``; ``raw_hex`` is a frame of the head only
   (``raw_truncated: true``): no data bytes on Kafka.
4. Only once Kafka acknowledged that record the terminal gets its answers, in this order: the last
   package of a multi-package upload its 0x8001 (result 0), as every other package had (terminals wait
   for it before they read the 0x8800, and one that never gets it keeps its sub-package state and loses
   its later frames); then 0x8800 (media id, no retransmit list).
   If Kafka refuses, or the store fails, it gets nothing (0x8001 result 1 for a store failure) and
   uploads again.

A 0x0801 whose 28-byte position block does not decode (all zeros: "invalid BCD time 000000000000", as
terminals without a fix send) still carries a good file: it is stored without a location, the record
says why (``location_error``), the ``media_location_invalid`` counter counts it, and the terminal gets
result 0. Only a head too short to hold the media id and type is a message error.

Missing packages of an upload are asked for with 0x8800 + the missing package ids (not 0x8003), on the
last package with gaps and again on the resend timer; only when package 1 itself is missing (so the
media id is unknown) the generic 0x8003 is used.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import logging
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import orjson

from fleet.media_store import MediaStore, StoredObject, build_media_store, media_key
from gateway import replies as r
from gateway.payloads import utc_now_iso
from protocols.jt808 import (
    BodyError,
    Header,
    JT808Error,
    MediaUpload,
    MediaUploadResponse,
    Message,
    encode_frame,
)
from protocols.jt808.catalogue import MEDIA_UPLOAD, MEDIA_UPLOAD_RESPONSE
from protocols.jt808.jsonify import header_json, to_json_value

if TYPE_CHECKING:
    from gateway.connection import TerminalConnection
    from gateway.reassembly import ResendRequest
    from gateway.server import GatewayContext

log = logging.getLogger("gateway.media")

HEAD_SIZE = 36  # media id, type, format, event, channel, then the 28-byte 0x0200 basic block
MAX_RETRANSMIT_IDS = 0xFF  # the count is a BYTE


def parse_media_upload(body: bytes, version: str) -> MediaUpload:
    """A whole 0x0801 body (the codec's ``MediaUpload``, contract A). Raises BodyError."""
    upload = MediaUpload.decode(body, version)
    if upload.media_type not in (0, 1, 2):
        raise BodyError(f"0x0801 media type {upload.media_type} is not 0 photo, 1 audio or 2 video")
    return upload


def media_reply_body(media_id: int, retransmit_ids: tuple[int, ...] | list[int] = (), version: str = "2013") -> bytes:
    """0x8800: media id, the package ids to send again (at most 255: the count is a BYTE)."""
    ids = tuple(retransmit_ids)[:MAX_RETRANSMIT_IDS]
    return MediaUploadResponse(media_id & 0xFFFFFFFF, ids).encode(version)


def body_bytes(msg: Message) -> bytes:
    """The body bytes of a single-package 0x0801 (raw hex, or re-encoded by its body class)."""
    hex_body = getattr(msg.body, "hex", None)
    if isinstance(hex_body, str):
        return bytes.fromhex(hex_body)
    return bytes(msg.body.encode(msg.header.version))


def media_store(ctx: GatewayContext) -> MediaStore:
    """The context's store (tests set ``ctx.media_store``); built from the settings on first use."""
    store = getattr(ctx, "media_store", None)
    if store is None:
        store = build_media_store()
        ctx.media_store = store  # type: ignore[attr-defined]
    return store


def request_missing(conn: TerminalConnection, request: ResendRequest) -> bool:
    """Ask for an upload's missing packages with 0x8800; False when its media id is unknown yet."""
    head = request.head
    if len(head) < 4:
        return False
    media_id = int.from_bytes(head[:4], "big")
    conn.ctx.counters.subpackage_resend_requests += 1
    conn.send(MEDIA_UPLOAD_RESPONSE, media_reply_body(media_id, request.missing_indexes, conn.version))
    return True


def on_upload(conn: TerminalConnection, header: Header, body: bytes, first_seq: int, ack_seq: int) -> None:
    """A complete 0x0801 of an authenticated connection: store, forward, answer (in order)."""
    identity = conn.identity
    if identity is None:
        return
    if header.phone != identity.phone:
        conn.ctx.counters.phone_mismatch += 1
        conn.log_hostile(logging.WARNING, "conn %s (%s): media upload for phone %s", conn.connection_id,
                         identity.phone, header.phone)
        conn.ack(ack_seq, MEDIA_UPLOAD, r.ACK_FAILURE)
        return
    conn._run_locked(_store_upload(conn, header, body, first_seq, ack_seq), header, ack_seq=ack_seq)


def _put(store: MediaStore, device_id: int, head: MediaUpload, data: bytes, at: datetime) -> StoredObject:
    sha256 = hashlib.sha256(data).hexdigest()
    key = media_key(device_id, head.media_id, sha256, head.media_format, at)
    if store.exists(key):  # the same bytes uploaded again: keep the one file
        return StoredObject(key, len(data), sha256, store.file_store_type)
    return store.put(key, data)


async def _store_upload(conn: TerminalConnection, header: Header, body: bytes, first_seq: int,
                        ack_seq: int) -> None:
    ctx = conn.ctx
    counters = ctx.counters
    identity = conn.identity
    if identity is None:
        return
    try:
        head = parse_media_upload(body, header.version)
    except JT808Error as exc:
        counters.decode_errors += 1
        conn.log_hostile(logging.WARNING, "conn %s (%s): 0x0801 does not decode: %s", conn.connection_id,
                         identity.phone, exc)
        conn.ack(ack_seq, MEDIA_UPLOAD, r.ACK_MESSAGE_ERROR)
        return
    if head.location_error is not None:
        counters.media_location_invalid += 1
        log.warning("conn %s (%s): media %d stored without a location: %s", conn.connection_id,
                    identity.phone, head.media_id, head.location_error)
    received = datetime.now(UTC)
    try:
        stored = await asyncio.get_running_loop().run_in_executor(
            None, _put, media_store(ctx), identity.device_id, head, head.data, received)
    except Exception:
        counters.media_failed += 1
        log.exception("conn %s (%s): media %d not stored", conn.connection_id, identity.phone, head.media_id)
        conn.ack(ack_seq, MEDIA_UPLOAD, r.ACK_FAILURE)
        return
    whole = dataclasses.replace(header, seq=first_seq, body_length=len(body), package_total=None,
                                package_index=None)
    try:
        raw_hex = encode_frame(MEDIA_UPLOAD, bytes(body[:HEAD_SIZE]), phone=header.phone, seq=first_seq,
                               version=conn.version, protocol_version=conn.protocol_version).hex()
    except ValueError:
        raw_hex = bytes(body[:HEAD_SIZE]).hex()
    value = media_uplink_value(conn, whole, head, stored, raw_hex)
    conn.in_flight += 1
    media_id = head.media_id
    last_package_seq = ack_seq if (header.package_total or 1) > 1 else None

    def on_done(delivered: bool) -> None:
        conn.in_flight -= 1
        if conn.closed:
            return
        if delivered:
            counters.media_stored += 1
            if last_package_seq is not None:
                conn.ack(last_package_seq, MEDIA_UPLOAD, r.ACK_OK)
            conn.send(MEDIA_UPLOAD_RESPONSE, media_reply_body(media_id, (), conn.version))
        if conn._pending and not conn._blocked():
            conn._drain()
        else:
            conn._update_reading()

    ctx.pipeline.submit(ctx.uplink_topic, identity.phone.encode(), value, on_done)


def media_body(head: MediaUpload, stored: StoredObject) -> dict[str, Any]:
    body: dict[str, Any] = {
        "media_id": head.media_id,
        "media_type": head.media_type,
        "media_format": head.media_format,
        "event_code": head.event_code,
        "channel": head.channel,
        "location": to_json_value(head.location),
        "object_key": stored.key,
        "size": stored.size,
        "sha256": stored.sha256,
        "file_store_type": stored.file_store_type,
    }
    if head.location_error is not None:
        body["location_error"] = head.location_error
    return body


def media_uplink_value(conn: TerminalConnection, header: Header, head: MediaUpload, stored: StoredObject,
                       raw_hex: str) -> bytes:
    identity = conn.identity
    assert identity is not None
    return orjson.dumps({
        "phone": identity.phone,
        "device_id": identity.device_id,
        "car_id": identity.car_id,
        "enterprise_id": identity.enterprise_id,
        "msg_id": MEDIA_UPLOAD,
        "seq": header.seq,
        "protocol_version": header.version,
        "raw_hex": raw_hex,
        "raw_truncated": True,
        "message": {"header": header_json(header), "body": media_body(head, stored)},
        "connection_id": conn.connection_id,
        "gateway_id": conn.ctx.settings.gateway_id,
        "received_at": utc_now_iso(),
    })
