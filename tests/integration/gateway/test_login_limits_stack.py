"""Logging in on port 7611 against guessing and crowding, through the real gateway, PostgreSQL and
Kafka: wrong auth codes back off per connection and per phone, the connections waiting to
authenticate are shared by source address, and a burst of logins (a reconnect storm) is read from the
database in a few queries, every terminal answered."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable

import pytest

from protocols.jt808 import Authentication, PlatformResponse, RegistrationResponse, encode_frame
from tests.integration.gateway.support import TerminalClient, insert_devices, running_gateway, unique_phones
from tests.integration.gateway.test_takeover_stack import (
    _authenticate,
    _position_acked,
    _register,
    _registration,
)

pytestmark = pytest.mark.timeout(120)


async def _answers_within(client: TerminalClient, seconds: float) -> int:
    """How many 0x8001 answers arrive within `seconds`."""
    answers = 0
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    with contextlib.suppress(TimeoutError, ConnectionError):
        while (left := deadline - loop.time()) > 0:
            reply = await client.receive(timeout_s=left)
            answers += isinstance(reply.body, PlatformResponse)
    return answers


async def _send_wrong_codes(client: TerminalClient, count: int) -> None:
    data = b"".join(encode_frame(0x0102, Authentication(f"WRONG{i:05d}"), phone=client.phone, seq=i + 1)
                    for i in range(count))
    client.writer.write(data)
    await client.writer.drain()


def test_five_thousand_wrong_codes_on_one_connection_get_a_few_answers_not_five_thousand(
        pg_url: str, kafka_bootstrap: str, free_port: Callable[[], int]) -> None:
    [phone] = unique_phones(1)
    insert_devices(pg_url, [phone], auth_code="RIGHTCODE")

    async def main() -> None:
        port = free_port()
        async with running_gateway(pg_url, kafka_bootstrap, port, max_frames_per_s=100_000) as gw:
            guesser = await TerminalClient.connect(port, phone)
            await _send_wrong_codes(guesser, 5000)
            answers = await _answers_within(guesser, 5.0)
            # 3 free failures, then waits of 1, 2, 4 s: at most 6 answers in 5 s (today: 5,000)
            assert 1 <= answers <= 6, answers
            assert gw.counters.auth_failed <= 6 and gw.counters.auth_backoff_delayed >= 1
            await guesser.close()

    asyncio.run(main())


def test_wrong_codes_from_many_connections_for_one_phone_are_checked_a_few_times_only(
        pg_url: str, kafka_bootstrap: str, free_port: Callable[[], int]) -> None:
    [phone] = unique_phones(1)
    insert_devices(pg_url, [phone], auth_code="RIGHTCODE")

    async def main() -> None:
        port = free_port()
        async with running_gateway(pg_url, kafka_bootstrap, port, max_frames_per_s=100_000) as gw:
            guessers = [await TerminalClient.connect(port, phone) for _ in range(50)]
            for guesser in guessers:
                await _send_wrong_codes(guesser, 100)
            counts = await asyncio.gather(*(_answers_within(g, 5.0) for g in guessers))
            # each connection backs off on its own, and the phone's back-off lets few codes be checked
            assert sum(counts) <= 50 * 6, counts
            assert gw.counters.auth_failed <= 12, gw.counters.snapshot()
            assert gw.counters.auth_backoff_refused > 0
            for guesser in guessers:
                await guesser.close()

    asyncio.run(main())


def test_terminal_with_the_right_code_after_wrong_ones_gets_in_after_the_backoff(
        pg_url: str, kafka_bootstrap: str, free_port: Callable[[], int]) -> None:
    [phone] = unique_phones(1)
    insert_devices(pg_url, [phone])

    async def main() -> None:
        port = free_port()
        async with running_gateway(pg_url, kafka_bootstrap, port, auth_backoff_base_s=0.5):
            reply, terminal = await _register(port, phone, _registration(phone[-7:]))
            assert reply.result == 0 and reply.auth_code
            for _ in range(4):  # 3 free failures, the 4th makes the next attempt wait 0.5 s
                assert await _authenticate(terminal, "STALE") == 1
            started = time.monotonic()
            assert await _authenticate(terminal, reply.auth_code) == 0
            assert time.monotonic() - started >= 0.4
            assert await _position_acked(terminal)
            await terminal.close()

    asyncio.run(main())


def test_silent_sockets_of_one_host_do_not_lock_out_a_terminal_from_another_host(
        pg_url: str, kafka_bootstrap: str, free_port: Callable[[], int]) -> None:
    [phone] = unique_phones(1)
    insert_devices(pg_url, [phone])

    async def main() -> None:
        port = free_port()
        async with running_gateway(pg_url, kafka_bootstrap, port, unauthenticated_max=50) as gw:
            silent = [await asyncio.open_connection("127.0.0.1", port) for _ in range(50)]
            await asyncio.sleep(0.2)
            reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=("127.0.0.2", 0))
            terminal = TerminalClient(reader, writer, phone)
            reply, _ = await _register_on(terminal)
            assert reply.result == 0 and reply.auth_code
            assert gw.counters.unauthenticated_displaced == 1
            # the crowding host is over its share: its next socket is closed at once
            extra_reader, extra_writer = await asyncio.open_connection("127.0.0.1", port)
            with pytest.raises(ConnectionError):
                async with asyncio.timeout(2):
                    if not await extra_reader.read(1):
                        raise ConnectionError("closed")
            assert gw.counters.unauthenticated_refused == 1
            extra_writer.close()
            assert await _authenticate(terminal, reply.auth_code) == 0
            assert await _position_acked(terminal)
            for _, w in silent:
                w.close()
            await terminal.close()

    asyncio.run(main())


async def _register_on(terminal: TerminalClient) -> tuple[RegistrationResponse, TerminalClient]:
    await terminal.send(0x0100, _registration(terminal.phone[-7:]))
    reply = await terminal.receive()
    assert isinstance(reply.body, RegistrationResponse)
    return reply.body, terminal


def test_a_burst_of_logins_is_read_in_a_few_queries_and_every_terminal_gets_in(pg_url: str, kafka_bootstrap: str,
                                                                                free_port: Callable[[], int]) -> None:
    phones = unique_phones(400)
    insert_devices(pg_url, phones, auth_code="STORM")

    async def scenario() -> tuple[list[int], int, int]:
        port = free_port()
        async with running_gateway(pg_url, kafka_bootstrap, port) as server:
            lookups = server.ctx.directory.lookups  # type: ignore[attr-defined]
            clients = await asyncio.gather(*(TerminalClient.connect(port, phone) for phone in phones))
            try:
                # every terminal of a restarted gateway logs in at the same moment
                results = await asyncio.gather(*(_authenticate(client, "STORM") for client in clients))
                return list(results), lookups.batches, lookups.keys
            finally:
                await asyncio.gather(*(client.close() for client in clients))

    results, queries, keys = asyncio.run(scenario())
    assert results == [0] * len(phones)
    assert keys == len(phones)  # each phone asked for once
    assert queries < len(phones) / 10, queries  # 400 logins, not 400 queries
