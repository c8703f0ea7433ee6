"""Registration (0x0100), authentication (0x0102) and de-registration (0x0003) steps of a connection;
each runs as the connection's one database step at a time (see `TerminalConnection._run_locked`).

Security notices (`event: security` on `device.sessions.v1`, pushed to the console by streams):
`code_replaced` when a re-registration replaced an existing auth code, `session_replaced` when a new
connection authenticated while another one held the terminal (the old one is closed),
`identity_mismatch` when a registration reported another terminal id than the one an administrator
recorded, `imei_mismatch` when the right code came with another IMEI than the recorded one (or none),
`reregistration_pending` when a re-registration waits for an administrator (with `request_id`). A connection
that only registers, or fails to authenticate, never touches the live one."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from fleet.phones import canonical_phone
from gateway import access_log
from gateway import replies as r
from gateway.devices import (
    DISABLED_STATE,
    RegistrationInfo,
    RegistrationOutcome,
    authentication_accepted,
    imei_refusal,
)
from gateway.inbound import registration_fields
from gateway.payloads import TerminalIdentity, identity_of, security_value
from protocols.jt808 import Message
from protocols.jt808.catalogue import PLATFORM_RESPONSE, REGISTRATION_RESPONSE

if TYPE_CHECKING:
    from gateway.connection import TerminalConnection

log = logging.getLogger("gateway.connection")


async def register(conn: TerminalConnection, msg: Message) -> None:
    header = msg.header
    terminal_id, manufacturer_id, model = registration_fields(msg)
    holder = conn.ctx.registry.get(header.phone)
    info = RegistrationInfo(terminal_id, manufacturer_id, model, header.version, peer=conn.peer,
                            live_here=holder is not None and holder is not conn)
    outcome = await conn.ctx.directory.register(header.phone, info)
    counters = conn.ctx.counters
    if outcome.result == r.REG_OK:
        counters.registrations += 1
        if outcome.shares_terminal_id:  # terminal ids are not unique across makers: allowed, and said
            log.warning("conn %s (%s): terminal %s (device %s) registered with terminal id %r, which is also "
                        "that of %s", conn.connection_id, conn.peer, header.phone, outcome.device_id,
                        terminal_id[:40], ", ".join(f"device {d} (phone {p})" for d, p in outcome.shares_terminal_id))
    else:
        counters.registration_rejected += 1
        conn.log_hostile(logging.INFO, "conn %s (%s): registration of %s (terminal id %r) refused, result %d",
                         conn.connection_id, conn.peer, header.phone, terminal_id[:40], outcome.result)
    if outcome.replaced_code and outcome.device is not None:
        counters.codes_replaced += 1
        conn.log_hostile(logging.WARNING, "conn %s (%s): terminal %s re-registered; its auth code is replaced",
                         conn.connection_id, conn.peer, header.phone)
        publish_security_notice(conn, identity_of(header.phone, outcome.device), "code_replaced")
    if outcome.notice and outcome.device is not None:
        conn.log_hostile(logging.WARNING, "conn %s (%s): registration of %s refused: %s", conn.connection_id,
                         conn.peer, header.phone, outcome.notice)
        publish_security_notice(conn, identity_of(header.phone, outcome.device), outcome.notice,
                                request_id=outcome.request_id)
    if outcome.approved:  # an administrator approved it: the session of the terminal it replaces ends
        holder = conn.ctx.registry.get(header.phone)
        if holder is not None and holder is not conn:
            log.warning("conn %s (%s): approved re-registration of %s; closing conn %s (%s)", conn.connection_id,
                        conn.peer, header.phone, holder.connection_id, holder.peer)
            holder.replaced()
    if outcome.device is None and outcome.result != r.REG_OK:  # no enterprise's log can hold it: kept apart
        _unknown_refused(conn, msg, r.register_wire_result(outcome.result), registration=msg.body)
    if outcome.device is not None:
        access_log.accessed(conn, msg, identity_of(header.phone, outcome.device), r.register_wire_result(outcome.result),
                        registration_reason(outcome))
    if not conn.closed:
        body = r.register_reply_body(header.seq, outcome.result, outcome.auth_code)
        identity = identity_of(header.phone, outcome.device) if outcome.device is not None else None
        if outcome.result == r.REG_OK:  # the code issued is kept for the registration's resends
            conn.answer_login(REGISTRATION_RESPONSE, body, header.phone, identity=identity)
        else:
            conn.send(REGISTRATION_RESPONSE, body, header.phone, identity=identity)


async def authenticate(conn: TerminalConnection, msg: Message) -> None:
    header = msg.header
    auth_code = str(getattr(msg.body, "auth_code", "") or "")
    if not await _wait_out_backoff(conn, msg):
        return
    device = await conn.ctx.directory.find(header.phone)
    if conn.closed:
        return
    if device is not None and not authentication_accepted(device, auth_code):
        access_log.accessed(conn, msg, identity_of(header.phone, device), r.ACK_FAILURE,
                        "disabled" if device.state == DISABLED_STATE else
                        "not_registered" if not device.auth_code else "wrong_code")
    if device is None:
        _unknown_refused(conn, msg, r.ACK_FAILURE, imei=getattr(msg.body, "imei", None))
    if device is None or not authentication_accepted(device, auth_code):
        conn.ctx.counters.auth_failed += 1
        conn.log_hostile(logging.INFO, "conn %s (%s): authentication of %s refused", conn.connection_id, conn.peer,
                         header.phone)
        conn.send(PLATFORM_RESPONSE, r.platform_ack_body(header.seq, header.msg_id, r.ACK_FAILURE),
                  phone=header.phone)
        return
    imei = getattr(msg.body, "imei", None) or None
    refusal = imei_refusal(device, imei)
    if refusal is not None:  # the right code from the wrong hardware: refused and shown
        conn.ctx.counters.auth_failed += 1
        conn.log_hostile(logging.WARNING, "conn %s (%s): authentication of %s refused: IMEI %r is not the recorded "
                         "one", conn.connection_id, conn.peer, header.phone, (imei or "")[:20])
        publish_security_notice(conn, identity_of(header.phone, device), refusal)
        access_log.accessed(conn, msg, identity_of(header.phone, device), r.ACK_FAILURE, "imei_mismatch")
        conn.send(PLATFORM_RESPONSE, r.platform_ack_body(header.seq, header.msg_id, r.ACK_FAILURE),
                  phone=header.phone)
        return
    if imei and device.require_imei and not device.registered_imei and not device.expected_imei:
        await conn.ctx.directory.record_imei(device.id, imei)
    conn.auth_failures = 0
    conn.ctx.auth_backoff.phone_succeeded(_phone_key(header.phone))
    if conn.identity is not None and conn.identity.phone == header.phone:  # re-authentication
        conn.auth_code = auth_code
        conn.answer_login(PLATFORM_RESPONSE, r.platform_ack_body(header.seq, header.msg_id, r.ACK_OK))
        return
    if conn.identity is not None:  # another terminal on the same socket: end the first session
        conn.downlinks.fail_all()
        if conn.ctx.registry.release(conn):
            conn.emit_session("offline", "closed")
    conn.identity = TerminalIdentity(header.phone, device.id, device.car_id, device.enterprise_id)
    conn.device_phone = device.phone
    conn.auth_code = auth_code
    conn.ctx.connection_authenticated(conn)
    previous = conn.ctx.registry.claim(conn)
    if previous is not None:
        conn.ctx.counters.replaced += 1
        log.warning("conn %s (%s): terminal %s authenticated while conn %s (%s) held it; closing that one",
                    conn.connection_id, conn.peer, header.phone, previous.connection_id, previous.peer)
        previous.replaced()
        publish_security_notice(conn, conn.identity, "session_replaced", replaced=previous)
    conn.ctx.counters.authenticated += 1
    conn.emit_session("online", "auth")
    conn.answer_login(PLATFORM_RESPONSE, r.platform_ack_body(header.seq, header.msg_id, r.ACK_OK))


def _unknown_refused(conn: TerminalConnection, msg: Message, result: int, *, registration: object | None = None,
                     imei: object | None = None) -> None:
    """A 0x0100 / 0x0102 of a phone no device has, refused with ``result``: recorded for the root
    enterprise's administrators (gateway/unknown_terminals.py), never waited for."""
    header = msg.header
    conn.ctx.unknown_terminals.record(header.phone, header.msg_id, result, peer=conn.peer or "",
                                      gateway_id=conn.ctx.settings.gateway_id, protocol_version=header.version,
                                      registration=registration, imei=str(imei) if imei else None)


