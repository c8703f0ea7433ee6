"""0x0801 media uploads in the gateway: reassembly (gaps, duplicates, order, oversize), the file in the
store, a Kafka record without the bytes, 0x8800 only after Kafka, and no file in another terminal's folder."""

import asyncio
import hashlib
import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from fleet.media_store import LocalMediaStore
from fleet.topics import JT808_UPLINK
from protocols.jt808 import (
    LocationReport,
    MediaUpload,
    MediaUploadResponse,
    PlatformResponse,
    ResendSubpackagesRequest,
    encode_subpackages,
)
from tests.unit.gateway.test_connection import login
from tests.unit.gateway.twins import PHONE, Harness, run, settle

FIX_AT = datetime(2026, 11, 25, 1, 0, 0, tzinfo=UTC)
OTHER_PHONE = "013800000002"


def upload_packages(data: bytes, *, media_id: int = 7, first_seq: int = 500, max_body: int = 1000,
                    phone: str = PHONE, media_type: int = 0) -> list[bytes]:
    location = LocationReport(0, 3, 39.9, 116.4, 50, 42.5, 90, FIX_AT)
    body = MediaUpload(media_id, media_type, 0, 1, 2, location, data)
    return encode_subpackages(0x0801, body, phone=phone, seq=first_seq, max_body=max_body)


async def until(condition: Callable[[], bool], timeout_s: float = 5.0) -> None:
    """Wait for what the test expects (the file is written in an executor thread)."""
    deadline = asyncio.get_running_loop().time() + timeout_s
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "condition not met in time"
        await asyncio.sleep(0.005)


def use_store(h: Harness, root: Path) -> LocalMediaStore:
    store = LocalMediaStore(root)
    assert h.server.ctx is not None
    h.server.ctx.media_store = store  # type: ignore[attr-defined]
    return store


def media_replies(messages: list) -> list[MediaUploadResponse]:  # type: ignore[type-arg]
    return [m.body for m in messages if m.header.msg_id == 0x8800]


def test_out_of_order_duplicated_upload_is_stored_once_and_answered_after_kafka(tmp_path: Path) -> None:
    data = os.urandom(20_000)

    async def t(h: Harness) -> None:
        store = use_store(h, tmp_path)
        transport = await login(h)
        packages = upload_packages(data)
        assert len(packages) == 21
        conn = transport.protocol
        order = [packages[3], packages[0], packages[0], *packages[1:3], *packages[4:]]  # swapped, repeated
        for package in order:
            conn.data_received(package)
        await until(lambda: bool(h.sink.values(JT808_UPLINK)))
        replies = transport.replies()
        assert media_replies(replies) == []  # nothing before Kafka has the record
        assert all(isinstance(m.body, PlatformResponse) and m.body.result == 0 for m in replies)
        assert 520 not in [m.body.reply_seq for m in replies]  # the last package waits for Kafka too
        [uplink] = h.sink.values(JT808_UPLINK)
        body = uplink["message"]["body"]
        assert uplink["msg_id"] == 2049 and uplink["seq"] == 500 and uplink["raw_truncated"] is True
        assert body["media_id"] == 7 and body["media_type"] == 0 and body["event_code"] == 1
        assert body["channel"] == 2 and body["size"] == len(data)
        assert body["sha256"] == hashlib.sha256(data).hexdigest() and body["file_store_type"] == 1
        assert body["location"]["lat"] == 39.9 and body["object_key"].startswith("/1/")
        assert data.hex() not in uplink["raw_hex"] and len(uplink["raw_hex"]) < 200  # no file bytes on Kafka
        with store.open(body["object_key"]) as f:
            assert f.read() == data
        h.sink.store_all()
        await settle()
        after_kafka = transport.replies()
        # the last package's 0x8001 first, as for every other package, then the 0x8800
        assert [m.header.msg_id for m in after_kafka] == [0x8001, 0x8800]
        assert after_kafka[0].body == PlatformResponse(520, 0x0801, 0)
        assert media_replies(after_kafka) == [MediaUploadResponse(7, ())]
        assert h.server.counters.media_stored == 1

    run(t)


def test_missing_packages_are_requested_with_8800_and_the_upload_completes(tmp_path: Path) -> None:
    data = os.urandom(9_500)

    async def t(h: Harness) -> None:
        store = use_store(h, tmp_path)
        transport = await login(h)
        packages = upload_packages(data, media_id=99, first_seq=65530)  # serials wrap around
        conn = transport.protocol
        for index, package in enumerate(packages, start=1):
            if index not in (3, 5):
                conn.data_received(package)
        await settle()
        replies = transport.replies()
        assert media_replies(replies) == [MediaUploadResponse(99, (3, 5))]
        assert [m for m in replies if m.header.msg_id == 0x8003] == []
        conn.sweep(conn.last_rx_at + 1.5)  # quiet past resend_after_s: asked again
        assert media_replies(transport.replies()) == [MediaUploadResponse(99, (3, 5))]
        conn.data_received(packages[2])
        conn.data_received(packages[4])
        await until(lambda: bool(h.sink.values(JT808_UPLINK)))
        h.sink.store_all()
        await settle()
        assert media_replies(transport.replies()) == [MediaUploadResponse(99, ())]
        [uplink] = h.sink.values(JT808_UPLINK)
        with store.open(uplink["message"]["body"]["object_key"]) as f:
            assert f.read() == data

    run(t, subpackage_resend_after_s=1.0, idle_timeout_s=100.0)


