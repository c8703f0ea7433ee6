"""Every frame kept: the message log's rows and its one statement per batch (no database)."""

from __future__ import annotations

import asyncio
import struct
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
import psycopg
import pytest

from fleet.topics import JT808_UPLINK
from protocols.jt808 import (
    AlarmAttachmentUploadRequest,
    AlarmNumber,
    LocationReport,
    TextMessage,
    encode_frame,
    encode_subpackages,
)
from streams import message_log, payloads
from streams.messages import PayloadError, parse_uplink
from streams.payloads import Terminal
from warehouse.partitions import DayPartitions
from warehouse.queries import message_log as message_log_rows

from .conftest import T0
from .test_processors import FakeDatabase, events
from .test_uplinks import PipelinedDatabase
from .test_uplinks import processor as uplinks_processor

TERMINAL = Terminal(phone="13800000001", device_id=11, car_id=21, enterprise_id=3)


def location_frame(seq: int, fix_at: datetime = T0) -> bytes:
    report = LocationReport(alarm_flags=0, status_flags=3, lat=39.9, lng=116.4, altitude_m=50, speed_kmh=36.0,
                            direction_deg=90, fix_at=fix_at)
    return encode_frame(0x0200, report, phone=TERMINAL.phone, seq=seq)


def sent_record(frame_hex: str, *, event: str = "sent", seq: int | None = 7, msg_id: int = 0x8300,
                device_id: int | None = 11) -> dict[str, Any]:
    return {"phone": TERMINAL.phone, "device_id": device_id, "car_id": 21, "enterprise_id": 3, "msg_id": msg_id,
            "seq": seq, "packages": 1, "raw_hex": frame_hex, "body_hex": "", "command_id": "42", "event": event,
            "reason": None if event == "sent" else "offline", "connection_id": "c1", "gateway_id": "gw-1",
            "at": (T0 + timedelta(seconds=5)).isoformat()}


def test_uplink_rows_keep_the_frame_and_the_decoded_message() -> None:
    frame = location_frame(seq=9)
    record = payloads.frame_uplink(TERMINAL, frame, received_at=T0)
    rows = message_log.uplink_rows([parse_uplink(orjson.dumps(record)), PayloadError("bad")])
    assert len(rows) == 1
    row = rows[0]
    assert (row.time, row.device_id, row.car_id, row.enterprise_id, row.direction, row.msg_id, row.seq) == (
        T0, 11, 21, 3, message_log.UP, 0x0200, 9)
    assert row.raw_hex == frame.hex() and row.raw_truncated is False and row.gateway_id == "test-gw"
    decoded = orjson.loads(row.decoded or "")
    assert decoded["header"]["msg_id"] == 0x0200 and decoded["body"]["speed_kmh"] == 36.0


def test_uplink_without_serial_or_frame_is_not_a_row() -> None:
    record = payloads.location_report(TERMINAL, fix_at=T0, received_at=T0)
    del record["seq"]
    assert message_log.uplink_rows([parse_uplink(orjson.dumps(record))]) == []
    record = payloads.location_report(TERMINAL, fix_at=T0, received_at=T0)
    record["raw_hex"] = ""
    assert message_log.uplink_rows([parse_uplink(orjson.dumps(record))]) == []


def test_media_uplink_is_marked_truncated() -> None:
    record = payloads.frame_uplink(TERMINAL, location_frame(seq=1), received_at=T0)
    record["raw_truncated"] = True
    assert message_log.uplink_rows([parse_uplink(orjson.dumps(record))])[0].raw_truncated is True


def test_sent_downlink_is_decoded_with_todays_codec() -> None:
    frame = encode_frame(0x8300, TextMessage(flags=0x08, text="请注意安全"), phone=TERMINAL.phone, seq=7)
    row = message_log.downlink_row(orjson.dumps(sent_record(frame.hex())))
    assert row is not None
    assert (row.direction, row.msg_id, row.seq, row.command_id, row.time) == (
        message_log.DOWN, 0x8300, 7, 42, T0 + timedelta(seconds=5))
    decoded = orjson.loads(row.decoded or "")
    assert decoded["header"]["msg_id"] == 0x8300 and decoded["body"]["text"] == "请注意安全"


