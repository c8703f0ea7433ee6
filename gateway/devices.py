"""Device lookups and registration for the gateway (table `device`; the statements are in
warehouse/queries/registration.py).

The gateway reads `device` and writes only the auth code and the registration fields; device state and
online times belong to the streams worker (from `device.sessions.v1`).

Registration policy (JT/T 808 0x8100 results); the reasoning is in gateway/README.md:
- known phone, no auth code yet (first registration, or after a de-registration / administrator
  reset): record the reported terminal id, manufacturer and model, issue a new code, result 0;
- known phone with a code: only the terminal recorded at first registration may re-register: the
  exact terminal id (non-empty; no tail or suffix match) and the same manufacturer and model. It gets
  a NEW code that replaces the old one (never the existing code: a code is never echoed), so a
  second party that re-registers makes the other's code fail at its next authentication;
- anything else with a code, including codes issued before identities were recorded: result 3
  "terminal already registered";
- a device of another protocol (gb32960, gb17691, hj1239, db4403t363: the GB gateway's): result 4;
- unknown phone: result 4 "no such terminal", unless auto-registration puts it in the unassigned pool;
  a disabled device (state 5): result 4;
- a terminal id recorded in advance by an administrator (`expected_terminal_id`): any other reported id
  gets result 3 and a security notice (`identity_mismatch`), first registration or not;
- the enterprise's policy `approve_reregistration`: a matching re-registration of a device online, or
  online within `approval_window_min`, waits for an administrator (gateway/approvals.py): result 3 and
  a notice with approve / refuse (`reregistration_pending`); once approved, the next matching one passes.
Authentication (0x0102) also checks the IMEI (`imei_refusal`): the one recorded in advance, or with the
enterprise's policy `require_imei` the first one a 2019 terminal sent.
Results 1/2 (vehicle) are not used: the plate in 0x0100 is informational, vehicles are bound by operators.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass
from typing import Any, Protocol

from fleet.phones import canonical_phone
from gateway import approvals
from gateway.lookup_batch import LookupBatcher
from gateway.replies import REG_NO_TERMINAL, REG_OK, REG_TERMINAL_TAKEN
from warehouse.db import async_pool
from warehouse.queries import refused_terminals
from warehouse.queries import registration as registry

log = logging.getLogger("gateway.devices")

DISABLED_STATE = 5  # fleet.enums.DeviceState.DISABLED
# Only jt808 devices register here: a device of a GB protocol (fleet.gb32960_records.GB_PROTOCOLS) speaks to
# the GB gateway by its VIN, and its phone must not let a JT/T 808 terminal stand in for it (result 4).
JT808_PROTOCOL = "jt808"


@dataclass(frozen=True)
class DeviceRecord:
    id: int
    phone: str
    enterprise_id: int
    car_id: int | None
    auth_code: str | None
    device_sn: str
    state: int
    # what the terminal reported at the registration that issued the current code (None: no code,
    # or a code issued before identities were recorded)
    registered_terminal_id: str | None = None
    registered_manufacturer_id: str | None = None
    registered_terminal_model: str | None = None
    expected_terminal_id: str | None = None  # recorded by an administrator before the first registration
    expected_imei: str | None = None
    registered_imei: str | None = None  # the first IMEI a 0x0102 carried (policy require_imei)
    # the registration policy of the enterprise or its nearest ancestor with one (none: both off)
    require_imei: bool = False
    approve_reregistration: bool = False
    approval_window_min: int = 0
    recently_online: bool = False  # online, or offline for less than approval_window_min
    protocol: str = "jt808"  # device.protocol: a GB terminal's phone (gb32960, ...) is refused here


@dataclass(frozen=True)
class RegistrationInfo:
    """What a terminal reports in 0x0100 (strings already stripped of padding)."""

    terminal_id: str
    manufacturer_id: str
    terminal_model: str
    protocol_version: str  # 2011, 2013 or 2019
    peer: str | None = None  # the registering connection's address (for an approval request)
    live_here: bool = False  # a connection of this gateway holds the terminal now


@dataclass(frozen=True)
class RegistrationOutcome:
    result: int
    auth_code: str | None = None
    device_id: int | None = None
    replaced_code: bool = False  # a re-registration replaced an existing code (worth a security notice)
    device: DeviceRecord | None = None  # the device as found before the registration
    notice: str | None = None  # a security notice the refusal is worth (identity_mismatch, reregistration_pending)
    request_id: int | None = None  # the approval request a reregistration_pending notice is about
    approved: bool = False  # an administrator's approval let this re-registration through
    # (device id, phone) of other devices of the enterprise with the terminal id just reported: logged
    shares_terminal_id: tuple[tuple[int, str], ...] = ()


class DeviceDirectory(Protocol):
    async def find(self, phone: str) -> DeviceRecord | None: ...

    async def register(self, phone: str, info: RegistrationInfo) -> RegistrationOutcome: ...

    async def deregister(self, device_id: int, auth_code: str) -> bool:
        """Clear the code and recorded identity if `auth_code` is still the device's code."""
        ...

    async def record_imei(self, device_id: int, imei: str) -> None:
        """Remember the first IMEI a device authenticated with (kept if one is recorded already)."""
        ...


