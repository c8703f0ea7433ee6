"""`fleet decode <hex>`: a frame as JSON on stdout, or one line on stderr and exit status 2."""

from __future__ import annotations

import json

from click.testing import CliRunner

from fleet.cli import main

LOC_1 = "7E0200002611223344556622B8000000010000000200BA7F0E07E4F11C0028003C000018071510101001040000006402020037577E"


def _decode(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["decode", *args])
    return result.exit_code, result.stdout, result.stderr


def test_prints_the_decoded_frame_as_json_with_units() -> None:
    code, out, _ = _decode(LOC_1)
    assert code == 0
    data = json.loads(out)
    assert data["header"]["phone"] == "112233445566"
    assert data["body"]["speed_kmh"] == 6.0
    assert data["body"]["fix_at"] == "2018-07-15T02:10:10+00:00"
    assert data["body"]["extras"] == {"mileage_km": 10.0, "fuel_l": 5.5}


def test_accepts_hex_with_spaces_and_without_delimiters() -> None:
    spaced = " ".join(LOC_1[i : i + 2] for i in range(2, len(LOC_1) - 2, 2))
    assert _decode(spaced)[1] == _decode(LOC_1)[1]
    assert _decode(*spaced.split(" ", 3))[1] == _decode(LOC_1)[1]


def test_prints_unknown_items_raw() -> None:
    frame = (
        "7E0200003C013395279527000200000003000000030158656006CA8CA90036025D005A261121071556010400003039"
        "020201F40302025D25040000000330011F31010BE00103EE0102457E"
    )
    data = json.loads(_decode(frame)[1])
    assert data["body"]["unknown_items"] == [{"id": 0xE0, "hex": "03"}, {"id": 0xEE, "hex": "02"}]


def test_reports_a_bad_checksum_on_one_line_and_exits_2() -> None:
    code, out, err = _decode("7E0801200500123456789002DE001A00022808000102547E")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "ChecksumError" in err


def test_reports_text_that_is_not_hex_and_exits_2() -> None:
    code, _, err = _decode("hello")
    assert code == 2 and err.strip() == "error: not a hex string"


# JT/T 1078-2016 §5.5.3 RTP header: 30316364, V/P/X/CC 0x81, M/PT 0x62 (H.264), packet serial, SIM BCD[6],
# logical channel, data type/sub-package mark, timestamp, ... then the video payload.
JT1078_PACKET = "30316364816200010139123456780110000001761A0E3D2A00000000000400000001"


def test_names_a_jt1078_media_packet_instead_of_a_checksum_error() -> None:
    for text in (JT1078_PACKET, "7E" + JT1078_PACKET + "7E"):
        code, out, err = _decode(text)
        assert code == 2 and out == ""
        assert err.strip() == "error: not a JT/T 808 frame (looks like a JT/T 1078 RTP packet)"


def test_flags_a_latitude_above_90_degrees_but_still_decodes_it() -> None:
    from datetime import UTC, datetime

    from protocols.jt808 import LocationReport, encode_frame

    fix = datetime(2026, 11, 20, 8, 0, tzinfo=UTC)
    bad = LocationReport(0, 3, 91.2, 113.9, 10, 30.0, 0, fix)
    data = json.loads(_decode(encode_frame(0x0200, bad, phone="13912345602", seq=1).hex())[1])
    assert data["body"]["lat"] == 91.2
    assert data["body"]["problems"] == ["latitude 91.2 > 90"]
    both = LocationReport(0, 3, -95.5, -181.0, 10, 30.0, 0, fix)
    data = json.loads(_decode(encode_frame(0x0200, both, phone="13912345602", seq=1).hex())[1])
    assert data["body"]["problems"] == ["latitude 95.5 > 90", "longitude 181.0 > 180"]
    good = json.loads(_decode(LOC_1)[1])
    assert "problems" not in good["body"]


def test_names_the_parameters_of_a_0x0104_reply() -> None:
    frame = "7E0104001A013395279527000500060200000001040000001E00000013093132372E302E302E31067E"
    params = json.loads(_decode(frame)[1])["body"]["params"]
    assert [(p["name"], p["value"]) for p in params] == [
        ("heartbeat_interval_s", 30),
        ("main_server_address", "127.0.0.1"),
    ]
