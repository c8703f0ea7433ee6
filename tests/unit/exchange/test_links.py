"""The link state machine against a scripted superior platform over real loopback TCP (protocols.jt809 builds
and reads its frames): login, heartbeat, refusal and reconnect with backoff, the sub link's verify code, and
data going on the sub link while the main link is down."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from exchange.link import links as links_module
from exchange.link.backoff import Backoff
from exchange.link.links import MAIN, SUB, LinkConfig, LinkDown, Links
from exchange.link.wire import PlatformWire, read_frame
from protocols.jt809 import CipherKeys, Message, decode_frame, encode_frame
from protocols.jt809 import messages as m

CENTRE = 20180920
VERIFY = 0x1234ABCD


class Recorder:
    def __init__(self) -> None:
        self.states: list[tuple[str, str, str | None]] = []
        self.frames: list[tuple[str, str, int]] = []
        self.requests: list[tuple[str, Message]] = []
        self.heartbeats: list[str] = []

    def state(self, link: str, state: str, error: str | None = None) -> None:
        self.states.append((link, state, error))

    def heartbeat(self, link: str) -> None:
        self.heartbeats.append(link)

    def frame(self, direction: str, link: str, msg_id: int, body: Any, raw: bytes) -> None:
        self.frames.append((direction, link, msg_id))

    async def request(self, link: str, message: Message) -> None:
        self.requests.append((link, message))


class Superior:
    """A scripted superior: answers logins with ``results`` in turn (then 0), records what it reads."""

    def __init__(self, version: str = "2011", results: list[int] | None = None,
                 keys: CipherKeys | None = None) -> None:
        self.version = version
        self.keys = keys
        self.results = list(results or [])
        self.logins: list[m.LoginRequest] = []
        self.received: list[Message] = []
        self.connections: list[asyncio.StreamWriter] = []
        self.server: asyncio.Server | None = None
        self.sn = 0

    def encode(self, msg_id: int, body: Any) -> bytes:
        self.sn += 1
        return encode_frame(msg_id, body, sn=self.sn, centre_id=CENTRE, version=self.version, keys=self.keys,
                            key=77 if self.keys else 0)

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._main, "127.0.0.1", 0)
        return self.server.sockets[0].getsockname()[1]

    async def _main(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections.append(writer)
        try:
            while True:
                message = decode_frame(await read_frame(reader), version=self.version, keys=self.keys)
                self.received.append(message)
                if message.header.msg_id == m.LoginRequest.MSG_ID:
                    self.logins.append(message.body)
                    result = self.results.pop(0) if self.results else 0
                    writer.write(self.encode(m.LoginResponse.MSG_ID, m.LoginResponse(result, VERIFY)))
                elif message.header.msg_id == m.Heartbeat.MSG_ID:
                    writer.write(self.encode(m.HeartbeatResponse.MSG_ID, m.HeartbeatResponse()))
        except (asyncio.IncompleteReadError, ConnectionError):
            pass

    async def sub_login(self, port: int, code: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, Message]:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(self.encode(m.SubLinkLoginRequest.MSG_ID, m.SubLinkLoginRequest(code)))
        answer = decode_frame(await read_frame(reader), version=self.version, keys=self.keys)
        return reader, writer, answer

    def drop_main(self) -> None:
        for writer in self.connections:
            writer.close()


def make_links(port: int, recorder: Recorder, version: str = "2011", heartbeat_s: float = 60.0,
               keys: CipherKeys | None = None) -> Links:
    config = LinkConfig("127.0.0.1", port, CENTRE, "20180920", CENTRE, "127.0.0.1", 0, heartbeat_s=heartbeat_s,
                        login_timeout_s=2)
    backoff = Backoff(base_s=0.05, cap_s=0.2, floor_s=0.01, rng=random.Random(1))
    return Links(config, PlatformWire(CENTRE, version, keys, 77 if keys else 0), recorder, backoff)


async def eventually(check: Any, timeout: float = 3.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not check():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.01)


def run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 10))


@pytest.mark.parametrize("version", ["2011", "2019"])
def test_logs_in_with_user_password_and_the_sub_link_address(version: str) -> None:
    async def scenario() -> None:
        superior, recorder = Superior(version), Recorder()
        links = make_links(await superior.start(), recorder, version)
        task = asyncio.create_task(links.run())
        await eventually(lambda: links.is_up(MAIN))
        login = superior.logins[0]
        assert (login.user_id, login.password, login.down_link_ip) == (CENTRE, "20180920", "127.0.0.1")
        assert login.down_link_port == links.sub_port
        assert login.centre_id == (CENTRE if version == "2019" else None)
        assert links.verify_code == VERIFY
        assert (MAIN, "connected", None) in recorder.states
        task.cancel()

    run(scenario())


def test_encrypted_link_sends_bodies_the_superior_decrypts_with_the_agreed_keys() -> None:
    keys = CipherKeys(30000000, 20000000, 20000000)

    async def scenario() -> None:
        superior, recorder = Superior("2019", keys=keys), Recorder()
        links = make_links(await superior.start(), recorder, "2019", keys=keys)
        task = asyncio.create_task(links.run())
        await eventually(lambda: links.is_up(MAIN))
        assert superior.received[0].header.encrypted
        assert superior.logins[0].password == "20180920"
        task.cancel()

    run(scenario())


def test_sends_heartbeats_at_the_interval_and_records_the_answers() -> None:
    async def scenario() -> None:
        superior, recorder = Superior(), Recorder()
        links = make_links(await superior.start(), recorder, heartbeat_s=0.05)
        task = asyncio.create_task(links.run())
        await eventually(lambda: sum(1 for x in superior.received if x.header.msg_id == m.Heartbeat.MSG_ID) >= 3)
        await eventually(lambda: recorder.heartbeats.count(MAIN) >= 3)
        task.cancel()

    run(scenario())


def test_refused_login_is_reported_by_name_and_retried_with_backoff() -> None:
    async def scenario() -> None:
        superior, recorder = Superior(results=[m.LoginResult.PASSWORD_WRONG, m.LoginResult.RESOURCES_BUSY]), Recorder()
        links = make_links(await superior.start(), recorder)
        task = asyncio.create_task(links.run())
        await eventually(lambda: links.is_up(MAIN))
        assert len(superior.logins) == 3
        refusals = [error for link, state, error in recorder.states if state == "refused"]
        assert refusals[0] is not None and "PASSWORD_WRONG" in refusals[0]
        assert refusals[1] is not None and "RESOURCES_BUSY" in refusals[1]
        assert links.backoff.failures == 0  # reset by the successful login
        task.cancel()

    run(scenario())


def test_reconnects_after_the_superior_drops_the_main_link() -> None:
    async def scenario() -> None:
        superior, recorder = Superior(), Recorder()
        links = make_links(await superior.start(), recorder)
        task = asyncio.create_task(links.run())
        await eventually(lambda: links.is_up(MAIN))
        superior.drop_main()
        await eventually(lambda: len(superior.logins) == 2 and links.is_up(MAIN))
        assert any(state == "disconnected" for link, state, _ in recorder.states if link == MAIN)
        task.cancel()

    run(scenario())


def test_backoff_grows_to_its_cap_with_jitter_and_resets() -> None:
    backoff = Backoff(base_s=1, cap_s=8, floor_s=0, rng=random.Random(3))
    delays = [backoff.next_delay() for _ in range(8)]
    assert all(0 <= d <= min(8, 2**i) for i, d in enumerate(delays))
    assert max(delays[4:]) > 2  # later failures may wait longer than the first ones could
    backoff.reset()
    assert backoff.next_delay() <= 1


def test_sub_link_with_a_wrong_verify_code_is_refused_and_closed() -> None:
    async def scenario() -> None:
        superior, recorder = Superior(), Recorder()
        links = make_links(await superior.start(), recorder)
        task = asyncio.create_task(links.run())
        await eventually(lambda: links.is_up(MAIN))
        reader, _, answer = await superior.sub_login(links.sub_port or 0, VERIFY + 1)
        assert answer.body.code == m.SubLinkLoginResult.VERIFY_CODE_WRONG
        assert await reader.read() == b""  # closed
        assert not links.is_up(SUB)
        task.cancel()

    run(scenario())


def test_sub_link_with_the_verify_code_answers_heartbeats() -> None:
    async def scenario() -> None:
        superior, recorder = Superior(), Recorder()
        links = make_links(await superior.start(), recorder)
        task = asyncio.create_task(links.run())
        await eventually(lambda: links.is_up(MAIN))
        reader, writer, answer = await superior.sub_login(links.sub_port or 0, VERIFY)
        assert answer.body.code == m.SubLinkLoginResult.OK
        writer.write(superior.encode(m.SubLinkHeartbeat.MSG_ID, m.SubLinkHeartbeat()))
        reply = decode_frame(await read_frame(reader))
        assert reply.header.msg_id == m.SubLinkHeartbeatResponse.MSG_ID
        assert links.is_up(SUB)
        task.cancel()

    run(scenario())


def test_a_sub_link_outlives_three_of_our_heartbeats_and_is_closed_after_the_superiors_silence_limit(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The superior keeps the sub link alive at its own interval (0x9005), which may be longer than three of our main
    link heartbeats: the sub link is closed for silence only after SUB_LINK_SILENCE_S (here 1 s, not 180)."""
    monkeypatch.setattr(links_module, "SUB_LINK_SILENCE_S", 1.0)

    async def scenario() -> None:
        superior, recorder = Superior(), Recorder()
        links = make_links(await superior.start(), recorder, heartbeat_s=0.05)  # the main link's limit: 0.15 s
        task = asyncio.create_task(links.run())
        await eventually(lambda: links.is_up(MAIN))
        reader, writer, answer = await superior.sub_login(links.sub_port or 0, VERIFY)
        assert answer.body.code == m.SubLinkLoginResult.OK
        await asyncio.sleep(0.5)  # ten of our heartbeat intervals without a byte on the sub link
        assert links.is_up(SUB) and links.is_up(MAIN)
        writer.write(superior.encode(m.SubLinkHeartbeat.MSG_ID, m.SubLinkHeartbeat()))
        assert decode_frame(await read_frame(reader)).header.msg_id == m.SubLinkHeartbeatResponse.MSG_ID
        started = asyncio.get_running_loop().time()
        assert await asyncio.wait_for(reader.read(), 3) == b""  # then silent for the limit: closed
        assert asyncio.get_running_loop().time() - started >= 0.9
        await eventually(lambda: not links.is_up(SUB))
        assert links.is_up(MAIN)
        task.cancel()

    run(scenario())


