"""Terminal takeover: a registration proves it is the terminal recorded at first
registration, an auth code is never echoed, and only a connection holding a valid code can displace
a live one (which is then pushed as a security notice)."""

from fleet.topics import DEVICE_SESSIONS, JT808_UPLINK
from protocols.jt808 import Authentication, PlatformResponse, Registration, RegistrationResponse
from tests.unit.gateway.test_connection import login, position
from tests.unit.gateway.twins import PHONE, FakeTransport, Harness, frame, run, settle

# "Already registered" (3) is answered as "no such terminal" (4): a stranger learns nothing (gateway/replies.py).
REFUSED = 4


def _registration(terminal_id: str = "0000001", maker: str = "FLEET", model: str = "SIM-808") -> bytes:
    return Registration(11, 100, maker, model, terminal_id, 2, "").encode("2013")


async def _register(h: Harness, body: bytes, phone: str = PHONE) -> tuple[RegistrationResponse, FakeTransport]:
    conn, transport = h.connect()
    conn.data_received(frame(0x0100, body, seq=3, phone=phone))
    await settle()
    [reply] = transport.replies()
    assert isinstance(reply.body, RegistrationResponse)
    return reply.body, transport


async def _authenticate(transport: FakeTransport, code: str, phone: str = PHONE) -> int:
    transport.protocol.data_received(frame(0x0102, Authentication(code).encode("2013"), seq=4, phone=phone))
    await settle()
    [ack] = transport.replies()
    assert isinstance(ack.body, PlatformResponse)
    return ack.body.result


def _sessions(h: Harness) -> list[tuple[str, str]]:
    return [(s["event"], s["reason"]) for s in h.sink.values(DEVICE_SESSIONS)]


def test_registration_with_an_empty_terminal_id_is_refused_as_unknown_with_no_code() -> None:
    async def t(h: Harness) -> None:
        h.directory.add(PHONE, 1, auth_code="CODE1")
        reply, _ = await _register(h, _registration(""))
        assert (reply.result, reply.auth_code) == (REFUSED, None)
        assert h.directory.devices[PHONE].auth_code == "CODE1"

    run(t)


def test_registration_with_the_last_character_of_the_serial_is_refused_as_unknown_with_no_code() -> None:
    async def t(h: Harness) -> None:
        h.directory.add(PHONE, 1, auth_code="CODE1")  # serial SIM0000001
        for tail in ("1", "01", "000001"):
            reply, _ = await _register(h, _registration(tail))
            assert (reply.result, reply.auth_code) == (REFUSED, None), tail
        assert h.directory.devices[PHONE].auth_code == "CODE1"

    run(t)


def test_registration_with_the_right_id_but_another_maker_or_model_is_refused_as_unknown() -> None:
    async def t(h: Harness) -> None:
        h.directory.add(PHONE, 1, auth_code="CODE1")
        for body in (_registration(maker="EVIL"), _registration(model="X-1")):
            reply, _ = await _register(h, body)
            assert (reply.result, reply.auth_code) == (REFUSED, None)

    run(t)


def test_attacker_cannot_take_over_a_live_terminal_by_registering() -> None:
    """The issue's attack: register with an empty id / a serial's last character, authenticate with
    what came back, and so evict the real terminal and forge positions under its enterprise."""

    async def t(h: Harness) -> None:
        real = await login(h)  # device 1, code CODE1, online
        for attack in ("", "1"):
            reply, attacker = await _register(h, _registration(attack))
            assert reply.auth_code is None
            assert await _authenticate(attacker, reply.auth_code or "CODE1-GUESS") == 1
            attacker.protocol.data_received(frame(0x0200, position(), seq=9))
            await settle()
        assert not real.closing
        assert h.server.ctx is not None and h.server.ctx.registry.get(PHONE) is real.protocol
        # nothing of the attacker's reached the data: only the message log's records of its refusals
        logged = h.sink.values(JT808_UPLINK)
        assert {u["msg_id"] for u in logged} == {0x0100, 0x0102}
        assert all(u["message"]["access"]["result"] != 0 for u in logged)
        assert _sessions(h) == [("online", "auth")]
        real.protocol.data_received(frame(0x0002, seq=20))
        await settle()
        [ack] = real.replies()
        assert isinstance(ack.body, PlatformResponse) and (ack.body.reply_seq, ack.body.result) == (20, 0)

    run(t)


