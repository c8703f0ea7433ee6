"""Frames out of a connection's packets: sub-packages joined, and missing, reordered and duplicated
packets handled.

``FrameAssembler.push(packet)`` returns the frames that packet completes, in stream order:

- Reordering: packets are released in ``seq`` order (modulo 65536). A packet ahead of the next
  expected one waits in a window of ``window`` packets; when the window is full (or on ``flush()``,
  which a server calls when a stream goes quiet) the missing serials are given up as lost.
- Duplicates: a serial already released, or already waiting, is dropped. A terminal that numbers
  every packet the same (seen in the field) is detected (same serial, different packet) and its
  packets are then taken in arrival order.
- Loss: a video frame with a missing packet is dropped, and so is every P/B frame after it until the
  next I-frame (decoding them would show corrupted pictures); a lost audio packet loses only itself.
  ``lost_packets`` and ``dropped_frames`` count them. P/B frames before a connection's first I-frame
  are dropped too.

Audio and video interleave on one connection (one serial counter), so each kind has its own
frame in progress.
"""

from __future__ import annotations

from dataclasses import dataclass

from protocols.jt1078.packet import ATOMIC, AUDIO, B_FRAME, FIRST, I_FRAME, LAST, MIDDLE, TRANSPARENT, Packet


@dataclass(frozen=True, slots=True)
class Frame:
    data_type: int  # I_FRAME, P_FRAME, B_FRAME, AUDIO or TRANSPARENT
    payload_type: int
    channel: int
    timestamp_ms: int | None
    data: bytes
    first_seq: int

    @property
    def keyframe(self) -> bool:
        return self.data_type == I_FRAME

    @property
    def is_video(self) -> bool:
        return self.data_type <= B_FRAME


def _kind(data_type: int) -> int:
    return 0 if data_type <= B_FRAME else data_type


class FrameAssembler:
    def __init__(self, window: int = 32) -> None:
        self.window = window
        self._expected: int | None = None
        self._waiting: dict[int, Packet] = {}
        self._recent: dict[int, Packet] = {}  # last released packets by serial (duplicate detection)
        self._in_order = False  # the terminal's serials are useless: take arrival order
        self._parts: dict[int, list[Packet]] = {}
        self._need_key = True  # a decoder starts on an I-frame: P/B frames before the first are dropped
        self.lost_packets = 0
        self.dropped_frames = 0
        self.duplicates = 0

    def push(self, packet: Packet) -> list[Frame]:
        if self._in_order:
            return self._assemble(packet)
        seq = packet.seq
        if self._expected is None:
            self._expected = seq
        if self._is_duplicate(packet):
            return []
        if self._in_order:  # just found out: release what waits, then take arrival order
            return self.flush() + self._assemble(packet)
        ahead = (seq - self._expected) & 0xFFFF
        if ahead >= 0x8000:  # behind the next expected serial: late (already given up) or replayed
            self.duplicates += 1
            return []
        self._waiting[seq] = packet
        out: list[Frame] = []
        self._release(out)
        if len(self._waiting) > self.window:
            self._give_up_until_next(out)
        return out

    def flush(self) -> list[Frame]:
        """Give up the missing serials now and release everything waiting."""
        out: list[Frame] = []
        while self._waiting and self._expected is not None:
            self._give_up_until_next(out)
        return out

    def _is_duplicate(self, packet: Packet) -> bool:
        seen = self._recent.get(packet.seq) or self._waiting.get(packet.seq)
        if seen is None:
            return False
        if seen == packet:
            self.duplicates += 1
            return True
        # same serial, another packet: this terminal does not number its packets; stop reordering
        self._in_order = True
        return False

    def _release(self, out: list[Frame]) -> None:
        assert self._expected is not None
        while self._expected in self._waiting:
            packet = self._waiting.pop(self._expected)
            self._remember(packet)
            out += self._assemble(packet)
            self._expected = (self._expected + 1) & 0xFFFF

    def _give_up_until_next(self, out: list[Frame]) -> None:
        assert self._expected is not None
        nearest = min(self._waiting, key=lambda s: (s - self._expected) & 0xFFFF)  # type: ignore[operator]
        gap = (nearest - self._expected) & 0xFFFF
        self.lost_packets += gap
        self._on_loss()
        self._expected = nearest
        self._release(out)

    def _remember(self, packet: Packet) -> None:
        self._recent[packet.seq] = packet
        if len(self._recent) > 4 * self.window:
            for key in list(self._recent)[: len(self._recent) - 2 * self.window]:
                del self._recent[key]

    def _on_loss(self) -> None:
        if self._parts.pop(0, None) is not None:
            self.dropped_frames += 1
        self._parts.pop(AUDIO, None)
        self._parts.pop(TRANSPARENT, None)
        self._need_key = True

    def _assemble(self, packet: Packet) -> list[Frame]:
        kind = _kind(packet.data_type)
        sub = packet.subpackage
        parts = self._parts.get(kind)
        if sub == ATOMIC:
            if parts is not None:  # an unfinished frame before a whole one: it lost its end
                self._drop(kind)
            return self._emit([packet])
        if sub == FIRST:
            if parts is not None:
                self._drop(kind)
            self._parts[kind] = [packet]
            return []
        if parts is None or parts[0].data_type != packet.data_type:
            if parts is not None:
                self._drop(kind)
            self.dropped_frames += 1  # a middle or last packet without its first one
            if kind == 0:
                self._need_key = True
            return []
        parts.append(packet)
        if sub == MIDDLE:
            return []
        assert sub == LAST
        del self._parts[kind]
        return self._emit(parts)

    def _drop(self, kind: int) -> None:
        self._parts.pop(kind, None)
        self.dropped_frames += 1
        if kind == 0:
            self._need_key = True

    def _emit(self, parts: list[Packet]) -> list[Frame]:
        first = parts[0]
        if first.data_type <= B_FRAME:
            if first.data_type == I_FRAME:
                self._need_key = False
            elif self._need_key:
                self.dropped_frames += 1
                return []
        data = first.payload if len(parts) == 1 else b"".join(p.payload for p in parts)
        return [Frame(first.data_type, first.payload_type, first.channel, first.timestamp_ms, data, first.seq)]


__all__ = ["FIRST", "LAST", "MIDDLE", "Frame", "FrameAssembler"]
