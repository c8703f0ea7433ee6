"""Connection state machine: registration, authentication, acknowledgements, sessions."""

from datetime import UTC, datetime

from fleet.topics import DEVICE_SESSIONS, JT808_UPLINK
from protocols.jt808 import (
    Authentication,
    LocationReport,
    PlatformResponse,
    Registration,
    RegistrationResponse,
)
from tests.unit.gateway.twins import PHONE, FakeTransport, Harness, frame, run, settle

FIX_AT = datetime(2026, 3, 1, 8, 30, 0, tzinfo=UTC)


def registration(terminal_id: str = "0000001") -> bytes:
    return Registration(11, 100, "FLEET", "SIM-808", terminal_id, 2, "").encode("2013")


def position(seconds: int = 0) -> bytes:
    fix_at = FIX_AT.replace(second=seconds)
    return LocationReport(0, 3, 39.9, 116.4, 50, 42.5, 90, fix_at, {"mileage_km": 1234.5}).encode("2013")


async def login(h: Harness, phone: str = PHONE, code: str = "CODE1") -> FakeTransport:
    if phone not in h.directory.devices:
        h.directory.add(phone, 1, auth_code=code)
    conn, transport = h.connect()
    conn.data_received(frame(0x0102, Authentication(code).encode("2013"), seq=1, phone=phone))
    await settle()
    [ack] = transport.replies()
    assert isinstance(ack.body, PlatformResponse) and ack.body.result == 0
    return transport


def test_registration_of_known_terminal_returns_auth_code_it_then_authenticates_with() -> None:
    async def t(h: Harness) -> None:
        h.directory.add(PHONE, 1)
        conn, transport = h.connect()
        conn.data_received(frame(0x0100, registration(), seq=7))
        await settle()
        [reply] = transport.replies()
        assert reply.header.msg_id == 0x8100
        assert isinstance(reply.body, RegistrationResponse)
        assert (reply.body.reply_seq, reply.body.result) == (7, 0)
        code = reply.body.auth_code
        assert code and h.directory.devices[PHONE].auth_code == code
        assert h.directory.devices[PHONE].device_sn == "SIM0000001"  # 7-byte id is its tail: kept
        conn.data_received(frame(0x0102, Authentication(code).encode("2013"), seq=8))
        await settle()
        [ack] = transport.replies()
        assert isinstance(ack.body, PlatformResponse)
        assert (ack.body.reply_seq, ack.body.reply_msg_id, ack.body.result) == (8, 0x0102, 0)
        assert conn.identity is not None and conn.identity.device_id == 1
        [online] = h.sink.values(DEVICE_SESSIONS)
        assert online["event"] == "online" and online["reason"] == "auth" and online["device_id"] == 1
        assert online["peer"] == conn.peer  # the session address the media and attachment servers check

    run(t)


def test_registration_of_unknown_terminal_gets_result_4() -> None:
    async def t(h: Harness) -> None:
        conn, transport = h.connect()
        conn.data_received(frame(0x0100, registration()))
        await settle()
        [reply] = transport.replies()
        assert isinstance(reply.body, RegistrationResponse) and reply.body.result == 4
        assert reply.body.auth_code is None

    run(t)


def test_a_database_step_that_fails_answers_0x8001_result_1_never_silence() -> None:
    async def t(h: Harness) -> None:
        h.directory.add(PHONE, 1, auth_code="CODE1")

        async def broken(*_: object) -> None:
            raise RuntimeError("UniqueViolation: duplicate key value")

        h.directory.register = broken  # type: ignore[method-assign]
        h.directory.find = broken  # type: ignore[method-assign]
        conn, transport = h.connect()
        conn.data_received(frame(0x0100, registration(), seq=7))
        await settle()
        conn.data_received(frame(0x0102, Authentication("CODE1").encode("2013"), seq=8))
        await settle()
        replies = [(m.header.msg_id, m.body.reply_seq, m.body.reply_msg_id, m.body.result)
                   for m in transport.replies()]
        assert replies == [(0x8001, 7, 0x0100, 1), (0x8001, 8, 0x0102, 1)]
        assert h.server.counters.db_errors == 2

    run(t)


