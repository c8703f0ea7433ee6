"""Terminal audio -> what browsers play (AAC in FLV). One ``AudioTrack`` per stream; PyAV (FFmpeg's
decoders and its native AAC encoder, bundled in the ``av`` wheel) does the work.

| payload type | handling |
|---|---|
| 19 AAC, 21 HE-AAC, 24 AAC-LC, 27 MP4 audio (ADTS) | passed through: ADTS headers stripped, their AudioSpecificConfig sent once |
| 6 G.711A, 7 G.711U | decoded, resampled, encoded to AAC-LC mono (``aac_sample_rate``) |
| 8 G.726 | decoded at ``g726_bit_rate`` (bits per sample from it), then AAC |
| 26 ADPCMA, 10-13 DVI4 | IMA ADPCM with the 4-byte state header (HiSilicon's DVI4 block), then AAC |
| 16 S16BE_MONO, 22/23 PCM | taken as 16-bit PCM, then AAC |
| anything else (G.729, AMR, ...) | dropped; ``unsupported`` names it (the stream info says so) |

Many HiSilicon-based terminals put a 4-byte header ``00 01 <len/2> 00`` before each audio frame; it is
removed when its length field matches.
"""

from __future__ import annotations

import logging
import struct
from dataclasses import dataclass
from typing import Any

from protocols.jt1078.payload_types import AAC_TYPES, ADPCM_TYPES, G711A, G711U, G726, payload_name

log = logging.getLogger("gateway.video.audio")

_PCM_TYPES = frozenset({15, 16, 18, 22, 23})
_ADTS_RATES = (96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350)


AUDIO_GAP_MS = 1000  # terminal audio resuming this much later than the encoded sound: a gap, not jitter


@dataclass(frozen=True)
class AacFrame:
    timestamp_ms: int
    data: bytes


def strip_hisilicon(data: bytes) -> bytes:
    if len(data) > 4 and data[0] == 0 and data[1] == 1 and data[3] == 0 and data[2] * 2 == len(data) - 4:
        return data[4:]
    return data


def adts_frames(data: bytes) -> tuple[bytes | None, list[bytes]]:
    """(AudioSpecificConfig of the first header, raw AAC frames) of ADTS data; (None, []) if not ADTS."""
    frames: list[bytes] = []
    asc = None
    at = 0
    while at + 7 <= len(data) and data[at] == 0xFF and data[at + 1] & 0xF0 == 0xF0:
        protection_absent = data[at + 1] & 1
        profile = (data[at + 2] >> 6) + 1
        rate_index = (data[at + 2] >> 2) & 0x0F
        channels = (data[at + 2] & 1) << 2 | data[at + 3] >> 6
        length = (data[at + 3] & 3) << 11 | data[at + 4] << 3 | data[at + 5] >> 5
        head = 7 if protection_absent else 9
        if length < head or at + length > len(data):
            break
        if asc is None:
            asc = (profile << 11 | rate_index << 7 | channels << 3).to_bytes(2, "big")
        frames.append(data[at + head:at + length])
        at += length
    return asc, frames


_IMA_STEPS = (
    7, 8, 9, 10, 11, 12, 13, 14, 16, 17, 19, 21, 23, 25, 28, 31, 34, 37, 41, 45, 50, 55, 60, 66, 73, 80, 88, 97, 107,
    118, 130, 143, 157, 173, 190, 209, 230, 253, 279, 307, 337, 371, 408, 449, 494, 544, 598, 658, 724, 796, 876, 963,
    1060, 1166, 1282, 1411, 1552, 1707, 1878, 2066, 2272, 2499, 2749, 3024, 3327, 3660, 4026, 4428, 4871, 5358, 5894,
    6484, 7132, 7845, 8630, 9493, 10442, 11487, 12635, 13899, 15289, 16818, 18500, 20350, 22385, 24623, 27086, 29794,
    32767)
_IMA_INDEX = (-1, -1, -1, -1, 2, 4, 6, 8)


def ima_adpcm_decode(block: bytes) -> bytes:
    """IMA ADPCM block (4-byte header: predictor int16 LE, step index, reserved; then 4-bit codes, low
    nibble first) -> 16-bit little-endian PCM."""
    if len(block) < 4:
        return b""
    predictor, index = struct.unpack_from("<hB", block)
    index = min(index, 88)
    out = [predictor]
    for byte in block[4:]:
        for code in (byte & 0x0F, byte >> 4):
            step = _IMA_STEPS[index]
            diff = step >> 3
            if code & 4:
                diff += step
            if code & 2:
                diff += step >> 1
            if code & 1:
                diff += step >> 2
            predictor = max(-32768, min(32767, predictor - diff if code & 8 else predictor + diff))
            out.append(predictor)
            index = max(0, min(88, index + _IMA_INDEX[code & 7]))
    return struct.pack(f"<{len(out)}h", *out)


