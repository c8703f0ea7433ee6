"""The identity rules of registration and authentication in isolation (gateway/devices.py): the
terminal id and IMEI recorded in advance, the enterprise's IMEI policy and approval policy."""

from dataclasses import replace

from gateway.devices import (
    DeviceRecord,
    RegistrationInfo,
    decide_registration,
    imei_refusal,
    needs_approval,
)
from gateway.replies import REG_OK, REG_TERMINAL_TAKEN

DEVICE = DeviceRecord(id=1, phone="13800000001", enterprise_id=1, car_id=None, auth_code=None, device_sn="SN1", state=1)
INFO = RegistrationInfo("REAL001", "FLEET", "SIM-808", "2013")


def test_a_terminal_id_recorded_in_advance_admits_only_that_id_even_at_first_registration() -> None:
    device = replace(DEVICE, expected_terminal_id="REAL001")
    assert decide_registration(device, INFO) == REG_OK
    assert decide_registration(device, replace(INFO, terminal_id="FAKE001")) == REG_TERMINAL_TAKEN
    assert decide_registration(device, replace(INFO, terminal_id="")) == REG_TERMINAL_TAKEN


def test_an_imei_recorded_in_advance_must_come_with_the_code_and_2013_cannot_prove_it() -> None:
    device = replace(DEVICE, expected_imei="861234567890123")
    assert imei_refusal(device, "861234567890123") is None
    assert imei_refusal(device, "869999999999999") == "imei_mismatch"
    assert imei_refusal(device, None) == "imei_mismatch"
    assert imei_refusal(DEVICE, None) is None  # nothing recorded, no policy: today's behaviour


def test_under_the_imei_policy_the_first_imei_recorded_must_match_and_one_must_be_sent() -> None:
    device = replace(DEVICE, require_imei=True)
    assert imei_refusal(device, "861234567890123") is None  # the first one: recorded by the caller
    assert imei_refusal(device, None) == "imei_mismatch"
    recorded = replace(device, registered_imei="861234567890123")
    assert imei_refusal(recorded, "860000000000000") == "imei_mismatch"
    assert imei_refusal(replace(DEVICE, registered_imei="861234567890123"), "860000000000000") is None  # no policy


def test_approval_is_needed_only_for_a_re_registration_of_a_recently_online_device_under_the_policy() -> None:
    coded = replace(DEVICE, auth_code="C0DE", approve_reregistration=True)
    assert needs_approval(replace(coded, recently_online=True), INFO)
    assert needs_approval(coded, replace(INFO, live_here=True))
    assert not needs_approval(coded, INFO)  # offline for longer than the window
    assert not needs_approval(replace(coded, auth_code=None, recently_online=True), INFO)  # first registration
    assert not needs_approval(replace(coded, approve_reregistration=False, recently_online=True), INFO)