def test_registration_by_other_hardware_of_registered_terminal_is_answered_as_unknown() -> None:
    async def t(h: Harness) -> None:
        h.directory.add(PHONE, 1, auth_code="CODE1")
        conn, transport = h.connect()
        conn.data_received(frame(0x0100, registration("OTHER01")))
        await settle()
        [reply] = transport.replies()
        # 3 ("already registered") would confirm the phone to a stranger: the wire says 4, like an unknown phone
        assert isinstance(reply.body, RegistrationResponse) and reply.body.result == 4

    run(t)


def test_re_registration_never_echoes_the_existing_code() -> None:
    async def t(h: Harness) -> None:
        h.directory.add(PHONE, 1, auth_code="CODE1")
        conn, transport = h.connect()
        conn.data_received(frame(0x0100, registration()))
        await settle()
        [reply] = transport.replies()
        assert isinstance(reply.body, RegistrationResponse) and reply.body.result == 0
        assert reply.body.auth_code not in (None, "CODE1")

    run(t)


def test_authentication_with_wrong_code_fails() -> None:
    async def t(h: Harness) -> None:
        h.directory.add(PHONE, 1, auth_code="CODE1")
        conn, transport = h.connect()
        conn.data_received(frame(0x0102, Authentication("WRONG").encode("2013"), seq=3))
        await settle()
        [ack] = transport.replies()
        assert isinstance(ack.body, PlatformResponse) and ack.body.result == 1
        assert conn.identity is None
        # only the message log's record of the refusal, starred where it is logged: no session, no data
        [logged] = h.sink.values(JT808_UPLINK)
        assert (logged["msg_id"], logged["device_id"], logged["message"]["access"]) == (
            0x0102, 1, {"result": 1, "reason": "wrong_code"})
        assert h.sink.values(DEVICE_SESSIONS) == []
        assert h.server.counters.auth_failed == 1

    run(t)


def test_authentication_of_disabled_device_fails() -> None:
    async def t(h: Harness) -> None:
        h.directory.add(PHONE, 1, auth_code="CODE1", state=5)
        conn, transport = h.connect()
        conn.data_received(frame(0x0102, Authentication("CODE1").encode("2013")))
        await settle()
        [ack] = transport.replies()
        assert isinstance(ack.body, PlatformResponse) and ack.body.result == 1

    run(t)


def test_rejects_position_before_authentication_and_does_not_forward_it() -> None:
    async def t(h: Harness) -> None:
        h.directory.add(PHONE, 1, auth_code="CODE1")
        conn, transport = h.connect()
        conn.data_received(frame(0x0200, position(), seq=5) + frame(0x0002, seq=6))
        await settle()
        acks = transport.replies()
        assert [(a.body.reply_seq, a.body.result) for a in acks] == [(5, 1), (6, 1)]  # type: ignore[attr-defined]
        assert h.sink.records == []
        assert h.server.counters.pre_auth_rejected == 2

    run(t)


def test_position_is_acknowledged_only_after_kafka_stored_it() -> None:
    async def t(h: Harness) -> None:
        transport = await login(h)
        conn = transport.protocol
        conn.data_received(frame(0x0200, position(), seq=42))
        await settle()
        assert transport.replies() == []  # Kafka has not acknowledged yet
        [uplink] = h.sink.values(JT808_UPLINK)
        assert uplink["phone"] == PHONE and uplink["msg_id"] == 0x0200 and uplink["seq"] == 42
        assert uplink["device_id"] == 1 and uplink["car_id"] == 101 and uplink["enterprise_id"] == 10
        assert uplink["raw_hex"] == frame(0x0200, position(), seq=42).hex()
        assert uplink["message"]["body"]["speed_kmh"] == 42.5
        assert uplink["message"]["body"]["extras"]["mileage_km"] == 1234.5
        assert uplink["connection_id"] == conn.connection_id and uplink["gateway_id"] == "gw-test"
        assert uplink["received_at"].endswith("+00:00")
        h.sink.store_all()
        await settle()
        [ack] = transport.replies()
        assert isinstance(ack.body, PlatformResponse)
        assert (ack.body.reply_seq, ack.body.reply_msg_id, ack.body.result) == (42, 0x0200, 0)

    run(t)


