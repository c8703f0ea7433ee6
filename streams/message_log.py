"""Every frame kept: uplinks and sent downlinks into ``message_log`` (migration 0015).

- ``store_uplinks(db, uplinks)``: called once per batch of the uplinks agent with the batch's parsed
  uplinks (a PayloadError, a value that did not parse, is skipped: it is dead-lettered elsewhere).
- ``store_downlinks(db, records)``: the ``jt808.sent.v1`` values (dicts, JSON bytes or text) of a batch,
  called by the ``sent`` agent. Only ``event: "sent"`` frames are frames a terminal received; failed
  ones are the command's state (downstreamMessage), not a frame.
- ``store_gb_uplinks(db, phones, frames)``: the ``gb32960.uplink.v1`` records of a batch of the GB steps
  (step ``gb_message_log``), each under its device's protocol (migration 0071) and phone (``DevicePhones``).

Rows hold no credential (auth codes, dial-up passwords: starred, ``protocols/jt808/redact.py``) and one
phone form, the canonical one of ``device.phone``, in both directions.

One statement per batch: a binary COPY (like the gps sink), no SQL assembled from data; the statements
and the row shape ``LogRow`` are warehouse/queries/message_log.py. Idempotent: a redelivered record has
the same (device, time, direction, msg id, serial); a batch repeating a kept frame fails the COPY on the
unique index and is written again with INSERT ... ON CONFLICT DO NOTHING, which adds nothing. The log is a
record, not the position path's business: a row the database refuses as data is logged and skipped
(never dead-lettered, never blocking positions); an outage is retried like every write (streams.db).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, date
from typing import Any

import psycopg

from fleet.phones import canonical_phone
from protocols.jt808.catalogue import ALARM_ATTACHMENT_UPLOAD_REQUEST
from protocols.jt808.redact import CREDENTIAL_MSG_IDS, redact_raw_hex
from streams.db import DATA_ERRORS, Database
from streams.messages import PayloadError, RefusedFrame, Uplink, load_json_object, parse_time
from warehouse.message_log import decode_raw, json_text
from warehouse.partitions import DayPartitions
from warehouse.queries.message_log import (
    LogRow,
    copy_data,
    copy_rows_async,
    device_phones_async,
    insert_rows_async,
)

log = logging.getLogger(__name__)

UP, DOWN = 0, 1
TABLE = "message_log"
# What the log shows of a frame it does not keep (a credential in a frame it cannot re-read)
HIDDEN = {"error": "not kept: the frame holds credentials and could not be re-read to mask them"}


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def uplink_rows(uplinks: Iterable[Uplink | PayloadError]) -> list[LogRow]:
    """Pure. Rows of the parsed uplinks; records without a serial or a frame (not from a gateway
    that sends them) are skipped."""
    rows = []
    for u in uplinks:
        if isinstance(u, RefusedFrame):
            row = refused_row(u.record)
            if row is not None:
                rows.append(row)
            continue
        if isinstance(u, PayloadError):
            continue
        seq = _int_or_none(u.seq)
        if seq is None or not u.raw_hex:
            continue
        raw_hex, decoded = u.raw_hex, None if u.message is None else json_text(u.message)
        if u.msg_id in CREDENTIAL_MSG_IDS:  # the log holds no credential (protocols/jt808/redact.py)
            raw_hex = redact_raw_hex(raw_hex)
            shown: dict[str, Any] = decode_raw(raw_hex) if raw_hex else dict(HIDDEN)
            access = (u.message or {}).get("access")
            if isinstance(access, dict):  # what the gateway answered a 0x0100 / 0x0102, and why
                shown["access"] = access
            decoded = json_text(shown)
        rows.append(LogRow(u.received_at, u.device_id, u.car_id, u.enterprise_id, canonical_or_same(u.phone), UP,
                           u.msg_id, seq, raw_hex, u.raw_truncated, decoded, None, u.gateway_id))
    return rows


def refused_row(obj: dict[str, Any]) -> LogRow | None:
    """Pure. The row of a frame the gateway refused (answered result 2 / 3): its bytes (credentials
    starred or not kept), and ``decoded`` = ``{"refused": {result, reason}}``; None without a device."""
    device_id, enterprise_id = _int_or_none(obj.get("device_id")), _int_or_none(obj.get("enterprise_id"))
    msg_id, seq = _int_or_none(obj.get("msg_id")), _int_or_none(obj.get("seq"))
    raw_hex = obj.get("raw_hex")
    if device_id is None or enterprise_id is None or msg_id is None or seq is None or not isinstance(raw_hex, str):
        return None
    try:
        at = parse_time(obj.get("received_at"), "received_at")
    except PayloadError:
        return None
    if msg_id in CREDENTIAL_MSG_IDS:
        raw_hex = redact_raw_hex(raw_hex)
    return LogRow(at, device_id, _int_or_none(obj.get("car_id")), enterprise_id,
                  canonical_or_same(str(obj.get("phone", ""))), UP, msg_id, seq, raw_hex, False,
                  json_text({"refused": obj["refused"]}), None, obj.get("gateway_id"))




def without_alarm_number(raw_hex: str) -> str:
    """Pure. A 0x9208 frame with its one-time alarm number blanked: the message log is readable in the
    console, and only the terminal may know the number (it admits an evidence upload). A frame that does
    not decode as 0x9208 is kept out whole (empty), never logged with a number in it."""
    from dataclasses import replace

    from protocols.jt808 import AlarmAttachmentUploadRequest, JT808Error, decode_frame, encode_frame
    from streams.alarm_commands import REDACTED_NUMBER

    try:
        msg = decode_frame(bytes.fromhex(raw_hex))
        body = msg.body
        if not isinstance(body, AlarmAttachmentUploadRequest):
            return ""
        h = msg.header
        return encode_frame(ALARM_ATTACHMENT_UPLOAD_REQUEST, replace(body, alarm_uuid=REDACTED_NUMBER), phone=h.phone, seq=h.seq,
                            version=h.version, protocol_version=h.protocol_version or 1).hex()
    except (ValueError, JT808Error):
        return ""


def downlink_row(record: Any) -> LogRow | None:
    """Pure. The row of one ``jt808.sent.v1`` value, None when it is not a frame written to a known
    terminal (``event`` other than ``sent``, no device, no serial, not a record)."""
    try:
        obj = record if isinstance(record, dict) else load_json_object(record)
        if obj.get("event") != "sent":
            return None
        device_id, enterprise_id = _int_or_none(obj.get("device_id")), _int_or_none(obj.get("enterprise_id"))
        msg_id, seq = _int_or_none(obj.get("msg_id")), _int_or_none(obj.get("seq"))
        raw_hex = obj.get("raw_hex")
        if device_id is None or enterprise_id is None or msg_id is None or seq is None or not isinstance(raw_hex, str):
            return None
        at = parse_time(obj.get("at"), "at")
    except PayloadError as exc:
        log.warning("message log: sent record skipped: %s", exc)
        return None
    if msg_id == ALARM_ATTACHMENT_UPLOAD_REQUEST:
        raw_hex = without_alarm_number(raw_hex)
    elif msg_id in CREDENTIAL_MSG_IDS:
        raw_hex = redact_raw_hex(raw_hex)
    command_id = obj.get("command_id")
    try:
        command = int(command_id) if command_id is not None else None
    except (TypeError, ValueError):
        command = None
    return LogRow(at, device_id, _int_or_none(obj.get("car_id")), enterprise_id,
                  canonical_or_same(str(obj.get("phone", ""))), DOWN, msg_id, seq, raw_hex, False,
                  json_text(_decoded_downlink(raw_hex) if raw_hex else HIDDEN), command, obj.get("gateway_id"))


GB_STARTS = ("2323", "2424")  # ## / $$: a GB/T 32960 platform command a GB gateway wrote (gateway/gb/downlinks.py)


def _decoded_downlink(raw_hex: str) -> dict[str, Any]:
    """A written frame decoded by its own codec: JT/T 808, or GB/T 32960 for a GB gateway's command."""
    if raw_hex[:4].lower() not in GB_STARTS:
        return decode_raw(raw_hex)
    from protocols.gb32960 import GB32960Error, decode_frame
    from protocols.gb32960.jsonify import to_json

    try:
        return to_json(decode_frame(bytes.fromhex(raw_hex)))
    except (GB32960Error, ValueError) as exc:
        return {"error": f"{type(exc).__name__}: {exc}"}