def new_auth_code() -> str:
    return secrets.token_hex(8).upper()


def decide_registration(device: DeviceRecord | None, info: RegistrationInfo) -> int:
    """The 0x8100 result for a registration, before anything is written."""
    if device is None:
        return REG_NO_TERMINAL
    if device.state == DISABLED_STATE or device.protocol != JT808_PROTOCOL:
        return REG_NO_TERMINAL
    if not matches_expected_terminal(device, info):
        return REG_TERMINAL_TAKEN
    if device.auth_code and not is_recorded_terminal(device, info):
        return REG_TERMINAL_TAKEN
    return REG_OK


def matches_expected_terminal(device: DeviceRecord, info: RegistrationInfo) -> bool:
    """An administrator may record the terminal id before the first registration: then only exactly
    that id (as the terminal reports it: 7 characters in 2011/2013, up to 30 in 2019) may register."""
    return not device.expected_terminal_id or info.terminal_id == device.expected_terminal_id


def needs_approval(device: DeviceRecord, info: RegistrationInfo) -> bool:
    """Policy approve_reregistration: a re-registration (the device has a code) of a device online, or
    online recently, waits for an administrator instead of replacing the code of the real terminal."""
    return bool(device.auth_code) and device.approve_reregistration and (device.recently_online or info.live_here)


def imei_refusal(device: DeviceRecord, imei: str | None) -> str | None:
    """Why a 0x0102 with the right code is refused for its IMEI, or None. The IMEI recorded by an
    administrator must match; with the enterprise's policy require_imei, so must the first one
    recorded from the terminal. A 0x0102 without an IMEI (2011/2013) cannot prove it: refused too."""
    expected = device.expected_imei or (device.registered_imei if device.require_imei else None)
    if expected:
        return None if imei == expected else "imei_mismatch"
    if device.require_imei and not imei:
        return "imei_mismatch"
    return None


def is_recorded_terminal(device: DeviceRecord, info: RegistrationInfo) -> bool:
    """Whether a registration reports exactly the terminal recorded when the current code was issued.
    No tail match and no empty id: a 2013 terminal reports the same 7 bytes every time, and that is
    what was recorded (not the longer serial an operator may have entered)."""
    recorded_id = device.registered_terminal_id
    return (bool(recorded_id) and info.terminal_id == recorded_id
            and info.manufacturer_id == (device.registered_manufacturer_id or "")
            and info.terminal_model == (device.registered_terminal_model or ""))


def authentication_accepted(device: DeviceRecord | None, auth_code: str) -> bool:
    return (
        device is not None
        and device.state != DISABLED_STATE
        and device.protocol == JT808_PROTOCOL
        and bool(device.auth_code)
        and secrets.compare_digest(device.auth_code or "", auth_code)
    )