def test_position_kafka_failed_to_store_is_never_acknowledged() -> None:
    async def t(h: Harness) -> None:
        transport = await login(h)
        transport.protocol.data_received(frame(0x0200, position(), seq=9))
        await settle()
        h.sink.fail_all()
        await settle()
        assert transport.replies() == []
        assert h.server.counters.produce_failed >= 1

    run(t)


def test_heartbeat_is_acknowledged_at_once_and_forwarded() -> None:
    async def t(h: Harness) -> None:
        transport = await login(h)
        transport.protocol.data_received(frame(0x0002, seq=11))
        await settle()
        [ack] = transport.replies()
        assert isinstance(ack.body, PlatformResponse) and (ack.body.reply_seq, ack.body.result) == (11, 0)
        assert [v["msg_id"] for v in h.sink.values(JT808_UPLINK)] == [2]

    run(t)


def test_logout_acknowledges_then_goes_offline() -> None:
    async def t(h: Harness) -> None:
        transport = await login(h)
        transport.protocol.data_received(frame(0x0003, seq=12))
        await settle()
        [ack] = transport.replies()
        assert isinstance(ack.body, PlatformResponse) and ack.body.result == 0
        assert transport.closing
        sessions = h.sink.values(DEVICE_SESSIONS)
        assert [(s["event"], s["reason"]) for s in sessions] == [("online", "auth"), ("offline", "logout")]

    run(t)


def test_idle_connection_is_closed_and_goes_offline() -> None:
    async def t(h: Harness) -> None:
        transport = await login(h)
        conn = transport.protocol
        conn.sweep(conn.last_rx_at + 1.0)
        assert not transport.closing
        conn.sweep(conn.last_rx_at + 3.0)
        await settle()
        assert transport.closing
        assert h.sink.values(DEVICE_SESSIONS)[-1]["reason"] == "idle_timeout"
        assert h.server.counters.idle_timeouts == 1

    run(t, idle_timeout_s=2.0)


def test_closed_connection_goes_offline_with_reason_closed() -> None:
    async def t(h: Harness) -> None:
        transport = await login(h)
        transport.protocol.connection_lost(None)
        await settle()
        assert h.sink.values(DEVICE_SESSIONS)[-1]["reason"] == "closed"

    run(t)


def test_frame_for_another_phone_on_an_authenticated_connection_is_rejected() -> None:
    async def t(h: Harness) -> None:
        transport = await login(h)
        transport.protocol.data_received(frame(0x0200, position(), seq=3, phone="013899999999"))
        await settle()
        [ack] = transport.replies()
        assert isinstance(ack.body, PlatformResponse) and ack.body.result == 1
        assert h.sink.values(JT808_UPLINK) == []

    run(t)


def test_2019_terminal_is_answered_with_2019_headers_and_found_by_its_12_digit_phone() -> None:
    async def t(h: Harness) -> None:
        h.directory.add(PHONE, 1, auth_code="CODE1")
        h.directory.devices["00000000" + PHONE] = h.directory.devices[PHONE]
        conn, transport = h.connect()
        body = Authentication("CODE1", "860000000000000", "1.0").encode("2019")
        conn.data_received(frame(0x0102, body, phone="00000000" + PHONE, version="2019"))
        await settle()
        [ack] = transport.replies()
        assert ack.header.version == "2019" and ack.header.phone == "00000000" + PHONE
        assert h.server.ctx is not None and h.server.ctx.registry.get(PHONE) is conn

    run(t)


