"""The pure parts of streams/commands.py: which uplinks are replies and what they answer, sent records,
the push each outcome gives (11 or 12, with its reason), 0x0104 values as hex. The state changes
themselves are SQL, tested on PostgreSQL (tests/integration/streams/test_commands_agent.py)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from streams.commands import device_params, parse_sent, reply_of, result_push, send_error_push
from streams.messages import PayloadError, Uplink

AT = datetime(2026, 11, 25, 2, 0, tzinfo=UTC)


def uplink(msg_id: int, body: dict[str, Any]) -> Uplink:
    return Uplink("13912345602", 7, 8, 9, msg_id, AT, body)


def test_general_response_answers_the_message_it_names() -> None:
    reply = reply_of(uplink(0x0001, {"reply_seq": 41, "reply_msg_id": 0x8103, "result": 3}))
    assert reply is not None
    assert (reply.device_id, reply.reply_seq, reply.reply_msg_id, reply.result) == (7, 41, 0x8103, 3)
    assert reply.answers() is None  # any command, checked against reply_msg_id


@pytest.mark.parametrize(("msg_id", "answers"), [(0x0104, (0x8104, 0x8106)), (0x0201, (0x8201,)),
                                                  (0x0802, (0x8802,)), (0x0805, (0x8801,)),
                                                  (0x1205, (0x9205, 0x9201))])
def test_own_replies_answer_only_their_commands(msg_id: int, answers: tuple[int, ...]) -> None:
    reply = reply_of(uplink(msg_id, {"reply_seq": 5}))
    assert reply is not None and reply.answers() == answers and reply.result == 0


def test_camera_reply_results_map_to_command_results() -> None:
    results = [reply_of(uplink(0x0805, {"reply_seq": 1, "result": own})) for own in (0, 1, 2)]
    assert [r.result for r in results if r is not None] == [0, 1, 3]  # 2 channel not supported -> unsupported


@pytest.mark.parametrize("uplink_", [
    uplink(0x0200, {"reply_seq": 1}),                       # not a reply
    uplink(0x0001, {"reply_msg_id": 0x8103, "result": 0}),  # no serial
    uplink(0x0001, {"reply_seq": 70000, "reply_msg_id": 1, "result": 0}),
    uplink(0x0001, {"reply_seq": 1, "result": 0}),          # 0x0001 without the message it answers
    uplink(0x0104, {"reply_seq": True}),
])
def test_not_a_usable_reply(uplink_: Uplink) -> None:
    assert reply_of(uplink_) is None


def test_sent_records() -> None:
    record = parse_sent({"command_id": "12", "device_id": 7, "seq": 41, "event": "sent", "reason": None,
                         "at": "2026-11-25T02:00:00Z"})
    assert record is not None and (record.command_id, record.seq, record.event, record.at) == (12, 41, "sent", AT)
    assert parse_sent({"command_id": None, "event": "sent", "at": "2026-11-25T02:00:00Z"}) is None  # gateway's own
    failed = parse_sent(b'{"command_id": "3", "seq": null, "event": "failed", "reason": "offline", "at": "2026-11-25T02:00:00Z"}')
    assert failed is not None and (failed.seq, failed.reason) == (None, "offline")
    for bad in ({"command_id": "x", "event": "sent", "at": "2026-11-25T02:00:00Z"},
                {"command_id": "1", "event": "written", "at": "2026-11-25T02:00:00Z"},
                {"command_id": "1", "event": "sent", "at": "2026-11-25 02:00:00"}):
        with pytest.raises(PayloadError):
            parse_sent(bad)


ROW = {"id": 5, "device_id": 7, "car_id": 8, "msg_id": 0x8300, "reply_msg_id": 1, "enterprise_id": 9}


@pytest.mark.parametrize(("state", "result", "expected"), [
    ("answered", 0, (11, 0, None)), ("answered", 1, (11, 1, None)), ("timed_out", None, (11, None, None)),
    ("answered", 2, (12, None, 2)), ("answered", 3, (12, None, 3)),
])
def test_the_push_of_each_outcome(state: str, result: int | None, expected: tuple[Any, ...]) -> None:
    push_type, data = result_push(ROW | {"state": state, "result": result}, "京A12345", AT)
    assert (push_type, data.get("result"), data.get("reason")) == expected
    assert data["commandId"] == 5 and data["plateNumber"] == "京A12345" and data["time"] == "2026-11-25T02:00:00Z"


def test_offline_send_error_push_is_bilingual() -> None:
    push_type, data = send_error_push(ROW | {"state": "failed", "result": None}, None, 1, AT)
    assert push_type == 12 and data["reason"] == 1 and data["message"].startswith("车辆不在线") and "(" in data["message"]
    assert set(data) == {"commandId", "deviceId", "carId", "plateNumber", "msgId", "reason", "message", "createdBy",
                         "time"}


def test_parameter_values_as_hex() -> None:
    reply = reply_of(uplink(0x0104, {"reply_seq": 1, "params": [
        {"id": 0x55, "value": 60, "value_hex": "0000003c"},   # the codec's hex wins (standard size)
        {"id": 0x13, "value": "10.1.2.3"},                     # text without value_hex: GBK
        {"id": 0xF001, "value": "0a0b"},                       # raw bytes as hex
        {"id": "x", "value": 1},                               # no id: left out
    ]}))
    assert reply is not None
    assert device_params(reply) == [(0x55, "0000003C"), (0x13, "31302E312E322E33"), (0xF001, "0A0B")]


def test_dial_up_passwords_are_starred_in_the_reply_and_the_parameters_kept() -> None:
    reply = reply_of(uplink(0x0104, {"reply_seq": 1, "params": [
        {"id": 0x12, "value": "apn-pass", "value_hex": "61706E2D70617373"},  # main server dial-up password
        {"id": 0x13, "value": "10.1.2.3"},
    ]}))
    assert reply is not None and "apn-pass" not in str(reply.reply) and "61706E" not in str(reply.reply)
    assert device_params(reply) == [(0x12, "2A" * 8), (0x13, "31302E312E322E33")]


def test_a_location_query_reply_is_a_fix_like_a_0200() -> None:
    from streams.validation import Limits, classify_uplink

    location = {"alarm_flags": 0, "status_flags": 3, "lat": 39.9, "lng": 116.4, "altitude_m": 50, "speed_kmh": 12.5,
                "direction_deg": 90, "fix_at": "2026-11-25T01:59:50Z", "extras": {"mileage_km": 12.3}}
    limits = Limits(max_future_s=600, max_speed_kmh=250)
    [fix] = classify_uplink(uplink(0x0201, {"reply_seq": 3, "location": location}), limits).fixes
    assert (fix.device_id, fix.lat, fix.lng, fix.mileage_km, fix.acc_on) == (7, 39.9, 116.4, 12.3, True)
    with pytest.raises(PayloadError, match="0x0201 location"):  # dead-lettered by the positions step
        classify_uplink(uplink(0x0201, {"reply_seq": 3}), limits)


def test_result_and_send_error_pushes_name_the_sender() -> None:
    """The console tells only the command's sender (null: the platform's own command)."""
    _, answered = result_push(ROW | {"state": "answered", "result": 0, "created_by": 7}, "京A00001", AT)
    _, failed = send_error_push(ROW | {"state": "failed", "result": None, "created_by": 7}, None, 1, AT)
    _, platform = result_push(ROW | {"state": "timed_out", "result": None, "created_by": None}, None, AT)
    assert (answered["createdBy"], failed["createdBy"], platform["createdBy"]) == (7, 7, None)