def test_data_goes_on_the_sub_link_with_a_0x1007_while_the_main_link_is_down() -> None:
    async def scenario() -> None:
        superior, recorder = Superior(), Recorder()
        port = await superior.start()
        links = make_links(port, recorder)
        task = asyncio.create_task(links.run())
        await eventually(lambda: links.is_up(MAIN))
        reader, writer, _ = await superior.sub_login(links.sub_port or 0, VERIFY)
        assert superior.server is not None
        superior.server.close()  # no new main link
        superior.drop_main()
        notice = decode_frame(await read_frame(reader))
        assert notice.header.msg_id == m.DisconnectNotice.MSG_ID and notice.body.code == 0
        assert await links.send(m.Heartbeat.MSG_ID, m.Heartbeat()) == SUB
        assert decode_frame(await read_frame(reader)).header.msg_id == m.Heartbeat.MSG_ID
        await asyncio.sleep(0.6)  # several failed reconnects (backoff capped at 0.2 s): still one notice
        assert links.backoff.failures >= 3
        assert recorder.frames.count(("up", SUB, m.DisconnectNotice.MSG_ID)) == 1
        writer.close()
        task.cancel()

    run(scenario())


def test_frames_sent_together_are_one_write_in_order_each_with_its_own_serial_number() -> None:
    async def scenario() -> None:
        superior, recorder = Superior("2019"), Recorder()
        links = make_links(await superior.start(), recorder, "2019")
        task = asyncio.create_task(links.run())
        await eventually(lambda: links.is_up(MAIN))
        writer = links.writers[MAIN]
        assert writer is not None
        writes: list[int] = []
        write = writer.write
        writer.write = lambda data: (writes.append(len(data)), write(data))[1]  # type: ignore[method-assign]
        before, received = links.bytes_written, len(superior.received)
        bodies = [m.Heartbeat(), m.DisconnectNotice(2), m.Heartbeat()]
        assert await links.send_all([(type(body).MSG_ID, body) for body in bodies]) == MAIN
        assert len(writes) == 1 and links.bytes_written - before == writes[0]
        await eventually(lambda: len(superior.received) >= received + 3)
        got = superior.received[received:received + 3]
        assert [message.header.msg_id for message in got] == [type(body).MSG_ID for body in bodies]
        assert got[1].body.code == 2
        serials = [message.header.sn for message in got]
        assert serials == list(range(serials[0], serials[0] + 3))
        assert [f for f in recorder.frames if f[0] == "up"][-3:] == [("up", MAIN, type(body).MSG_ID) for body in bodies]
        task.cancel()

    run(scenario())


