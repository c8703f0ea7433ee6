"""The attachment server on real PostgreSQL and Kafka: a simulated terminal uploads an
active-safety alarm's two files over TCP with a chunk left out; the server asks for exactly that range,
both files land in the media store, their 0x1212 records are on jt808.uplink.v1, and the streams step
turns them into device_upload_file rows tied to the alarm, which gets atted = true (twice delivered: one
row each). A second terminal that stalls mid-upload does not hold up the first, and a number that no
0x9208 carried is refused. The numbers come from the streams worker's 0x9208 (attachment_support)."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import secrets
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg
import pytest

from fleet.media_store import LocalMediaStore
from fleet.settings import AttachmentsSettings
from fleet.topics import JT808_UPLINK
from gateway.attachments import AttachmentServer, PostgresAlarmLookup
from gateway.kafka_io import KafkaRecordSink
from protocols.jt808 import (
    AlarmAttachmentList,
    AlarmAttachmentUploadRequest,
    AlarmNumber,
    AttachmentFile,
    PlatformResponse,
)
from simulator.attachments import AttachmentRefused, upload
from streams.alarm_files import store_files
from streams.db import Database
from streams.messages import parse_uplink
from tests.integration.gateway.attachment_support import ask_for_attachments, insert_alarm, record_session
from tests.integration.gateway.support import TerminalClient, insert_devices, tail, unique_phones

pytestmark = pytest.mark.timeout(90)

START = datetime(2026, 11, 25, 2, 30, 0, tzinfo=UTC)


def test_two_files_with_a_gap_are_resent_stored_recorded_and_listed_while_a_stalled_upload_waits(
        pg_url: str, kafka_bootstrap: str, free_port: Callable[[], int], tmp_path: Path) -> None:
    [phone] = unique_phones(1)
    canonical = phone.lstrip("0")
    device_id = insert_devices(pg_url, [canonical])[canonical]
    record_session(pg_url, device_id)
    warn_uuid = secrets.token_hex(16)
    alarm_id, enterprise_id = insert_alarm(pg_url, device_id, canonical, warn_uuid)
    photo = b"\xff\xd8\xff\xe0" + os.urandom(20_000) + b"\xff\xd9"
    clip = os.urandom(9_000)
    names = [f"00_65_6502_1_{warn_uuid}.jpg", f"02_65_6502_1_{warn_uuid}.mp4"]
    files = [(names[0], 0, photo), (names[1], 2, clip)]
    store = LocalMediaStore(tmp_path / "media")
    alarm_no = AlarmNumber("SIM0001", START, 1, 2)

    async def main() -> tuple[Any, list[dict[str, Any]], int]:
        port = free_port()
        settings = AttachmentsSettings(port=port, host="127.0.0.1", stall_timeout_s=3.0)
        lookup = PostgresAlarmLookup(pg_url)
        sink = KafkaRecordSink(kafka_bootstrap, linger_ms=1)
        await lookup.open()
        sink.start()
        server = AttachmentServer(settings, lookup, sink, store)
        await server.start()
        request = await ask_for_attachments(pg_url, alarm_id, warn_uuid, device_id, port)
        try:
            async with tail(kafka_bootstrap, JT808_UPLINK) as uplinks:
                stalled = await TerminalClient.connect(port, phone)  # lists its files, then sends nothing
                await stalled.send(0x1210, AlarmAttachmentList("SIM0001", alarm_no, request.alarm_uuid, 0,
                                                               (AttachmentFile("stuck.jpg", 5000),)))
                listed = (await stalled.receive()).body
                assert isinstance(listed, PlatformResponse) and listed.result == 0
                result = await upload("127.0.0.1", port, request, files, "SIM0001", drop_chunk=1, phone=phone,
                                      chunk_bytes=8192)
                records = await uplinks.records(key=canonical, min_count=2)
                with pytest.raises(AttachmentRefused):  # a number no 0x9208 carried: refused
                    await upload("127.0.0.1", port, AlarmAttachmentUploadRequest(
                        "127.0.0.1", port, 0, alarm_no, secrets.token_hex(16)), files, "SIM0001", phone=phone)
                with pytest.raises(ConnectionError):  # the stalled terminal is closed after stall_timeout_s
                    await stalled.receive(10.0)
                return result, records, server.counters.att_stalled
        finally:
            await server.stop()
            await sink.stop()
            await lookup.close()

    result, records, stalled_count = asyncio.run(main())
    assert result.files_done == names
    assert result.dropped == [(names[0], 8192, 8192)]
    assert result.resend_requests == [(names[0], ((8192, 8192),))]
    assert stalled_count == 1
    by_name = {r["message"]["body"]["name"]: r for r in records}
    assert set(by_name) == set(names)
    for name, _, data in files:
        body = by_name[name]["message"]["body"]
        assert by_name[name]["msg_id"] == 0x1212 and by_name[name]["device_id"] == device_id
        assert body["object_key"] == f"/alarm/{enterprise_id}/20261125/{warn_uuid}/{name}"
        assert body["sha256"] == hashlib.sha256(data).hexdigest() and body["alarm_uuid"] == warn_uuid
        assert body["alarm_no"]["terminal_id"] == "SIM0001"
        with store.open(body["object_key"]) as f:
            assert f.read() == data

    async def streams_step() -> tuple[int, int]:
        db = Database(pg_url, name="alarm-files-it")
        try:
            uplinks = [parse_uplink(json.dumps(r).encode()) for r in records]
            return await store_files(db, uplinks), await store_files(db, uplinks)  # redelivered: same rows
        finally:
            await db.close()

    assert asyncio.run(streams_step()) == (2, 0)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT file_name, alarm_id, warn_uuid, resource_type, media_type, event_code, biz_id, size, enterprise_id"
            " FROM device_upload_file_view WHERE device_id = %s ORDER BY file_name", (device_id,)).fetchall()
        atted = conn.execute("SELECT atted FROM alarm WHERE id = %s", (alarm_id,)).fetchone()
    assert rows == [
        (names[0], alarm_id, warn_uuid, 1, 0, 65, 65, len(photo), enterprise_id),
        (names[1], alarm_id, warn_uuid, 2, 2, 65, 65, len(clip), enterprise_id),
    ]
    assert atted == (True,)


def test_the_streams_worker_lists_an_uploaded_attachment_and_marks_its_alarm(
        pg_url: str, stack_env: dict[str, str], kafka_bootstrap: str, free_port: Callable[[], int],
        tmp_path: Path) -> None:
    """Through the real worker (``streams/uplinks.py`` step 4c): the record the server produced becomes the
    device_upload_file row and the alarm's ``atted``."""
    from tests.integration.streams.conftest import start_worker
    from tests.integration.streams.support import query, wait_for

    [phone] = unique_phones(1)
    canonical = phone.lstrip("0")
    device_id = insert_devices(pg_url, [canonical])[canonical]
    record_session(pg_url, device_id)
    warn_uuid = secrets.token_hex(16)
    alarm_id, _ = insert_alarm(pg_url, device_id, canonical, warn_uuid)
    name = f"00_65_6502_1_{warn_uuid}.jpg"
    worker = start_worker(stack_env, kafka_bootstrap, tmp_path, batch_window_s=0.1)

    async def main() -> None:
        port = free_port()
        lookup = PostgresAlarmLookup(pg_url)
        sink = KafkaRecordSink(kafka_bootstrap, linger_ms=1)
        await lookup.open()
        sink.start()
        server = AttachmentServer(AttachmentsSettings(port=port, host="127.0.0.1"), lookup, sink,
                                  LocalMediaStore(tmp_path / "media"))
        await server.start()
        try:
            asked = await ask_for_attachments(pg_url, alarm_id, warn_uuid, device_id, port)
            result = await upload("127.0.0.1", port, asked, [(name, 0, b"\xff\xd8jpeg")], "SIM0001", phone=phone)
            assert result.files_done == [name]
        finally:
            await server.stop()
            await sink.stop()
            await lookup.close()

    try:
        asyncio.run(main())
        rows = wait_for(lambda: query(pg_url, "SELECT alarm_id, warn_uuid, file_name FROM device_upload_file"
                                              " WHERE device_id = %s", (device_id,)), 30, "the attachment row", worker)
        assert rows == [(alarm_id, warn_uuid, name)]
        wait_for(lambda: query(pg_url, "SELECT 1 FROM alarm WHERE id = %s AND atted", (alarm_id,)), 30,
                 "alarm.atted", worker)
    finally:
        worker.stop()
