"""One terminal's TCP connection: de-framing, the registration/authentication state machine,
forwarding to Kafka and acknowledgements.

States: connected -> (0x0100 registration)* -> authenticated (0x0102 with the issued code) -> closed.
Before authentication only 0x0100 and 0x0102 are handled; anything else is answered with 0x8001
result 1 and never forwarded. Frames are handled strictly in arrival order: while a database lookup or
a back-pressure pause is under way, further frames wait in `_pending` and reading from the socket is
paused, so memory per connection stays bounded by one read. Nothing a terminal sends raises out of
`data_received`; every bad input is counted, logged (at a bounded rate, `HostileInputLog`) as
truncated hex with the connection id, and answered per the standard where the header is readable.
A connection must authenticate within `auth_deadline_s` of its accept, and at most
`unauthenticated_max` connections may be waiting to; one past that cap is closed at once.
"""

from __future__ import annotations

import asyncio
import logging
from array import array
from collections import deque
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from fleet.phones import canonical_phone
from gateway import access_log, login, media, proxy_protocol
from gateway import replies as r
from gateway.downlinks import Downlink, DownlinkPacer, sent_value
from gateway.flow import FlowControlledConnection
from gateway.inbound import DecodeFailure, decode_inbound, reassembled_message
from gateway.payloads import TerminalIdentity, session_value, uplink_value, utc_now_iso
from gateway.reassembly import Completed, ResendRequest, SubpackageAssembler
from protocols.jt808 import (
    FrameReader,
    Header,
    JT808Error,
    Message,
    encode_frame,
    encode_subpackages,
    to_json,
)
from protocols.jt808.catalogue import (
    AUTHENTICATION,
    BATCH_LOCATION_UPLOAD,
    LOCATION_REPORT,
    LOGOUT,
    MEDIA_UPLOAD,
    PLATFORM_RESPONSE,
    REGISTRATION,
    RESEND_SUBPACKAGES_REQUEST,
    TERMINAL_RESPONSE,
)

if TYPE_CHECKING:
    from gateway.server import GatewayContext

log = logging.getLogger("gateway.connection")

ACK_AFTER_KAFKA = frozenset({LOCATION_REPORT, BATCH_LOCATION_UPLOAD})
NO_REPLY = frozenset({TERMINAL_RESPONSE})
ACKED_KEPT = 128  # serials per connection whose acknowledged uplink is remembered (a power of two)
ACKED_MASK = ACKED_KEPT - 1
MAX_BODY_BYTES = 1023  # body length field is 10 bits; longer downlinks are sub-packaged


@dataclass(frozen=True, slots=True)
class LoginAnswer:
    """The success answer a 0x0100 / 0x0102 got on this connection, kept for that frame's resends."""

    frame: str  # the login frame, hex: a resend is byte for byte the same (JT/T 808 keeps the serial)
    msg_id: int
    body: bytes
    phone: str | None
    identity: TerminalIdentity | None


