"""Credentials out of logged frames (protocols/jt808/redact.py): starred, same length, still decodable."""

from datetime import UTC, datetime

from protocols.jt808 import Authentication, LocationReport, RegistrationResponse, decode_frame, encode_frame
from protocols.jt808.redact import redact_raw_hex

PHONE = "013395279527"


def test_a_0x0102_code_is_starred_and_the_2019_imei_and_version_kept() -> None:
    frame = encode_frame(0x0102, Authentication("C0DE-1234", "860000000000001", "V1.2"), phone=PHONE, seq=3,
                         version="2019")
    redacted = bytes.fromhex(redact_raw_hex(frame.hex()))
    assert len(redacted) == len(frame) and b"C0DE-1234" not in redacted
    msg = decode_frame(redacted)  # the checksum is right again
    assert msg.body == Authentication("*********", "860000000000001", "V1.2")
    original = decode_frame(frame).header
    assert (msg.header.seq, msg.header.phone, msg.header.version) == (original.seq, original.phone, "2019")


def test_a_refusal_without_a_code_and_frames_without_credentials_are_unchanged() -> None:
    refused = encode_frame(0x8100, RegistrationResponse(5, 4, None), phone=PHONE, seq=9).hex()
    fix = LocationReport(0, 3, 30.0, 120.0, 10, 40.0, 90, datetime(2026, 12, 1, tzinfo=UTC))
    position = encode_frame(0x0200, fix, phone=PHONE, seq=10).hex()
    assert redact_raw_hex(refused) == refused and redact_raw_hex(position) == position


def test_a_credential_frame_that_does_not_decode_is_not_kept() -> None:
    frame = encode_frame(0x8100, RegistrationResponse(5, 0, "SECRET"), phone=PHONE, seq=9).hex()
    assert redact_raw_hex(frame[:-4] + "00" + frame[-2:]) == ""  # wrong checksum
    assert redact_raw_hex("zz") == ""


def test_the_gateway_log_of_a_refused_credential_frame_holds_no_code() -> None:
    from gateway.hostile_log import HexDump

    frame = encode_frame(0x0102, Authentication("TOPSECRET1"), phone=PHONE, seq=4)
    broken = frame[:-2] + bytes([frame[-2] ^ 0xFF]) + frame[-1:]  # a wrong checksum: cannot be re-read
    for data in (frame, broken):
        logged = str(HexDump(data, 64))
        assert b"TOPSECRET1".hex() not in logged and logged.startswith("7e0102")
