"""0x8500 vehicle control and its 0x0500 answer, built from JT/T 808 §8.47-8.48 (no public capture of either was
found: the bytes below are the standard's tables written out). 2011 / 2013: one flag byte, bit 0 the doors;
2019: a count WORD and (type WORD, parameter) pairs, type 0x0001 the doors with a BYTE."""

from datetime import UTC, datetime

import pytest

from protocols.jt808 import decode_frame, encode_frame
from protocols.jt808.errors import BodyError
from protocols.jt808.messages import Control, LocationReport, VehicleControl, VehicleControlResponse
from protocols.jt808.messages.t0500_vehicle_control_response import DOORS_LOCKED_BIT


@pytest.mark.parametrize(("version", "lock", "body"), [
    ("2013", True, "01"), ("2013", False, "00"), ("2011", True, "01"),
    ("2019", True, "0001" "0001" "01"), ("2019", False, "0001" "0001" "00"),
])
def test_the_doors_lock_and_unlock_in_each_version(version: str, lock: bool, body: str) -> None:
    control = VehicleControl.doors(lock)
    assert control.encode(version).hex() == body
    assert VehicleControl.decode(bytes.fromhex(body), version) == control


def test_a_2013_flag_byte_reads_only_the_door_bit() -> None:
    assert VehicleControl.decode(bytes.fromhex("FF"), "2013") == VehicleControl((Control(1, 1),))


@pytest.mark.parametrize(("version", "body", "error"), [
    ("2013", "", "one control flag byte, got 0"),
    ("2013", "0100", "one control flag byte, got 2"),
    ("2019", "00", "needs its control count"),
    ("2019", "0001" "F001" "01", "type 0xF001 has no length in the standard"),
    ("2019", "0002" "0001" "01", "control 1: type id missing at offset 5"),
    ("2019", "0001" "0001", "door parameter missing at offset 4"),
    ("2019", "0001" "0001" "01" "FF", "1 bytes after the 1 controls"),
])
def test_a_malformed_body_is_refused_with_where(version: str, body: str, error: str) -> None:
    with pytest.raises(BodyError, match=error):
        VehicleControl.decode(bytes.fromhex(body), version)


def test_only_door_controls_are_encoded() -> None:
    with pytest.raises(ValueError, match="not a door control"):
        VehicleControl((Control(0xF001, 1),)).encode("2019")
    with pytest.raises(ValueError, match="exactly one door control"):
        VehicleControl((Control(1, 1), Control(1, 0))).encode("2013")


def test_the_answer_carries_the_serial_and_the_locked_state_in_a_whole_frame() -> None:
    fix = datetime(2026, 12, 2, 8, 30, tzinfo=UTC)
    report = LocationReport(0, 3 | DOORS_LOCKED_BIT, 31.2, 121.5, 4, 0.0, 90, fix)
    answer = VehicleControlResponse(0x1234, report)
    frame = encode_frame(0x0500, answer, phone="013800000001", seq=7, version="2013")
    decoded = decode_frame(frame)
    assert decoded.header.msg_id == 0x0500
    assert decoded.body == answer
    assert decoded.body.location.status_flags & DOORS_LOCKED_BIT