def canonical_or_same(phone: str) -> str:
    """The phone as ``device.phone`` holds it (no BCD leading zeros), in both directions, so one search
    finds a terminal's uplinks and downlinks; text that is no phone is kept as it is."""
    try:
        return canonical_phone(phone)
    except ValueError:
        return phone


def downlink_rows(records: Iterable[Any]) -> list[LogRow]:
    return [row for row in map(downlink_row, records) if row is not None]


def days_touched(rows: Iterable[LogRow]) -> set[date]:
    return {row.time.astimezone(UTC).date() for row in rows}


_partitions: dict[str, DayPartitions] = {}


def partitions_for(db: Database) -> DayPartitions:
    keeper = _partitions.get(db.url)
    if keeper is None:
        keeper = _partitions[db.url] = DayPartitions(db.url, TABLE)
    return keeper


async def write_rows(db: Database, rows: Sequence[LogRow], *, with_protocol: bool = False) -> int:
    """One statement for the rows (``with_protocol``: rows of GB terminals, whose protocol is written; a JT/T 808
    batch leaves it to the column's default); on a data error, row by row, skipping (and logging) the refused.
    Returns the rows the database refused."""
    if not rows:
        return 0
    await partitions_for(db).ensure(days_touched(rows))

    async def insert(batch: Sequence[LogRow]) -> None:
        async def work(conn: psycopg.AsyncConnection[Any]) -> None:
            await insert_rows_async(conn, batch)

        await db.transact(work)

    async def copy(data: bytes) -> None:
        async def work(conn: psycopg.AsyncConnection[Any]) -> None:
            await copy_rows_async(conn, data, with_protocol=with_protocol)

        await db.transact(work)

    try:
        try:
            await copy(copy_data(rows, with_protocol=with_protocol))
        except psycopg.errors.UniqueViolation:  # a frame already kept (replay): INSERT skips it
            await insert(rows)
        return 0
    except DATA_ERRORS as exc:
        log.info("message log: batch refused (%s); writing row by row", exc)
    refused = 0
    for row in rows:
        try:
            await insert([row])
        except DATA_ERRORS as exc:
            refused += 1
            log.warning("message log: row of device %s msg 0x%04x refused: %s", row.device_id, row.msg_id, exc)
    return refused


