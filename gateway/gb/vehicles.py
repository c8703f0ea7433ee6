"""VIN lookups of the GB gateway (statements in warehouse/queries/gb_vehicles.py, on the one async pool of
`warehouse.db.async_pool`). Raises psycopg errors when the database fails: the login is then answered
error (0x02) and the terminal logs in again."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from gateway.lookup_batch import LookupBatcher
from protocols.gb32960.cipher import AesKey
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


@dataclass(frozen=True, slots=True)
class InferiorPlatform:
    """A GB/T 32960 inferior platform logged in on a connection (migration 0061)."""

    id: int
    enterprise_id: int
    name: str
    enabled: bool = True
    key: AesKey | None = None  # the AES-128 key its data units may be encrypted with (migration 0068)


class VehicleDirectory(Protocol):
    async def find(self, vin: str, protocols: Sequence[str], owner: int | None = None) -> list[VehicleTerminal]:
        """Every live car with `vin` having a live device of `protocols` (more than one: ambiguous); with `owner`,
        among the cars of that enterprise's tree only."""
        ...

    async def inferior_platform(self, username: str) -> tuple[InferiorPlatform, str] | None:
        """The gb32960 inferior platform of `username` (enabled or not) and its password."""
        ...


class InferiorLinkStore(Protocol):
    """Where the gateway writes its inferior platforms' link state and frame log (gateway/gb/inferior_links.py)."""

    async def save_inferior_links(self, states: Sequence[dict[str, Any]], messages: Sequence[dict[str, Any]],
                                  unknown: Sequence[dict[str, Any]] = ()) -> None: ...

    async def gateway_links_offline(self, gateway_id: str) -> None: ...


class PostgresVehicleDirectory:
    def __init__(self, url: str, *, pool_max: int = 4, lookup_linger_s: float = 0.0) -> None:
        self._pool = async_pool(url, min_size=1, max_size=pool_max, name="gb-gateway", autocommit=True)
        # a vehicle's own login reads its VIN through one batcher, as the JT/T 808 gateway reads phones: a burst
        # of logins (a reconnect storm) becomes a few queries of many VINs (key: the VIN and the port's protocols)
        self.lookups: LookupBatcher[tuple[str, tuple[str, ...]], list[dict[str, Any]]] = LookupBatcher(
            self._load_vehicles, concurrency=pool_max, linger_s=lookup_linger_s)

    async def open(self) -> None:
        await self._pool.open(wait=False)

    async def close(self) -> None:
        await self._pool.close()

    async def find(self, vin: str, protocols: Sequence[str], owner: int | None = None) -> list[VehicleTerminal]:
        if owner is None:
            rows = await self.lookups.lookup((vin, tuple(protocols))) or []
        else:  # relayed by an inferior platform: one connection's frames, in order
            async with self._pool.connection() as conn:
                rows = await gb_vehicles.tree_vehicle_terminals_async(conn, vin, protocols, owner)
        return [VehicleTerminal(vin=vin, device_id=r["device_id"], phone=r["phone"], protocol=r["protocol"],
                                car_id=r["car_id"], enterprise_id=r["enterprise_id"]) for r in rows]

    async def _load_vehicles(self, keys: list[tuple[str, tuple[str, ...]]]
                             ) -> dict[tuple[str, tuple[str, ...]], list[dict[str, Any]]]:
        """The rows of many (VIN, protocols) keys: one query per set of protocols (one per port, usually)."""
        by_protocols: dict[tuple[str, ...], list[str]] = {}
        for vin, protocols in keys:
            by_protocols.setdefault(protocols, []).append(vin)
        found: dict[tuple[str, tuple[str, ...]], list[dict[str, Any]]] = {}
        async with self._pool.connection() as conn:
            for protocols, vins in by_protocols.items():
                rows = await gb_vehicles.many_vehicle_terminals_async(conn, vins, protocols)
                found.update({(vin, protocols): vin_rows for vin, vin_rows in rows.items()})
        return found

    async def inferior_platform(self, username: str) -> tuple[InferiorPlatform, str] | None:
        async with self._pool.connection() as conn:
            row = await gb_vehicles.inferior_platform_async(conn, username)
        if row is None:
            return None
        key = AesKey.from_hex(row["aes_key"], row["aes_iv"]) if row["aes_key"] and row["aes_iv"] else None
        return (InferiorPlatform(row["id"], row["enterprise_id"], row["name"], bool(row["enabled"]), key),
                str(row["password"]))

    async def save_inferior_links(self, states: Sequence[dict[str, Any]], messages: Sequence[dict[str, Any]],
                                  unknown: Sequence[dict[str, Any]] = ()) -> None:
        async with self._pool.connection() as conn:
            await gb_vehicles.save_inferior_links_async(conn, states, messages, unknown)

    async def gateway_links_offline(self, gateway_id: str) -> None:
        async with self._pool.connection() as conn:
            await gb_vehicles.gateway_links_offline_async(conn, gateway_id)
