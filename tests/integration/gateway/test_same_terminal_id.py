"""The lookup every successful registration makes (warehouse/queries/registration.py
devices_sharing_terminal_id_async): the other live devices of the enterprise known by the reported terminal
id, as serial or as registered id; answered from indexes, never by reading every device."""

from __future__ import annotations

import asyncio
import uuid

import psycopg

from tests.integration.gateway.support import insert_devices, unique_phones
from warehouse.queries import registration


def test_devices_sharing_a_terminal_id_are_found_by_serial_and_by_registered_id(pg_url: str) -> None:
    phones = unique_phones(4)
    ids = insert_devices(pg_url, phones)
    me, by_serial, by_registered, other = (ids[p] for p in phones)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        enterprise_id = conn.execute("SELECT enterprise_id FROM device WHERE id = %s", (me,)).fetchone()[0]  # type: ignore[index]
        conn.execute("UPDATE device SET registered_terminal_id = 'T-SHARED' WHERE id = %s", (me,))
        conn.execute("UPDATE device SET device_sn = 'T-SHARED' WHERE id = %s", (by_serial,))
        conn.execute("UPDATE device SET registered_terminal_id = 'T-SHARED' WHERE id = %s", (by_registered,))
        conn.execute("UPDATE device SET registered_terminal_id = 'T-OTHER' WHERE id = %s", (other,))

    async def lookup() -> list[tuple[int, str]]:
        async with await psycopg.AsyncConnection.connect(pg_url, autocommit=True) as conn:
            return await registration.devices_sharing_terminal_id_async(conn, me, enterprise_id, "T-SHARED")

    found = asyncio.run(lookup())
    assert [device_id for device_id, _ in found] == sorted([by_serial, by_registered])

    # The plan where it matters: an enterprise of thousands of terminals (read through the enterprise's index, a
    # registration would read them all), among however many small ones the modules that ran before this one on
    # its worker left in the session's database.
    prefix = f"16{uuid.uuid4().int % 10**5:05d}"
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO device (enterprise_id, phone, device_sn) SELECT d.enterprise_id, %s || lpad(g::text, 4, '0'),"
            " 'FILL' || %s || g FROM device d, generate_series(1, 3000) AS g WHERE d.id = %s", (prefix, prefix, me))
        conn.execute("ANALYZE device")
    with psycopg.connect(pg_url) as conn:
        plan = "\n".join(row[0] for row in conn.execute(
            "EXPLAIN " + registration._SAME_TERMINAL_ID,
            {"id": me, "enterprise_id": enterprise_id, "terminal_id": "T-SHARED"}).fetchall())
    assert "Seq Scan" not in plan, plan
    assert "device_sn_live_idx" in plan or "device_registered_terminal_id_idx" in plan, plan  # migration 0044
    assert "device_enterprise_idx" not in plan, plan
