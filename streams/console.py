"""``console.events.v1`` payloads (docs/topics.md) and the live-position coalescer. Pure.

Push data, field names as the console expects them:

- type 1 (online/offline): ``{deviceId, carId, plateNumber, state, time}``, ``state`` 1 online, 0 offline
  (the spec's online rule: "online when the state is 1").
- type 6 (business state): ``{deviceId, carId, bizState, time}``.
- type 15 (terminal security notice, ours; the console shows unknown types as a plain notice):
  ``{deviceId, carId, plateNumber, phone, event, message, peer, replacedPeer, time}``.

Times are ISO 8601 UTC; a live position is a row of fleet.position_wire (epoch ms).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from fleet.enums import PushType
from fleet.position_wire import LIVE_POSITION_FIELDS, UNSIGNED_32, epoch_ms
from streams.messages import Fix


def iso(at: datetime) -> str:
    return at.astimezone(UTC).isoformat().replace("+00:00", "Z")


# Not in console-spec §7 (which shows unknown types as a plain notice): a terminal security notice.
SECURITY_NOTICE_PUSH_TYPE = 15

SECURITY_MESSAGES = {
    "session_replaced": "终端 {phone} 在新连接上鉴权成功，原连接已断开 "
                        "(terminal {phone} authenticated on a new connection; the previous one was closed)",
    "code_replaced": "终端 {phone} 重新注册，鉴权码已更换 "
                     "(terminal {phone} re-registered; its auth code was replaced)",
    "evidence_mismatch": "终端 {phone} 的报警证据文件与其记录的校验值不符，已拒绝下载 "
                         "(an evidence file of terminal {phone} does not match its recorded checksum; it is not served)",
    "identity_mismatch": "终端 {phone} 注册被拒绝：终端ID与预先登记的不一致 "
                         "(registration of terminal {phone} refused: its terminal id is not the recorded one)",
    "imei_mismatch": "终端 {phone} 鉴权被拒绝：IMEI与登记的不一致 "
                     "(authentication of terminal {phone} refused: its IMEI is not the recorded one)",
    "reregistration_pending": "终端 {phone} 在线期间重新注册，等待管理员审批 "
                              "(terminal {phone} re-registered while online; waiting for an administrator's approval)",
}


def push_event(enterprise_id: int, enterprise_path: str, push_type: PushType | int,
               data: dict[str, Any], *, user_id: int | None = None) -> dict[str, Any]:
    """A push for the sessions of ``enterprise_path``; with ``user_id``, for that user's sessions only
    (the answer of a command, and the file it asked for, are its sender's: docs/topics.md)."""
    event: dict[str, Any] = {
        "kind": "push",
        "enterprise_id": enterprise_id,
        "enterprise_path": enterprise_path,
        "push": {"type": int(push_type), "data": data},
    }
    if user_id is not None:
        event["user_id"] = int(user_id)
    return event


def online_push_data(
    *, device_id: int, car_id: int | None, plate_number: str | None, online: bool, at: datetime
) -> dict[str, Any]:
    return {
        "deviceId": device_id,
        "carId": car_id,
        "plateNumber": plate_number,
        "state": 1 if online else 0,
        "time": iso(at),
    }


def security_push_data(*, device_id: int, car_id: int | None, plate_number: str | None, phone: str, event: str,
                       peer: str | None, replaced_peer: str | None, at: datetime,
                       request_id: int | None = None) -> dict[str, Any]:
    template = SECURITY_MESSAGES.get(event, "终端 {phone} 安全事件 (terminal {phone} security event)")
    return {
        "deviceId": device_id,
        "carId": car_id,
        "plateNumber": plate_number,
        "phone": phone,
        "event": event,
        "message": template.format(phone=phone),
        "peer": peer,
        "replacedPeer": replaced_peer,
        "requestId": request_id,
        "time": iso(at),
    }


def biz_push_data(*, device_id: int, car_id: int | None, biz_state: int, at: datetime) -> dict[str, Any]:
    return {"deviceId": device_id, "carId": car_id, "bizState": int(biz_state), "time": iso(at)}


def live_position(fix: Fix, biz_state: int) -> list[Any]:
    """One row of a ``kind: positions`` message, in fleet.position_wire.LIVE_POSITION_FIELDS order (the
    bulk read's columns; the vehicle is online since it reports; its plate is the console's to know)."""
    return [fix.car_id, fix.device_id, None, epoch_ms(fix.fix_at), fix.lng, fix.lat, fix.speed_kmh,
            fix.direction_deg, fix.altitude_m, fix.mileage_km, fix.fuel_l, fix.alarm_flags & UNSIGNED_32,
            fix.status_flags, 1, int(biz_state), epoch_ms(fix.received_at)]


def positions_event(enterprise_id: int, enterprise_path: str, rows: list[list[Any]]) -> dict[str, Any]:
    return {
        "kind": "positions",
        "enterprise_id": enterprise_id,
        "enterprise_path": enterprise_path,
        "fields": list(LIVE_POSITION_FIELDS),
        "rows": rows,
    }


@dataclass
class LiveCoalescer:
    """Latest fix per device, grouped by enterprise, until drained (every ``live_coalesce_ms``).

    A burst of N positions of one vehicle within a window becomes one entry; an older fix (backlog)
    never replaces a newer one.
    """

    _pending: dict[int, dict[int, tuple[Fix, int]]] = field(default_factory=dict)

    def add(self, fix: Fix, biz_state: int) -> None:
        # keeps the fix; the row is built once per device and window, in drain()
        devices = self._pending.get(fix.enterprise_id)
        if devices is None:
            devices = self._pending[fix.enterprise_id] = {}
        current = devices.get(fix.device_id)
        if current is None or fix.fix_at >= current[0].fix_at:
            devices[fix.device_id] = (fix, biz_state)

    def drain(self) -> dict[int, list[list[Any]]]:
        """Position rows per enterprise since the last drain; empties the buffer."""
        pending, self._pending = self._pending, {}
        return {ent: [live_position(fix, biz) for fix, biz in devices.values()]
                for ent, devices in pending.items() if devices}

    def __len__(self) -> int:
        return sum(len(devices) for devices in self._pending.values())
