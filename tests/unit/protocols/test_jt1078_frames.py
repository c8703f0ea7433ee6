"""Frame reassembly (protocols/jt1078/frames.py): sub-packages joined; missing, reordered and duplicated
packets handled; the property: no corrupted frame ever comes out, and with no loss every frame does."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from protocols.jt1078 import AUDIO, I_FRAME, P_FRAME, Frame, FrameAssembler, Packet, packetize

SIM = "013912345678"


def _stream(gops: int = 3, gop: int = 5, seq: int = 65500) -> tuple[list[Packet], list[tuple[int, int, bytes]]]:
    """Packets of an A/V stream and the frames in it as (data type, timestamp, data)."""
    rng = random.Random(7)
    packets: list[Packet] = []
    frames: list[tuple[int, int, bytes]] = []
    t = 0
    for _ in range(gops):
        for index in range(gop):
            kind = I_FRAME if index == 0 else P_FRAME
            data = rng.randbytes(rng.randint(100, 3000 if kind == I_FRAME else 1200))
            out = packetize(98, SIM, 1, kind, data, seq=seq, timestamp_ms=t)
            packets += out
            seq = (seq + len(out)) & 0xFFFF
            frames.append((kind, t, data))
            audio = rng.randbytes(320)
            packets += packetize(6, SIM, 1, AUDIO, audio, seq=seq, timestamp_ms=t)
            seq = (seq + 1) & 0xFFFF
            frames.append((AUDIO, t, audio))
            t += 40
    return packets, frames


def _run(packets: list[Packet], assembler: FrameAssembler | None = None) -> list[Frame]:
    assembler = assembler or FrameAssembler(window=16)
    out = [f for p in packets for f in assembler.push(p)]
    return out + assembler.flush()


def _key(frame: Frame) -> tuple[int, int | None, bytes]:
    return (frame.data_type, frame.timestamp_ms, frame.data)


def test_joins_sub_packages_across_the_serial_wrap() -> None:
    packets, frames = _stream(seq=65510)
    assert any(p.subpackage == 1 for p in packets) and any(p.seq < 16 for p in packets)  # wrapped
    assert [_key(f) for f in _run(packets)] == frames


def test_reorders_packets_within_the_window() -> None:
    packets, frames = _stream()
    shuffled = list(packets)
    rng = random.Random(3)
    for i in range(0, len(shuffled) - 8, 8):
        block = shuffled[i:i + 8]
        rng.shuffle(block)
        shuffled[i:i + 8] = block
    assert [_key(f) for f in _run(shuffled)] == frames


def test_drops_duplicated_packets() -> None:
    packets, frames = _stream()
    doubled = [p for p in packets for _ in (0, 1)]
    assembler = FrameAssembler()
    assert [_key(f) for f in _run(doubled, assembler)] == frames
    assert assembler.duplicates == len(packets)


def test_a_missing_packet_drops_its_frame_and_the_p_frames_until_the_next_i_frame() -> None:
    packets, frames = _stream(gops=2, gop=4)
    first_i = [i for i, p in enumerate(packets) if p.data_type == I_FRAME]
    lost = first_i[1]  # the middle of the first I-frame
    assembler = FrameAssembler(window=8)
    out = _run(packets[:lost] + packets[lost + 1:], assembler)
    video = [f for f in out if f.data_type != AUDIO]
    assert [f.data_type for f in video] == [I_FRAME, P_FRAME, P_FRAME, P_FRAME]  # the second GOP only
    assert video[0].timestamp_ms == 160
    assert assembler.lost_packets == 1
    assert len([f for f in out if f.data_type == AUDIO]) == 8  # audio is not held back


def test_p_frames_before_the_first_i_frame_are_dropped() -> None:
    packets, frames = _stream(gops=2, gop=3)
    start = next(i for i, p in enumerate(packets) if p.data_type == P_FRAME)
    out = _run(packets[start:])
    assert [f.data_type for f in out if f.data_type != AUDIO][0] == I_FRAME


def test_a_terminal_that_repeats_one_serial_is_taken_in_arrival_order() -> None:
    packets, frames = _stream(gops=1, gop=3)
    same = [Packet(p.payload_type, 0, p.sim, p.channel, p.data_type, p.subpackage, p.payload, p.timestamp_ms,
                   p.last_i_interval_ms, p.last_frame_interval_ms, p.marker) for p in packets]
    got = [_key(f) for f in _run(same)]
    assert got == frames


@settings(max_examples=120, deadline=None)
@given(st.integers(0, 2**32), st.floats(0, 0.2), st.floats(0, 0.3), st.integers(0, 6))
def test_never_emits_a_corrupted_frame_whatever_is_lost_reordered_or_repeated(
        seed: int, loss: float, dup: float, jitter: int) -> None:
    packets, frames = _stream(gops=3, gop=4, seq=seed & 0xFFFF)
    rng = random.Random(seed)
    mangled = []
    for p in packets:
        if rng.random() < loss:
            continue
        mangled.append(p)
        if rng.random() < dup:
            mangled.append(p)
    for i in range(len(mangled)):  # local reordering, within the window
        j = min(len(mangled) - 1, i + rng.randint(0, jitter))
        mangled[i], mangled[j] = mangled[j], mangled[i]
    out = _run(mangled, FrameAssembler(window=16))
    originals = set(frames)
    assert all(_key(f) in originals for f in out)
    # decodable: after every emitted P-frame's GOP gap, its I-frame came first
    video = [f for f in out if f.data_type != AUDIO]
    if video:
        assert video[0].data_type == I_FRAME
    if loss == 0 and dup == 0 and jitter == 0:
        assert [_key(f) for f in out] == frames
