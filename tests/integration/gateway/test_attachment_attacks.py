"""Attacks on the attachment server (port 7613) over TCP, with the real PostgreSQL and Kafka: an upload is
accepted only with the one-time alarm number of a 0x9208 the platform sent (the alarm's uuid, which every
alarm list shows, is refused), from the terminal it was sent to and from the address of that terminal's
authenticated session, until it expires; stored evidence is write-once; 1,000 idle sockets do not stop a
genuine upload; a declared-but-unsent file costs no memory of its declared size."""

from __future__ import annotations

import asyncio
import os
import secrets
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import psycopg
import pytest

from protocols.jt808 import (
    AlarmAttachmentList,
    AlarmAttachmentUploadRequest,
    AlarmNumber,
    AttachmentFile,
    AttachmentFileDone,
    AttachmentFileInfo,
    PlatformResponse,
)
from protocols.jt808.attachment_stream import encode_chunk
from simulator.attachments import AttachmentRefused, upload
from tests.integration.gateway.attachment_support import (
    START,
    ask_for_attachments,
    attachment_server,
    insert_alarm,
    record_session,
)
from tests.integration.gateway.support import TerminalClient, insert_devices, unique_phones

pytestmark = pytest.mark.timeout(120)

ALARM_NO = AlarmNumber("SIM0001", START, 1, 2)


def stored_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file())


def an_alarm(pg_url: str, terminals: int = 1) -> tuple[list[str], list[int], int, str]:
    """Devices (the first has the alarm, all have a session from 127.0.0.1): (phones, ids, alarm id, uuid)."""
    phones = unique_phones(terminals)
    ids = insert_devices(pg_url, [p.lstrip("0") for p in phones])
    device_ids = [ids[p.lstrip("0")] for p in phones]
    for device_id in device_ids:
        record_session(pg_url, device_id)
    warn_uuid = secrets.token_hex(16)
    alarm_id, _ = insert_alarm(pg_url, device_ids[0], phones[0].lstrip("0"), warn_uuid)
    return phones, device_ids, alarm_id, warn_uuid


def test_an_upload_naming_a_listed_alarm_uuid_and_its_phone_without_a_0x9208_is_refused(
        pg_url: str, kafka_bootstrap: str, free_port: Callable[[], int], tmp_path: Path) -> None:
    [phone], _, _, warn_uuid = an_alarm(pg_url)
    forged = AlarmAttachmentUploadRequest("127.0.0.1", 0, 0, ALARM_NO, warn_uuid)  # what an alarm list shows

    async def main() -> None:
        port = free_port()
        async with attachment_server(pg_url, kafka_bootstrap, port, tmp_path):
            with pytest.raises(AttachmentRefused):
                await upload("127.0.0.1", port, forged, [(f"00_65_6502_1_{warn_uuid}.jpg", 0, b"forged")],
                             "SIM0001", phone=phone)

    asyncio.run(main())
    assert stored_files(tmp_path) == []


def test_the_0x9208_alarm_number_works_only_for_its_terminal_from_its_session_address_until_it_expires(
        pg_url: str, kafka_bootstrap: str, free_port: Callable[[], int], tmp_path: Path) -> None:
    [phone, other_phone], [device_id, _], alarm_id, warn_uuid = an_alarm(pg_url, terminals=2)

    async def main() -> None:
        port = free_port()
        asked = await ask_for_attachments(pg_url, alarm_id, warn_uuid, device_id, port)
        async with attachment_server(pg_url, kafka_bootstrap, port, tmp_path):
            with pytest.raises(AttachmentRefused):  # another terminal replays the number
                await upload("127.0.0.1", port, asked, [("a.jpg", 0, b"from another terminal")], "SIM0001",
                             phone=other_phone)
            with pytest.raises(AttachmentRefused):  # the terminal's phone, but not from its session's address
                await upload("127.0.0.1", port, asked, [("a.jpg", 0, b"from elsewhere")], "SIM0001", phone=phone,
                             local_host="127.0.0.2")
            done = await upload("127.0.0.1", port, asked, [("a.jpg", 0, b"genuine")], "SIM0001", phone=phone)
            assert done.files_done == ["a.jpg"]
            with psycopg.connect(pg_url, autocommit=True) as conn:  # the request's validity ends
                conn.execute("UPDATE alarm_attachment_request SET expires_at = now() - interval '1 second'"
                             " WHERE alarm_id = %s", (alarm_id,))
            with pytest.raises(AttachmentRefused):  # a replay after expiry, by the terminal itself
                await upload("127.0.0.1", port, asked, [("b.jpg", 0, b"late")], "SIM0001", phone=phone)

    asyncio.run(main())
    assert [p.name for p in stored_files(tmp_path)] == ["a.jpg"]
    assert stored_files(tmp_path)[0].read_bytes() == b"genuine"


