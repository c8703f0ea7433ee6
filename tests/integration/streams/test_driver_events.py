"""0x0702 driver identity reports become driver_event rows with the driver found by the card."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime

from protocols.jt808.codec import decode_body
from protocols.jt808.jsonify import to_json_value
from streams import driver_events, payloads
from streams.db import Database
from streams.messages import parse_uplink
from warehouse.db import connect

from .support import insert_terminals, query

SIGN_IN = "0118081609161600056B6F696B6571776531323334353661616100000000000000000671776572747820180816"
SIGN_OUT = "02180816101616"


def _uplink(term: payloads.Terminal, body_hex: str) -> object:
    body = to_json_value(decode_body(0x0702, bytes.fromhex(body_hex), "2013"))
    return parse_uplink(json.dumps(payloads.uplink(term, 0x0702, body, received_at=datetime(2026, 5, 1, tzinfo=UTC))))


def test_sign_in_and_out_are_stored_once_with_the_driver_of_the_card(pg_url: str) -> None:
    term, = insert_terminals(pg_url, 1, enterprise_name="driver-events")
    with connect(pg_url) as conn:
        driver_id = conn.execute("INSERT INTO driver (enterprise_id, name, license_no) VALUES (%s, 'koike',"
                                 " 'qwe123456aaa') RETURNING id", (term.enterprise_id,)).fetchone()[0]  # type: ignore[index]
        conn.commit()
    batch = [_uplink(term, SIGN_IN), _uplink(term, SIGN_OUT)]

    async def run() -> None:
        db = Database(pg_url, name="test")
        assert await driver_events.step(db, batch) == 2  # type: ignore[arg-type]
        await driver_events.step(db, batch)  # a replay adds nothing  # type: ignore[arg-type]
        await db.close()

    asyncio.run(run())
    rows = query(pg_url, "SELECT status, driver_id, driver_name, valid_until::text, at FROM driver_event"
                         " WHERE device_id = %s ORDER BY at", (term.device_id,))
    assert [(r[0], r[1], r[2], r[3]) for r in rows] == [(1, driver_id, "koike", "2018-08-16"), (2, None, None, None)]
    assert rows[0][4] == datetime(2018, 8, 16, 1, 16, 16, tzinfo=UTC)  # 09:16:16 GMT+8
