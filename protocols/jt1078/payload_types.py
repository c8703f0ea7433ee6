"""JT/T 1078-2016 table 12: payload types (the PT of the RTP header, and the codec fields of 0x1003)."""

from __future__ import annotations

PAYLOAD_TYPES: dict[int, str] = {
    1: "G.721", 2: "G.722", 3: "G.723", 4: "G.728", 5: "G.729", 6: "G.711A", 7: "G.711U", 8: "G.726",
    9: "G.729A", 10: "DVI4_3", 11: "DVI4_4", 12: "DVI4_8K", 13: "DVI4_16K", 14: "LPC", 15: "S16BE_STEREO",
    16: "S16BE_MONO", 17: "MPEGAUDIO", 18: "LPCM", 19: "AAC", 20: "WMA9STD", 21: "HEAAC", 22: "PCM_VOICE",
    23: "PCM_AUDIO", 24: "AACLC", 25: "MP3", 26: "ADPCMA", 27: "MP4AUDIO", 28: "AMR", 91: "transparent",
    98: "H.264", 99: "H.265", 100: "AVS", 101: "SVAC",
}
G711A, G711U, G726, S16BE_MONO, AAC, AACLC, MP3, ADPCMA, H264, H265 = 6, 7, 8, 16, 19, 24, 25, 26, 98, 99
AAC_TYPES = frozenset({19, 21, 24, 27})
ADPCM_TYPES = frozenset({10, 11, 12, 13, 26})
VIDEO_TYPES = frozenset({98, 99, 100, 101})


def payload_name(payload_type: int) -> str:
    return PAYLOAD_TYPES.get(payload_type, f"PT{payload_type}")
