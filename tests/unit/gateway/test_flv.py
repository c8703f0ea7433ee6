"""FLV muxing (gateway/video/flv.py, nal.py, audio.py): the output parsed back and decoded again."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import av

from gateway.video import flv
from gateway.video.audio import AudioTrack, adts_frames, strip_hisilicon
from gateway.video.nal import H264Converter, H265Converter, split_annexb
from simulator.video_clips import read_stripe
from tests.support.media import tiny_clip


def test_tags_carry_their_size_timestamp_and_previous_tag_size() -> None:
    raw = flv.header(True, True) + flv.metadata_tag({"duration": 0, "streamId": "1-2-live", "stereo": False}) \
        + flv.video_tag(flv.CODEC_AVC, 0x01234567, b"\x00\x00\x00\x01\x65", True) + flv.aac_tag(40, b"\x21\x10")
    assert raw[:13] == b"FLV\x01\x05\x00\x00\x00\x09\x00\x00\x00\x00"
    has_audio, has_video, tags = flv.parse_flv(raw)
    assert has_audio and has_video
    assert flv.parse_metadata(tags[0].data) == {"duration": 0.0, "streamId": "1-2-live", "stereo": False}
    assert tags[1].timestamp_ms == 0x01234567 and tags[1].keyframe  # the extended timestamp byte
    assert tags[1].data[:5] == b"\x17\x01\x00\x00\x00"
    assert tags[2].data == b"\xaf\x01\x21\x10"


def test_splits_annex_b_with_both_start_code_lengths() -> None:
    data = b"\x00\x00\x00\x01\x67\x42" + b"\x00\x00\x01\x68\xce" + b"\x00\x00\x00\x01\x65\x88\x00"
    assert split_annexb(data) == [b"\x67\x42", b"\x68\xce", b"\x65\x88\x00"]
    assert split_annexb(b"\x41\x9a") == [b"\x41\x9a"]  # a bare NAL unit


def _annexb_from_tag(config: bytes, tag: flv.Tag, first: bool) -> bytes:
    units = list(flv.iter_nal_units(tag.data[5:]))
    if first:  # SPS and PPS out of the AVCDecoderConfigurationRecord
        sps_len = int.from_bytes(config[6:8], "big")
        sps = config[8:8 + sps_len]
        pps = config[8 + sps_len + 3:]
        units = [sps, pps, *units]
    return b"".join(b"\x00\x00\x00\x01" + u for u in units)


def test_h264_access_units_become_avc_tags_that_decode_to_the_same_pictures() -> None:
    clip = tiny_clip()
    converter = H264Converter()
    stream = flv.header(False, True)
    config = b""
    for index, (data, key) in enumerate(clip.frames):
        unit = converter.convert(data)
        assert unit.keyframe == key
        if unit.config is not None:
            config = unit.config
            stream += flv.video_config_tag(flv.CODEC_AVC, config)
        stream += flv.video_tag(flv.CODEC_AVC, index * 40, unit.payload, unit.keyframe)
    _, _, tags = flv.parse_flv(stream)
    assert tags[0].is_config and tags[0].data[5] == 1  # configurationVersion
    assert tags[0].data[6:9] == config[1:4]  # profile, compatibility, level from the SPS
    decoder: Any = av.CodecContext.create("h264", "r")
    counters = []
    media = [t for t in tags if not t.is_config]
    for n, tag in enumerate(media):
        for picture in decoder.decode(av.Packet(_annexb_from_tag(config, tag, n == 0))):
            counters.append(read_stripe(picture.to_image().convert("L"), picture.width, picture.height))
    assert counters == list(range(len(counters))) and len(counters) >= len(clip.frames) - 2


def test_h265_passes_through_as_codec_12_with_a_decoder_configuration_record() -> None:
    encoder: Any = av.CodecContext.create("libx265", "w")
    encoder.width, encoder.height, encoder.pix_fmt = 160, 96, "yuv420p"
    encoder.time_base = Fraction(1, 25)
    encoder.options = {"preset": "ultrafast", "x265-params": "keyint=5:bframes=0:repeat-headers=1:log-level=none"}
    encoder.open()
    units = []
    for i in range(10):
        frame = av.VideoFrame(160, 96, "yuv420p")
        for plane in frame.planes:
            plane.update(bytes([(i * 20) % 256]) * plane.buffer_size)
        frame.pts = i
        units += [bytes(p) for p in encoder.encode(frame)]
    units += [bytes(p) for p in encoder.encode(None)]
    converter = H265Converter()
    converted = [converter.convert(u) for u in units]
    assert converted[0].keyframe and converted[0].config is not None
    config = converted[0].config
    assert config[0] == 1 and config[22] == 3  # version 1, three arrays (VPS, SPS, PPS)
    tag = flv.parse_flv(flv.header(False, True) + flv.video_config_tag(flv.CODEC_HEVC, config))[2][0]
    assert tag.data[0] == 0x1C  # key frame, codec id 12
    decoder: Any = av.CodecContext.create("hevc", "r")
    pictures = 0
    for unit in units:
        pictures += len(decoder.decode(av.Packet(unit)))
    assert pictures >= 8


def test_aac_passes_through_without_its_adts_headers() -> None:
    raw = bytes.fromhex("FFF16040015FFC") + b"\x21\x10\x05"  # AAC-LC, 16 kHz, mono, 10-byte frame
    asc, frames = adts_frames(raw)
    assert asc == bytes.fromhex("1408") and frames == [b"\x21\x10\x05"]
    track = AudioTrack()
    out = track.push(19, raw, 1000)
    assert track.config == bytes.fromhex("1408") and out[0].data == b"\x21\x10\x05"


def test_g711_is_transcoded_to_aac_once_per_stream() -> None:
    track = AudioTrack(aac_sample_rate=16000)
    frames = [f for i in range(50) for f in track.push(6, bytes([0xD5]) * 320, 5000 + i * 40)]
    assert track.config is not None and track.config[:2] == bytes.fromhex("1408")
    assert 25 <= len(frames) <= 32  # 2 s of audio in 64 ms AAC frames
    # the encoder's first frame is its priming: one frame (64 ms) before the first input
    assert frames[0].timestamp_ms == 4936 and frames[1].timestamp_ms == 5000


def test_strips_the_hisilicon_audio_header_only_when_its_length_matches() -> None:
    assert strip_hisilicon(b"\x00\x01\x02\x00abcd") == b"abcd"
    assert strip_hisilicon(b"\x00\x01\x05\x00abcd") == b"\x00\x01\x05\x00abcd"


def test_sound_resuming_after_a_gap_is_stamped_at_the_terminals_time_not_behind_the_pictures() -> None:
    track = AudioTrack(aac_sample_rate=16000)
    before = [f for i in range(25) for f in track.push(6, bytes([0xD5]) * 320, 5000 + i * 40)]
    # a fast-forward: the pictures ran 10 s further while the terminal sent no sound
    after = [f for i in range(25) for f in track.push(6, bytes([0xD5]) * 320, 16000 + i * 40)]
    assert before[-1].timestamp_ms < 6100
    assert 15900 <= after[0].timestamp_ms <= 16100, after[0].timestamp_ms
    stamps = [f.timestamp_ms for f in before + after]
    assert stamps == sorted(stamps)
