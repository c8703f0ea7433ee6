"""Registration (0x0100) and authentication (0x0102) steps of a connection; each runs as the
connection's one database step at a time (see `TerminalConnection._run_locked`)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from gateway import replies as r
from gateway.devices import RegistrationInfo, authentication_accepted
from gateway.inbound import registration_fields
from gateway.payloads import TerminalIdentity
from protocols.jt808 import Message

if TYPE_CHECKING:
    from gateway.connection import TerminalConnection

log = logging.getLogger("gateway.connection")


async def register(conn: TerminalConnection, msg: Message) -> None:
    header = msg.header
    terminal_id, manufacturer_id, model = registration_fields(msg)
    info = RegistrationInfo(terminal_id, manufacturer_id, model, header.version)
    outcome = await conn.ctx.directory.register(header.phone, info)
    counters = conn.ctx.counters
    if outcome.result == r.REG_OK:
        counters.registrations += 1
    else:
        counters.registration_rejected += 1
        log.info("conn %s: registration of %s refused, result %d", conn.connection_id, header.phone,
                 outcome.result)
    if not conn.closed:
        conn.send(r.REGISTER_REPLY, r.register_reply_body(header.seq, outcome.result, outcome.auth_code),
                  phone=header.phone)


async def authenticate(conn: TerminalConnection, msg: Message) -> None:
    header = msg.header
    auth_code = str(getattr(msg.body, "auth_code", "") or "")
    device = await conn.ctx.directory.find(header.phone)
    if conn.closed:
        return
    if device is None or not authentication_accepted(device, auth_code):
        conn.ctx.counters.auth_failed += 1
        log.info("conn %s: authentication of %s refused", conn.connection_id, header.phone)
        conn.send(r.PLATFORM_ACK, r.platform_ack_body(header.seq, header.msg_id, r.ACK_FAILURE),
                  phone=header.phone)
        return
    if conn.identity is not None and conn.identity.phone == header.phone:  # re-authentication
        conn.ack(header.seq, header.msg_id, r.ACK_OK)
        return
    if conn.identity is not None:  # another terminal on the same socket: end the first session
        if conn.ctx.registry.release(conn):
            conn.emit_session("offline", "closed")
    conn.identity = TerminalIdentity(header.phone, device.id, device.car_id, device.enterprise_id)
    conn.device_phone = device.phone
    previous = conn.ctx.registry.claim(conn)
    if previous is not None:
        conn.ctx.counters.replaced += 1
        previous.replaced()
    conn.ctx.counters.authenticated += 1
    conn.emit_session("online", "auth")
    conn.ack(header.seq, header.msg_id, r.ACK_OK)
