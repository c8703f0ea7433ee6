"""Uplinks step "media": a 0x0801 record becomes one device_upload_file row and pushes 9 and 10, once."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from streams.media import store_uploads, upload_row
from streams.messages import PayloadError, parse_uplink

RECORD = {
    "phone": "013912345602", "device_id": 7, "car_id": 70, "enterprise_id": 3, "msg_id": 2049, "seq": 100,
    "protocol_version": "2013", "raw_hex": "7e08017e", "raw_truncated": True,
    "message": {"header": {"msg_id": 2049}, "body": {
        "media_id": 42, "media_type": 2, "media_format": 4, "event_code": 9, "channel": 3,
        "location": {"lat": 31.2, "lng": 121.4, "fix_at": "2026-11-25T01:00:00+00:00"},
        "object_key": "/7/20261125/42-abc.wmv", "size": 1234, "sha256": "ab" * 32, "file_store_type": 1}},
    "connection_id": "gw-1-1", "gateway_id": "gw-1", "received_at": "2026-11-25T01:00:05+00:00",
}


class FakeConn:
    def __init__(self, db: FakeDb) -> None:
        self.db = db

    async def execute(self, query: str, params: dict[str, Any]) -> FakeConn:
        self.db.params.append(params)
        return self

    async def fetchone(self) -> tuple[Any, ...] | None:
        key = (self.db.params[-1]["device_id"], self.db.params[-1]["media_id"], self.db.params[-1]["sha256"])
        if key in self.db.rows:
            return None  # ON CONFLICT DO NOTHING
        self.db.rows.add(key)
        return (500 + len(self.db.rows), "终端7", "粤B12345", self.db.requested_by)


class FakeDb:
    def __init__(self) -> None:
        self.rows: set[tuple[Any, ...]] = set()
        self.params: list[dict[str, Any]] = []
        self.requested_by: int | None = None

    async def transact(self, work: Any) -> Any:
        return await work(FakeConn(self))


class Directory:
    async def enterprise_path(self, enterprise_id: int) -> str:
        return f"/1/{enterprise_id}/"


def test_a_record_maps_to_its_row() -> None:
    row = upload_row(parse_uplink(json.dumps(RECORD)))
    assert (row["object_key"], row["media_type"], row["resource_type"], row["event_code"], row["channel"]) == (
        "/7/20261125/42-abc.wmv", 2, 2, 9, 3)
    assert (row["lat"], row["lng"], row["fix_time"].isoformat()) == (31.2, 121.4, "2026-11-25T01:00:00+00:00")
    assert (row["enterprise_id"], row["device_id"], row["car_id"], row["size"]) == (3, 7, 70, 1234)


def test_a_record_without_its_media_fields_is_refused() -> None:
    broken = {**RECORD, "message": {"body": {"media_id": 1}}}
    with pytest.raises(PayloadError):
        upload_row(parse_uplink(json.dumps(broken)))


def test_a_new_file_pushes_9_and_10_once_and_other_uplinks_are_ignored() -> None:
    db, sent = FakeDb(), []

    async def send(topic: str, key: bytes | None, value: bytes) -> None:
        sent.append(json.loads(value))

    position = {**RECORD, "msg_id": 512}
    uplinks = [parse_uplink(json.dumps(RECORD)), parse_uplink(json.dumps(position)), PayloadError("bad")]
    assert asyncio.run(store_uploads(db, Directory(), send, uplinks)) == 1  # type: ignore[arg-type]
    assert asyncio.run(store_uploads(db, Directory(), send, uplinks[:1])) == 0  # type: ignore[arg-type]
    assert len(db.params) == 2
    assert [(e["enterprise_path"], e["push"]["type"]) for e in sent] == [("/1/3/", 9), ("/1/3/", 10)]
    uploaded, result = sent[0]["push"]["data"], sent[1]["push"]["data"]
    assert uploaded == {"_id": 501, "plateNumber": "粤B12345", "deviceName": "终端7", "mediaType": 2,
                        "objectKey": "/7/20261125/42-abc.wmv", "fileStoreType": 1, "bizType": 9, "deviceId": 7,
                        "carId": 70, "time": "2026-11-25T01:00:05Z"}
    assert result == {"_id": 501, "deviceId": 7, "carId": 70, "plateNumber": "粤B12345", "mediaId": 42,
                      "result": 0, "time": "2026-11-25T01:00:05Z"}


def test_a_file_a_user_asked_for_is_pushed_to_that_user_only() -> None:
    db, sent = FakeDb(), []
    db.requested_by = 12  # the SQL found the photo command this upload answers

    async def send(topic: str, key: bytes | None, value: bytes) -> None:
        sent.append(json.loads(value))

    asked = {**RECORD, "message": {**RECORD["message"], "body": {**RECORD["message"]["body"], "event_code": 0}}}
    assert asyncio.run(store_uploads(db, Directory(), send, [parse_uplink(json.dumps(asked))])) == 1  # type: ignore[arg-type]
    assert [(e["push"]["type"], e["user_id"]) for e in sent] == [(9, 12), (10, 12)]
    assert db.params[0]["request_msg_ids"] == [0x8801, 0x8803, 0x8805]


def test_a_file_the_terminal_sent_on_its_own_goes_to_the_enterprise() -> None:
    db, sent = FakeDb(), []

    async def send(topic: str, key: bytes | None, value: bytes) -> None:
        sent.append(json.loads(value))

    asyncio.run(store_uploads(db, Directory(), send, [parse_uplink(json.dumps(RECORD))]))  # type: ignore[arg-type]
    assert all("user_id" not in e for e in sent)
