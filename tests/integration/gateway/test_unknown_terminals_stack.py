"""Refused 0x0100 / 0x0102 of phones no device has, over real TCP and PostgreSQL: kept per phone in
refused_registration with why (gateway/unknown_terminals.py), bounded however many random phones come."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import psycopg
import pytest

from fleet.phones import canonical_phone
from protocols.jt808 import Authentication, PlatformResponse, Registration, RegistrationResponse
from tests.integration.gateway.support import TerminalClient, running_gateway, unique_phones

pytestmark = pytest.mark.timeout(90)


def refused_row(pg_url: str, phone: str) -> dict[str, Any] | None:
    with psycopg.connect(pg_url) as conn, conn.cursor(row_factory=psycopg.rows.dict_row) as cur:
        cur.execute("SELECT * FROM refused_registration WHERE phone = %s", (phone,))
        return cur.fetchone()


async def wait_for_row(pg_url: str, phone: str, attempts: int) -> dict[str, Any]:
    for _ in range(100):
        row = await asyncio.to_thread(refused_row, pg_url, phone)
        if row is not None and row["attempts"] >= attempts:
            return row
        await asyncio.sleep(0.1)
    raise AssertionError(f"no refused_registration row of {phone} with {attempts} attempts: {row}")


def _kept(pg_url: str, phones: list[str]) -> int:
    with psycopg.connect(pg_url) as conn:
        row = conn.execute("SELECT count(*) FROM refused_registration WHERE phone = ANY(%s)", (phones,)).fetchone()
    return 0 if row is None else int(row[0])


async def wait_for_any_row(pg_url: str, phones: list[str]) -> None:
    for _ in range(100):
        if await asyncio.to_thread(_kept, pg_url, phones) > 0:
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"no refused_registration row of any of {len(phones)} phones")


def test_refused_registration_of_an_unknown_phone_is_recorded_with_its_reason_and_source(
        pg_url: str, kafka_bootstrap: str, free_port: Callable[[], int]) -> None:
    [phone] = unique_phones(1)

    async def main() -> dict[str, Any]:
        port = free_port()
        async with running_gateway(pg_url, kafka_bootstrap, port, unknown_refusals_flush_s=0.2):
            client = await TerminalClient.connect(port, phone)
            try:
                await client.send(0x0100, Registration(44, 300, "MAKER", "MODEL-X", "TID0001", 1, "粤B12345"))
                registered = await client.receive()
                assert isinstance(registered.body, RegistrationResponse) and registered.body.result == 4
                await client.send(0x0102, Authentication("NO-SUCH-CODE"))
                authenticated = await client.receive()
                assert isinstance(authenticated.body, PlatformResponse) and authenticated.body.result == 1
                await client.send(0x0100, Registration(44, 300, "MAKER", "MODEL-X", "TID0001", 1, "粤B12345"))
                assert (await client.receive()).body.result == 4
            finally:
                await client.close()
            return await wait_for_row(pg_url, canonical_phone(phone), 3)

    row = asyncio.run(main())
    assert row["reason"] == "unknown_phone" and row["attempts"] == 3
    assert (row["msg_id"], row["result"]) == (0x0100, 4)
    assert (row["terminal_id"], row["manufacturer_id"], row["terminal_model"]) == ("TID0001", "MAKER", "MODEL-X")
    assert (row["plate_number"], row["plate_color"], row["protocol_version"]) == ("粤B12345", 1, "2013")
    assert row["peer"].startswith("127.0.0.1:") and row["first_seen"] <= row["last_seen"]


def test_a_flood_of_random_phones_keeps_the_record_bounded_and_every_frame_answered(
        pg_url: str, kafka_bootstrap: str, free_port: Callable[[], int]) -> None:
    phones = unique_phones(60)
    cap = 20

    async def main() -> list[int]:
        port = free_port()
        async with running_gateway(pg_url, kafka_bootstrap, port, unknown_refusals_flush_s=0.2,
                                   unknown_refusals_max_rows=cap, unknown_refusals_buffer_max=30) as server:
            results = []
            for phone in phones:  # one attacker socket per phone, as a scan of random phones would
                client = await TerminalClient.connect(port, phone)
                try:
                    await client.send(0x0100, Registration(0, 0, "X", "Y", "Z", 0, ""))
                    reply = await client.receive()
                    assert isinstance(reply.body, RegistrationResponse)
                    results.append(reply.body.result)
                finally:
                    await client.close()
            # which phones are kept depends on how fast they came (a full buffer drops the newest): wait
            # for the first write, whichever phones it holds
            await wait_for_any_row(pg_url, [canonical_phone(p) for p in phones])
            assert server.counters.unknown_refusals + server.counters.unknown_refusals_dropped == len(phones)
        return results

    assert asyncio.run(main()) == [4] * len(phones)  # the record never held a frame back
    with psycopg.connect(pg_url) as conn:
        kept = conn.execute("SELECT count(*) FROM refused_registration").fetchone()
    assert kept is not None and kept[0] <= cap
