"""A terminal over TCP uploads a sub-packaged photo (0x0801) with a gap to the gateway on the real Kafka
and PostgreSQL: it is asked for the missing package with 0x8800, resends it, gets the final 0x8800; the
stored file's bytes are the photo's, the Kafka record carries no bytes, and the streams step turns that
record into a device_upload_file row and pushes 9 and 10."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg
import pytest

from fleet.media_store import LocalMediaStore
from fleet.topics import CONSOLE_EVENTS, JT808_UPLINK
from protocols.jt808 import (
    Authentication,
    LocationReport,
    MediaUpload,
    MediaUploadResponse,
    PlatformResponse,
    encode_subpackages,
)
from streams.db import Database
from streams.directory import Directory
from streams.media import store_uploads
from streams.messages import parse_uplink
from tests.integration.gateway.support import (
    TerminalClient,
    insert_devices,
    running_gateway,
    tail,
    unique_phones,
)

pytestmark = pytest.mark.timeout(90)

FIX_AT = datetime(2026, 11, 25, 1, 0, 0, tzinfo=UTC)


async def _until_media_reply(client: TerminalClient) -> tuple[MediaUploadResponse, list[int]]:
    """The next 0x8800, and the results of the 0x8001 acks before it."""
    acks = []
    while True:
        reply = await client.receive(10.0)
        if isinstance(reply.body, MediaUploadResponse):
            return reply.body, acks
        assert isinstance(reply.body, PlatformResponse), reply
        acks.append(reply.body.result)


def test_a_subpackaged_photo_with_a_gap_is_requested_resent_stored_and_listed(
        pg_url: str, kafka_bootstrap: str, free_port: Callable[[], int], tmp_path: Path) -> None:
    [phone] = unique_phones(1)
    canonical = phone.lstrip("0")  # device.phone holds the canonical form, without the BCD's leading zeros
    device_id = insert_devices(pg_url, [canonical], auth_code="MEDIA1")[canonical]
    photo = b"\xff\xd8\xff\xe0" + os.urandom(300_000) + b"\xff\xd9"
    location = LocationReport(0, 3, 31.23, 121.47, 12, 30.0, 180, FIX_AT)
    packages = encode_subpackages(0x0801, MediaUpload(4242, 0, 0, 0, 1, location, photo), phone=phone,
                                  seq=100, max_body=1000)
    assert len(packages) > 300
    store = LocalMediaStore(tmp_path / "media")

    async def main() -> dict[str, Any]:
        port = free_port()
        async with running_gateway(pg_url, kafka_bootstrap, port, max_frames_per_s=100_000) as server, \
                tail(kafka_bootstrap, JT808_UPLINK) as uplinks:
            assert server.ctx is not None
            server.ctx.media_store = store  # type: ignore[attr-defined]
            client = await TerminalClient.connect(port, phone)
            await client.send(0x0102, Authentication("MEDIA1"))
            ack = await client.receive()
            assert isinstance(ack.body, PlatformResponse) and ack.body.result == 0
            for index, package in enumerate(packages, start=1):
                if index not in (2, 77):
                    client.writer.write(package)
            await client.writer.drain()
            request, acks = await _until_media_reply(client)
            assert request == MediaUploadResponse(4242, (2, 77))
            assert acks == [0] * (len(packages) - 2)
            client.writer.write(packages[1] + packages[76])
            await client.writer.drain()
            final, acks = await _until_media_reply(client)
            assert final == MediaUploadResponse(4242, ())
            # package 2, then package 77 (it completed the upload): 0x8001 once Kafka has the record, then 0x8800
            assert acks == [0, 0]
            [record] = await uplinks.records(key=phone)
            await client.close()
            return record

    record = asyncio.run(main())
    body = record["message"]["body"]
    assert record["msg_id"] == 0x0801 and record["raw_truncated"] is True and len(record["raw_hex"]) < 200
    assert body["sha256"] == hashlib.sha256(photo).hexdigest() and body["size"] == len(photo)
    assert body["object_key"].startswith(f"/{device_id}/")
    with store.open(body["object_key"]) as f:
        assert f.read() == photo

    sent: list[dict[str, Any]] = []

    async def send(topic: str, key: bytes | None, value: bytes) -> None:
        assert topic == CONSOLE_EVENTS
        sent.append(json.loads(value))

    async def streams_step() -> tuple[int, int]:
        db = Database(pg_url, name="media-it")
        try:
            uplink = parse_uplink(json.dumps(record).encode())
            first = await store_uploads(db, Directory(db), send, [uplink])
            again = await store_uploads(db, Directory(db), send, [uplink])  # redelivered: same row
            return first, again
        finally:
            await db.close()

    assert asyncio.run(streams_step()) == (1, 0)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        row = conn.execute("SELECT id, object_key, media_type, resource_type, event_code, channel, size, lat, lng "
                           "FROM device_upload_file WHERE device_id = %s", (device_id,)).fetchall()
    [(row_id, object_key, media_type, resource_type, event_code, channel, size, lat, lng)] = row
    assert (object_key, media_type, resource_type, event_code, channel, size) == (
        body["object_key"], 0, 1, 0, 1, len(photo))
    assert (round(lat, 2), round(lng, 2)) == (31.23, 121.47)
    pushes = {event["push"]["type"]: event["push"]["data"] for event in sent}
    assert set(pushes) == {9, 10}
    assert pushes[9]["_id"] == row_id and pushes[9]["objectKey"] == object_key and pushes[9]["bizType"] == 0
    assert pushes[9]["mediaType"] == 0 and pushes[9]["fileStoreType"] == 1 and pushes[9]["deviceId"] == device_id
    assert pushes[10]["mediaId"] == 4242 and pushes[10]["result"] == 0