def registration_reason(outcome: RegistrationOutcome) -> str:
    """Why a registration of a known device got its result, as a code the message log names
    (api/query/entities_messages.py ACCESS_REASONS)."""
    if outcome.result == r.REG_OK:
        return "accepted"
    if outcome.notice in ("identity_mismatch", "reregistration_pending"):
        return outcome.notice
    if outcome.device is not None and outcome.device.state == DISABLED_STATE:
        return "disabled"
    if outcome.result == r.REG_TERMINAL_TAKEN:
        return "terminal_taken"
    return "refused"


def _phone_key(phone: str) -> str:
    try:
        return canonical_phone(phone)
    except ValueError:
        return phone[:40]


async def _wait_out_backoff(conn: TerminalConnection, msg: Message) -> bool:
    """Hold a 0x0102 until neither its connection nor its phone is backing off after wrong codes
    (`AuthBackoff`): the connection's later frames wait behind it and its reads pause, so a guesser
    gets a few answers per back-off period instead of one per frame. The attempt is counted as a
    failure before the code is looked at (a success forgets it), so attempts from many connections
    for one phone cannot all pass the gate at once. If another connection's attempt for the phone
    went first meanwhile, this one is answered 0x8001 result 1 without checking its code (the
    standard has no "try later" result; the terminal retries as after a wrong code). False: answered
    or closed, nothing more to do."""
    header = msg.header
    ctx = conn.ctx
    backoff = ctx.auth_backoff
    phone = _phone_key(header.phone)
    now = ctx.loop.time()
    wait_s = min(max(conn.auth_ready_at, backoff.phone_ready_at(phone)) - now, backoff.max_s)
    if wait_s > 0:
        ctx.counters.auth_backoff_delayed += 1
        await asyncio.sleep(wait_s)
        if conn.closed:
            return False
        now = ctx.loop.time()
    conn.auth_failures += 1
    conn.auth_ready_at = now + backoff.delay_s(conn.auth_failures)
    if backoff.phone_ready_at(phone) > now:
        ctx.counters.auth_backoff_refused += 1
        conn.log_hostile(logging.INFO, "conn %s (%s): authentication of %s refused unchecked: the phone is "
                         "backing off after wrong codes", conn.connection_id, conn.peer, header.phone)
        conn.send(PLATFORM_RESPONSE, r.platform_ack_body(header.seq, header.msg_id, r.ACK_FAILURE), phone=header.phone)
        return False
    backoff.phone_failed(phone, now)
    return True


