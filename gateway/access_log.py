"""What a terminal was told, for the message log: registrations and authentications of a known device,
and the frames of an authenticated terminal the gateway refused. Records on ``jt808.uplink.v1`` that no
step acts on (docs/topics.md); nobody waits for their delivery. Credentials in them are starred where
they are logged (streams/message_log.py, protocols/jt808/redact.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import orjson

from gateway import replies as r
from gateway.inbound import DecodeFailure
from gateway.payloads import TerminalIdentity, uplink_value, utc_now_iso
from protocols.jt808 import Message, to_json

if TYPE_CHECKING:
    from gateway.connection import TerminalConnection

# Refused frames of one connection kept in the message log: a terminal sending garbage cannot flood it
# (the gateway's counters still count every one).
REFUSED_LOGGED_PER_CONNECTION = 100


def accessed(conn: TerminalConnection, msg: Message, identity: TerminalIdentity, result: int, reason: str) -> None:
    """A 0x0100 / 0x0102 of a known device with the result the terminal got and a reason code
    (api/query/entities_messages.py ACCESS_REASONS): an operator sees why a terminal is not online."""
    message = {**to_json(msg), "access": {"result": result, "reason": reason}}
    value = uplink_value(identity, msg_id=msg.header.msg_id, seq=msg.header.seq, protocol_version=msg.header.version,
                         raw_hex=msg.raw.hex(), message=message, connection_id=conn.connection_id,
                         gateway_id=conn.ctx.settings.gateway_id, received_at=utc_now_iso())
    conn.ctx.pipeline.submit(conn.ctx.uplink_topic, identity.phone.encode(), value, _ignore)


def refused(conn: TerminalConnection, frame: bytes, failure: DecodeFailure, identity: TerminalIdentity,
            result: int) -> None:
    """A frame of the authenticated terminal that was answered result 2 (malformed) or 3 (encrypted)."""
    if conn.refused_logged >= REFUSED_LOGGED_PER_CONNECTION or failure.msg_id is None or failure.seq is None:
        return
    conn.refused_logged += 1
    value = orjson.dumps({
        "phone": identity.phone, "device_id": identity.device_id, "car_id": identity.car_id,
        "enterprise_id": identity.enterprise_id, "msg_id": failure.msg_id, "seq": failure.seq,
        "raw_hex": frame.hex(), "connection_id": conn.connection_id, "gateway_id": conn.ctx.settings.gateway_id,
        "received_at": utc_now_iso(),
        "refused": {"result": result, "reason": "unsupported" if result == r.ACK_NOT_SUPPORTED else "malformed",
                    "error": failure.error[:200]},
    })
    conn.ctx.pipeline.submit(conn.ctx.uplink_topic, identity.phone.encode(), value, _ignore)


def _ignore(_stored: bool) -> None:
    """A record nobody waits for: its delivery changes nothing at the gateway."""
