"""Cached look-ups the console events need: enterprise path and plate number.

Entries live ``ttl_s`` (a renamed plate or moved enterprise shows up within that time). Look-ups go
through streams.db, so an outage waits rather than producing a push without its enterprise path.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import psycopg

from streams.db import Database
from warehouse.queries import organisation, vehicles


class Directory:
    def __init__(self, db: Database, *, ttl_s: float = 300.0, clock: Callable[[], float] = time.monotonic) -> None:
        self._db = db
        self._ttl_s = ttl_s
        self._clock = clock
        self._paths: dict[int, tuple[float, str]] = {}
        self._plates: dict[int, tuple[float, str | None]] = {}

    def _fresh(self, entry: tuple[float, Any] | None) -> bool:
        return entry is not None and self._clock() - entry[0] < self._ttl_s

    async def enterprise_path(self, enterprise_id: int) -> str:
        """Materialised path ('/1/3/'); '/<id>/' when the enterprise row is missing."""
        entry = self._paths.get(enterprise_id)
        if entry is not None and self._fresh(entry):
            return entry[1]

        async def work(conn: psycopg.AsyncConnection[Any]) -> str:
            return await organisation.enterprise_path_of_async(conn, enterprise_id) or f"/{enterprise_id}/"

        path = await self._db.transact(work)
        self._paths[enterprise_id] = (self._clock(), path)
        return path

    async def plate_number(self, car_id: int | None) -> str | None:
        if car_id is None:
            return None
        entry = self._plates.get(car_id)
        if entry is not None and self._fresh(entry):
            return entry[1]

        async def work(conn: psycopg.AsyncConnection[Any]) -> str | None:
            return await vehicles.plate_number_async(conn, car_id)

        plate = await self._db.transact(work)
        self._plates[car_id] = (self._clock(), plate)
        return plate