def gb_rows(frames: Iterable[Any], phones: dict[int, str]) -> list[LogRow]:
    """Pure. Rows of a batch of parsed ``gb32960.uplink.v1`` records (``streams.gb_frames.GbFrame``; a
    PayloadError is skipped: dead-lettered elsewhere): the frame as received and the codec's JSON, under the
    device's ``protocol`` (migration 0071) and its phone (``phones``; "" for a device without one). A GB frame has
    no serial: ``seq`` is its collection time in seconds since 1970, 0 without one (the frames of one read share
    their receive time)."""
    rows = []
    for frame in frames:
        if isinstance(frame, PayloadError):
            continue
        u = frame.uplink
        seq = int(frame.collected_at.timestamp()) if frame.collected_at is not None else 0
        rows.append(LogRow(frame.received_at, u.device_id, u.car_id, u.enterprise_id, phones.get(u.device_id, ""),
                           UP, u.command, seq, u.raw_hex, False, json_text(u.message), None, u.gateway_id,
                           u.protocol))
    return rows


class DevicePhones:
    """Device id -> ``device.phone`` for the log rows of GB terminals (their records carry a VIN, not a phone):
    read a batch's unknown devices at once, each kept ``ttl_s`` (a phone edited in the console shows after it)."""

    def __init__(self, ttl_s: float = 300.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.ttl_s, self.clock = ttl_s, clock
        self._known: dict[int, tuple[float, str]] = {}

    async def of(self, db: Database, device_ids: Iterable[int]) -> dict[int, str]:
        now = self.clock()
        wanted = set(device_ids)
        stale = [d for d in wanted if (d not in self._known or now - self._known[d][0] > self.ttl_s)]
        if stale:
            async def work(conn: psycopg.AsyncConnection[Any]) -> dict[int, str]:
                return await device_phones_async(conn, stale)

            found = await db.transact(work)
            for device_id in stale:
                self._known[device_id] = (now, canonical_or_same(found.get(device_id, "")))
        return {d: self._known[d][1] for d in wanted}


async def store_gb_uplinks(db: Database, phones: DevicePhones, frames: Sequence[Any]) -> None:
    """Every frame of a ``gb32960.uplink.v1`` batch into message_log, one statement (see the module docstring)."""
    kept = [f for f in frames if not isinstance(f, PayloadError)]
    if kept:
        await write_rows(db, gb_rows(kept, await phones.of(db, (f.uplink.device_id for f in kept))),
                         with_protocol=True)


async def store_uplinks(db: Database, uplinks: Sequence[Uplink | PayloadError]) -> None:
    """Every uplink of a batch into message_log, one statement (see the module docstring)."""
    await write_rows(db, uplink_rows(uplinks))


async def store_downlinks(db: Database, records: Sequence[Any]) -> None:
    """The frames of ``jt808.sent.v1`` values (``event: "sent"``) into message_log, one statement."""
    await write_rows(db, downlink_rows(records))
