"""Uplinks step "driver events": each 0x0702 driver identity report (IC card sign-in / sign-out) becomes one
``driver_event`` row (the driverAttendance log and the driver of each trip, pipelines/drivers.py).

The driver is the enterprise's live driver whose licence number equals the card's qualification number, or
whose ID card number equals the card's (2019); none when neither matches (the row keeps the card's fields).
A 2011 body has no time: the receipt time stands for it. Idempotent: (device, time, status) is the key, so a
replayed uplink adds nothing (the statement: warehouse/queries/driver_events.py).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from protocols.jt808.catalogue import DRIVER_IDENTITY
from streams.db import DATA_ERRORS, Database
from streams.messages import PayloadError, Uplink, parse_time
from warehouse.queries import driver_events

log = logging.getLogger(__name__)


def event_rows(uplinks: Sequence[Uplink | PayloadError]) -> list[tuple[Any, ...]]:
    """The driver_event rows of a batch's 0x0702 uplinks (others, and bodies without a status, are skipped)."""
    rows = []
    for u in uplinks:
        if isinstance(u, PayloadError) or u.msg_id != DRIVER_IDENTITY:
            continue
        body = u.body
        status = body.get("status")
        if not isinstance(status, int):
            continue
        try:
            at: datetime = parse_time(body["time"], "time") if body.get("time") else u.received_at
        except PayloadError:
            continue
        rows.append((u.device_id, at, status, u.car_id, u.enterprise_id, body.get("read_result"),
                     body.get("driver_name"), body.get("qualification_no") or "", body.get("issuing_authority"),
                     body.get("valid_until"), body.get("id_card") or ""))
    return rows


async def step(db: Database, uplinks: Sequence[Uplink | PayloadError]) -> int:
    """Store the batch's driver events; returns how many were offered. A data error is logged, never raised."""
    rows = event_rows(uplinks)
    if not rows:
        return 0
    try:
        await db.transact(lambda conn: driver_events.insert_async(conn, rows))
    except DATA_ERRORS as exc:
        log.warning("driver events not stored: %s", exc)
    return len(rows)
