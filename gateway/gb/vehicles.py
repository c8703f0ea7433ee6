"""VIN lookups of the GB gateway (statements in warehouse/queries/gb_vehicles.py, on the one async pool of
`warehouse.db.async_pool`). Raises psycopg errors when the database fails: the login is then answered
error (0x02) and the terminal logs in again."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from warehouse.db import async_pool
from warehouse.queries import gb_vehicles


@dataclass(frozen=True, slots=True)
class VehicleTerminal:
    """Whom a logged-in GB connection speaks for."""

    vin: str
    device_id: int
    phone: str  # device.phone: the key of its device.sessions.v1 records, as for a JT/T 808 terminal
    protocol: str  # device.protocol: gb32960, gb17691, hj1239 or db4403t363
    car_id: int
    enterprise_id: int


class VehicleDirectory(Protocol):
    async def find(self, vin: str, protocols: Sequence[str]) -> list[VehicleTerminal]:
        """Every live car with `vin` having a live device of `protocols` (more than one: ambiguous)."""
        ...


class PostgresVehicleDirectory:
    def __init__(self, url: str, *, pool_max: int = 4) -> None:
        self._pool = async_pool(url, min_size=1, max_size=pool_max, name="gb-gateway", autocommit=True)

    async def open(self) -> None:
        await self._pool.open(wait=False)

    async def close(self) -> None:
        await self._pool.close()

    async def find(self, vin: str, protocols: Sequence[str]) -> list[VehicleTerminal]:
        async with self._pool.connection() as conn:
            rows = await gb_vehicles.vehicle_terminals_async(conn, vin, protocols)
        return [VehicleTerminal(vin=vin, device_id=r["device_id"], phone=r["phone"], protocol=r["protocol"],
                                car_id=r["car_id"], enterprise_id=r["enterprise_id"]) for r in rows]
