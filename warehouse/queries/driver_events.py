"""The driver identity reports' rows (``driver_event``, 0x0702, migration 0030), written by the streams'
driver events step (streams/driver_events.py builds the rows).

The driver is the enterprise's live driver whose licence number equals the card's qualification number, or
whose ID card number equals the card's (2019); none when neither matches (the row keeps the card's fields).
Idempotent: (device, time, status) is the key, so a replayed uplink adds nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg

from warehouse.queries.arrays import IntArray, TextArray, TimeArray

INSERT = """
INSERT INTO driver_event (device_id, at, status, car_id, enterprise_id, driver_id, ic_result, driver_name,
    qualification_no, issuing_authority, valid_until, id_card)
SELECT t.device_id, t.at, t.status, t.car_id, t.enterprise_id,
       (SELECT d.id FROM driver d WHERE d.enterprise_id = t.enterprise_id AND d.record_state = 1
           AND ((t.qualification_no <> '' AND d.license_no = t.qualification_no)
                OR (t.id_card <> '' AND d.id_card = t.id_card)) ORDER BY d.id LIMIT 1),
       t.ic_result, t.driver_name, t.qualification_no, t.issuing_authority, t.valid_until, t.id_card
  FROM unnest(%s::bigint[], %s::timestamptz[], %s::smallint[], %s::bigint[], %s::bigint[], %s::smallint[], %s::text[],
              %s::text[], %s::text[], %s::date[], %s::text[])
    AS t(device_id, at, status, car_id, enterprise_id, ic_result, driver_name, qualification_no, issuing_authority,
         valid_until, id_card)
ON CONFLICT (device_id, at, status) DO NOTHING"""


async def insert_async(conn: psycopg.AsyncConnection[Any], rows: Sequence[tuple[Any, ...]]) -> None:
    """The rows, each (device_id, at, status, car_id, enterprise_id, ic_result, driver_name, qualification_no,
    issuing_authority, valid_until (a date or None), id_card), in one statement. Raises psycopg.DataError /
    IntegrityError for a value the table refuses (the whole batch is then not written)."""
    if not rows:
        return
    columns = list(zip(*rows, strict=True))
    params = [IntArray(columns[0]), TimeArray(columns[1]), IntArray(columns[2]), IntArray(columns[3]),
              IntArray(columns[4]), IntArray(columns[5]), TextArray(columns[6]), TextArray(columns[7]),
              TextArray(columns[8]), TextArray([None if v is None else str(v) for v in columns[9]]),
              TextArray(columns[10])]
    await conn.execute(INSERT, params)