class AudioTrack:
    """``push(payload_type, data, timestamp_ms)`` -> AAC frames; ``config`` is the AudioSpecificConfig
    once known (it is known after the first supported frame)."""

    def __init__(self, aac_sample_rate: int = 16000, g726_bit_rate: int = 40000) -> None:
        self.aac_sample_rate = aac_sample_rate
        self.g726_bit_rate = g726_bit_rate
        self.config: bytes | None = None
        self.sample_rate = aac_sample_rate
        self.unsupported: str | None = None
        self.codec_name: str | None = None
        self._decoder: Any = None
        self._decoder_pt: int | None = None
        self._resampler: Any = None
        self._encoder: Any = None
        self._base_ms: int | None = None
        self._encoded = 0

    def push(self, payload_type: int, data: bytes, timestamp_ms: int) -> list[AacFrame]:
        data = strip_hisilicon(data)
        if not data:
            return []
        if payload_type in AAC_TYPES:
            return self._passthrough(data, timestamp_ms)
        try:
            pcm_frames = self._decode(payload_type, data)
        except Exception as exc:  # a corrupt frame from a terminal must not end the stream
            log.debug("audio frame PT %s not decoded: %r", payload_type, exc)
            return []
        if pcm_frames is None:
            if self.unsupported is None:
                self.unsupported = payload_name(payload_type)
                log.warning("audio %s cannot be played in browsers and is not transcoded; dropped",
                            self.unsupported)
            return []
        return self._encode(pcm_frames, timestamp_ms)

    def _passthrough(self, data: bytes, timestamp_ms: int) -> list[AacFrame]:
        asc, frames = adts_frames(data)
        if asc is None:
            return []
        if self.config is None:
            self.config = asc
            self.codec_name = "AAC"
            index = (asc[0] & 7) << 1 | asc[1] >> 7
            self.sample_rate = _ADTS_RATES[index] if index < len(_ADTS_RATES) else 8000
        step = 1024 * 1000 / self.sample_rate
        return [AacFrame(timestamp_ms + round(i * step), f) for i, f in enumerate(frames)]

    def _decode(self, payload_type: int, data: bytes) -> list[Any] | None:
        import av

        if payload_type in ADPCM_TYPES:
            return self._pcm_frames(ima_adpcm_decode(data), "adpcm")
        if payload_type in _PCM_TYPES:
            samples = len(data) // 2
            little = struct.pack(f"<{samples}h", *struct.unpack(f">{samples}h", data[:samples * 2]))
            return self._pcm_frames(little, "pcm")
        name = {G711A: "pcm_alaw", G711U: "pcm_mulaw", G726: "g726le"}.get(payload_type)
        if name is None:
            return None
        if self._decoder is None or self._decoder_pt != payload_type:
            decoder: Any = av.CodecContext.create(name, "r")
            decoder.sample_rate = 8000
            decoder.layout = "mono"
            if payload_type == G726:
                decoder.bit_rate = self.g726_bit_rate
                decoder.bits_per_coded_sample = self.g726_bit_rate // 8000
            self._decoder, self._decoder_pt = decoder, payload_type
            self.codec_name = payload_name(payload_type)
        return list(self._decoder.decode(av.Packet(data)))

    def _pcm_frames(self, pcm_le: bytes, name: str) -> list[Any]:
        import av

        self.codec_name = self.codec_name or name
        samples = len(pcm_le) // 2
        if not samples:
            return []
        frame = av.AudioFrame(format="s16", layout="mono", samples=samples)
        frame.planes[0].update(pcm_le[:samples * 2])
        frame.sample_rate = 8000
        return [frame]

    def _encode(self, pcm_frames: list[Any], timestamp_ms: int) -> list[AacFrame]:
        import av

        if self._encoder is None:
            encoder: Any = av.CodecContext.create("aac", "w")
            encoder.sample_rate = self.aac_sample_rate
            encoder.layout = "mono"
            encoder.format = "fltp"
            encoder.bit_rate = 32000
            encoder.open()
            self._encoder = encoder
            self._resampler = av.AudioResampler(format="fltp", layout="mono", rate=self.aac_sample_rate)
            self.config = bytes(encoder.extradata or b"")
            self._base_ms = timestamp_ms
        out = []
        step = 1024 * 1000 / self.aac_sample_rate
        assert self._base_ms is not None
        # The encoder counts samples; a terminal that sent no sound for a while (a paused or fast-forwarded
        # playback) resumes later on its clock. Without moving the count there, the sound would run behind
        # the pictures by that while, and a player, which plays no further than its shorter track, would
        # freeze the picture. Backwards steps are jitter: the count stays.
        if timestamp_ms - (self._base_ms + self._encoded * step) > AUDIO_GAP_MS:
            self._base_ms = timestamp_ms - round(self._encoded * step)
        for frame in pcm_frames:
            frame.pts = None
            for resampled in self._resampler.resample(frame):
                for packet in self._encoder.encode(resampled):
                    # the encoder's first output is its 1024-sample priming: one frame before the input
                    at = self._base_ms + round((self._encoded - 1) * step)
                    self._encoded += 1
                    out.append(AacFrame(at, bytes(packet)))
        return out