def test_a_0x9208_is_logged_without_its_one_time_alarm_number() -> None:
    number = "5f" * 16
    request = AlarmAttachmentUploadRequest("10.0.0.1", 7613, 0, AlarmNumber("SIM0001", T0, 1, 2), number)
    frame = encode_frame(0x9208, request, phone=TERMINAL.phone, seq=9)
    row = message_log.downlink_row(orjson.dumps(sent_record(frame.hex(), msg_id=0x9208, seq=9)))
    assert row is not None and number.encode().hex() not in row.raw_hex and number not in (row.decoded or "")
    decoded = orjson.loads(row.decoded or "")
    assert decoded["header"]["msg_id"] == 0x9208 and decoded["body"]["alarm_uuid"] == "0" * 32
    assert decoded["body"]["tcp_port"] == 7613 and row.seq == 9
    garbled = message_log.downlink_row(orjson.dumps(sent_record(frame.hex()[:40], msg_id=0x9208, seq=9)))
    assert garbled is not None and garbled.raw_hex == ""


def test_failed_or_unattributed_downlinks_are_not_frames() -> None:
    frame_hex = encode_frame(0x8201, b"", phone=TERMINAL.phone, seq=3).hex()
    assert message_log.downlink_rows([
        sent_record(frame_hex, event="failed"), sent_record(frame_hex, device_id=None),
        sent_record(frame_hex, seq=None), b"{not json",
    ]) == []


def test_sub_packaged_downlink_is_merged_before_decoding() -> None:
    text = "长" * 600  # 1200 bytes of GBK text: two packages of at most 1023 bytes
    frames = encode_subpackages(0x8300, TextMessage(flags=0, text=text), phone=TERMINAL.phone, seq=20)
    assert len(frames) == 2
    row = message_log.downlink_row(sent_record(b"".join(frames).hex(), seq=20))
    assert row is not None
    assert orjson.loads(row.decoded or "")["body"]["text"] == text


def test_a_frame_that_does_not_decode_is_kept_with_the_error() -> None:
    row = message_log.downlink_row(sent_record("7e0102030405067e"))
    assert row is not None and row.raw_hex == "7e0102030405067e"
    assert "Error" in orjson.loads(row.decoded or "")["error"]


def test_nul_characters_do_not_reach_jsonb() -> None:
    text = message_log.json_text({"model": "AB\x00\x00", "path": "C:\\u0000"})
    assert "\\u0000" not in text.replace("\\\\u0000", "")  # the escaped backslash before u0000 is text
    assert orjson.loads(text) == {"model": "AB\ufffd\ufffd", "path": "C:\\u0000"}


def test_column_arrays_are_one_array_per_column() -> None:
    rows = message_log.uplink_rows([parse_uplink(orjson.dumps(
        payloads.frame_uplink(TERMINAL, location_frame(seq=s), received_at=T0))) for s in (1, 2)])
    arrays = message_log_rows.column_arrays(rows)
    assert len(arrays) == message_log_rows.INSERT.count("%s") == len(message_log_rows.LogRow._fields)
    assert arrays[7].literal() == "{1,2}" and arrays[9].literal() == "{f,f}"
    assert arrays[10].literal().startswith('{"{\\"header\\":')  # JSON text quoted inside the array literal
    assert "ON CONFLICT (device_id, time, direction, msg_id, seq) DO NOTHING" in message_log_rows.INSERT


@pytest.fixture
def send() -> Any:
    async def _send(topic: str, key: bytes | None, value: bytes) -> None:
        return None
    return _send


class _NoPartitions(DayPartitions):
    async def ensure(self, days: set[Any]) -> None:
        self.asked = days


