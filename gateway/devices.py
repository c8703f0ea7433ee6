"""Device lookups and registration for the gateway (table `device`, parameterised SQL only).

The gateway reads `device` and writes only the auth code and the registration fields; device state and
online times belong to the streams worker (from `device.sessions.v1`).

Registration policy (JT/T 808 0x8100 results):
- known phone, no auth code yet: store the reported fields, issue a new code, result 0;
- known phone with a code, same terminal id (or none stored; a 2013 terminal's 7-byte id may be the tail
  of the stored serial): the same code again, result 0 (a terminal that lost its code can recover it);
- known phone with a code but a different terminal id: result 3 "terminal already registered"; an
  operator clears `device.auth_code` to let the new hardware register;
- unknown phone: result 4 "no such terminal", unless auto-registration puts it in the unassigned pool.
Results 1/2 (vehicle) are not used: the plate in 0x0100 is informational, vehicles are bound by operators.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass
from typing import Protocol

from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool

from gateway.replies import REG_NO_TERMINAL, REG_OK, REG_TERMINAL_TAKEN

log = logging.getLogger("gateway.devices")

DISABLED_STATE = 5  # fleet.enums.DeviceState.DISABLED


@dataclass(frozen=True)
class DeviceRecord:
    id: int
    phone: str
    enterprise_id: int
    car_id: int | None
    auth_code: str | None
    device_sn: str
    state: int


@dataclass(frozen=True)
class RegistrationInfo:
    """What a terminal reports in 0x0100 (strings already stripped of padding)."""

    terminal_id: str
    manufacturer_id: str
    terminal_model: str
    protocol_version: str  # 2011, 2013 or 2019


@dataclass(frozen=True)
class RegistrationOutcome:
    result: int
    auth_code: str | None = None
    device_id: int | None = None


class DeviceDirectory(Protocol):
    async def find(self, phone: str) -> DeviceRecord | None: ...

    async def register(self, phone: str, info: RegistrationInfo) -> RegistrationOutcome: ...


def phone_candidates(header_phone: str) -> list[str]:
    """The header phone and, for a zero-padded 20-digit 2019 phone, its 12-digit form (the way
    `device.phone` stores 2013 numbers), exact match first."""
    candidates = [header_phone]
    if len(header_phone) == 20 and header_phone.startswith("00000000"):
        candidates.append(header_phone[8:])
    return candidates


def new_auth_code() -> str:
    return secrets.token_hex(8).upper()


def decide_registration(device: DeviceRecord | None, info: RegistrationInfo) -> int:
    """The 0x8100 result for a registration, before anything is written."""
    if device is None:
        return REG_NO_TERMINAL
    if device.state == DISABLED_STATE:
        return REG_NO_TERMINAL
    if device.auth_code and not same_terminal(device.device_sn, info.terminal_id):
        return REG_TERMINAL_TAKEN
    return REG_OK


def same_terminal(stored_sn: str, reported_id: str) -> bool:
    """Whether a reported terminal id is the stored one. A 2013 terminal id has only 7 bytes, so an
    id that is the tail of the stored serial number (SIM0000001 / 0000001) counts as the same."""
    return not stored_sn or not reported_id or stored_sn.endswith(reported_id)


def device_sn_to_store(stored_sn: str, reported_id: str) -> str:
    """Keep the longer stored serial when the terminal reports its tail; else take the report."""
    if stored_sn and reported_id and stored_sn.endswith(reported_id):
        return stored_sn
    return reported_id or stored_sn


def authentication_accepted(device: DeviceRecord | None, auth_code: str) -> bool:
    return (
        device is not None
        and device.state != DISABLED_STATE
        and bool(device.auth_code)
        and secrets.compare_digest(device.auth_code or "", auth_code)
    )


_SELECT = (
    "SELECT id, phone, enterprise_id, car_id, auth_code, device_sn, state FROM device "
    "WHERE phone = ANY(%s) ORDER BY length(phone) DESC LIMIT 1"
)
_STORE = (
    "UPDATE device SET auth_code = COALESCE(auth_code, %(code)s), device_sn = %(sn)s, "
    "manufacturer_id = %(maker)s, terminal_model = %(model)s, protocol_version = %(version)s "
    "WHERE id = %(id)s RETURNING auth_code"
)
_ROOT_ENTERPRISE = "SELECT id FROM enterprise WHERE parent_id IS NULL ORDER BY id LIMIT 1"
_INSERT_UNASSIGNED = (
    "INSERT INTO device (enterprise_id, phone, device_sn, manufacturer_id, terminal_model, "
    "protocol_version, auth_code, unassigned) "
    "VALUES (%(enterprise)s, %(phone)s, %(sn)s, %(maker)s, %(model)s, %(version)s, %(code)s, true) "
    "ON CONFLICT (phone) DO NOTHING RETURNING id"
)


class PostgresDeviceDirectory:
    """`DeviceDirectory` over an async psycopg pool. Raises psycopg errors when the database fails;
    the connection then answers nothing and the terminal retries."""

    def __init__(self, url: str, *, pool_max: int = 4, auto_register: bool = False,
                 unassigned_enterprise_id: int = 0) -> None:
        self._pool = AsyncConnectionPool(url, min_size=pool_max, max_size=pool_max, open=False,
                                         kwargs={"autocommit": True})
        self._auto_register = auto_register
        self._unassigned_enterprise_id = unassigned_enterprise_id

    async def open(self) -> None:
        await self._pool.open(wait=False)

    async def close(self) -> None:
        await self._pool.close()

    async def find(self, phone: str) -> DeviceRecord | None:
        async with self._pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            await cur.execute(_SELECT, (phone_candidates(phone),))
            row = await cur.fetchone()
        return DeviceRecord(**row) if row else None

    async def register(self, phone: str, info: RegistrationInfo) -> RegistrationOutcome:
        device = await self.find(phone)
        if device is None and self._auto_register:
            return await self._register_unassigned(phone, info)
        result = decide_registration(device, info)
        if result != REG_OK or device is None:
            return RegistrationOutcome(result)
        params = {"code": new_auth_code(), "sn": device_sn_to_store(device.device_sn, info.terminal_id),
                  "maker": info.manufacturer_id, "model": info.terminal_model,
                  "version": info.protocol_version, "id": device.id}
        async with self._pool.connection() as conn:
            cur = await conn.execute(_STORE, params)
            row = await cur.fetchone()
        if row is None:  # deleted meanwhile
            return RegistrationOutcome(REG_NO_TERMINAL)
        return RegistrationOutcome(REG_OK, row[0], device.id)

    async def _register_unassigned(self, phone: str, info: RegistrationInfo) -> RegistrationOutcome:
        async with self._pool.connection() as conn:
            enterprise_id = self._unassigned_enterprise_id
            if not enterprise_id:
                row = await (await conn.execute(_ROOT_ENTERPRISE)).fetchone()
                if row is None:
                    log.warning("auto-registration of %s impossible: no enterprise", phone)
                    return RegistrationOutcome(REG_NO_TERMINAL)
                enterprise_id = row[0]
            params = {"enterprise": enterprise_id, "phone": phone, "sn": info.terminal_id or phone,
                      "maker": info.manufacturer_id, "model": info.terminal_model,
                      "version": info.protocol_version, "code": new_auth_code()}
            inserted = await (await conn.execute(_INSERT_UNASSIGNED, params)).fetchone()
        if inserted is None:  # registered concurrently by another connection
            return await self.register(phone, info)
        log.info("terminal %s auto-registered into the unassigned pool of enterprise %s", phone, enterprise_id)
        return RegistrationOutcome(REG_OK, str(params["code"]), inserted[0])