def test_same_terminal_re_registering_gets_a_new_code_and_the_old_one_stops_working() -> None:
    async def t(h: Harness) -> None:
        h.directory.add(PHONE, 1, auth_code="CODE1")
        reply, transport = await _register(h, _registration())
        assert reply.result == 0 and reply.auth_code and reply.auth_code != "CODE1"
        assert h.directory.devices[PHONE].auth_code == reply.auth_code
        assert await _authenticate(transport, reply.auth_code) == 0
        _, other = await _register(h, _registration("9999999"))
        assert await _authenticate(other, "CODE1") == 1

    run(t)


def test_a_live_terminal_is_not_disturbed_by_a_registration_of_the_same_identity() -> None:
    async def t(h: Harness) -> None:
        real = await login(h)
        reply, _ = await _register(h, _registration())  # knows id, maker and model
        assert reply.result == 0  # a new code, and a notice: the live terminal's code no longer works
        assert not real.closing and _sessions(h) == [("online", "auth"), ("security", "code_replaced")]
        assert h.server.ctx is not None and h.server.ctx.registry.get(PHONE) is real.protocol
        real.protocol.data_received(frame(0x0002, seq=21))
        await settle()
        [ack] = real.replies()
        assert isinstance(ack.body, PlatformResponse) and (ack.body.reply_seq, ack.body.result) == (21, 0)

    run(t)


def test_new_connection_authenticating_with_the_code_evicts_the_live_one_with_a_security_notice() -> None:
    async def t(h: Harness) -> None:
        first = await login(h)
        second = await login(h)
        await settle()
        assert first.closing and not second.closing
        sessions = h.sink.values(DEVICE_SESSIONS)
        assert [(s["event"], s["reason"]) for s in sessions] == [
            ("online", "auth"), ("offline", "replaced"), ("security", "session_replaced"), ("online", "auth")]
        notice = sessions[2]
        assert notice["device_id"] == 1 and notice["connection_id"] == second.protocol.connection_id
        assert notice["replaced_connection_id"] == first.protocol.connection_id
        assert sessions[1]["connection_id"] == first.protocol.connection_id
        assert h.server.ctx is not None and h.server.ctx.registry.get(PHONE) is second.protocol
        assert h.server.counters.replaced == 1

    run(t)


def test_first_registration_issues_a_code_once_and_records_the_identity() -> None:
    async def t(h: Harness) -> None:
        h.directory.add(PHONE, 1)
        reply, transport = await _register(h, _registration())
        assert reply.result == 0 and reply.auth_code
        device = h.directory.devices[PHONE]
        assert (device.registered_terminal_id, device.registered_manufacturer_id,
                device.registered_terminal_model) == ("0000001", "FLEET", "SIM-808")
        assert await _authenticate(transport, reply.auth_code) == 0

    run(t)


def test_deregistration_clears_the_code_and_the_terminal_registers_afresh() -> None:
    async def t(h: Harness) -> None:
        real = await login(h)
        real.protocol.data_received(frame(0x0003, seq=30))
        await settle()
        [ack] = real.replies()
        assert isinstance(ack.body, PlatformResponse) and (ack.body.reply_seq, ack.body.result) == (30, 0)
        assert real.closing
        device = h.directory.devices[PHONE]
        assert device.auth_code is None and device.registered_terminal_id is None
        # the new hardware (any id) now registers as a first registration
        reply, transport = await _register(h, _registration("NEW0001", "ACME", "T-2"))
        assert reply.result == 0 and reply.auth_code and reply.auth_code != "CODE1"
        assert await _authenticate(transport, reply.auth_code) == 0

    run(t)


def test_deregistration_before_authentication_changes_nothing() -> None:
    async def t(h: Harness) -> None:
        h.directory.add(PHONE, 1, auth_code="CODE1")
        conn, transport = h.connect()
        conn.data_received(frame(0x0003, seq=5))
        await settle()
        [ack] = transport.replies()
        assert isinstance(ack.body, PlatformResponse) and ack.body.result == 1
        assert h.directory.devices[PHONE].auth_code == "CODE1"

    run(t)