@pytest.fixture
def fake_db() -> FakeDatabase:
    db = FakeDatabase()
    message_log._partitions[db.url] = _NoPartitions(db.url, message_log.TABLE)
    return db


def test_a_batch_is_one_statement(fake_db: FakeDatabase) -> None:
    uplinks = [parse_uplink(orjson.dumps(payloads.frame_uplink(TERMINAL, location_frame(seq=s), received_at=T0)))
               for s in range(5)]
    asyncio.run(message_log.store_uplinks(fake_db, uplinks))
    assert [sql for sql, _ in fake_db.statements] == [message_log_rows.COPY]
    assert [struct.unpack(">i", seq)[0] for seq in fake_db.statements[0][1][7]] == [0, 1, 2, 3, 4]
    assert message_log._partitions[fake_db.url].asked == {T0.astimezone(UTC).date()}  # type: ignore[attr-defined]


def test_a_refused_row_is_skipped_and_the_others_written(fake_db: FakeDatabase, monkeypatch: pytest.MonkeyPatch) -> None:
    uplinks = [parse_uplink(orjson.dumps(payloads.frame_uplink(TERMINAL, location_frame(seq=s), received_at=T0)))
               for s in range(3)]
    written: list[int] = []

    async def transact(work: Any) -> None:
        class Copy:
            async def __aenter__(self) -> Copy:
                return self

            async def write(self, data: bytes) -> None:
                raise psycopg.errors.CharacterNotInRepertoire("bad text")

            async def __aexit__(self, *exc: object) -> None:
                pass

        class Conn:
            def cursor(self) -> Any:
                return type("Cursor", (), {"copy": lambda _, sql: Copy()})()

            async def execute(self, sql: str, params: Any) -> None:
                if "{1}" == params[7].literal() or (len(params[7]) > 1):
                    raise psycopg.errors.CharacterNotInRepertoire("bad text")
                written.append(int(params[7].literal().strip("{}")))
        await work(Conn())

    monkeypatch.setattr(fake_db, "transact", transact)
    refused = asyncio.run(message_log.write_rows(fake_db, message_log.uplink_rows(uplinks)))
    assert refused == 1 and written == [0, 2]


def test_uplinks_processor_stores_every_uplink_after_the_positions(fake_db: FakeDatabase, send: Any) -> None:
    positions_db = PipelinedDatabase()
    processor = uplinks_processor(positions_db, send)
    processor.message_log_db = fake_db
    values = [payloads.frame_uplink(TERMINAL, location_frame(seq=s, fix_at=T0 + timedelta(seconds=s)), received_at=T0)
              for s in range(3)]
    asyncio.run(processor.process(events(JT808_UPLINK, *values)))
    assert any(sql.startswith(("INSERT INTO gps", "COPY gps")) for sql, _ in positions_db.statements)
    assert [sql for sql, _ in fake_db.statements] == [message_log_rows.COPY]


def test_without_a_message_log_connection_nothing_is_kept(send: Any) -> None:
    positions_db = PipelinedDatabase()
    processor = uplinks_processor(positions_db, send)
    asyncio.run(processor.process(events(JT808_UPLINK, payloads.frame_uplink(TERMINAL, location_frame(seq=1)))))
    assert not any("message_log" in sql for sql, _ in positions_db.statements)


def test_a_batch_repeating_a_kept_frame_is_copied_then_inserted_skipping_it(fake_db: FakeDatabase) -> None:
    uplinks = [parse_uplink(orjson.dumps(payloads.frame_uplink(TERMINAL, location_frame(seq=s), received_at=T0)))
               for s in range(2)]
    fake_db.copy_conflicts = 1
    asyncio.run(message_log.store_uplinks(fake_db, uplinks))
    assert [sql for sql, _ in fake_db.statements] == [message_log_rows.COPY, message_log_rows.INSERT]
    assert "ON CONFLICT (device_id, time, direction, msg_id, seq) DO NOTHING" in message_log_rows.INSERT


