"""JT/T 809 framing, header, CRC-16/CCITT and the simple encryption against every public frame vector.

Known answers: each frame's header fields as the vectors note states them, its decrypted body, and
re-encoding the decoded frame gives the same bytes (escapes, CRC and encryption included).
"""

from __future__ import annotations

import random

import pytest

from protocols.jt809 import (
    BodyError,
    ChecksumError,
    CipherKeys,
    EncryptedBodyError,
    FramingError,
    Header,
    JT809Error,
    LengthError,
    UnknownVersionError,
    crc16,
    crypt,
    decode_frame,
    encode_frame,
    escape,
    guess_version,
    unescape,
)
from tests.unit.protocols.jt809_vectors import VECTORS

SMALLCHI = CipherKeys(30000000, 20000000, 20000000)
DEMO_2019 = CipherKeys(20240604, 20240604, 20240604)
GUOJIAN = CipherKeys(56107078, 37382110, 50361430)

# name: (version, length, sn, msg id, centre id, version flag, encrypted, key, 2019 time, keys)
FRAMES = {
    "LOGIN-2011": ("2011", 72, 133, 0x1001, 20180920, (1, 0, 0), False, 9999, None, None),
    "ENC-LOGIN-2011": ("2011", 72, 133, 0x1001, 20180920, (1, 0, 0), True, 256178, None, SMALLCHI),
    "ENC-LOGIN-2019": ("2019", 84, 13, 0x1001, 102, (1, 2, 15), True, 0, 1717521786, DEMO_2019),
    "ESC-CRC-5A": ("2011", 110, 2, 0x1400, 0, (1, 0, 0), False, 0, None, None),
    "LOGIN-DN": ("2011", 72, 133, 0x1001, 20141013, (1, 0, 0), False, 9999, None, None),
    "LOGIN-RESP": ("2011", 31, 1339, 0x1002, 20191013, (1, 0, 0), False, 9999, None, None),
    "LOGOUT": ("2011", 38, 133, 0x1003, 20190222, (1, 0, 0), False, 9999, None, None),
    "HEARTBEAT": ("2011", 26, 133, 0x1005, 20190222, (1, 0, 0), False, 9999, None, None),
    "SUBLINK-9002": ("2011", 27, 2, 0x9002, 100210, (1, 0, 0), False, 0, None, None),
    "SUBLINK-9006": ("2011", 26, 3, 0x9006, 100210, (1, 0, 0), False, 0, None, None),
    "REAL-1007-ENC": ("2019", 35, 1, 0x1007, 86896940, (0, 0, 0), True, 15241, 1757299654, GUOJIAN),
    "1201-2019": ("2019", 172, 1666, 0x1200, 20190708, (1, 0, 0), False, 9999, 1587873720, None),
    "1202-2011-ESC": ("2011", 90, 168, 0x1200, 20190414, (1, 0, 0), False, 9999, None, None),
    "1202-2019-QUIRK": ("2019", 147, 1, 0x1200, 10000007, (1, 0, 0), False, 223345, 1759139698, None),
    "REAL-1202-ENC-1": ("2019", 141, 730, 0x1200, 70000001, (0, 0, 0), True, 15241, 1755833777, GUOJIAN),
    "REAL-1202-ENC-2": ("2019", 216, 877, 0x1200, 86896940, (0, 0, 0), True, 15241, 1759037327, GUOJIAN),
    "REAL-9301-ENC": ("2019", 92, 73, 0x9300, 70000001, (0, 0, 0), True, 15241, 1755191640, GUOJIAN),
    "REAL-9301-PLAIN": ("2019", 92, 6, 0x9300, 0, (0, 0, 0), False, 0, 1755229681, None),
    "9401-2011": ("2011", 146, 1666, 0x9400, 20180920, (1, 0, 0), False, 9999, None, None),
    "1402-2019": ("2019", 126, 2, 0x1400, 33472912, (1, 2, 15), False, 0, 1600220233, None),
    "REAL-1401-ENC": ("2019", 51, 600, 0x1400, 86896940, (0, 0, 0), True, 15241, 1756867008, GUOJIAN),
    "REAL-9403-PLAIN": ("2019", 142, 16, 0x9400, 0, (0, 0, 0), False, 0, 1755230463, None),
    "REAL-1501-ENC": ("2019", 69, 21, 0x1500, 86896940, (0, 0, 0), True, 15241, 1755485309, GUOJIAN),
    "REAL-1502-ENC": ("2019", 112, 8, 0x1500, 86896940, (0, 0, 0), True, 15241, 1755499601, GUOJIAN),
    "1701-2011": ("2011", 193, 1666, 0x1700, 20190708, (1, 0, 0), False, 9999, None, None),
    "1701-2019-ESC": ("2019", 201, 1666, 0x1700, 20190708, (1, 0, 0), False, 9999, 1587873720, None),
    "1801-2019": ("2019", 97, 1, 0x1800, 0, (0, 0, 0), False, 0, 1760175349, None),
}

