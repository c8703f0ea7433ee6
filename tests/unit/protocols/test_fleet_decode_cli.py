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
