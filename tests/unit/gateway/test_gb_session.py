"""The GB gateway's session rules (gateway/gb/session.py): what each frame gets before and after login, per
family, and the outcome of a login."""

from __future__ import annotations

import pytest

from gateway.gb.session import (
    POLICIES,
    PORT_PROTOCOLS,
    Answer,
    AnswerBody,
    Forward,
    Login,
    Refusal,
    Refuse,
    classify,
    decide_login,
)
from protocols.gb32960 import Encryption, Header, Protocol, Response

VIN = "LNBSCU3H5JR000001"
OTHER = "LNBSCU3H5JR000002"


def _h32960(command: int, vin: str = VIN, response: int = Response.COMMAND,
            protocol: Protocol = Protocol.GB32960_2016) -> Header:
    return Header(protocol, command, vin, Encryption.NONE, 0, response=response)


def _h17691(command: int, vin: str = VIN) -> Header:
    return Header(Protocol.GB17691, command, vin, Encryption.NONE, 0, software_version=1)


@pytest.mark.parametrize("protocol", [Protocol.GB32960_2016, Protocol.GB32960_2025])
@pytest.mark.parametrize("command", [0x02, 0x03, 0x04, 0x07, 0x08])
def test_rejects_every_32960_command_before_login_with_the_error_flag(protocol: Protocol, command: int) -> None:
    assert classify("gb32960", None, _h32960(command, protocol=protocol)) == Refuse(Refusal.NOT_LOGGED_IN,
                                                                                     Response.ERROR)


@pytest.mark.parametrize("command", [0x02, 0x03, 0x04, 0x05])
def test_rejects_every_17691_command_before_login_without_an_answer(command: int) -> None:
    # a GB 17691 header has no response flag: nothing to answer with
    assert classify("gb17691", None, _h17691(command)) == Refuse(Refusal.NOT_LOGGED_IN, None)


def test_a_login_is_looked_up_before_and_again_after_login_but_not_for_another_vin() -> None:
    assert classify("gb32960", None, _h32960(0x01)) == Login()
    assert classify("gb32960", VIN, _h32960(0x01)) == Login()
    assert classify("gb32960", VIN, _h32960(0x01, OTHER)) == Refuse(Refusal.VIN_MISMATCH, Response.ERROR)
    assert classify("gb17691", None, _h17691(0x01)) == Login()


def test_data_and_logout_are_answered_only_after_kafka_with_their_own_time() -> None:
    for command in (0x01, 0x02, 0x03, 0x04):
        policy = POLICIES["gb32960"][command]
        assert (policy.answer, policy.body) == (Answer.AFTER_KAFKA, AnswerBody.COMMAND_TIME)
    assert classify("gb32960", VIN, _h32960(0x02)) == Forward(POLICIES["gb32960"][0x02])
    assert POLICIES["gb32960"][0x04].ends_session and POLICIES["gb17691"][0x04].ends_session


def test_heartbeat_and_time_calibration_are_answered_at_once() -> None:
    assert classify("gb32960", VIN, _h32960(0x07)) == Forward(POLICIES["gb32960"][0x07])
    assert (POLICIES["gb32960"][0x07].answer, POLICIES["gb32960"][0x07].body) == (Answer.AT_ONCE, AnswerBody.EMPTY)
    assert POLICIES["gb32960"][0x08].body is AnswerBody.PLATFORM_TIME
    assert (POLICIES["gb17691"][0x05].answer, POLICIES["gb17691"][0x05].body) == (Answer.AT_ONCE,
                                                                                  AnswerBody.PLATFORM_TIME)


def test_17691_data_is_forwarded_without_an_answer() -> None:
    verdict = classify("gb17691", VIN, _h17691(0x02))
    assert isinstance(verdict, Forward) and verdict.policy.answer is Answer.NONE


def test_a_frame_of_another_vin_on_a_logged_in_connection_is_refused() -> None:
    assert classify("gb32960", VIN, _h32960(0x02, OTHER)) == Refuse(Refusal.VIN_MISMATCH, Response.ERROR)
    assert classify("gb17691", VIN, _h17691(0x02, OTHER)) == Refuse(Refusal.VIN_MISMATCH, None)


def test_platform_login_and_2025_key_exchange_are_not_taken_from_a_vehicle() -> None:
    assert classify("gb32960", VIN, _h32960(0x05)) == Refuse(Refusal.UNSUPPORTED, Response.ERROR)
    assert classify("gb32960", VIN, _h32960(0x0B, protocol=Protocol.GB32960_2025)) == Refuse(
        Refusal.UNSUPPORTED, Response.ERROR)


def test_a_terminal_answer_to_a_parameter_query_is_forwarded_unanswered_only_when_logged_in() -> None:
    verdict = classify("gb32960", VIN, _h32960(0x80, response=Response.SUCCESS))
    assert isinstance(verdict, Forward) and verdict.policy.answer is Answer.NONE
    assert classify("gb32960", None, _h32960(0x80, response=Response.SUCCESS)) == Refuse(Refusal.NOT_LOGGED_IN, None)
    # an "answer" to something the platform never asks is not kept, and never answered back
    assert classify("gb32960", VIN, _h32960(0x02, response=Response.SUCCESS)) == Refuse(Refusal.UNSUPPORTED, None)


def test_login_outcomes_and_their_response_flags() -> None:
    unknown = decide_login(0, None, 90)
    assert (unknown.accepted, unknown.refusal, unknown.flag()) == (False, Refusal.UNKNOWN_VIN, Response.ERROR)
    ambiguous = decide_login(2, None, 90)
    assert (ambiguous.refusal, ambiguous.flag()) == (Refusal.AMBIGUOUS_VIN, Response.ERROR)
    first = decide_login(1, None, 90)
    assert (first.accepted, first.takeover, first.flag()) == (True, False, Response.SUCCESS)


def test_rejects_a_login_of_a_vin_a_talking_connection_holds_with_vin_duplicate() -> None:
    duplicate = decide_login(1, 5.0, 90)
    assert (duplicate.accepted, duplicate.refusal, duplicate.flag()) == (False, Refusal.VIN_DUPLICATE,
                                                                         Response.VIN_DUPLICATE)


def test_a_holder_silent_past_the_takeover_time_is_replaced() -> None:
    takeover = decide_login(1, 90.0, 90)
    assert (takeover.accepted, takeover.takeover) == (True, True)


def test_each_port_accepts_only_its_own_device_protocols() -> None:
    assert PORT_PROTOCOLS["gb32960"] == ("gb32960",)
    assert set(PORT_PROTOCOLS["gb17691"]) == {"gb17691", "hj1239", "db4403t363"}
    assert "jt808" not in {p for protocols in PORT_PROTOCOLS.values() for p in protocols}