# Public frames that carry a special byte unescaped (accepted because their CRC matches): the real
# encrypted captures do not escape their bodies, and SmallChi's reader test has a bare 0x5e.
NOT_ESCAPED = {"ESC-CRC-5A", "REAL-1202-ENC-1", "REAL-1202-ENC-2", "REAL-9301-ENC", "REAL-1401-ENC",
               "REAL-1501-ENC", "REAL-1502-ENC"}

# Decrypted bodies as the vectors note documents them (the start of the body where it is long).
PLAIN_STARTS = {
    "ENC-LOGIN-2011": bytes.fromhex("0133EFB832303138303932303132372E302E302E31"),  # 20180920, "20180920", "127.0.0.1"
    "ENC-LOGIN-2019": bytes.fromhex("00000066313233343536000000000066313237") ,  # 102, "123456", centre 102, "127"
    "REAL-1007-ENC": b"\x00",
    "REAL-1202-ENC-1": "测B01844".encode("gbk"),
    "REAL-1202-ENC-2": "陕CJ3819".encode("gbk"),
    "REAL-9301-ENC": bytes.fromhex("9301000000340262E2"[:12]),  # sub 0x9301, 52 bytes of data
    "REAL-1401-ENC": bytes.fromhex("14010000000B0D6F196E1402000000040" + "1"),
    "REAL-1501-ENC": "测A60369".encode("gbk"),
    "REAL-1502-ENC": "京A12345".encode("gbk"),
}


def _frame(name: str) -> bytes:
    return bytes.fromhex(VECTORS[name])


def _sound(frame: bytes, version: str = "2011", keys: CipherKeys | None = None) -> tuple[Header, bytes]:
    """Header and plain body of a frame whose framing is sound, whether or not its body fits its layout
    (ESC-CRC-5A's body does not: its source only uses it for the CRC and escape path)."""
    try:
        message = decode_frame(frame, version=version, keys=keys)
    except BodyError as exc:
        assert exc.header is not None and exc.body is not None
        return exc.header, exc.body
    return message.header, message.plain


@pytest.mark.parametrize("name", sorted(FRAMES))
def test_every_public_frame_decodes_to_its_documented_header(name: str) -> None:
    version, length, sn, msg_id, centre, pv, encrypted, key, timestamp, keys = FRAMES[name]
    h, plain = _sound(_frame(name), version, keys)
    assert (h.length, h.sn, h.msg_id, h.centre_id, h.protocol_version, h.encrypted, h.key, h.timestamp) == (
        length, sn, msg_id, centre, pv, encrypted, key, timestamp)
    header_bytes = 30 if version == "2019" else 22
    assert len(plain) == length - header_bytes - 4


@pytest.mark.parametrize("name", sorted(FRAMES))
def test_re_encoding_a_decoded_frame_gives_the_same_bytes(name: str) -> None:
    version, *_, keys = FRAMES[name]
    h, plain = _sound(_frame(name), version, keys)
    again = encode_frame(h.msg_id, plain, sn=h.sn, centre_id=h.centre_id, version=version,
                         protocol_version=h.protocol_version, keys=keys if h.encrypted else None, key=h.key,
                         timestamp=h.timestamp)
    if name in NOT_ESCAPED:  # sent with bare special bytes: ours escapes them, and decodes to the same
        assert _sound(again, version, keys)[1] == plain
    else:
        assert again == _frame(name)