class TerminalConnection(FlowControlledConnection):
    ctx: GatewayContext

    def __init__(self, ctx: GatewayContext, connection_id: str) -> None:
        self.ctx = ctx
        self._init_flow()
        self.connection_id = connection_id
        settings = ctx.settings
        self._reader = FrameReader(settings.max_frame_bytes)
        self._assembler = SubpackageAssembler(
            ctx.budget, timeout_s=settings.subpackage_timeout_s,
            resend_after_s=settings.subpackage_resend_after_s,
            connection_max_bytes=settings.subpackage_connection_max_bytes)
        self._pending: deque[bytes | JT808Error] = deque()
        self.identity: TerminalIdentity | None = None
        self.device_phone: str | None = None  # device.phone (may be the 12-digit form of a 2019 phone)
        self.auth_code: str | None = None  # the code this connection authenticated with
        self.auth_failures = 0  # wrong codes on this connection since its last success (AuthBackoff)
        self.auth_ready_at = 0.0  # no 0x0102 of this connection is checked before (loop time)
        self.peer: str | None = None  # remote address, for security logs and notices
        self._proxy_pending: bytearray | None = None  # bytes of a PROXY header still being read
        self.opened_at = 0.0
        self.hostile_logged = 0  # bad inputs logged / not logged (HostileInputLog)
        self.refused_logged = 0  # refused frames forwarded to the message log (gateway/access_log.py)
        self.hostile_suppressed = 0
        self.version = "2013"
        self.protocol_version = 1
        self._out_seq = 0
        self._received_at: str | None = None  # receive time shared by the frames of one read
        self._awaiting: set[tuple[int, int]] = set()  # (msg id, serial) of positions on their way to Kafka
        self._login_frame = ""  # hex of the 0x0100 / 0x0102 whose step runs now
        self._login_answer: LoginAnswer | None = None  # its success answer, until another frame comes
        # slot serial % ACKED_KEPT -> hash of the last uplink acknowledged with that serial (the frame's
        # bytes, so message id, serial and content must all match); None until the first position ack
        self._acked: array[int] | None = None
        self.downlinks = DownlinkPacer(self._write_downlink, self._downlink_failed, loop=ctx.loop,
                                       counters=ctx.counters, in_flight_max=settings.downlink_in_flight,
                                       queue_max=settings.downlink_queue_max,
                                       reply_wait_s=settings.downlink_reply_wait_s)

    # ------------------------------------------------------------------ asyncio callbacks

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's TCPTransport has the Transport methods without subclassing asyncio.Transport
        transport = cast(asyncio.Transport, transport)
        self._transport = transport
        transport.set_write_buffer_limits(high=self.ctx.settings.write_buffer_bytes)
        peer = transport.get_extra_info("peername")
        self.peer = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) and len(peer) >= 2 else None
        self.last_rx_at = self._window_start = self.opened_at = self.ctx.loop.time()
        self.ctx.connection_tracked(self)  # the authentication deadline runs from now
        if self.ctx.settings.proxy_protocol:
            # Behind a balancer the socket's peer is the balancer: admission waits for the PROXY header's
            # address (gateway/proxy_protocol.py).
            self._proxy_pending = bytearray()
            return
        self._admit()

    def _admit(self) -> None:
        if not self.ctx.connection_admitted(self):
            self.ctx.counters.unauthenticated_refused += 1
            self.log_hostile(logging.WARNING, "conn %s (%s): its host is over its share of the %d connections "
                             "waiting to authenticate, closing", self.connection_id, self.peer,
                             self.ctx.settings.unauthenticated_max)
            self.close("refused", abort=True)

    def data_received(self, data: bytes) -> None:
        if self._proxy_pending is not None:
            rest = self._read_proxy_header(data)
            if not rest:
                return
            data = rest
        ctx = self.ctx
        self.last_rx_at = ctx.loop.time()
        ctx.counters.bytes_in += len(data)
        self._received_at = None
        self._in_read = True  # replies of this read go out in one write at its end
        try:
            self._pending.extend(self._reader.feed(data))
            self._drain()
        except Exception:  # a bug must cost one connection, never the process
            ctx.counters.internal_errors += 1
            log.exception("conn %s: internal error; closing", self.connection_id)
            self.close("closed")
        finally:
            self._in_read = False
            if self._out:
                self._flush_out()

    def _read_proxy_header(self, data: bytes) -> bytes:
        """Gather the PROXY header; once complete, take its address as the peer, admit the connection and
        return the JT/T 808 bytes after it. A bad header (or a terminal bypassing the balancer) closes."""
        pending = self._proxy_pending
        assert pending is not None
        pending += data
        try:
            header = proxy_protocol.parse(bytes(pending))
        except proxy_protocol.ProxyHeaderError as exc:
            self.ctx.counters.proxy_header_rejected += 1
            self.log_hostile(logging.WARNING, "conn %s (%s): bad PROXY protocol header, closing: %s: %s",
                             self.connection_id, self.peer, exc, self.ctx.hostile_log.hex(bytes(pending)))
            self._proxy_pending = None
            self.close("refused", abort=True)
            return b""
        if header is None:
            return b""
        self._proxy_pending = None
        if header.source is not None:
            self.peer = header.source
        self._admit()
        return b"" if self._close_reason is not None else bytes(pending[header.length:])

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self._assembler.clear()
        self._pending.clear()
        self.downlinks.close()
        self.ctx.pipeline.forget(self)
        if self.identity is not None and self.ctx.registry.release(self):
            self.emit_session("offline", self._close_reason or "closed")
        self.ctx.hostile_log.summary(log, self, "conn %s (%s)", self.connection_id, self.peer)
        self.ctx.connection_closed(self)

    # ------------------------------------------------------------------ who (flow control: gateway/flow.py)

    @property
    def phone(self) -> str | None:
        return self.identity.phone if self.identity else None

    @property
    def who(self) -> str | None:
        return self.phone

    # ------------------------------------------------------------------ frames

    def _handle(self, item: bytes | JT808Error) -> None:
        counters = self.ctx.counters
        if isinstance(item, JT808Error):  # garbage between frames, oversize or truncated frame
            counters.framing_errors += 1
            self.log_hostile(logging.WARNING, "conn %s (%s): framing error %s", self.connection_id, self.phone, item)
            return
        self._count_frame()
        decoded = decode_inbound(item)
        if isinstance(decoded, DecodeFailure):
            self._on_decode_failure(item, decoded)
            return
        header = decoded.header
        self.version = header.version
        if header.protocol_version is not None:
            self.protocol_version = header.protocol_version
        if header.package_total and header.package_total > 1:
            self._on_subpackage(decoded, item)
            return
        self._on_message(decoded, item.hex())

    def _on_decode_failure(self, frame: bytes, failure: DecodeFailure) -> None:
        counters = self.ctx.counters
        if failure.bad_checksum:
            counters.bad_checksum += 1
        else:
            counters.decode_errors += 1
        self.log_hostile(logging.WARNING, "conn %s (%s): %s: %s", self.connection_id, self.phone,
                         failure.error[:200], self.ctx.hostile_log.hex(frame))
        if failure.msg_id is not None and failure.seq is not None and (failure.phone or "").isdigit():
            result = r.ACK_NOT_SUPPORTED if failure.encrypted else r.ACK_MESSAGE_ERROR
            self.send(PLATFORM_RESPONSE, r.platform_ack_body(failure.seq, failure.msg_id, result),
                       phone=failure.phone)
            identity = self.identity
            if identity is not None and failure.phone == identity.phone:
                access_log.refused(self, frame, failure, identity, result)
        identity = self.identity
        if failure.reply_seq is not None and identity is not None and failure.phone == identity.phone:
            self.downlinks.on_malformed_reply(failure.reply_seq, failure.reply_msg_id)

    def _on_subpackage(self, msg: Message, frame: bytes) -> None:
        header = msg.header
        counters = self.ctx.counters
        counters.subpackages_in += 1
        if self.identity is None:
            self._reject_before_auth(msg)
            return
        try:
            outcome = self._assembler.add(header.msg_id, header.seq, header.package_total or 1,
                                          header.package_index or 1, _body_bytes(msg),
                                          b"" if header.msg_id == MEDIA_UPLOAD else frame,  # bodies only
                                          self.ctx.loop.time())
        except ValueError as exc:
            counters.subpackage_dropped += 1
            self.log_hostile(logging.WARNING, "conn %s (%s): sub-package rejected (%s): %s", self.connection_id,
                             self.phone, exc, self.ctx.hostile_log.hex(frame))
            self.ack(header.seq, header.msg_id, r.ACK_FAILURE)
            return
        finally:
            if self._assembler.evicted:
                counters.subpackage_evicted += self._assembler.evicted
                self._assembler.evicted = 0
        if isinstance(outcome, Completed):
            if header.msg_id == MEDIA_UPLOAD:  # stored, forwarded without its bytes, 0x8800
                media.on_upload(self, header, outcome.body, outcome.first_seq, ack_seq=header.seq)
                return
            try:
                whole = reassembled_message(msg, outcome.body, outcome.frames, outcome.first_seq)
            except JT808Error as exc:
                counters.decode_errors += 1
                self.log_hostile(logging.WARNING, "conn %s (%s): reassembled 0x%04x does not decode: %s",
                                 self.connection_id, self.phone, header.msg_id, exc)
                self.ack(header.seq, header.msg_id, r.ACK_MESSAGE_ERROR)
                return
            # the completing package's acknowledgement stands for the whole message
            self._on_message(whole, whole.raw.hex(), ack_seq=header.seq)
            return
        self.ack(header.seq, header.msg_id, r.ACK_OK)
        if isinstance(outcome, ResendRequest):
            self.request_missing(outcome)

    def request_missing(self, request: ResendRequest) -> None:
        if request.msg_id == MEDIA_UPLOAD and media.request_missing(self, request):
            return  # 0x8800 with the missing ids
        self.ctx.counters.subpackage_resend_requests += 1
        body = r.resend_subpackages_body(request.first_seq, request.missing_indexes, self.version)
        self.send(RESEND_SUBPACKAGES_REQUEST, body)

    def _on_message(self, msg: Message, raw_hex: str, ack_seq: int | None = None) -> None:
        header = msg.header
        msg_id = header.msg_id
        seq = header.seq if ack_seq is None else ack_seq
        answered = self._login_answer
        if answered is not None:
            if answered.frame == raw_hex:
                # A login the terminal sent again (same serial, same bytes) because our answer was late: it queued
                # behind the first copy, or crossed its answer on the wire. It gets the answer the first copy got.
                # Handled again, a registration would issue a second code that voids the one the terminal takes
                # from the first answer (and tell the operators a code was replaced), and every resent login of a
                # reconnect storm would cost another device lookup (JT/T 808-2019 §4.4.2: a resend keeps its serial).
                self.ctx.counters.login_resends_answered += 1
                self.send(answered.msg_id, answered.body, answered.phone, identity=answered.identity)
                return
            self._login_answer = None  # the terminal moved on: TCP keeps order, so no resend of it can follow
        if msg_id == REGISTRATION:
            self._login_frame = raw_hex
            self._run_locked(login.register(self, msg), header)
            return
        if msg_id == AUTHENTICATION:  # may first wait out the back-off after wrong codes
            self._login_frame = raw_hex
            self._run_locked(login.authenticate(self, msg), header,
                             self.ctx.settings.db_timeout_s + self.ctx.settings.auth_backoff_max_s)
            return
        identity = self.identity
        if identity is None:
            self._reject_before_auth(msg)
            return
        if header.phone != identity.phone:
            self.ctx.counters.phone_mismatch += 1
            self.log_hostile(logging.WARNING, "conn %s (%s): frame for phone %s: %s", self.connection_id,
                             identity.phone, header.phone, raw_hex[:2 * self.ctx.settings.hostile_log_hex_bytes])
            self.ack(seq, msg_id, r.ACK_FAILURE)
            return
        self.downlinks.on_reply(msg_id, msg.body)  # a reply releases the next paced downlink
        if msg_id == MEDIA_UPLOAD:
            media.on_upload(self, header, media.body_bytes(msg), header.seq, ack_seq=seq)
            return
        self._forward(msg, raw_hex, seq)
        if msg_id in ACK_AFTER_KAFKA or msg_id in NO_REPLY:
            return
        if msg_id == LOGOUT:  # de-registration: clear the registration, then ack and close
            self._run_locked(login.deregister(self, msg, seq), header, ack_seq=seq)
            return
        self.ack(seq, msg_id, r.ACK_OK)

    def _forward(self, msg: Message, raw_hex: str, seq: int) -> None:
        ctx = self.ctx
        identity = self.identity
        assert identity is not None
        header = msg.header
        msg_id = header.msg_id
        ack_after = msg_id in ACK_AFTER_KAFKA
        token = (msg_id, seq)
        if ack_after:
            if token in self._awaiting:
                # The terminal resent a serial still on its way to Kafka (its ack was late, not lost):
                # forwarding it again would only add load when we are slow. The first copy's ack
                # answers both.
                ctx.counters.resends_dropped += 1
                return
            acked = self._acked
            if acked is not None and acked[seq & ACKED_MASK] == hash(raw_hex):
                # A resend of what was stored and acknowledged, sent before our ack reached the terminal
                # (under overload it waited behind the rest in the socket while reads were paused): ack
                # it again, do not store it twice. TCP delivers in order, so on one connection a resend
                # always comes after its first copy; this keeps resends off Kafka and the worker.
                ctx.counters.resends_reacked += 1
                self.ack(seq, msg_id, r.ACK_OK)
                return
            self._awaiting.add(token)
        if self._received_at is None:
            self._received_at = utc_now_iso()
        value = uplink_value(identity, msg_id=msg_id, seq=header.seq, protocol_version=header.version,
                             raw_hex=raw_hex, message=to_json(msg), connection_id=self.connection_id,
                             gateway_id=ctx.settings.gateway_id, received_at=self._received_at)
        self.in_flight += 1

        def on_done(stored: bool) -> None:
            self.in_flight -= 1
            if ack_after:
                self._awaiting.discard(token)
            if stored and ack_after and not self.closed:
                ctx.counters.positions_acked += 1
                self.ack(seq, msg_id, r.ACK_OK)
                acked = self._acked
                if acked is None:
                    acked = self._acked = array("q", bytes(8 * ACKED_KEPT))
                acked[seq & ACKED_MASK] = hash(raw_hex)
            if not self.closed and self._pending and not self._blocked():
                self._drain()
            elif not self.closed:
                self._update_reading()

        ctx.pipeline.submit(ctx.uplink_topic, identity.phone.encode(), value, on_done)

    def _reject_before_auth(self, msg: Message) -> None:
        self.ctx.counters.pre_auth_rejected += 1
        self.log_hostile(logging.INFO, "conn %s (%s): 0x%04x from %s before authentication, rejected",
                         self.connection_id, self.peer, msg.header.msg_id, msg.header.phone)
        self.send(PLATFORM_RESPONSE, r.platform_ack_body(msg.header.seq, msg.header.msg_id, r.ACK_FAILURE),
                   phone=msg.header.phone)

    # ------------------------------------------------------------------ registration and authentication

    def _run_locked(self, work: Coroutine[Any, Any, None], answers: Header, timeout_s: float | None = None,
                    ack_seq: int | None = None) -> None:
        """Run a database step for the frame `answers`; frames behind it wait (order is kept) and reading
        pauses. A step that fails for any reason (database down, a constraint, a timeout) answers that
        frame 0x8001 result 1, which a terminal acts on by trying again: never silence."""
        self._busy = True
        self._update_reading()
        self.ctx.loop.create_task(self._locked(work, timeout_s or self.ctx.settings.db_timeout_s, answers,
                                               answers.seq if ack_seq is None else ack_seq))

    async def _locked(self, work: Coroutine[Any, Any, None], timeout_s: float, answers: Header,
                      ack_seq: int) -> None:
        try:
            async with asyncio.timeout(timeout_s):
                await work
        except Exception as exc:
            self.ctx.counters.db_errors += 1
            log.warning("conn %s (%s): database step for 0x%04x of %s failed, answered 0x8001 result 1: %r",
                        self.connection_id, self.peer, answers.msg_id, answers.phone, exc)
            if not self.closed:
                self.send(PLATFORM_RESPONSE, r.platform_ack_body(ack_seq, answers.msg_id, r.ACK_FAILURE),
                          phone=answers.phone)
        finally:
            self._busy = False
            if not self.closed:
                self._drain()

    def replaced(self) -> None:
        """Another connection authenticated as this terminal: end this session first."""
        self.downlinks.close()
        self.emit_session("offline", "replaced")
        self.identity = None
        self.close("replaced")

    def log_hostile(self, level: int, msg: str, *args: object) -> None:
        self.ctx.hostile_log.log(log, level, self, msg, *args)

    def emit_session(self, event: str, reason: str) -> None:
        identity = self.identity
        if identity is None:
            return
        ctx = self.ctx
        value = session_value(identity, event=event, reason=reason, connection_id=self.connection_id,
                              gateway_id=ctx.settings.gateway_id, peer=self.peer)
        ctx.pipeline.submit(ctx.sessions_topic, identity.phone.encode(), value)

    # ------------------------------------------------------------------ writing

    def _next_seq(self) -> int:
        seq = self._out_seq
        self._out_seq = (seq + 1) & 0xFFFF
        return seq

    def ack(self, seq: int, msg_id: int, result: int) -> None:
        self.send(PLATFORM_RESPONSE, r.platform_ack_body(seq, msg_id, result))

    def answer_login(self, msg_id: int, body: bytes, phone: str | None = None, *,
                     identity: TerminalIdentity | None = None) -> None:
        """Send the success answer of the login step running now (0x8100 with its code, or 0x8001 to a 0x0102) and
        keep it: a resend of that login is answered the same, without a second step (`_on_message`). Refusals are
        not kept: a resend after a refusal, or after a failed lookup, is checked again."""
        self.send(msg_id, body, phone, identity=identity)
        self._login_answer = LoginAnswer(self._login_frame, msg_id, body, phone, identity)

    def send(self, msg_id: int, body: bytes, phone: str | None = None, *,
             identity: TerminalIdentity | None = None) -> None:
        """Write a reply at once (never paced); every one but 0x8001 is recorded on jt808.sent.v1
        (`identity`: whom a reply before authentication concerns, e.g. 0x8100)."""
        transport = self._transport
        if transport is None or self.closed or transport.is_closing():
            return
        target = phone or self.phone
        if target is None:
            return
        seq = self._next_seq()
        try:
            frame = encode_frame(msg_id, body, phone=target, seq=seq, version=self.version,
                                 protocol_version=self.protocol_version)
        except ValueError as exc:  # e.g. a header phone that is not BCD digits
            self.ctx.counters.internal_errors += 1
            self.log_hostile(logging.WARNING, "conn %s: cannot answer 0x%04x to %r: %s", self.connection_id, msg_id,
                             target[:40], exc)
            return
        self._write(frame)
        if msg_id != PLATFORM_RESPONSE:
            self.record_sent(msg_id, body, (seq,), frame.hex(), None, "sent", None, identity)

    def send_downlink(self, msg_id: int, body: bytes, command_id: str | None = None) -> None:
        """A platform message for this terminal (`jt808.downlink.v1`), paced (gateway/downlinks.py)."""
        self.downlinks.submit(Downlink(msg_id, body, command_id))

    def _write_downlink(self, downlink: Downlink) -> bool:
        """Write with our serial numbers and the terminal's version (sub-packaged when long)."""
        transport = self._transport
        phone = self.phone
        if transport is None or self.closed or phone is None or transport.is_closing():
            self._downlink_failed(downlink, "closed")
            return False
        seq, msg_id, body = self._out_seq, downlink.msg_id, downlink.body
        try:
            if len(body) <= MAX_BODY_BYTES:
                frames = [encode_frame(msg_id, body, phone=phone, seq=seq, version=self.version,
                                       protocol_version=self.protocol_version)]
            else:
                frames = encode_subpackages(msg_id, body, phone=phone, seq=seq, version=self.version,
                                            protocol_version=self.protocol_version)
        except ValueError as exc:
            log.warning("conn %s (%s): cannot encode 0x%04x: %s", self.connection_id, phone, msg_id, exc)
            self._downlink_failed(downlink, "encode_error")
            return False
        self._out_seq = (seq + len(frames)) & 0xFFFF
        downlink.seqs = tuple((seq + i) & 0xFFFF for i in range(len(frames)))
        data = b"".join(frames)
        self._write(data)
        self.ctx.counters.downlinks_delivered += 1
        self.record_sent(msg_id, body, downlink.seqs, data.hex(), downlink.command_id, "sent", None)
        return True

    def _downlink_failed(self, downlink: Downlink, reason: str) -> None:
        self.ctx.counters.downlinks_failed += 1
        self.record_sent(downlink.msg_id, downlink.body, (), None, downlink.command_id, "failed", reason)

    def record_sent(self, msg_id: int, body: bytes, seqs: tuple[int, ...], raw_hex: str | None,
                    command_id: str | None, event: str, reason: str | None,
                    identity: TerminalIdentity | None = None) -> None:
        """Queue a `jt808.sent.v1` record (bounded, never blocks; none without a known device)."""
        identity = identity or self.identity
        sent = self.ctx.sent
        if identity is None or sent is None:
            return
        try:
            phone = canonical_phone(identity.phone)
        except ValueError:
            return
        value = sent_value(phone=phone, device_id=identity.device_id, car_id=identity.car_id,
                           enterprise_id=identity.enterprise_id, msg_id=msg_id, seq=seqs[0] if seqs else None,
                           packages=len(seqs), raw_hex=raw_hex, body_hex=body.hex(), command_id=command_id,
                           event=event, reason=reason, connection_id=self.connection_id,
                           gateway_id=self.ctx.settings.gateway_id, at=utc_now_iso())
        sent.submit(phone.encode(), value)

    def sweep(self, now: float) -> None:
        """Called periodically by the server: authentication deadline, idle timeout, overdue sub-packages."""
        if self.identity is None and now - self.opened_at >= self.ctx.settings.auth_deadline_s:
            self.ctx.counters.auth_deadline_closed += 1
            self.log_hostile(logging.INFO, "conn %s (%s): not authenticated %.0fs after connecting, closing",
                             self.connection_id, self.peer, now - self.opened_at)
            self.close("auth_deadline", abort=True)
            return
        if self._reading_paused:
            # Our own back-pressure keeps the terminal's bytes in the socket: that silence is ours,
            # and closing it would drop a live terminal just when Kafka is slow.
            self.last_rx_at = now
        elif now - self.last_rx_at >= self.ctx.idle_timeout_s:
            self.ctx.counters.idle_timeouts += 1
            log.info("conn %s (%s): idle for %.0fs, closing", self.connection_id, self.phone,
                     now - self.last_rx_at)
            self.close("idle_timeout", abort=True)
            return
        if len(self._assembler):
            for request in self._assembler.sweep(now):
                self.request_missing(request)
            self.ctx.counters.subpackage_dropped += self._assembler.dropped
            self._assembler.dropped = 0


def _body_bytes(msg: Message) -> bytes:
    """Body bytes of one package (a sub-package body decodes as raw hex: it is a fragment)."""
    hex_body = getattr(msg.body, "hex", None)
    if isinstance(hex_body, str):
        return bytes.fromhex(hex_body)
    raise ValueError("sub-package body is not raw")