class PostgresDeviceDirectory:
    """`DeviceDirectory` over the gateway's one async pool (statements: warehouse/queries/registration.py).
    Raises psycopg errors when the database fails; the connection's step then answers the frame 0x8001
    result 1 and the terminal retries."""

    def __init__(self, url: str, *, pool_max: int = 4, auto_register: bool = False,
                 unassigned_enterprise_id: int = 0, lookup_linger_s: float = 0.0) -> None:
        self._pool = async_pool(url, min_size=pool_max, max_size=pool_max, name="gateway", autocommit=True)
        # logins read their device through one batcher: a burst of them becomes a few queries of many phones
        self.lookups: LookupBatcher[str, dict[str, Any]] = LookupBatcher(self._load_devices, concurrency=pool_max,
                                                                         linger_s=lookup_linger_s)
        self._auto_register = auto_register
        self._unassigned_enterprise_id = unassigned_enterprise_id

    async def open(self) -> None:
        await self._pool.open(wait=False)

    async def close(self) -> None:
        await self._pool.close()

    async def find(self, phone: str) -> DeviceRecord | None:
        """The active device of a terminal; `phone` in any form (2013 / 2019 header, SIM number):
        `device.phone` holds the canonical one (migration 0016, normalised on every write)."""
        try:
            phone = canonical_phone(phone)
        except ValueError:
            return None
        row = await self.lookups.lookup(phone)
        return DeviceRecord(**row) if row else None

    async def _load_devices(self, phones: list[str]) -> dict[str, dict[str, Any]]:
        async with self._pool.connection() as conn:
            return await registry.terminal_devices_async(conn, phones)

    async def register(self, phone: str, info: RegistrationInfo) -> RegistrationOutcome:
        device = await self.find(phone)
        if device is None and self._auto_register:
            return await self._register_unassigned(phone, info)
        result = decide_registration(device, info)
        if result != REG_OK or device is None:
            mismatch = device is not None and not matches_expected_terminal(device, info)
            return RegistrationOutcome(result, device=device, notice="identity_mismatch" if mismatch else None)
        approved = False
        if needs_approval(device, info):
            async with self._pool.connection() as conn:
                decision = await approvals.decide(conn, device, info)
            if decision.request_id is not None or not decision.approved:
                return RegistrationOutcome(REG_TERMINAL_TAKEN, device=device, request_id=decision.request_id,
                                           notice="reregistration_pending" if decision.request_id else None)
            approved = True
        shared: list[tuple[int, str]] = []
        async with self._pool.connection() as conn:
            code = await registry.store_code_async(
                conn, device.id, code=new_auth_code(), old_code=device.auth_code, terminal_id=info.terminal_id,
                manufacturer_id=info.manufacturer_id, terminal_model=info.terminal_model,
                protocol_version=info.protocol_version)
            if code is not None and info.terminal_id:
                shared = await registry.devices_sharing_terminal_id_async(conn, device.id, device.enterprise_id,
                                                                          info.terminal_id)
        if code is None:  # deleted, disabled or registered by someone else meanwhile
            return RegistrationOutcome(REG_TERMINAL_TAKEN, device=device)
        return RegistrationOutcome(REG_OK, code, device.id, replaced_code=bool(device.auth_code), device=device,
                                   approved=approved, shares_terminal_id=tuple(shared))

    async def record_imei(self, device_id: int, imei: str) -> None:
        async with self._pool.connection() as conn:
            await registry.record_imei_async(conn, device_id, imei)

    async def record_refusals(self, attempts: list[refused_terminals.Attempt], max_rows: int) -> None:
        """Upsert refused attempts of unknown phones into refused_registration (gateway/unknown_terminals.py)."""
        async with self._pool.connection() as conn:
            await refused_terminals.record_refusals(conn, attempts, max_rows)

    async def deregister(self, device_id: int, auth_code: str) -> bool:
        async with self._pool.connection() as conn:
            return await registry.deregister_async(conn, device_id, auth_code)

    async def _register_unassigned(self, phone: str, info: RegistrationInfo) -> RegistrationOutcome:
        async with self._pool.connection() as conn:
            enterprise_id = self._unassigned_enterprise_id
            if not enterprise_id:
                root = await registry.root_enterprise_async(conn)
                if root is None:
                    log.warning("auto-registration of %s impossible: no enterprise", phone)
                    return RegistrationOutcome(REG_NO_TERMINAL)
                enterprise_id = root
            code = new_auth_code()
            inserted = await registry.insert_unassigned_async(
                conn, enterprise_id=enterprise_id, phone=canonical_phone(phone), device_sn=info.terminal_id or phone,
                code=code, terminal_id=info.terminal_id, manufacturer_id=info.manufacturer_id,
                terminal_model=info.terminal_model, protocol_version=info.protocol_version)
        if inserted is None:  # registered concurrently by another connection
            return await self.register(phone, info)
        log.info("terminal %s auto-registered into the unassigned pool of enterprise %s", phone, enterprise_id)
        return RegistrationOutcome(REG_OK, code, inserted)
