"""Administrator approval of a re-registration (the enterprise's policy `approve_reregistration`,
table `registration_request`, migration 0033; the statements are in warehouse/queries/registration.py).

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
from warehouse.queries import registration as registry

if TYPE_CHECKING:
    from psycopg import AsyncConnection

    from gateway.devices import DeviceRecord, RegistrationInfo


@dataclass(frozen=True)
class ApprovalDecision:
    approved: bool  # an approval was used: the registration may pass
    request_id: int | None = None  # a new pending request (worth a notice)


async def decide(conn: AsyncConnection[Any], device: DeviceRecord, info: RegistrationInfo) -> ApprovalDecision:
    """Whether a re-registration needing approval may pass now; records a pending request if none is
    open. Raises psycopg errors (the connection then answers nothing and the terminal retries)."""
    await registry.expire_requests_async(conn, device.id, device.approval_window_min)
    if await registry.use_approval_async(conn, device.id, info.terminal_id, info.manufacturer_id, info.terminal_model):
        return ApprovalDecision(True)
    if await registry.request_blocks_async(conn, device.id, device.approval_window_min):
        return ApprovalDecision(False)
    request_id = await registry.insert_pending_request_async(
        conn, enterprise_id=device.enterprise_id, device_id=device.id, phone=canonical_phone(device.phone),
        terminal_id=info.terminal_id, manufacturer_id=info.manufacturer_id, terminal_model=info.terminal_model,
        peer=info.peer)
    return ApprovalDecision(False, request_id)
