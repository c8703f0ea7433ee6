"""0x0100 over real TCP: a stranger's registration must not tell whether a phone belongs to a terminal
the platform knows. A phone registered by other hardware is answered like a phone nobody has."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from protocols.jt808 import Registration, RegistrationResponse
from tests.integration.gateway.support import TerminalClient, insert_devices, running_gateway, unique_phones

pytestmark = pytest.mark.timeout(60)


async def _register(port: int, phone: str, terminal_id: str) -> RegistrationResponse:
    client = await TerminalClient.connect(port, phone)
    try:
        await client.send(0x0100, Registration(11, 100, "FLEET", "SIM-808", terminal_id, 2, ""))
        reply = await client.receive()
    finally:
        await client.close()
    assert isinstance(reply.body, RegistrationResponse)
    return reply.body


def test_a_stranger_cannot_tell_a_registered_phone_from_an_unknown_one(
        pg_url: str, kafka_bootstrap: str, free_port: Callable[[], int]) -> None:
    taken, unknown = unique_phones(2)
    insert_devices(pg_url, [taken], auth_code="C0DE")  # registered by its real terminal

    async def main() -> None:
        port = free_port()
        async with running_gateway(pg_url, kafka_bootstrap, port):
            for_taken = await _register(port, taken, "ATTACK1")
            for_unknown = await _register(port, unknown, "ATTACK1")
        assert (for_taken.result, for_taken.auth_code) == (for_unknown.result, for_unknown.auth_code) == (4, None)

    asyncio.run(main())