def test_a_registration_sent_again_before_its_answer_gets_the_same_code_not_a_second_one() -> None:
    # A terminal whose 0x8100 is late sends the same 0x0100 again (same serial): both copies are read together.
    # The code the terminal takes from the first answer must stay the device's code, and no operator is told that
    # a code was replaced.
    async def t(h: Harness) -> None:
        h.directory.add(PHONE, 1)
        conn, transport = h.connect()
        sent = frame(0x0100, registration(), seq=7)
        conn.data_received(sent + sent)
        await settle()
        replies = transport.replies()
        assert [(m.header.msg_id, m.body.reply_seq, m.body.result) for m in replies] == [(0x8100, 7, 0)] * 2
        codes = {m.body.auth_code for m in replies}
        assert codes == {h.directory.devices[PHONE].auth_code}
        assert [v for v in h.sink.values(DEVICE_SESSIONS) if v["event"] == "security"] == []
        assert (h.server.counters.registrations, h.server.counters.login_resends_answered) == (1, 1)
        [code] = codes
        conn.data_received(frame(0x0102, Authentication(code).encode("2013"), seq=8))
        await settle()
        [ack] = transport.replies()
        assert (ack.body.reply_seq, ack.body.result) == (8, 0)

    run(t)


def test_an_authentication_sent_again_is_answered_once_more_without_a_second_lookup_or_session() -> None:
    async def t(h: Harness) -> None:
        h.directory.add(PHONE, 1, auth_code="CODE1")
        conn, transport = h.connect()
        sent = frame(0x0102, Authentication("CODE1").encode("2013"), seq=3)
        conn.data_received(sent + sent)
        await settle()
        assert [(m.header.msg_id, m.body.reply_seq, m.body.reply_msg_id, m.body.result)
                for m in transport.replies()] == [(0x8001, 3, 0x0102, 0)] * 2
        assert h.directory.lookups == 1
        assert [v["event"] for v in h.sink.values(DEVICE_SESSIONS)] == ["online"]
        assert h.server.counters.login_resends_answered == 1

    run(t)


def test_a_registration_sent_again_after_its_answer_gets_that_code_until_the_terminal_moves_on() -> None:
    # The resend crossed the answer on the wire: the same code again. TCP keeps order, so a resend always comes
    # before the terminal's next message: the same bytes after another frame (its serial wrapped, or a terminal
    # that registers again) are a new registration, checked and answered with a new code.
    async def t(h: Harness) -> None:
        h.directory.add(PHONE, 1)
        conn, transport = h.connect()
        sent = frame(0x0100, registration(), seq=7)
        conn.data_received(sent)
        await settle()
        [first] = transport.replies()
        conn.data_received(sent)
        await settle()
        [crossed] = transport.replies()
        assert first.body.auth_code and crossed.body.auth_code == first.body.auth_code
        assert h.directory.devices[PHONE].auth_code == first.body.auth_code
        conn.data_received(frame(0x0102, Authentication(first.body.auth_code).encode("2013"), seq=8))
        await settle()
        transport.replies()
        conn.data_received(sent)
        await settle()
        [again] = transport.replies()
        assert again.body.result == 0 and again.body.auth_code not in (None, first.body.auth_code)
        assert h.server.counters.registrations == 2

    run(t)


def test_a_refused_authentication_sent_again_is_checked_again() -> None:
    async def t(h: Harness) -> None:
        h.directory.add(PHONE, 1, auth_code="CODE1")
        conn, transport = h.connect()
        sent = frame(0x0102, Authentication("WRONG").encode("2013"), seq=3)
        conn.data_received(sent + sent)
        await settle(20)
        assert [m.body.result for m in transport.replies()] == [1, 1]
        assert (h.server.counters.auth_failed, h.server.counters.login_resends_answered) == (2, 0)

    run(t)
