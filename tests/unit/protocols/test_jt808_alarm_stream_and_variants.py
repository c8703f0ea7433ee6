"""The attachment data stream (magic 0x30316364 chunks) and the regional-variant mechanism: the
Guangdong 2019 layout replaces the Jiangsu one only while it is selected."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from protocols.jt808 import (
    AlarmAttachmentList,
    AlarmAttachmentUploadRequest,
    AlarmNumber,
    AttachmentFile,
    BodyError,
    FramingError,
    active_variant,
    decode_body,
    decode_frame,
    encode_frame,
    use_variant,
    variant,
)
from protocols.jt808.attachment_stream import MAGIC, FrameError, encode_chunk, parse_chunk
from protocols.jt808.extras import decode_items, encode_items

# SmallChi/JTActiveSafety JTActiveSafetySerializerTest.cs: the name is NUL padded on the left.
PUBLIC_CHUNK = ("30316364" + "00" * 40 + "616C61726D2E786C7378" + "00000001" + "00000005" + "0102030405")


def test_parse_chunk_reads_the_public_vector() -> None:
    raw = bytes.fromhex(PUBLIC_CHUNK)
    assert parse_chunk(raw + b"\x30") == ("alarm.xlsx", 1, b"\x01\x02\x03\x04\x05", len(raw))


def test_chunks_round_trip_and_wait_for_more_bytes() -> None:
    chunk = encode_chunk("00_64_6401_0_x.jpg", 65536, b"\xff\xd8" * 100)
    assert chunk[:4] == MAGIC.to_bytes(4, "big")
    assert parse_chunk(chunk) == ("00_64_6401_0_x.jpg", 65536, b"\xff\xd8" * 100, len(chunk))
    for cut in (0, 3, 61, len(chunk) - 1):
        assert parse_chunk(chunk[:cut]) is None


def test_bad_chunk_headers_raise_frame_error() -> None:
    with pytest.raises(FrameError, match="magic"):
        parse_chunk(b"\x7e\x02\x00\x00")
    oversize = bytes.fromhex("30316364") + b"a".ljust(50, b"\x00") + (0).to_bytes(4, "big") + (1 << 30).to_bytes(4, "big")
    with pytest.raises(FramingError, match="exceeds"):
        parse_chunk(oversize)


def test_encode_chunk_refuses_a_name_over_50_bytes() -> None:
    with pytest.raises(BodyError, match="1-50"):
        encode_chunk("n" * 51, 0, b"")


TIME = datetime(2026, 11, 25, 6, 0, tzinfo=UTC)
GD_TERMINAL = "GD" + "7" * 28  # 30 characters: only the Guangdong layout can carry it


def _adas(terminal_id: str) -> dict[str, object]:
    return {"alarm_id": 7, "flag": 0, "type": 1, "level": 2, "speed_kmh": 65, "altitude_m": 12, "lat": 23.1,
            "lng": 113.3, "time": TIME.isoformat(), "vehicle_status": 1, "front_speed_kmh": 50, "headway_s": 1.2,
            "deviation_type": 0, "road_sign_type": 0, "road_sign_data": 0,
            "alarm_no": {"terminal_id": terminal_id, "time": TIME.isoformat(), "seq": 0, "attachments": 3}}


def test_guangdong_variant_reads_the_40_byte_alarm_number_only_while_selected() -> None:
    assert active_variant() == "jiangsu2017"
    jiangsu_item = encode_items({"adas_alarm": _adas("ABC1234")}, ())
    with variant("guangdong2019"):
        assert active_variant() == "guangdong2019"
        guangdong_item = encode_items({"adas_alarm": _adas(GD_TERMINAL)}, ())
        assert len(guangdong_item) == len(jiangsu_item) + 24
        extras, _ = decode_items(guangdong_item)
        assert extras["adas_alarm"]["alarm_no"]["terminal_id"] == GD_TERMINAL
        assert decode_items(jiangsu_item)[0] == {}  # a Jiangsu item is not a Guangdong one
    assert active_variant() == "jiangsu2017"
    assert decode_items(jiangsu_item)[0]["adas_alarm"]["alarm_no"]["terminal_id"] == "ABC1234"
    assert decode_items(guangdong_item)[0] == {}


def test_guangdong_variant_replaces_the_9208_and_1210_layouts() -> None:
    number = AlarmNumber(GD_TERMINAL, TIME, 1, 2)
    with variant("guangdong2019") as chosen:
        request_cls, list_cls = chosen.bodies
        request = request_cls("127.0.0.1", 7613, 0, number, "c" * 32)
        raw = request.encode("2019")
        assert len(raw) == 1 + 9 + 4 + 40 + 32 + 16
        assert decode_body(0x9208, raw, "2019") == request
        files = list_cls(GD_TERMINAL, number, "c" * 32, 0, (AttachmentFile("a.jpg", 5),))
        frame = encode_frame(0x1210, files, phone="13912345678", seq=3, version="2019")
        decoded = decode_frame(frame).body
        assert isinstance(decoded, AlarmAttachmentList) and decoded.terminal_id == GD_TERMINAL
    jiangsu = AlarmAttachmentUploadRequest("127.0.0.1", 7613, 0, AlarmNumber("ABC1234", TIME, 1, 2), "c" * 32)
    assert type(decode_body(0x9208, jiangsu.encode("2013"), "2013")) is AlarmAttachmentUploadRequest


def test_unknown_variant_is_refused_and_leaves_the_codec_alone() -> None:
    with pytest.raises(KeyError, match="guangdong2019"):
        use_variant("shanghai2099")
    assert active_variant() == "jiangsu2017"


def test_fleet_decode_reads_a_guangdong_frame_with_its_variant_only() -> None:
    from click.testing import CliRunner

    from fleet.cli import main

    # yezhihao/jt808-server 单元测试记录.txt:3022, a 0x1210 with 30-byte terminal ids (粤标)
    frame = ("7E121040680112345678901234567890FFFF303938373635343332313039383736353433323100000000000000000000"
             "303938373635343332313039383736353433323100000000000000000000200707192359010300016164373231333135"
             "37396535346265306230663733376366633732633564623800003C7E")
    try:
        plain = CliRunner().invoke(main, ["decode", frame])
        assert plain.exit_code == 2 and "BodyError" in plain.stderr
        result = CliRunner().invoke(main, ["decode", "--variant", "guangdong2019", frame])
        assert result.exit_code == 0
        assert json.loads(result.stdout)["body"]["terminal_id"] == "09876543210987654321"
        unknown = CliRunner().invoke(main, ["decode", "--variant", "nowhere", frame])
        assert unknown.exit_code == 2 and "nowhere" in unknown.stderr
    finally:
        use_variant("jiangsu2017")


def test_services_take_the_variant_from_fleet_protocol_variant(monkeypatch: pytest.MonkeyPatch) -> None:
    from fleet.settings import apply_protocol_variant

    try:
        monkeypatch.setenv("FLEET_PROTOCOL_VARIANT", "guangdong2019")
        assert apply_protocol_variant() == "guangdong2019" and active_variant() == "guangdong2019"
        monkeypatch.setenv("FLEET_PROTOCOL_VARIANT", "shanghai2099")
        with pytest.raises(SystemExit, match="FLEET_PROTOCOL_VARIANT='shanghai2099'.*guangdong2019"):
            apply_protocol_variant()
        monkeypatch.delenv("FLEET_PROTOCOL_VARIANT")
        assert apply_protocol_variant() == "jiangsu2017"
    finally:
        use_variant("jiangsu2017")