def test_copy_rows_hold_every_column_in_binary_format() -> None:
    from .test_processors import parse_binary_copy

    [uplink] = [parse_uplink(orjson.dumps(payloads.frame_uplink(TERMINAL, location_frame(seq=9), received_at=T0)))]
    [row] = message_log.uplink_rows([uplink])
    [fields] = parse_binary_copy(message_log_rows.copy_data([row, row._replace(car_id=None, decoded=None,
                                                                          gateway_id=None)])[:-2]
                                 + b"\xff\xff")[:1]
    assert struct.unpack(">q", fields[1]) == (TERMINAL.device_id,)
    assert fields[4] == TERMINAL.phone.encode() and struct.unpack(">h", fields[5]) == (0,)
    assert struct.unpack(">i", fields[6]) == (0x0200,) and struct.unpack(">i", fields[7]) == (9,)
    assert fields[8] == row.raw_hex.encode() and fields[9] == b"\x00"
    assert fields[10] == b"\x01" + row.decoded.encode()  # type: ignore[union-attr]
    assert fields[11] is None and fields[12] == b"test-gw"


def test_a_gb_frame_is_kept_under_its_protocol_with_its_collection_time_as_serial() -> None:
    from protocols.gb32960 import decode_frame
    from streams.gb_frames import parse_frame
    from streams.gb_payloads import GbVehicle, realtime
    from streams.validation import Limits

    from .test_processors import parse_binary_copy

    vehicle = GbVehicle("LNBSCU3H5JR000001", 7, 70, 3)
    collected = datetime(2026, 12, 8, 1, 0, 5, tzinfo=UTC)
    record = realtime(vehicle, collected, received_at=collected + timedelta(seconds=1))
    frame = parse_frame(orjson.dumps(record), Limits(max_future_s=300, max_speed_kmh=220))
    [row] = message_log.gb_rows([frame, PayloadError("not JSON")], {7: "014700000001"})
    assert (row.protocol, row.msg_id, row.direction, row.phone, row.raw_hex) == (
        "gb32960", 0x02, message_log.UP, "014700000001", record["raw_hex"])
    assert row.seq == int(collected.timestamp()) and row.time == collected + timedelta(seconds=1)
    assert orjson.loads(row.decoded or "") == record["message"]  # the codec's JSON, as the gateway wrote it
    assert decode_frame(bytes.fromhex(row.raw_hex)).header.vin == vehicle.vin
    # the COPY of a GB batch writes the protocol as a 14th field; an 808 batch's stays 13 (the column's default)
    [fields] = parse_binary_copy(message_log_rows.copy_data([row], with_protocol=True))
    assert len(fields) == 14 and fields[13] == b"gb32960"
    assert len(parse_binary_copy(message_log_rows.copy_data([row]))[0]) == 13
    assert message_log.gb_rows([], {}) == []