def test_a_second_upload_of_a_stored_name_does_not_change_the_stored_bytes(
        pg_url: str, kafka_bootstrap: str, free_port: Callable[[], int], tmp_path: Path) -> None:
    [phone], [device_id], alarm_id, warn_uuid = an_alarm(pg_url)
    name = f"00_65_6502_1_{warn_uuid}.jpg"
    first = b"\xff\xd8" + os.urandom(30_000) + b"\xff\xd9"

    async def main() -> None:
        port = free_port()
        asked = await ask_for_attachments(pg_url, alarm_id, warn_uuid, device_id, port)
        async with attachment_server(pg_url, kafka_bootstrap, port, tmp_path):
            done = await upload("127.0.0.1", port, asked, [(name, 0, first)], "SIM0001", phone=phone)
            assert done.files_done == [name]
            again = await upload("127.0.0.1", port, asked, [(name, 0, first)], "SIM0001", phone=phone)
            assert again.files_done == [name]  # the same bytes (a retry after a lost 0x9212) are fine
            with pytest.raises(AttachmentRefused):
                await upload("127.0.0.1", port, asked, [(name, 0, b"\xff\xd8forged\xff\xd9")], "SIM0001",
                             phone=phone)

    asyncio.run(main())
    [kept] = stored_files(tmp_path)
    assert kept.read_bytes() == first


def test_a_thousand_idle_sockets_do_not_stop_a_genuine_upload(
        pg_url: str, kafka_bootstrap: str, free_port: Callable[[], int], tmp_path: Path) -> None:
    [phone], [device_id], alarm_id, warn_uuid = an_alarm(pg_url)
    photo = os.urandom(50_000)

    async def main() -> float:
        port = free_port()
        asked = await ask_for_attachments(pg_url, alarm_id, warn_uuid, device_id, port)
        async with attachment_server(pg_url, kafka_bootstrap, port, tmp_path):
            idle: list[asyncio.StreamWriter] = []
            try:
                for i in range(1000):  # silent sockets from many loop-back addresses, and from the terminal's
                    local = "127.0.0.1" if i % 4 == 0 else f"127.0.{1 + i // 250}.{1 + i % 250}"
                    _, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(local, 0))
                    idle.append(writer)
                    if i % 100 == 99:
                        await asyncio.sleep(0.05)  # let the server accept them (its listen backlog is finite)
                await asyncio.sleep(0.2)
                started = time.monotonic()
                done = await asyncio.wait_for(upload("127.0.0.1", port, asked, [("a.jpg", 0, photo)], "SIM0001",
                                                     phone=phone), 5.0)
                assert done.files_done == ["a.jpg"]
                return time.monotonic() - started
            finally:
                for writer in idle:
                    writer.close()

    took_s = asyncio.run(main())
    assert took_s < 5.0
    assert stored_files(tmp_path)[0].read_bytes() == photo


def test_a_declared_but_unsent_16_mib_file_holds_no_16_mib_buffer(
        pg_url: str, kafka_bootstrap: str, free_port: Callable[[], int], tmp_path: Path) -> None:
    [phone], [device_id], alarm_id, warn_uuid = an_alarm(pg_url)
    size = 16 * 1024 * 1024

    async def main() -> int:
        port = free_port()
        asked = await ask_for_attachments(pg_url, alarm_id, warn_uuid, device_id, port)
        async with attachment_server(pg_url, kafka_bootstrap, port, tmp_path):
            clients = []
            tracemalloc.start()
            try:
                before = tracemalloc.get_traced_memory()[0]
                for i in range(4):
                    name = f"big{i}.jpg"
                    t = await TerminalClient.connect(port, phone)
                    await t.send(0x1210, AlarmAttachmentList("SIM0001", asked.alarm_no, asked.alarm_uuid, 0,
                                                             (AttachmentFile(name, size),)))
                    listed = (await t.receive()).body
                    assert isinstance(listed, PlatformResponse) and listed.result == 0
                    await t.send(0x1211, AttachmentFileInfo(name, 0, size))
                    assert (await t.receive()).body.result == 0  # type: ignore[union-attr]
                    t.writer.write(encode_chunk(name, size - 1, b"x"))  # one byte, at the very end
                    await t.send(0x1212, AttachmentFileDone(name, 0, size))
                    answer = (await t.receive()).body  # 0x9212: everything but that byte is missing
                    assert answer.missing == ((0, size - 1),)  # type: ignore[union-attr]
                    clients.append(t)
                grown = tracemalloc.get_traced_memory()[0] - before
            finally:
                tracemalloc.stop()
                for t in clients:
                    await t.close()
            return grown

    grown = asyncio.run(main())
    assert grown < 4 * 1024 * 1024, f"{grown / 2**20:.1f} MiB held for 4 files of one received byte each"