async def deregister(conn: TerminalConnection, msg: Message, seq: int) -> None:
    """0x0003 from an authenticated terminal: forget its registration (code and recorded identity) so
    it, or new hardware, registers afresh; then acknowledge and close. Only the code this connection
    authenticated with is cleared: a session whose code was replaced meanwhile clears nothing."""
    identity = conn.identity
    if identity is None or conn.auth_code is None:
        return
    cleared = await conn.ctx.directory.deregister(identity.device_id, conn.auth_code)
    log.info("conn %s (%s): terminal %s de-registered%s", conn.connection_id, conn.peer, identity.phone,
             "" if cleared else " (its code was already replaced: nothing cleared)")
    conn.ack(seq, msg.header.msg_id, r.ACK_OK)
    conn.close("logout")


def publish_security_notice(conn: TerminalConnection, identity: TerminalIdentity, reason: str, *,
                            replaced: TerminalConnection | None = None, request_id: int | None = None) -> None:
    """A `security` record on `device.sessions.v1` about `identity`'s terminal, from `conn`."""
    ctx = conn.ctx
    value = security_value(identity, reason=reason, connection_id=conn.connection_id,
                           gateway_id=ctx.settings.gateway_id, peer=conn.peer,
                           replaced_connection_id=replaced.connection_id if replaced else None,
                           replaced_peer=replaced.peer if replaced else None, request_id=request_id)
    ctx.pipeline.submit(ctx.sessions_topic, identity.phone.encode(), value)
