"""A scripted inferior platform, written with protocols.jt809 alone, to drive the regulator in tests:
it logs in on the main link, serves the sub link the regulator connects back to, and records every
frame it receives on either link."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from protocols.jt809 import CipherKeys, Message, decode_frame, encode_frame
from protocols.jt809 import messages as m

T = TypeVar("T")
FIX_AT = datetime(2026, 3, 1, 8, 30, 0, tzinfo=UTC)
KEYS = CipherKeys(30000000, 20000000, 20000000)


def run(scenario: Callable[[], Awaitable[T]], timeout: float = 20.0) -> T:
    return asyncio.run(asyncio.wait_for(scenario(), timeout))  # type: ignore[arg-type]


def position(seconds: int, version: str = "2011") -> m.Gnss2011 | m.Gnss2019:
    fix_at = FIX_AT + timedelta(seconds=seconds)
    if version == "2011":
        return m.Gnss2011(fix_at, 116_400_000, 39_900_000, 50, 50, 1234, 90, 40, 3, 0)
    from protocols.jt808.messages import LocationReport

    return m.Gnss2019.from_location(LocationReport(0, 3, 39.9, 116.4, 40, 50.0, 90, fix_at))


class Inferior:
    def __init__(self, user_id: int = 1001, password: str = "secret", centre_id: int = 7001,
                 version: str = "2011", keys: CipherKeys | None = None, key: int = 0,
                 sub_result: int = 0, answer_heartbeats: bool = True) -> None:
        self.user_id, self.password, self.centre_id, self.version = user_id, password, centre_id, version
        self.keys, self.key = keys, key
        self.sub_result, self.answer_heartbeats = sub_result, answer_heartbeats
        self.main_in: asyncio.Queue[Message] = asyncio.Queue()
        self.sub_in: asyncio.Queue[Message] = asyncio.Queue()
        self.verify_code: int | None = None
        self.main_closed = asyncio.Event()  # set when the regulator closed the main link
        self.sub_port = 0
        self.sub_connections = 0
        self._sn = 0
        self._server: asyncio.Server | None = None
        self._sub_writers: list[asyncio.StreamWriter] = []
        self._main_reader: asyncio.StreamReader | None = None
        self._main_writer: asyncio.StreamWriter | None = None
        self._pumps: list[asyncio.Task[None]] = []
        self._sub_tasks: set[asyncio.Task[object]] = set()

    async def serve_sub(self) -> None:
        self._server = await asyncio.start_server(self._sub, "127.0.0.1", self.sub_port)
        self.sub_port = self._server.sockets[0].getsockname()[1]

    def frame(self, msg_id: int, body: Any, *, keys: CipherKeys | None = None, version: str | None = None,
              centre_id: int | None = None) -> bytes:
        self._sn += 1
        keys = keys if keys is not None else self.keys
        return encode_frame(msg_id, body, sn=self._sn, centre_id=self.centre_id if centre_id is None else centre_id,
                            version=version or self.version, keys=keys, key=self.key if keys else 0,
                            timestamp=1_772_000_000)

    async def connect(self, port: int, *, password: str | None = None, centre_id: int | None = None,
                      user_id: int | None = None, version: str | None = None) -> m.LoginResponse:
        """Open the main link and log in; returns the 0x1002 answer."""
        if self._server is None:
            await self.serve_sub()
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        self._main_reader, self._main_writer = reader, writer
        self.main_closed.clear()
        self._pumps.append(asyncio.get_running_loop().create_task(self._pump(reader, self.main_in, closed=self.main_closed)))
        centre = self.centre_id if centre_id is None else centre_id
        login = m.LoginRequest(self.user_id if user_id is None else user_id, self.password if password is None else password,
                               "127.0.0.1", self.sub_port, centre if (version or self.version) == "2019" else None)
        writer.write(self.frame(m.LoginRequest.MSG_ID, login, version=version, centre_id=centre))
        answer = await self.expect_main(m.LoginResponse)
        self.verify_code = answer.verify_code
        return answer

    def send(self, msg_id: int, body: Any) -> None:
        assert self._main_writer is not None
        self._main_writer.write(self.frame(msg_id, body))

    def send_raw(self, raw: bytes) -> None:
        assert self._main_writer is not None
        self._main_writer.write(raw)

    def send_sub(self, msg_id: int, body: Any) -> None:
        self._sub_writers[-1].write(self.frame(msg_id, body))

    async def expect_main(self, kind: type[T], timeout: float = 5.0) -> T:
        return await _expect(self.main_in, kind, timeout)

    async def expect_sub(self, kind: type[T], timeout: float = 5.0) -> T:
        return await _expect(self.sub_in, kind, timeout)

    async def close_sub(self) -> None:
        """Drop the sub link and refuse new ones (the server stops listening)."""
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        for writer in self._sub_writers:
            writer.close()
        if self._sub_tasks:  # let the sub link pumps see the close before the loop ends
            await asyncio.wait(self._sub_tasks, timeout=1)

    async def close(self) -> None:
        if self._main_writer is not None:
            self._main_writer.close()
        await self.close_sub()
        for task in self._pumps:
            task.cancel()

    async def _sub(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.sub_connections += 1
        task = asyncio.current_task()
        if task is not None:
            self._sub_tasks.add(task)
        self._sub_writers.append(writer)
        await self._pump(reader, self.sub_in, writer)

    async def _pump(self, reader: asyncio.StreamReader, queue: asyncio.Queue[Message],
                    sub_writer: asyncio.StreamWriter | None = None, closed: asyncio.Event | None = None) -> None:
        with contextlib.suppress(asyncio.IncompleteReadError, ConnectionError):
            await self._frames(reader, queue, sub_writer)
        if closed is not None:
            closed.set()

    async def _frames(self, reader: asyncio.StreamReader, queue: asyncio.Queue[Message],
                      sub_writer: asyncio.StreamWriter | None) -> None:
        while True:
            raw = await reader.readuntil(b"\x5d")
            message = decode_frame(raw[raw.rfind(b"\x5b"):], version=self.version, keys=self.keys)
            await queue.put(message)
            if sub_writer is None:
                continue
            if isinstance(message.body, m.SubLinkLoginRequest):
                ok = message.body.verify_code == self.verify_code
                result = self.sub_result if ok else m.SubLinkLoginResult.VERIFY_CODE_WRONG
                sub_writer.write(self.frame(m.SubLinkLoginResponse.MSG_ID, m.SubLinkLoginResponse(result)))
            elif isinstance(message.body, m.SubLinkHeartbeat) and self.answer_heartbeats:
                sub_writer.write(self.frame(m.SubLinkHeartbeatResponse.MSG_ID, m.SubLinkHeartbeatResponse()))


async def _expect(queue: asyncio.Queue[Message], kind: type[T], timeout: float) -> T:
    """The body of the next frame whose body (or family data) is a ``kind``; others are skipped."""
    async def find() -> T:
        while True:
            message = await queue.get()
            for candidate in (message.body, getattr(message.body, "data", None)):
                if isinstance(candidate, kind):
                    return candidate
    return await asyncio.wait_for(find(), timeout)


async def until(predicate: Callable[[], bool], timeout: float = 5.0) -> None:
    async def poll() -> None:
        while not predicate():
            await asyncio.sleep(0.01)
    await asyncio.wait_for(poll(), timeout)
