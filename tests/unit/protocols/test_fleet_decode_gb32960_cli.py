"""`fleet decode <hex>` on a GB/T 32960 frame (it starts with 2323 / 2424): JSON on stdout, or one line on
stderr and exit status 2."""

from __future__ import annotations

import json

from click.testing import CliRunner

from fleet.cli import main
from tests.unit.protocols.gb32960_vectors import VECTORS


def _decode(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["decode", *args])
    return result.exit_code, result.stdout, result.stderr


def test_prints_a_2016_login_as_json() -> None:
    code, out, _ = _decode(VECTORS["LOGIN"])
    assert code == 0
    data = json.loads(out)
    assert data["header"] == {"protocol": "gb32960-2016", "command": "0x01", "vin": "123456789", "encryption": 1,
                              "length": 42, "response": 254}
    assert data["name"] == "Vehicle login"
    assert data["body"]["time"] == "2019-01-22T15:55:56+00:00" and data["body"]["codes"] == ["1234", "4567", "9870"]


def test_prints_a_2025_frame_with_its_typed_blocks() -> None:
    code, out, _ = _decode(VECTORS["RT-2025-SAMPLE"])
    assert code == 0
    blocks = json.loads(out)["body"]["blocks"]
    assert json.loads(out)["header"]["protocol"] == "gb32960-2025"
    assert blocks[0]["soc_pct"] == 66 and blocks[1]["motors"][0]["speed_rpm"] == 1000
    assert blocks[5]["engine_faults"] == "invalid" and blocks[-1]["type"] == "Signature"


def test_a_wrong_bcc_is_one_line_on_stderr_and_status_2() -> None:
    code, out, err = _decode(VECTORS["RT-REAL-2016"])
    assert code == 2 and out == ""
    assert err.strip() == "error: GB/T 32960 ChecksumError: BCC 0x29 in the frame, 0x02 computed"
