"""A GB/T 32960 terminal's answers as the command path reads them (streams.commands.gb_answer_of): the
response flag as the result, a parameter query's items named by table 24, the time it echoes; its own commands are
no answer."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from fleet.gb32960_records import GbUplink
from protocols.gb32960 import Encryption, Response, TimeOnly, decode_frame, encode_frame
from protocols.gb32960.jsonify import to_json
from protocols.gb32960.messages.params import ParameterQuery, ParameterSet
from streams.commands import GbAnswer, gb_answer_of

VIN = "LNBSCU3H5JR000001"
AT = datetime(2026, 3, 1, 4, 5, 6, tzinfo=UTC)


def _uplink(command: int, body: object, flag: int) -> GbUplink:
    frame = encode_frame(command, body, vin=VIN, response=flag)
    return GbUplink(protocol="gb32960", vin=VIN, device_id=7, car_id=70, enterprise_id=10, command=command,
                    response=flag, frame_protocol="gb32960-2016", raw_hex=frame.hex(),
                    message=to_json(decode_frame(frame)), connection_id="c", gateway_id="g",
                    received_at=AT.isoformat())


def test_a_query_answer_names_its_items_and_a_flag_is_the_result() -> None:
    query = _uplink(0x80, ParameterQuery(AT, values=((0x02, 10), (0x0D, 6), (0x0E, "pub.cn"))), Response.SUCCESS)
    assert gb_answer_of(query, AT) == GbAnswer(7, 0x80, 0, {"response": 1, "params": [
        {"id": "02", "name": "report_period_s", "value": 10},
        {"id": "0D", "name": "public_domain_length", "value": 6},
        {"id": "0E", "name": "public_domain", "value": "pub.cn"}]}, AT, car_id=70, time=AT)
    refused = gb_answer_of(_uplink(0x82, TimeOnly(AT), Response.ERROR), AT)
    assert refused is not None and (refused.command, refused.result, refused.reply) == (0x82, 1, {"response": 2})


def test_the_answers_time_is_read_from_a_clear_data_unit_only() -> None:
    answer = gb_answer_of(_uplink(0x81, TimeOnly(AT), Response.SUCCESS), AT)
    assert answer is not None and answer.time == AT
    frame = encode_frame(0x81, bytes(16), vin=VIN, response=Response.SUCCESS, encryption=Encryption.AES128)
    encrypted = replace(_uplink(0x81, TimeOnly(AT), Response.SUCCESS), raw_hex=frame.hex())
    assert (found := gb_answer_of(encrypted, AT)) is not None and found.time is None
    not_a_date = encode_frame(0x81, bytes(6), vin=VIN, response=Response.SUCCESS)  # month 0
    assert (found := gb_answer_of(replace(encrypted, raw_hex=not_a_date.hex()), AT)) is not None
    assert found.time is None and found.result == 0


def test_a_terminals_own_command_or_another_command_is_no_answer() -> None:
    assert gb_answer_of(_uplink(0x81, ParameterSet(AT, ((0x02, 5),)), Response.COMMAND), AT) is None
    assert gb_answer_of(_uplink(0x07, b"", Response.SUCCESS), AT) is None
