"""Whole JT/T 809 frames out of a TCP stream, however its reads cut it (exchange.superior.frames)."""

from __future__ import annotations

import asyncio
import random

import pytest

from exchange.superior.frames import FrameReader
from protocols.jt809 import decode_frame, encode_frame
from protocols.jt809 import messages as m


def _frames(count: int) -> list[bytes]:
    return [encode_frame(m.Heartbeat.MSG_ID, m.Heartbeat(), sn=sn, centre_id=20180920, version="2019",
                         timestamp=1764300000) for sn in range(1, count + 1)]


async def _read_all(chunks: list[bytes], max_bytes: int = 64 * 1024) -> list[tuple[bytes | None, bytes]]:
    reader = asyncio.StreamReader()
    for chunk in chunks:
        reader.feed_data(chunk)
    reader.feed_eof()
    frames = FrameReader(reader, max_bytes)
    out = []
    while True:
        try:
            out.append(await frames.next())
        except EOFError:
            return out


@pytest.mark.parametrize("seed", range(5))
def test_frames_come_out_whole_and_in_order_however_the_reads_cut_the_stream(seed: int) -> None:
    sent = _frames(40)
    stream = b"".join(sent)
    rnd = random.Random(seed)
    cuts = sorted(rnd.sample(range(1, len(stream)), 60))
    chunks = [stream[a:b] for a, b in zip([0, *cuts], [*cuts, len(stream)], strict=True)]
    got = asyncio.run(_read_all(chunks))
    assert got == [(frame, b"") for frame in sent]
    assert [decode_frame(f, version="2019").header.sn for f, _ in got if f] == list(range(1, 41))


def test_frames_of_one_read_are_handed_out_without_waiting_and_the_next_read_is_awaited() -> None:
    async def scenario() -> None:
        sent = _frames(3)
        reader = asyncio.StreamReader()
        reader.feed_data(b"".join(sent) + sent[0][:5])
        frames = FrameReader(reader)
        assert frames.buffered() is None  # nothing read yet
        assert await frames.next() == (sent[0], b"")
        assert frames.buffered() == (sent[1], b"")
        assert frames.buffered() == (sent[2], b"")
        assert frames.buffered() is None  # half a frame: the next one needs another read
        reader.feed_data(sent[0][5:])
        assert await frames.next() == (sent[0], b"")

    asyncio.run(scenario())


def test_bytes_outside_frames_are_garbage_before_the_next_frame_and_at_the_end() -> None:
    sent = _frames(2)
    got = asyncio.run(_read_all([b"\r\nnoise" + sent[0], b"\x5d" + sent[1] + b"tail"]))
    assert got == [(sent[0], b"\r\nnoise"), (None, b"\x5d"), (sent[1], b""), (None, b"tail")]


def test_a_frame_longer_than_the_limit_is_garbage_and_the_frame_after_it_is_read() -> None:
    sent = _frames(1)
    huge = b"\x5b" + b"\x01" * 300
    got = asyncio.run(_read_all([huge[:150], huge[150:] + b"\x5d" + sent[0]], max_bytes=200))
    assert [frame for frame, _ in got] == [None] * (len(got) - 1) + [sent[0]]
    assert sum(len(garbage) for _, garbage in got) == len(huge) + 1