@pytest.mark.parametrize("name", sorted(PLAIN_STARTS))
def test_encrypted_frames_decrypt_to_the_documented_body(name: str) -> None:
    version, *_, keys = FRAMES[name]
    assert decode_frame(_frame(name), version=version, keys=keys).plain.startswith(PLAIN_STARTS[name])


def test_encrypted_login_decrypts_to_the_plain_login_body() -> None:
    plain = decode_frame(_frame("LOGIN-2011")).plain
    assert decode_frame(_frame("ENC-LOGIN-2011"), keys=SMALLCHI).plain == plain


def test_encrypted_inspection_capture_decrypts_to_its_plain_twin() -> None:
    plain = decode_frame(_frame("REAL-9301-PLAIN"), version="2019").plain
    assert decode_frame(_frame("REAL-9301-ENC"), version="2019", keys=GUOJIAN).plain == plain


def test_keystream_matches_the_published_example_both_ways() -> None:
    cipher = bytes.fromhex(VECTORS["ENC-PRIM"])
    assert crypt(bytes(range(1, 8)), 256178, SMALLCHI) == cipher
    assert crypt(cipher, 256178, SMALLCHI) == bytes(range(1, 8))


def test_key_zero_is_replaced_by_one() -> None:
    assert crypt(b"\x00" * 4, 0, DEMO_2019) == crypt(b"\x00" * 4, 1, DEMO_2019)


def test_unescape_follows_the_published_rules_and_escape_inverts_it() -> None:
    assert unescape(bytes.fromhex(VECTORS["ESC-RULES"])) == bytes.fromhex("5B005A485E5E005D")
    # the published input keeps one 0x5e bare; escaping the result escapes both
    assert escape(bytes.fromhex("5B005A485E5E005D")) == bytes.fromhex("5A01005A02485E025E02005E01")
    assert unescape(escape(bytes(range(256)))) == bytes(range(256))


def test_crc_is_ccitt_false() -> None:
    assert crc16(b"123456789") == 0x29B1  # the catalogue check value of CRC-16/CCITT-FALSE


def test_crc_sent_escaped_is_checked_after_unescaping() -> None:
    frame = _frame("ESC-CRC-5A")
    assert frame.endswith(bytes.fromhex("5A024A5D"))
    assert _sound(frame)[0].msg_id == 0x1400


def test_wrong_crc_is_refused_with_both_values() -> None:
    frame = bytearray(_frame("HEARTBEAT"))
    frame[-2] ^= 0x01
    with pytest.raises(ChecksumError, match="CRC 0xBA40 in the frame, 0xBA41 computed") as caught:
        decode_frame(bytes(frame))
    assert caught.value.header is not None and caught.value.header.msg_id == 0x1005


def test_flipped_body_byte_is_a_crc_error() -> None:
    frame = bytearray(_frame("LOGIN-2011"))
    frame[40] ^= 0x10
    with pytest.raises(ChecksumError):
        decode_frame(bytes(frame))


@pytest.mark.parametrize("bad", ["5A03", "5E00", "275A"])
def test_bad_escape_is_refused(bad: str) -> None:
    frame = VECTORS["HEARTBEAT"].replace("270F", bad)  # the key bytes, same length
    with pytest.raises(FramingError, match="not a valid JT/T 809 escape"):
        decode_frame(bytes.fromhex(frame))


def test_bare_escape_byte_is_kept_when_the_crc_accepts_it() -> None:
    frame = _frame("ESC-CRC-5A")  # a public frame with a bare 0x5e in its body
    assert bytes.fromhex("5E7B") in frame
    assert len(_sound(frame)[1]) == 110 - 26


