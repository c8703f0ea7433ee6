"""H.264 / H.265 access units as terminals send them (Annex B, start codes) -> what FLV carries
(length-prefixed NAL units plus a decoder configuration record). Pure.

H.264 (PT 98): SPS (7) and PPS (8) go into the AVCDecoderConfigurationRecord, AUD (9) is dropped,
an IDR slice (5) makes a key frame. H.265 (PT 99): VPS (32), SPS (33), PPS (34) go into the
HEVCDecoderConfigurationRecord, AUD (35) is dropped, IRAP slices (16-23) make a key frame.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_START = re.compile(b"\x00\x00\x01")


def split_annexb(data: bytes) -> list[bytes]:
    """NAL units of an Annex B access unit (3- or 4-byte start codes); a unit without any start code is
    taken whole (some terminals send bare NAL units)."""
    starts = [m.end() for m in _START.finditer(data)]
    if not starts:
        return [data] if data else []
    units = []
    for i, start in enumerate(starts):
        end = starts[i + 1] - 3 if i + 1 < len(starts) else len(data)
        unit = data[start:end]
        if i + 1 < len(starts) and unit.endswith(b"\x00"):
            unit = unit[:-1]  # the 4th byte of the next 4-byte start code
        if unit:
            units.append(unit)
    return units


def remove_emulation_prevention(rbsp: bytes) -> bytes:
    return rbsp.replace(b"\x00\x00\x03", b"\x00\x00")


@dataclass(frozen=True)
class AccessUnit:
    payload: bytes  # NAL units, each with a 4-byte big-endian length
    keyframe: bool
    config: bytes | None  # a new decoder configuration record, when the parameter sets changed


def _length_prefixed(units: list[bytes]) -> bytes:
    return b"".join(len(u).to_bytes(4, "big") + u for u in units)


class H264Converter:
    def __init__(self) -> None:
        self.sps: bytes | None = None
        self.pps: bytes | None = None
        self.config: bytes | None = None

    def convert(self, data: bytes) -> AccessUnit:
        units = split_annexb(data)
        keep: list[bytes] = []
        keyframe = False
        sps, pps = self.sps, self.pps
        for unit in units:
            kind = unit[0] & 0x1F
            if kind == 7:
                sps = unit
            elif kind == 8:
                pps = unit
            elif kind == 9:
                continue
            else:
                keyframe |= kind == 5
                keep.append(unit)
        changed = None
        if sps and pps and (sps, pps) != (self.sps, self.pps):
            self.sps, self.pps = sps, pps
            self.config = changed = avc_config(sps, pps)
        return AccessUnit(_length_prefixed(keep), keyframe, changed)


def avc_config(sps: bytes, pps: bytes) -> bytes:
    """AVCDecoderConfigurationRecord (ISO/IEC 14496-15 5.2.4.1), 4-byte NAL lengths."""
    return (bytes((1, sps[1], sps[2], sps[3], 0xFF, 0xE1)) + len(sps).to_bytes(2, "big") + sps
            + b"\x01" + len(pps).to_bytes(2, "big") + pps)


class H265Converter:
    def __init__(self) -> None:
        self.params: dict[int, bytes] = {}
        self.config: bytes | None = None

    def convert(self, data: bytes) -> AccessUnit:
        keep: list[bytes] = []
        keyframe = False
        params = dict(self.params)
        for unit in split_annexb(data):
            kind = (unit[0] >> 1) & 0x3F
            if kind in (32, 33, 34):
                params[kind] = unit
            elif kind == 35:
                continue
            else:
                keyframe |= 16 <= kind <= 23
                keep.append(unit)
        changed = None
        if len(params) == 3 and params != self.params:
            self.params = params
            self.config = changed = hevc_config(params[32], params[33], params[34])
        return AccessUnit(_length_prefixed(keep), keyframe, changed)


def hevc_config(vps: bytes, sps: bytes, pps: bytes) -> bytes:
    """HEVCDecoderConfigurationRecord (ISO/IEC 14496-15 8.3.3.1): the general profile, tier and level
    copied from the SPS's profile_tier_level; 4:2:0, 8 bit, 4-byte NAL lengths, three arrays."""
    rbsp = remove_emulation_prevention(sps[2:])
    ptl = rbsp[1:13].ljust(12, b"\x00")  # profile space/tier/idc, 32 compat flags, 48 constraint bits, level
    out = bytearray(b"\x01")
    out += ptl[:11]  # through the constraint flags
    out += ptl[11:12]  # general_level_idc
    out += bytes((0xF0, 0x00, 0xFC, 0xFD, 0xF8, 0xF8, 0x00, 0x00, 0x0F, 3))
    for kind, unit in ((32, vps), (33, sps), (34, pps)):
        out += bytes((0x80 | kind,)) + (1).to_bytes(2, "big") + len(unit).to_bytes(2, "big") + unit
    return bytes(out)
