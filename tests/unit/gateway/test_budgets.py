"""Budgets one terminal cannot exhaust: reassembly memory per connection, connections
waiting to authenticate (count and deadline), and the log volume hostile input may cause."""

import asyncio
import logging
import random

import pytest

from fleet.topics import JT808_UPLINK
from protocols.jt808 import (
    Authentication,
    BatchLocationUpload,
    FrameReader,
    JT808Error,
    PlatformResponse,
    decode_body,
    encode_subpackages,
)
from tests.unit.gateway.test_connection import login, position
from tests.unit.gateway.twins import PHONE, FakeTransport, Harness, frame, run, settle

HOSTILE_PHONES = ("013800000002", "013800000003")


def _incomplete_uploads(phone: str, messages: int, package_bytes: int = 900) -> list[bytes]:
    """The first two packages of `messages` distinct 3-package uploads: never complete."""
    frames = []
    for m in range(messages):
        packages = encode_subpackages(0x0801, bytes(3 * package_bytes), phone=phone, seq=10 * m + 1,
                                      max_body=package_bytes)
        frames.extend(packages[:2])
    return frames


def _batch_upload(seq: int, items: int = 60, max_body: int = 500) -> list[bytes]:
    body = BatchLocationUpload(1, tuple(decode_body(0x0200, position(i % 60)) for i in range(items)))  # type: ignore[misc]
    return encode_subpackages(0x0704, body, phone=PHONE, seq=seq, max_body=max_body)


def test_two_hostile_terminals_filling_their_shares_cannot_refuse_a_third_terminals_upload() -> None:
    async def t(h: Harness) -> None:
        hostiles = []
        for n, phone in enumerate(HOSTILE_PHONES, start=2):
            h.directory.add(phone, n, auth_code=f"CODE{n}")
            hostiles.append(await login(h, phone, f"CODE{n}"))
        for transport in hostiles:  # each alone would fill the whole shared budget
            for package in _incomplete_uploads(transport.protocol.phone or "", messages=20):
                transport.protocol.data_received(package)
                await settle(1)
        for transport in hostiles:
            acks = [m.body for m in transport.replies()]
            assert all(isinstance(a, PlatformResponse) and a.result == 0 for a in acks)  # own oldest evicted
        assert h.server.counters.subpackage_evicted > 0
        assert h.server.ctx is not None and h.server.ctx.budget.used_bytes <= 2 * 12_000

        victim = await login(h)
        packages = _batch_upload(seq=500)
        assert len(packages) >= 4
        for package in packages:
            victim.protocol.data_received(package)
        await settle()
        acks = [m.body for m in victim.replies()]
        assert all(isinstance(a, PlatformResponse) and a.result == 0 for a in acks)
        assert len(acks) == len(packages) - 1  # the completing one waits for Kafka
        [uplink] = [v for v in h.sink.values(JT808_UPLINK) if v["phone"] == PHONE]
        assert uplink["msg_id"] == 0x0704 and len(uplink["message"]["body"]["items"]) == 60

    run(t, subpackage_max_bytes=30_000, subpackage_connection_max_bytes=12_000, max_frames_per_s=10_000)


def test_connections_over_the_unauthenticated_cap_are_closed_and_authenticated_terminals_keep_their_acks() -> None:
    async def t(h: Harness) -> None:
        real = await login(h)  # authenticated: does not count against the cap
        waiting = [h.connect()[1] for _ in range(3)]
        assert [w.closing for w in waiting] == [False, False, True]
        assert waiting[2].aborted and h.server.counters.unauthenticated_refused == 1
        real.protocol.data_received(frame(0x0200, position(), seq=33))
        await settle()
        h.sink.store_all()
        await settle()
        [ack] = real.replies()
        assert isinstance(ack.body, PlatformResponse) and (ack.body.reply_seq, ack.body.result) == (33, 0)
        waiting[0].close()  # a slot frees up
        await settle()
        assert not h.connect()[1].closing

    run(t, unauthenticated_max=2)


def test_connection_not_authenticated_by_the_deadline_is_closed() -> None:
    async def t(h: Harness) -> None:
        real = await login(h)
        accepted_at = asyncio.get_running_loop().time()
        conn, transport = h.connect()
        conn.data_received(frame(0x0002, seq=1))  # keeps sending, never authenticates
        conn.sweep(accepted_at + 9.0)
        assert not transport.closing
        conn.sweep(accepted_at + 10.5)
        await settle()
        assert transport.closing and transport.aborted
        assert h.server.counters.auth_deadline_closed == 1
        real.protocol.sweep(accepted_at + 10.5)
        assert not real.closing

    run(t, auth_deadline_s=10.0)