def test_flag_byte_inside_a_frame_is_kept_when_the_crc_accepts_it() -> None:
    frame = _frame("REAL-1202-ENC-2")  # a real capture with an unescaped 0x5b in its encrypted body
    assert b"\x5b" in frame[1:-1]
    assert decode_frame(frame, version="2019", keys=GUOJIAN).plain.startswith("陕CJ3819".encode("gbk"))


def test_flag_byte_inside_a_frame_with_a_bad_crc_is_refused() -> None:
    frame = VECTORS["HEARTBEAT"].replace("270F", "275B")  # a key byte, same length
    with pytest.raises(FramingError, match="flag byte 0x5b at offset 22 inside the frame"):
        decode_frame(bytes.fromhex(frame))


@pytest.mark.parametrize("frame", [b"", b"\x5b", b"\x5d", b"\x00\x5d", b"\x5b\x00"])
def test_missing_flags_are_refused(frame: bytes) -> None:
    with pytest.raises(FramingError, match="starts with 0x5b and ends with 0x5d"):
        decode_frame(frame)


def test_truncated_frames_are_refused_at_every_length() -> None:
    frame = _frame("LOGIN-2011")
    for cut in range(2, len(frame) - 1):
        with pytest.raises((LengthError, FramingError)):
            decode_frame(frame[:cut] + b"\x5d")


def test_truncated_frame_names_the_lengths() -> None:
    frame = _frame("LOGIN-2011")
    with pytest.raises(LengthError, match="MSG_LENGTH 72 but the frame has 71 bytes"):
        decode_frame(frame[:-4] + frame[-3:])


def test_a_2011_frame_read_as_2019_is_refused() -> None:
    with pytest.raises(LengthError):
        decode_frame(_frame("HEARTBEAT"), version="2019")


def test_encrypted_body_without_keys_is_refused_with_the_header() -> None:
    with pytest.raises(EncryptedBodyError, match="no M1/IA1/IC1") as caught:
        decode_frame(_frame("ENC-LOGIN-2011"))
    assert caught.value.header is not None and caught.value.header.key == 256178


def test_unknown_version_is_refused() -> None:
    with pytest.raises(UnknownVersionError):
        decode_frame(_frame("HEARTBEAT"), version="2013")


def test_cipher_keys_refuse_m1_zero() -> None:
    with pytest.raises(ValueError, match="M1 must not be 0"):
        CipherKeys(0, 1, 1)


def test_random_damage_only_ever_raises_codec_errors() -> None:
    rng = random.Random(809)
    frames = [(_frame(name), spec[0], spec[-1]) for name, spec in FRAMES.items()]
    for _ in range(3000):
        frame, version, keys = rng.choice(frames)
        damaged = bytearray(frame)
        for _ in range(rng.randint(1, 4)):
            damaged[rng.randrange(len(damaged))] = rng.randrange(256)
        try:
            decode_frame(bytes(damaged), version=rng.choice(["2011", "2019"]), keys=keys)
        except JT809Error:
            pass


@pytest.mark.parametrize("name", sorted(FRAMES))
def test_the_header_layout_is_guessed_from_the_2019_time_field(name: str) -> None:
    assert guess_version(_frame(name)) == FRAMES[name][0]


def _reference_crypt(data: bytes, key: int, keys: CipherKeys) -> bytes:
    """The standard's formula byte by byte, as the vectors note writes it."""
    out = bytearray()
    key = key or 1
    for byte in data:
        key = (keys.ia1 * (key % keys.m1) + keys.ic1) & 0xFFFFFFFF
        out.append(byte ^ ((key >> 20) & 0xFF))
    return bytes(out)


@pytest.mark.parametrize("size", [0, 1, 255, 256, 257, 1000])
@pytest.mark.parametrize(("key", "keys"), [(0, DEMO_2019), (15241, GUOJIAN), (0xFFFFFFFF, SMALLCHI)])
def test_cached_keystream_equals_the_formula_at_every_length(size: int, key: int, keys: CipherKeys) -> None:
    data = random.Random(size).randbytes(size)
    assert crypt(data, key, keys) == _reference_crypt(data, key, keys)
