"""`fleet decode <hex>` on a JT/T 809 frame (it starts with 5b): JSON on stdout, or one line on stderr
and exit status 2. The header layout is guessed from the 2019 time field unless --jt809-version is given."""

from __future__ import annotations

import json

from click.testing import CliRunner

from fleet.cli import main
from protocols.jt809 import encode_frame
from tests.unit.protocols.jt809_vectors import VECTORS

GUOJIAN_KEYS = "56107078,37382110,50361430"


def _decode(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["decode", *args])
    return result.exit_code, result.stdout, result.stderr


def test_prints_a_2011_position_frame_as_json() -> None:
    code, out, _ = _decode(VECTORS["1202-2011-ESC"])
    assert code == 0
    data = json.loads(out)
    assert data["header"] == {"msg_id": "0x1200", "length": 90, "sn": 168, "centre_id": 20190414,
                              "protocol_version": "1.0.0", "encrypted": False, "key": 9999, "version": "2011"}
    assert data["body"]["plate"] == "粤A123456" and data["body"]["data_type"] == "0x1202"
    assert data["data_type_name"] == "Real-time position"
    assert data["body"]["data"]["position"]["fix_at"] == "2019-04-14T14:19:15+00:00"


def test_decrypts_a_2019_capture_with_the_given_keys() -> None:
    code, out, _ = _decode(VECTORS["REAL-1202-ENC-1"], "--jt809-keys", GUOJIAN_KEYS)
    assert code == 0
    data = json.loads(out)
    assert data["header"]["version"] == "2019" and data["header"]["time"] == "2025-08-22T03:36:17+00:00"
    location = data["body"]["data"]["position"]["location"]
    assert (location["lat"], location["lng"]) == (32.353134, 121.357231)


def test_link_message_with_its_result_name() -> None:
    data = json.loads(_decode(VECTORS["LOGIN-RESP"])[1])
    assert data["name"] == "Main link login response"
    assert data["body"] == {"result": "OK", "verify_code": 1256}


def test_an_inspection_request_with_its_data_type_name() -> None:
    data = json.loads(_decode(VECTORS["REAL-9301-PLAIN"])[1])
    assert data["header"]["msg_id"] == "0x9300" and data["data_type_name"] == "Inspection request"
    assert data["body"]["data"]["content"] == "平台查岗请求是否是人类"


def test_a_real_video_answer_prints_the_address_to_pull_from() -> None:
    data = json.loads(_decode(VECTORS["1801-2019"])[1])
    assert data["header"]["msg_id"] == "0x1800" and data["data_type_name"] == "Real-time video answer"
    assert data["body"]["data"] == {"result": 0, "server_ip": "127.0.0.1", "server_port": 1078}


def test_untyped_family_prints_the_body_hex() -> None:
    frame = encode_frame(0x1900, bytes.fromhex("d4c1"), sn=1, centre_id=1, version="2011")  # recording search
    data = json.loads(_decode(frame.hex())[1])
    assert data["header"]["msg_id"] == "0x1900" and data["body"]["hex"].startswith("d4c1")


def test_an_encrypted_frame_without_keys_is_one_line_and_exit_2() -> None:
    code, out, err = _decode(VECTORS["REAL-1202-ENC-1"])
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "EncryptedBodyError" in err and "2019" in err


def test_a_bad_crc_is_one_line_and_exit_2() -> None:
    frame = VECTORS["HEARTBEAT"].replace("BA415D", "BA405D")
    code, _, err = _decode(frame)
    assert code == 2 and err.count("\n") == 1 and "ChecksumError" in err


def test_the_version_can_be_forced() -> None:
    code, _, err = _decode(VECTORS["LOGIN-2011"], "--jt809-version", "2019")
    assert code == 2 and "BodyError" in err


def test_malformed_keys_are_refused() -> None:
    code, _, err = _decode(VECTORS["REAL-1007-ENC"], "--jt809-keys", "1,2")
    assert code == 2 and "M1,IA1,IC1" in err
