"""Administrator approval of a re-registration (the enterprise's policy `approve_reregistration`,
table `registration_request`, migration 0033).

Why: the terminal id, maker and model a re-registration must repeat are printed on the unit and sent
in clear, so under this policy they are not enough to replace the code of a terminal that is online or
was online recently. Rules (one open request per device, enforced by a unique index):
- a request not decided, or an approval not used, within max(`approval_window_min`, 10) minutes
  expires (an old approval must not let a copy in later);
- an approved request for exactly this terminal id, maker and model is used once: the registration
  passes (and the gateway closes the old session);
- a request refused less than `approval_window_min` ago keeps the terminal out, without a new notice;
- a pending request: refused again, without a new notice;
- otherwise a new pending request is recorded and the registration refused with a notice carrying its
  id, which the console shows with approve / refuse (api/routes/registration.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fleet.phones import canonical_phone

if TYPE_CHECKING:
    from psycopg import AsyncConnection

    from gateway.devices import DeviceRecord, RegistrationInfo


@dataclass(frozen=True)
class ApprovalDecision:
    approved: bool  # an approval was used: the registration may pass
    request_id: int | None = None  # a new pending request (worth a notice)


# A request not decided, or an approval not used, in time expires: an old approval must not let a
# copy in days later, and an old pending request must not keep the next one from being shown.
_EXPIRE = (
    "UPDATE registration_request SET state = 'expired' WHERE device_id = %(device)s "
    "AND state IN ('pending', 'approved') "
    "AND coalesce(decided_at, requested_at) < now() - make_interval(mins => greatest(%(window)s, 10))"
)
_USE_APPROVED = (
    "UPDATE registration_request SET state = 'used' WHERE device_id = %s AND state = 'approved' "
    "AND terminal_id = %s AND manufacturer_id = %s AND terminal_model = %s RETURNING id"
)
_OPEN_OR_REFUSED = (
    "SELECT 1 FROM registration_request WHERE device_id = %s AND (state IN ('pending', 'approved') "
    "OR (state = 'refused' AND decided_at > now() - make_interval(mins => %s))) LIMIT 1"
)
_INSERT_PENDING = (
    "INSERT INTO registration_request (enterprise_id, device_id, phone, terminal_id, manufacturer_id, "
    "terminal_model, peer) VALUES (%(enterprise)s, %(device)s, %(phone)s, %(terminal_id)s, %(maker)s, "
    "%(model)s, %(peer)s) ON CONFLICT (device_id) WHERE state IN ('pending', 'approved') DO NOTHING RETURNING id"
)


async def decide(conn: AsyncConnection[Any], device: DeviceRecord, info: RegistrationInfo) -> ApprovalDecision:
    """Whether a re-registration needing approval may pass now; records a pending request if none is
    open. Raises psycopg errors (the connection then answers nothing and the terminal retries)."""
    await conn.execute(_EXPIRE, {"device": device.id, "window": device.approval_window_min})
    used = await (await conn.execute(_USE_APPROVED, (device.id, info.terminal_id, info.manufacturer_id,
                                                     info.terminal_model))).fetchone()
    if used is not None:
        return ApprovalDecision(True)
    blocked = await (await conn.execute(_OPEN_OR_REFUSED, (device.id, device.approval_window_min))).fetchone()
    if blocked is not None:
        return ApprovalDecision(False)
    row = await (await conn.execute(_INSERT_PENDING, {
        "enterprise": device.enterprise_id, "device": device.id, "phone": canonical_phone(device.phone),
        "terminal_id": info.terminal_id, "maker": info.manufacturer_id, "model": info.terminal_model,
        "peer": info.peer})).fetchone()
    return ApprovalDecision(False, int(row[0]) if row else None)