def _garbage(size: int, seed: int = 13) -> bytes:
    """Random bytes with a 7e about every 40 bytes: many frame candidates, none of them valid."""
    rng = random.Random(seed)
    data = bytearray(rng.randbytes(size))
    for i in range(0, size, 40):
        data[i + rng.randrange(40) if i + 40 <= size else i] = 0x7E
    return bytes(data)


def _expected(chunks: list[bytes], max_frame_bytes: int) -> tuple[int, int]:
    """(framing errors, frame candidates) a connection's de-framer finds in these chunks."""
    reader = FrameReader(max_frame_bytes)
    items = [item for chunk in chunks for item in reader.feed(chunk)]
    assert all(isinstance(item, bytes) for item in items[:1])
    errors = sum(isinstance(item, JT808Error) for item in items)
    return errors, len(items) - errors


def test_a_megabyte_of_garbage_logs_a_bounded_amount_and_counts_everything(caplog: pytest.LogCaptureFixture) -> None:
    data = _garbage(1 << 20)
    chunks = [data[i:i + 4096] for i in range(0, len(data), 4096)]

    async def t(h: Harness) -> None:
        transport = await login(h)
        with caplog.at_level(logging.DEBUG, logger="gateway"):
            for chunk in chunks:
                transport.protocol.data_received(chunk)
                await settle(2)
            transport.close()
            await settle()
        counters = h.server.counters
        login_frame = frame(0x0102, Authentication("CODE1").encode("2013"), seq=1)
        framing_errors, candidates = _expected([login_frame, *chunks], h.server.settings.max_frame_bytes)
        assert counters.bytes_in == len(login_frame) + (1 << 20)
        assert (counters.framing_errors, counters.frames_in) == (framing_errors, candidates)
        assert counters.frames_in > 10_000
        logged = [r.getMessage() for r in caplog.records if r.name.startswith("gateway")]
        assert len(logged) <= 12 and sum(map(len, logged)) <= 4_000
        assert "more bad inputs not logged" in logged[-1]

    run(t, max_frames_per_s=10**9, auto_store=True)


def test_garbage_from_many_connections_is_logged_at_a_global_rate(caplog: pytest.LogCaptureFixture) -> None:
    async def t(h: Harness) -> None:
        loop = asyncio.get_running_loop()
        started = loop.time()
        with caplog.at_level(logging.DEBUG, logger="gateway"):
            for n in range(100):
                conn, _ = h.connect()
                conn.data_received(_garbage(20_000, seed=n))
                await settle(2)
        elapsed_s = loop.time() - started
        logged = [r for r in caplog.records if r.name.startswith("gateway")]
        assert len(logged) <= 100 + 20 * elapsed_s + 1  # the burst, plus what the rate refilled meanwhile
        assert h.server.counters.log_lines_suppressed > 500

    run(t, max_frames_per_s=10**9)


@pytest.mark.parametrize("hostile", [HOSTILE_PHONES[0]])
def test_an_oversize_single_message_is_refused_without_touching_other_connections(hostile: str) -> None:
    async def t(h: Harness) -> None:
        victim = await login(h)
        first = _batch_upload(seq=900)
        victim.protocol.data_received(first[0])  # the victim's upload is under way
        h.directory.add(hostile, 2, auth_code="CODE2")
        attacker: FakeTransport = await login(h, hostile, "CODE2")
        for package in encode_subpackages(0x0801, bytes(20 * 900), phone=hostile, seq=1, max_body=900)[:-1]:
            attacker.protocol.data_received(package)
            await settle(1)
        results = [m.body.result for m in attacker.replies() if isinstance(m.body, PlatformResponse)]
        assert 1 in results  # refused once it alone exceeds its share
        for package in first[1:]:
            victim.protocol.data_received(package)
        await settle()
        [uplink] = [v for v in h.sink.values(JT808_UPLINK) if v["phone"] == PHONE]
        assert uplink["msg_id"] == 0x0704

    run(t, subpackage_max_bytes=30_000, subpackage_connection_max_bytes=12_000, max_frames_per_s=10_000)
