"""Helpers for the attachment server's integration tests: an active-safety alarm in PostgreSQL, the 0x9208
the streams worker sends for it (through ``streams.alarm_commands``, the real path), a terminal's
recorded 7611 session address, and the server with its PostgreSQL lookup and Kafka producer."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import psycopg

from fleet.media_store import LocalMediaStore
from fleet.settings import AttachmentsSettings
from gateway.attachments import AttachmentServer, PostgresAlarmLookup
from gateway.kafka_io import KafkaRecordSink
from protocols.jt808 import AlarmAttachmentUploadRequest
from streams.alarm_commands import AttachmentRequests
from streams.db import Database

START = datetime(2026, 11, 25, 2, 30, 0, tzinfo=UTC)
ALARM_NO = {"terminal_id": "SIM0001", "time": START.isoformat(), "seq": 1, "attachments": 2}


def insert_alarm(pg_url: str, device_id: int, phone: str, warn_uuid: str) -> tuple[int, int]:
    """A DSM alarm (type 6) with attachments; returns (alarm id, enterprise id)."""
    with psycopg.connect(pg_url, autocommit=True) as conn:
        row = conn.execute(
            "INSERT INTO alarm (enterprise_id, device_id, phone, type, key, level, start_time, end_time, lat, lng,"
            " speed, warn_uuid, attachment_count, alarm_no) SELECT enterprise_id, id, %s, 6, 'dsm_1', 1, %s, %s,"
            " 31.2, 121.5, 40, %s, 2, %s FROM device WHERE id = %s RETURNING id, enterprise_id",
            (phone, START, START, warn_uuid, orjson.dumps(ALARM_NO).decode(), device_id)).fetchone()
    assert row is not None
    return int(row[0]), int(row[1])


def record_session(pg_url: str, device_id: int, address: str = "127.0.0.1") -> None:
    """The device's authenticated 7611 session as the streams worker records it (its source IP)."""
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("UPDATE device SET session_address = %s WHERE id = %s", (address, device_id))


async def ask_for_attachments(pg_url: str, alarm_id: int, warn_uuid: str, device_id: int,
                              port: int) -> AlarmAttachmentUploadRequest:
    """The 0x9208 the streams worker sends the alarm's terminal (``streams.alarm_commands``), decoded."""
    sent: list[dict[str, Any]] = []

    async def send(topic: str, key: bytes, value: bytes) -> None:
        sent.append(orjson.loads(value))

    db = Database(pg_url, name="attachment-requests-it")
    try:
        requests = AttachmentRequests(db, send, "127.0.0.1", port)
        row = {"id": alarm_id, "warn_uuid": warn_uuid, "attachment_count": 2, "device_id": device_id,
               "alarm_no": ALARM_NO}
        assert await requests.request([row], {device_id: datetime.now(UTC)}) == 1
    finally:
        await db.close()
    [downlink] = sent
    assert downlink["msg_id"] == 0x9208
    return AlarmAttachmentUploadRequest.decode(bytes.fromhex(downlink["body_hex"]), "2013")


@asynccontextmanager
async def attachment_server(pg_url: str, kafka_bootstrap: str, port: int, media_root: Path,
                            **settings: Any) -> AsyncIterator[AttachmentServer]:
    lookup = PostgresAlarmLookup(pg_url)
    sink = KafkaRecordSink(kafka_bootstrap, linger_ms=1)
    await lookup.open()
    sink.start()
    server = AttachmentServer(AttachmentsSettings(port=port, host="127.0.0.1", **settings), lookup, sink,
                              LocalMediaStore(media_root))
    await server.start()
    try:
        yield server
    finally:
        await server.stop()
        await sink.stop()
        await lookup.close()