def test_credentials_are_starred_in_the_log_both_ways_and_the_frame_still_decodes() -> None:
    from protocols.jt808 import QueryParametersResponse, RegistrationResponse, SetParameters
    from protocols.jt808.messages.params import TerminalParam

    code, password = "5A3F09C1D2E4B687", "apn-Secret"
    reply = encode_frame(0x8100, RegistrationResponse(5, 0, code), phone="013395279527", seq=7)
    row = message_log.downlink_row(orjson.dumps({**sent_record(reply.hex(), msg_id=0x8100), "phone": "013395279527"}))
    assert row is not None and code.encode().hex() not in row.raw_hex.lower() and code not in (row.decoded or "")
    assert orjson.loads(row.decoded or "")["body"]["auth_code"] == "*" * len(code)
    assert row.phone == "13395279527"  # one form for both directions

    setting = encode_frame(0x8103, SetParameters((TerminalParam(0x0012, password), TerminalParam(0x0001, 30))),
                           phone=TERMINAL.phone, seq=8)
    row = message_log.downlink_row(orjson.dumps(sent_record(setting.hex(), msg_id=0x8103, seq=8)))
    assert row is not None and password.encode().hex() not in row.raw_hex.lower()
    params = {p["id"]: p["value"] for p in orjson.loads(row.decoded or "")["body"]["params"]}
    assert params == {0x0012: "*" * len(password), 0x0001: 30}  # only the secret is starred

    answer = encode_frame(0x0104, QueryParametersResponse(8, (TerminalParam(0x0012, password),)),
                          phone="013800000001", seq=9)
    record = payloads.frame_uplink(TERMINAL, answer, received_at=T0)
    [up] = message_log.uplink_rows([parse_uplink(orjson.dumps(record))])
    assert password.encode().hex() not in up.raw_hex.lower() and password not in (up.decoded or "")
    assert up.phone == "13800000001"

    parts = encode_subpackages(0x0104, QueryParametersResponse(8, (TerminalParam(0x0012, password),)),
                               phone="013800000001", seq=10, max_body=8)
    record = {**payloads.frame_uplink(TERMINAL, answer, received_at=T0), "raw_hex": b"".join(parts).hex()}
    [up] = message_log.uplink_rows([parse_uplink(orjson.dumps(record))])
    assert up.raw_hex == "" and password not in (up.decoded or "")  # not re-readable package by package: not kept


def test_a_frame_the_gateway_refused_is_a_log_row_with_why_and_no_step_dead_letters_it(
        fake_db: FakeDatabase) -> None:
    sent: list[Any] = []

    async def send(topic: str, key: bytes | None, value: bytes) -> None:
        sent.append((topic, value))

    broken = location_frame(seq=8)[:-3] + b"\x00\x00\x7e"
    refused = {"phone": "013800000001", "device_id": 11, "car_id": 21, "enterprise_id": 3, "msg_id": 0x0200, "seq": 8,
               "raw_hex": broken.hex(), "connection_id": "c1", "gateway_id": "gw-1", "received_at": T0.isoformat(),
               "refused": {"result": 2, "reason": "malformed", "error": "ChecksumError: checksum 0x00 ..."}}
    [row] = message_log.uplink_rows([message_log.RefusedFrame(refused)])
    assert (row.device_id, row.msg_id, row.seq, row.raw_hex, row.phone) == (11, 0x0200, 8, broken.hex(), "13800000001")
    assert orjson.loads(row.decoded or "") == {"refused": refused["refused"]}

    positions_db = PipelinedDatabase()
    processor = uplinks_processor(positions_db, send)
    processor.message_log_db = fake_db
    good = payloads.frame_uplink(TERMINAL, location_frame(seq=9), received_at=T0)
    asyncio.run(processor.process(events(JT808_UPLINK, refused, good)))
    # the refused frame is no dead letter: the gateway refused it and the log keeps it
    assert [topic for topic, _ in sent if "dead" in topic or "dlq" in topic] == []
    assert [sql for sql, _ in fake_db.statements] == [message_log_rows.COPY]  # both rows, one statement


def test_a_gb_gateways_platform_command_is_decoded_with_the_gb_codec() -> None:
    from protocols.gb32960 import Response
    from protocols.gb32960 import encode_frame as gb_frame
    from protocols.gb32960.messages.params import ParameterQuery

    frame = gb_frame(0x80, ParameterQuery(T0, (0x02, 0x09)), vin="LNBSCU3H5JR000001", response=Response.COMMAND)
    row = message_log.downlink_row(orjson.dumps(sent_record(frame.hex(), msg_id=0x80, seq=0)))
    assert row is not None and (row.msg_id, row.seq) == (0x80, 0)
    decoded = orjson.loads(row.decoded or "")
    assert decoded["header"]["command"] == "0x80" and decoded["body"]["ids"] == [2, 9]
