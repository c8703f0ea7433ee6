"""The message log's writes (``message_log``, migration 0015): every frame kept, uplinks and sent
downlinks, for the streams' message-log writer (streams/message_log.py builds the rows; redecoding the
stored frames is warehouse/message_log.py).

One statement per batch: a binary COPY, no SQL assembled from data. Idempotent: a redelivered record has
the same (device, time, direction, msg id, serial); a batch repeating a kept frame fails the COPY on the
unique index (``copy_rows_async`` raises psycopg.errors.UniqueViolation) and is written again with
``insert_rows_async`` (``unnest`` of one array per column) ... ON CONFLICT DO NOTHING, which adds nothing.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, NamedTuple

import psycopg

from warehouse.queries.arrays import BoolArray, IntArray, SqlArray, TextArray, TimeArray

JT808 = "jt808"


class LogRow(NamedTuple):
    """One message_log row, in the table's column order (the COPY's and INSERT's)."""

    time: datetime
    device_id: int
    car_id: int | None
    enterprise_id: int
    phone: str
    direction: int
    msg_id: int
    seq: int
    raw_hex: str
    raw_truncated: bool
    decoded: str | None  # JSON text
    command_id: int | None
    gateway_id: str | None
    protocol: str = JT808  # the frame's family (migration 0071): jt808, or a GB terminal's device.protocol


INSERT = """
INSERT INTO message_log (time, device_id, car_id, enterprise_id, phone, direction, msg_id, seq, raw_hex,
                         raw_truncated, decoded, command_id, gateway_id, protocol)
SELECT time, device_id, car_id, enterprise_id, phone, direction, msg_id, seq, raw_hex, raw_truncated,
       decoded::jsonb, command_id, gateway_id, protocol
FROM unnest(%s::timestamptz[], %s::bigint[], %s::bigint[], %s::bigint[], %s::text[], %s::smallint[],
            %s::int[], %s::int[], %s::text[], %s::bool[], %s::text[], %s::bigint[], %s::text[], %s::text[])
  AS t(time, device_id, car_id, enterprise_id, phone, direction, msg_id, seq, raw_hex, raw_truncated,
       decoded, command_id, gateway_id, protocol)
ON CONFLICT (device_id, time, direction, msg_id, seq) DO NOTHING
"""


# Binary COPY: the normal path (no SQL text, no array literals). A batch repeating a stored frame (a replay
# after a crash) fails with a unique violation and is written again with INSERT, which skips it. A JT/T 808
# batch leaves protocol to its default; a GB batch (``with_protocol``) writes it.
_COLUMNS = ("time, device_id, car_id, enterprise_id, phone, direction, msg_id, seq, raw_hex, raw_truncated, decoded,"
            " command_id, gateway_id")
COPY = f"COPY message_log ({_COLUMNS}) FROM STDIN (FORMAT BINARY)"
COPY_WITH_PROTOCOL = f"COPY message_log ({_COLUMNS}, protocol) FROM STDIN (FORMAT BINARY)"

_SIGNATURE = b"PGCOPY\n\xff\r\n\x00" + bytes(8)
_TRAILER = b"\xff\xff"
_NULL = b"\xff\xff\xff\xff"
_PG_EPOCH = datetime(2000, 1, 1, tzinfo=UTC)
_US = timedelta(microseconds=1)
_HEAD = struct.Struct(">hiqiq")  # the field count (13 or 14); time, device_id
_INT8 = struct.Struct(">iq")
_IDS = struct.Struct(">iqi")  # enterprise_id, then the phone's length
_NUMBERS = struct.Struct(">ihiiiii")  # direction, msg_id, seq, then the raw frame's length
_LENGTH = struct.Struct(">i")
_TRUE, _FALSE = b"\x00\x00\x00\x01\x01", b"\x00\x00\x00\x01\x00"


def copy_data(rows: Sequence[LogRow], *, with_protocol: bool = False) -> bytes:
    """The rows as one binary COPY stream for COPY (``with_protocol``: COPY_WITH_PROTOCOL's, each row's protocol
    its last field). Raises psycopg.DataError for a value out of its column's range (what INSERT would have
    refused)."""
    parts = [_SIGNATURE]
    append = parts.append
    at, at_us = None, 0
    fields = 14 if with_protocol else 13
    try:
        for row in rows:
            if row.time is not at:
                at, at_us = row.time, (row.time - _PG_EPOCH) // _US
            phone, raw = row.phone.encode(), row.raw_hex.encode()
            append(_HEAD.pack(fields, 8, at_us, 8, row.device_id))
            append(_NULL if row.car_id is None else _INT8.pack(8, row.car_id))
            append(_IDS.pack(8, row.enterprise_id, len(phone)))
            append(phone)
            append(_NUMBERS.pack(2, row.direction, 4, row.msg_id, 4, row.seq, len(raw)))
            append(raw)
            append(_TRUE if row.raw_truncated else _FALSE)
            if row.decoded is None:
                append(_NULL)
            else:
                decoded = row.decoded.encode()
                append(_LENGTH.pack(len(decoded) + 1))
                append(b"\x01")  # jsonb binary format version
                append(decoded)
            append(_NULL if row.command_id is None else _INT8.pack(8, row.command_id))
            if row.gateway_id is None:
                append(_NULL)
            else:
                gateway = row.gateway_id.encode()
                append(_LENGTH.pack(len(gateway)))
                append(gateway)
            if with_protocol:
                protocol = row.protocol.encode()
                append(_LENGTH.pack(len(protocol)))
                append(protocol)
    except (struct.error, OverflowError) as exc:
        raise psycopg.DataError(f"message_log row out of range: {exc}") from exc
    append(_TRAILER)
    return b"".join(parts)


def column_arrays(rows: Sequence[LogRow]) -> list[SqlArray]:
    """The parameters of INSERT, one array per column."""
    cols = list(zip(*rows, strict=True)) if rows else [()] * len(LogRow._fields)
    return [TimeArray(cols[0]), IntArray(cols[1]), IntArray(cols[2]), IntArray(cols[3]), TextArray(cols[4]),
            IntArray(cols[5]), IntArray(cols[6]), IntArray(cols[7]), TextArray(cols[8]), BoolArray(cols[9]),
            TextArray(cols[10]), IntArray(cols[11]), TextArray(cols[12]), TextArray(cols[13])]


async def copy_rows_async(conn: psycopg.AsyncConnection[Any], data: bytes, *, with_protocol: bool = False) -> None:
    """``data`` (``copy_data``, the same ``with_protocol``) into message_log by binary COPY. Raises
    psycopg.errors.UniqueViolation when a frame is kept already (write the rows again with ``insert_rows_async``)."""
    async with conn.cursor().copy(COPY_WITH_PROTOCOL if with_protocol else COPY) as copier:
        await copier.write(data)


async def device_phones_async(conn: psycopg.AsyncConnection[Any], device_ids: Sequence[int]) -> dict[int, str]:
    """The devices' phones (``device.phone``), for the log rows of terminals whose frames do not carry one (GB)."""
    cur = await conn.execute("SELECT id, phone FROM device WHERE id = ANY(%s)", (list(device_ids),))
    return {device_id: phone for device_id, phone in await cur.fetchall()}


async def insert_rows_async(conn: psycopg.AsyncConnection[Any], rows: Sequence[LogRow]) -> None:
    """The rows into message_log, skipping the frames kept already."""
    await conn.execute(INSERT, column_arrays(rows))