def test_without_package_one_the_media_id_is_unknown_so_8003_asks(tmp_path: Path) -> None:
    async def t(h: Harness) -> None:
        use_store(h, tmp_path)
        transport = await login(h)
        packages = upload_packages(os.urandom(3_500), first_seq=10)
        for package in packages[1:]:
            transport.protocol.data_received(package)
        await settle()
        replies = transport.replies()
        assert [m.body for m in replies if m.header.msg_id == 0x8003] == [ResendSubpackagesRequest(10, (1,))]
        assert media_replies(replies) == []

    run(t)


def test_an_upload_over_the_connection_bound_is_refused_and_nothing_is_stored(tmp_path: Path) -> None:
    async def t(h: Harness) -> None:
        use_store(h, tmp_path)
        transport = await login(h)
        for package in upload_packages(os.urandom(30_000)):
            transport.protocol.data_received(package)
        await settle()
        results = [m.body.result for m in transport.replies() if isinstance(m.body, PlatformResponse)]
        assert 1 in results  # the package past the bound is answered with failure
        assert h.sink.values(JT808_UPLINK) == [] and not any(tmp_path.rglob("*.jpg"))
        assert h.server.counters.subpackage_dropped >= 1

    run(t, subpackage_connection_max_bytes=20_000, max_frames_per_s=10_000)


def test_a_megabyte_photo_fits_the_default_bounds(tmp_path: Path) -> None:
    data = os.urandom(1024 * 1024)

    async def t(h: Harness) -> None:
        store = use_store(h, tmp_path)
        transport = await login(h)
        for package in upload_packages(data, max_body=1023):
            transport.protocol.data_received(package)
        await until(lambda: bool(h.sink.values(JT808_UPLINK)))
        [uplink] = h.sink.values(JT808_UPLINK)
        with store.open(uplink["message"]["body"]["object_key"]) as f:
            assert f.read() == data
        assert h.server.ctx is not None and h.server.ctx.budget.used_bytes == 0  # memory given back

    run(t, max_frames_per_s=100_000)


def test_a_file_for_another_terminal_never_lands_in_its_folder(tmp_path: Path) -> None:
    async def t(h: Harness) -> None:
        use_store(h, tmp_path)
        h.directory.add(OTHER_PHONE, 2, auth_code="CODE2")
        transport = await login(h)  # device 1
        for package in upload_packages(os.urandom(3_000), phone=OTHER_PHONE):
            transport.protocol.data_received(package)
        await settle(20)
        results = [m.body.result for m in transport.replies() if isinstance(m.body, PlatformResponse)]
        assert results[-1] == 1  # refused
        assert h.sink.values(JT808_UPLINK) == []
        assert not (tmp_path / "2").exists() and not any(tmp_path.rglob("*.jpg"))
        assert h.server.counters.phone_mismatch == 1

    run(t)


def test_when_kafka_refuses_the_record_no_8800_is_sent(tmp_path: Path) -> None:
    async def t(h: Harness) -> None:
        use_store(h, tmp_path)
        transport = await login(h)
        for package in upload_packages(os.urandom(2_500)):
            transport.protocol.data_received(package)
        await until(lambda: bool(h.sink.records))
        h.sink.fail_all()
        await settle()
        assert media_replies(transport.replies()) == []

    run(t)


def test_a_broken_head_is_a_message_error(tmp_path: Path) -> None:
    async def t(h: Harness) -> None:
        use_store(h, tmp_path)
        transport = await login(h)
        short = encode_subpackages(0x0801, b"\x00" * 20 + b"\x01" * 10, phone=PHONE, seq=40, max_body=16)
        for package in short:
            transport.protocol.data_received(package)
        await settle(20)
        results = [m.body.result for m in transport.replies() if isinstance(m.body, PlatformResponse)]
        assert results[-1] == 2 and h.sink.values(JT808_UPLINK) == []

    run(t)


def test_a_zero_location_block_keeps_the_file_without_a_position_and_answers_result_0(tmp_path: Path) -> None:
    data = os.urandom(2_500)
    head = bytes.fromhex("0000002a") + bytes([0, 0, 1, 1])  # media 42, photo, JPEG, event 1, channel 1
    body = head + bytes(28) + data  # 28 zero bytes: no fix, time 000000000000

    async def t(h: Harness) -> None:
        store = use_store(h, tmp_path)
        transport = await login(h)
        for package in encode_subpackages(0x0801, body, phone=PHONE, seq=60, max_body=1000):
            transport.protocol.data_received(package)
        await until(lambda: bool(h.sink.values(JT808_UPLINK)))
        h.sink.store_all()
        await settle()
        replies = transport.replies()
        assert all(m.body.result == 0 for m in replies if isinstance(m.body, PlatformResponse))
        assert media_replies(replies) == [MediaUploadResponse(42, ())]
        [uplink] = h.sink.values(JT808_UPLINK)
        record = uplink["message"]["body"]
        assert record["location"] is None and "invalid BCD time 000000000000" in record["location_error"]
        with store.open(record["object_key"]) as f:
            assert f.read() == data
        assert h.server.counters.media_location_invalid == 1

    run(t)
