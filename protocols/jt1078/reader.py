"""``PacketReader``: JT/T 1078 packets out of a TCP byte stream, in any chunking, bounded memory.

The 2016 and 2019 layouts differ only in the SIM's size and carry no version flag. Until a
connection's layout is known, a candidate layout is accepted only when the bytes right after its
packet are the next packet's magic (a packet followed by nothing yet waits for more bytes, up to
``detect_after_bytes``, then the 2016 layout wins); the first confirmed layout is kept for the
connection. Bytes that are no packet (a bad magic or label, a body over ``max_body``) are skipped up
to the next magic and reported once as a ``JT1078Error`` item: a bad packet never ends the stream.
"""

from __future__ import annotations

from protocols.jt1078.packet import MAGIC_BYTES, JT1078Error, Packet, _build, parse_header

LAYOUTS = ("2016", "2019")


class PacketReader:
    def __init__(self, version: str | None = None, *, max_body: int = 4096, detect_after_bytes: int = 65536) -> None:
        if version is not None and version not in LAYOUTS:
            raise ValueError(f"version must be one of {LAYOUTS}")
        self.version = version
        self.max_body = max_body
        self.detect_after_bytes = detect_after_bytes
        self._buf = bytearray()
        self.skipped_bytes = 0

    def feed(self, data: bytes) -> list[Packet | JT1078Error]:
        """Packets (and error items for skipped bytes) completed by ``data``."""
        buf = self._buf
        buf += data
        out: list[Packet | JT1078Error] = []
        at = 0
        while True:
            if len(buf) - at < 4:
                break
            if buf[at:at + 4] != MAGIC_BYTES:
                at = self._skip(buf, at, out, "no magic")
                continue
            step = self._one(buf, at, out)
            if step is None:
                break
            at = step
        del buf[:at]
        return out

    def _one(self, buf: bytearray, at: int, out: list[Packet | JT1078Error]) -> int | None:
        """Offset after the packet at ``at`` (appended to ``out``), None to wait for more bytes."""
        layouts = (self.version,) if self.version else LAYOUTS
        waiting = False
        plausible: list[tuple[str, int, int]] = []
        for layout in layouts:
            try:
                parsed = parse_header(buf, layout, at)
            except JT1078Error as exc:
                if self.version:
                    return self._skip(buf, at + 1, out, str(exc))
                continue
            if parsed is None:
                waiting = True
                continue
            size, body_length = parsed
            if body_length > self.max_body:
                continue
            end = at + size + body_length
            if self.version:
                if len(buf) < end:
                    return None
                out.append(_build(buf, at, size, body_length, layout))
                return end
            if len(buf) >= end + 4:
                if buf[end:end + 4] == MAGIC_BYTES:
                    self.version = layout
                    out.append(_build(buf, at, size, body_length, layout))
                    return end
                continue
            waiting = True
            plausible.append((layout, size, body_length))
        if waiting:
            if len(buf) - at < self.detect_after_bytes:
                return None
            for layout, size, body_length in plausible:
                end = at + size + body_length
                if len(buf) >= end:  # only one packet ever came: take the first plausible layout
                    self.version = layout
                    out.append(_build(buf, at, size, body_length, layout))
                    return end
        if self.version is None and not plausible:
            return self._skip(buf, at + 1, out, "no layout fits the header")
        return self._skip(buf, at + 1, out, "no layout fits the header")

    def _skip(self, buf: bytearray, at: int, out: list[Packet | JT1078Error], why: str) -> int:
        found = buf.find(MAGIC_BYTES, at)
        end = found if found >= 0 else max(at, len(buf) - 3)
        skipped = end - at + (1 if why != "no magic" else 0)
        self.skipped_bytes += skipped
        out.append(JT1078Error(f"skipped {skipped} bytes: {why}"))
        return end
