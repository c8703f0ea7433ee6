"""0x9208 (alarm attachment upload request) for new active-safety alarms, through the ONE command path.

For each new active-safety row with attachments (streams.alarms) of a device that is connected: a
``command`` row (warehouse.queries.commands ``insert_async``, created_by NULL, created_by_name "平台") and
a ``jt808.downlink.v1`` message shaped like api/command_send.py ``send()`` ``{phone, msg_id, body_hex,
command_id, created_at}``. The gateway paces it and reports on ``jt808.sent.v1``; the terminal's 0x0001
is matched by the commands step like any reply. The server address is ``FLEET_ATTACHMENTS_PUBLIC_HOST`` /
``FLEET_ATTACHMENTS_PORT`` (fleet.settings.AttachmentsSettings). The 32-character alarm number is NOT the
row's ``warn_uuid`` (every alarm list shows it, so anyone could upload with it): it is a one-time number
made for this request (``warehouse.queries.attachment_requests``), stored hashed with the alarm, the device
and ``FLEET_ATTACHMENTS_REQUEST_TTL_S``, in the transaction of the command row, and the attachment server
accepts only it. The command row keeps the body with the number blanked (``REDACTED_NUMBER``) and the
alarm's uuid in its payload. An offline device gets nothing (the terminal keeps its files; nothing is queued).

Connected (``reachable``): the device row says online, OR an uplink of the batch that raised the alarm was
received within ``HEARD_WITHIN_S`` and the row records no going offline since. The uplink is the freshest
proof: the row's "online" is written by the sessions agent, which runs beside the uplinks agent, so a
terminal that reports an alarm right after it logs in (or reconnects) is often still offline in the row,
and its evidence would never be asked for. A disabled device is never asked.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import orjson
import psycopg

from fleet.enums import DeviceState
from fleet.phones import canonical_phone
from fleet.topics import JT808_DOWNLINK
from protocols.jt808.catalogue import ALARM_ATTACHMENT_UPLOAD_REQUEST
from streams.db import DATA_ERRORS, Database
from streams.deadletter import Send
from warehouse.queries import attachment_requests, commands

log = logging.getLogger(__name__)

CREATED_BY_NAME = "平台"
REDACTED_NUMBER = "0" * 32  # the number in the command row's body: only the terminal may know it
HEARD_WITHIN_S = 60.0  # an uplink this recent proves the connection (a silent one is closed after ~3 heartbeats)

def reachable(target: dict[str, Any], heard_at: datetime | None, now: datetime) -> bool:
    """Whether the terminal is connected now: online in its row, or heard from (``heard_at``, the receipt
    of its latest uplink in the batch) within ``HEARD_WITHIN_S`` and not offline since (module doc)."""
    if target["state"] == DeviceState.ONLINE:
        return True
    if target["state"] == DeviceState.DISABLED or heard_at is None:
        return False
    if (now - heard_at).total_seconds() > HEARD_WITHIN_S:
        return False
    offline_at = target.get("offlineTime")
    return offline_at is None or offline_at < heard_at


def _time(value: Any) -> datetime:
    if isinstance(value, datetime):
        return value
    parsed = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def build_request(row: dict[str, Any], host: str, port: int, version: str,
                  number: str = REDACTED_NUMBER) -> tuple[bytes, dict[str, Any]]:
    """The encoded 0x9208 body of an alarm row carrying the alarm number ``number``, and the payload stored
    on the command row. Raises ValueError / KeyError / TypeError for an alarm number it cannot encode."""
    from protocols.jt808 import AlarmAttachmentUploadRequest, AlarmNumber

    no = row["alarm_no"] or {}
    alarm_no = AlarmNumber(terminal_id=str(no["terminal_id"]), time=_time(no["time"]), seq=int(no["seq"]),
                           attachments=int(no["attachments"]))
    request = AlarmAttachmentUploadRequest(server_ip=host, tcp_port=port, udp_port=0, alarm_no=alarm_no,
                                           alarm_uuid=number)
    body = request.encode(version if version in ("2011", "2013", "2019") else "2013")
    payload = {"alarmId": row["id"], "serverIp": host, "tcpPort": port, "udpPort": 0, "alarmUuid": row["warn_uuid"],
               "alarmNo": {"terminalId": alarm_no.terminal_id, "time": alarm_no.time.isoformat(),
                           "seq": alarm_no.seq, "attachments": alarm_no.attachments}}
    return body, payload


class AttachmentRequests:
    """``request(rows, heard)``: the 0x9208 commands of a batch's new active-safety rows with attachments;
    ``heard`` maps each device of the batch to the receipt of its latest uplink."""

    def __init__(self, db: Database, send: Send, host: str, port: int, ttl_s: float = 3600.0) -> None:
        self.db, self.send, self.host, self.port, self.ttl_s = db, send, host, port, ttl_s
        self.sent = 0

    async def request(self, rows: Sequence[dict[str, Any]], heard: Mapping[int, datetime] | None = None) -> int:
        done = 0
        for row in rows:
            if not row.get("warn_uuid") or not row.get("attachment_count"):
                continue
            try:
                done += await self._one(row, (heard or {}).get(row["device_id"]))
            except DATA_ERRORS as exc:  # e.g. the device was deleted meanwhile
                log.warning("0x9208 for alarm %s not created: %s", row["id"], exc)
            except (KeyError, TypeError, ValueError) as exc:
                log.warning("0x9208 for alarm %s: alarm number not encodable: %s", row["id"], exc)
        self.sent += done
        return done

    async def _one(self, row: dict[str, Any], heard_at: datetime | None) -> int:
        async def target_of(conn: psycopg.AsyncConnection[Any]) -> dict[str, Any] | None:
            return await commands.target_async(conn, row["device_id"])

        target = await self.db.transact(target_of)
        if target is None or not reachable(target, heard_at, datetime.now(UTC)):
            log.info("0x9208 for alarm %s not sent: device %s is not connected", row["id"], row["device_id"])
            return 0
        version = target["protocolVersion"]
        shown, payload = build_request(row, self.host, self.port, version)  # raises before anything is written

        async def insert(conn: psycopg.AsyncConnection[Any]) -> tuple[dict[str, Any], str]:
            number = await attachment_requests.issue_async(conn, row["id"], target["deviceId"], self.ttl_s)
            command = await commands.insert_async(conn, target, msg_id=ALARM_ATTACHMENT_UPLOAD_REQUEST, payload=payload, body_hex=shown.hex(),
                                         user_id=None, user_name=CREATED_BY_NAME)
            return command, number

        command, number = await self.db.transact(insert)
        body, _ = build_request(row, self.host, self.port, version, number)
        phone = canonical_phone(target["phone"])
        value = {"phone": phone, "msg_id": ALARM_ATTACHMENT_UPLOAD_REQUEST, "body_hex": body.hex(), "command_id": str(command["id"]),
                 "created_at": command["createdAt"].astimezone(UTC).isoformat().replace("+00:00", "Z")}
        await self.send(JT808_DOWNLINK, phone.encode(), orjson.dumps(value))
        return 1