def test_send_raises_link_down_when_neither_link_is_up() -> None:
    async def scenario() -> None:
        links = make_links(1, Recorder())
        with pytest.raises(LinkDown):
            await links.send(m.Heartbeat.MSG_ID, m.Heartbeat())

    run(scenario())


def test_requests_of_the_superior_reach_the_service() -> None:
    async def scenario() -> None:
        superior, recorder = Superior(), Recorder()
        links = make_links(await superior.start(), recorder)
        task = asyncio.create_task(links.run())
        await eventually(lambda: links.is_up(MAIN))
        _, writer, _ = await superior.sub_login(links.sub_port or 0, VERIFY)
        question = m.InspectionRequest(1, "CENTRE01", 42, "值班人员请回答")
        writer.write(superior.encode(m.PlatformExchangeDown.MSG_ID,
                                     m.PlatformExchangeDown(m.InspectionRequest.DATA_TYPE, question)))
        await eventually(lambda: recorder.requests)
        link, message = recorder.requests[0]
        assert link == SUB and message.body.data == question
        task.cancel()

    run(scenario())


def test_a_configuration_refusal_waits_the_longest_delay_and_busy_backs_off_from_the_start() -> None:
    async def scenario() -> None:
        superior, recorder = Superior(results=[m.LoginResult.PASSWORD_WRONG]), Recorder()
        links = make_links(await superior.start(), recorder)
        links.backoff = Backoff(base_s=0.01, cap_s=0.5, floor_s=0.0, rng=random.Random(2))
        seen: list[int] = []
        original = links.backoff.next_delay

        def spy() -> float:
            seen.append(links.backoff.failures)
            return original()

        links.backoff.next_delay = spy  # type: ignore[method-assign]
        task = asyncio.create_task(links.run())
        await eventually(lambda: links.is_up(MAIN))
        assert seen == [16]  # the delay after a wrong password is drawn up to the cap, not from 10 ms
        task.cancel()

    run(scenario())
