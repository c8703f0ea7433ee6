"""One GB/T 32960 or GB 17691 / HJ 1239 terminal's TCP connection: de-framing, the login state machine
(`gateway/gb/session.py`), forwarding to Kafka and the standard's answers.

The JT/T 808 connection's guarantees, on the same building blocks (`FlowControlledConnection` of
gateway/flow.py, `UplinkPipeline`, `HostileInputLog`, the admission pool): frames are handled strictly in
arrival order; while the VIN lookup of a login, a
back-pressure pause or a flood pause is under way, further frames wait in `_pending` and reading from the
socket pauses, so memory per connection stays bounded by one read plus `FrameReader`'s `max_frame_bytes`.
Nothing a terminal sends raises out of `data_received`: every bad input is counted, logged at a bounded
rate as truncated hex, and answered with the error flag (0x02) where the family has one.

A GB/T 32960 inferior platform (platform-spec §2, the gb32960 exchange's inferiorPlatform; GB/T 32960.3-2016
§7.5) logs in on the same port with a platform login 0x05 (username and password of an enabled
gb32960_inferior_platform row, compared in constant time; answered 0x01 with the login's time, else 0x02 and
closed), then relays real-time 0x02 / back-filled 0x03 data of many vehicles: each frame's VIN is looked up among
the cars of the platform's enterprise tree (cached per connection), forwarded as that vehicle's uplink and
answered after Kafka as a terminal's; an unknown or ambiguous VIN is answered 0x02; a platform with an AES key
(migration 0068) may send its data units AES-128 encrypted: decrypted here (protocols/gb32960/cipher.py), the clear
frame is forwarded, one that does not decrypt is answered 0x02 (`undecryptable`); heartbeat 0x07 is answered at
once; a platform logout 0x06 is answered and the connection closed. No vehicle session (online / offline) is
emitted for relayed vehicles: the platform's link is not the vehicle's. The platform's link (online / offline,
frames, VINs, last error) and its login / logout / refusals are noted for `gateway/gb/inferior_links.py`, which
writes them every few seconds (a relayed frame only bumps `relay_frames` / `relay_last_rx`).
"""

from __future__ import annotations

import asyncio
import hmac
import logging
from collections import deque
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, cast

from fleet.gb32960_records import GbUplink
from fleet.topics import DEVICE_SESSIONS, GB32960_UPLINK
from gateway.flow import FlowControlledConnection
from gateway.gb.inferior_links import (
    AMBIGUOUS_VIN,
    PLATFORM_DISABLED,
    UNDECRYPTABLE,
    UNKNOWN_VIN,
    WRONG_PASSWORD,
    utc_now,
)
from gateway.gb.session import (
    LOGIN,
    POLICIES,
    PORT_PROTOCOLS,
    Answer,
    AnswerBody,
    CommandPolicy,
    Forward,
    Login,
    Refusal,
    Refuse,
    answers_exist,
    classify,
    decide_login,
)
from gateway.gb.vehicles import InferiorPlatform, VehicleTerminal
from gateway.hostile_log import HexDump
from gateway.payloads import TerminalIdentity, session_value, utc_now_iso
from protocols.gb32960 import (
    ChecksumError,
    Encryption,
    FrameReader,
    GB32960Error,
    Header,
    Message,
    Protocol,
    Response,
    decode_frame,
    encode_frame,
)
from protocols.gb32960.catalogue import HEARTBEAT, PLATFORM_LOGIN, PLATFORM_LOGOUT, REALTIME, REISSUED
from protocols.gb32960.cipher import decrypt_frame
from protocols.gb32960.framing import HEADER_BYTES
from protocols.gb32960.jsonify import to_json
from protocols.gb32960.messages import PlatformLogin
from protocols.gb32960.values import TIME_BYTES, write_time

if TYPE_CHECKING:
    from gateway.gb.server import GbContext

log = logging.getLogger("gateway.gb.connection")


class GbConnection(FlowControlledConnection):
    ctx: GbContext

    def __init__(self, ctx: GbContext, connection_id: str, family: str) -> None:
        self.ctx = ctx
        self._init_flow()
        self.connection_id = connection_id
        self.family = family  # "gb32960" (port 7617) or "gb17691" (port 7618): how a ## frame is read
        self._protocol = Protocol.GB17691 if family == "gb17691" else None
        self._reader = FrameReader(ctx.settings.max_frame_bytes)
        self._pending: deque[bytes | GB32960Error] = deque()
        self.terminal: VehicleTerminal | None = None  # set by a successful login
        self.platform: InferiorPlatform | None = None  # set by an inferior platform's successful login
        self._relayed: dict[str, VehicleTerminal] = {}  # an inferior platform's vehicles by VIN
        # an inferior platform's link counts, read every few seconds by gateway/gb/inferior_links.py
        self.relay_frames = 0
        self.relay_last_rx: float | None = None
        self.relay_vins: set[str] = set()
        self.peer: str | None = None
        self.opened_at = 0.0
        self.hostile_logged = 0
        self.hostile_suppressed = 0
        self._received_at: str | None = None  # receive time shared by the frames of one read
        self.frame_protocol: Protocol | None = None  # the login's framing (## 2016 / $$ 2025): platform commands use it
        # The login this session was accepted with, while a copy of it may come again (`_login_resent`):
        # its bytes and header, whether Kafka stored it, and how many copies came while it was on its way there.
        self._login_frame: bytes | None = None
        self._login_header: Header | None = None
        self._login_stored = False
        self._login_resends = 0

    @property
    def vin(self) -> str | None:
        return self.terminal.vin if self.terminal else None

    @property
    def who(self) -> str | None:
        return self.vin if self.platform is None else f"platform {self.platform.name}"

    @property
    def identity(self) -> TerminalIdentity | None:
        """The device.sessions.v1 identity: the device's phone, as a JT/T 808 terminal's (streams.states
        keys on device_id; the phone is the record's key and shown in logs)."""
        t = self.terminal
        return None if t is None else TerminalIdentity(t.phone, t.device_id, t.car_id, t.enterprise_id)

    # ------------------------------------------------------------------ asyncio callbacks

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        transport = cast(asyncio.Transport, transport)
        self._transport = transport
        transport.set_write_buffer_limits(high=self.ctx.settings.write_buffer_bytes)
        peer = transport.get_extra_info("peername")
        self.peer = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) and len(peer) >= 2 else None
        self.last_rx_at = self._window_start = self.opened_at = self.ctx.loop.time()
        if not self.ctx.connection_opened(self):
            self.ctx.counters.unauthenticated_refused += 1
            self.log_hostile(logging.WARNING, "conn %s (%s): its host is over its share of the %d connections "
                             "waiting to log in, closing", self.connection_id, self.peer,
                             self.ctx.settings.unauthenticated_max)
            self.close("refused", abort=True)

    def data_received(self, data: bytes) -> None:
        ctx = self.ctx
        self.last_rx_at = ctx.loop.time()
        ctx.counters.bytes_in += len(data)
        self._received_at = None
        self._in_read = True
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

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self._pending.clear()
        self.ctx.pipeline.forget(self)
        if self.ctx.downlinks is not None:
            self.ctx.downlinks.closed(self)
        if self.terminal is not None and self.ctx.registry.release(self):
            self.emit_session("offline", self._close_reason or "closed")
        if self.platform is not None:
            self.ctx.inferior_links.closed(self, utc_now(), self.ctx.loop.time())
        self.ctx.hostile_log.summary(log, self, "conn %s (%s)", self.connection_id, self.peer)
        self.ctx.connection_closed(self)

    # ------------------------------------------------------------------ frames

    def _handle(self, item: bytes | GB32960Error) -> None:
        counters = self.ctx.counters
        if isinstance(item, GB32960Error):  # garbage before a start, or a header announcing an oversize frame
            counters.framing_errors += 1
            self.log_hostile(logging.WARNING, "conn %s (%s): framing error: %s", self.connection_id, self.vin, item)
            return
        self._count_frame()
        try:
            msg = decode_frame(item, protocol=self._protocol)
        except GB32960Error as exc:
            self._on_bad_frame(item, exc)
            return
        if self.family == "gb32960" and self.terminal is None and (
                self.platform is not None or msg.header.command == PLATFORM_LOGIN):
            self._platform_frame(msg)
            return
        verdict = classify(self.family, self.vin, msg.header)
        if isinstance(verdict, Refuse):
            self._refuse(msg.header, item, verdict.reason, verdict.flag)
        elif isinstance(verdict, Login):
            if msg.raw == self._login_frame:
                self._login_resent()
            else:
                self._start_login(msg)
        else:
            assert isinstance(verdict, Forward)
            self._forward(msg, verdict.policy)
            if not msg.header.is_command and self.ctx.downlinks is not None:  # an answer to a platform command
                self.ctx.downlinks.on_answer(self, msg.header, msg.raw)

    def _on_bad_frame(self, frame: bytes, exc: GB32960Error) -> None:
        """Bad BCC, a length that does not match, or a data unit that does not fit its layout: not
        forwarded; answered 0x02 (GB/T 32960.3-2016 table 5 "error") when the header is readable and the
        frame is a command of a family with an answer flag."""
        counters = self.ctx.counters
        if isinstance(exc, ChecksumError):
            counters.bad_checksum += 1
        else:
            counters.decode_errors += 1
        self.log_hostile(logging.WARNING, "conn %s (%s): %s: %s", self.connection_id, self.vin, str(exc)[:200],
                         self._dump(frame))
        header = exc.header
        if header is not None and answers_exist(self.family) and header.is_command:
            self._answer(header, Response.ERROR, _command_time(header, frame))

    def _refuse(self, header: Header, frame: bytes, reason: Refusal, flag: int | None) -> None:
        counters = self.ctx.counters
        name = f"refused_{reason.value}"
        setattr(counters, name, getattr(counters, name) + 1)
        self.log_hostile(logging.WARNING if reason is not Refusal.NOT_LOGGED_IN else logging.INFO,
                         "conn %s (%s): 0x%02X of VIN %r refused (%s): %s", self.connection_id, self.peer,
                         header.command, header.vin[:17], reason.value, self._dump(frame))
        if flag is not None:
            self._answer(header, flag, _command_time(header, frame))

    def _dump(self, frame: bytes) -> HexDump:
        # a 32960 platform login (0x05) carries a password: its header only
        if self.family == "gb32960" and len(frame) > 2 and frame[2] == PLATFORM_LOGIN:
            frame = frame[:HEADER_BYTES]
        return self.ctx.hostile_log.hex(frame)

    # ------------------------------------------------------------------ login

    def _start_login(self, msg: Message) -> None:
        """Look the VIN up; frames behind the login wait (order is kept) and reading pauses."""
        self._busy = True
        self._update_reading()
        self.ctx.loop.create_task(self._login(msg))

    async def _login(self, msg: Message) -> None:
        ctx = self.ctx
        header = msg.header
        try:
            try:
                async with asyncio.timeout(ctx.settings.db_timeout_s):
                    found = await ctx.directory.find(header.vin, PORT_PROTOCOLS[self.family])
            except Exception as exc:  # database down, a timeout: an error answer, the terminal logs in again
                ctx.counters.db_errors += 1
                log.warning("conn %s (%s): VIN lookup of %r failed: %r", self.connection_id, self.peer,
                            header.vin[:17], exc)
                if not self.closed:
                    self._refuse_login(header, msg.raw, Refusal.LOOKUP_FAILED)
                return
            if self.closed:
                return
            holder = ctx.registry.get(header.vin)
            silent_s = None if holder is None or holder is self else ctx.loop.time() - holder.last_rx_at
            decision = decide_login(len(found), silent_s, ctx.settings.takeover_silence_s)
            if not decision.accepted:
                assert decision.refusal is not None
                self._refuse_login(header, msg.raw, decision.refusal)
                return
            if decision.takeover and holder is not None:
                ctx.counters.replaced += 1
                log.warning("conn %s (%s): VIN %s logs in again; its connection %s (%s), silent %.0fs, is replaced",
                            self.connection_id, self.peer, header.vin, holder.connection_id, holder.peer, silent_s)
                holder.replaced()
            if self.terminal is None:
                self.terminal = found[0]
                self.frame_protocol = header.protocol
                ctx.registry.claim(self)
                ctx.connection_authenticated(self)
                self.emit_session("online", "login")
            self._login_frame, self._login_header, self._login_stored, self._login_resends = msg.raw, header, False, 0
            self._forward(msg, LOGIN, login=True)
        finally:
            self._busy = False
            if not self.closed:
                self._drain()

    def _login_resent(self) -> None:
        """The accepted login again, byte for byte (its time and serial too): the terminal sent it again
        because our answer was late, or it crossed the answer on the wire. It gets the answer the first copy
        got (GB/T 32960.3-2016 §6.3.2: success with the login's time), once Kafka stored that copy, and is
        neither looked up nor forwarded again: a second record of one login, and a VIN lookup per resent login
        of a reconnect storm. A login that differs in any byte (a new serial) is a new login."""
        if self._login_stored:
            self._answer_login_copy()
        else:
            self._login_resends += 1

    def _login_done(self, stored: bool) -> None:
        """The accepted login's Kafka delivery: the copies that came meanwhile get its answer; when Kafka
        did not store it, they get none, and the next copy is a login to handle again."""
        waiting, self._login_resends = self._login_resends, 0
        if not stored:
            self._login_frame = self._login_header = None
            return
        self._login_stored = True
        for _ in range(waiting):
            self._answer_login_copy()

    def _answer_login_copy(self) -> None:
        self.ctx.counters.login_resends_answered += 1  # given the first copy's outcome (GB 17691: no answer flag)
        header, frame = self._login_header, self._login_frame
        if header is not None and frame is not None and answers_exist(self.family):  # GB 17691: no answer flag
            self._answer(header, Response.SUCCESS, self._answer_body(LOGIN, header, frame))

    def _refuse_login(self, header: Header, frame: bytes, reason: Refusal) -> None:
        if answers_exist(self.family):
            flag = Response.VIN_DUPLICATE if reason is Refusal.VIN_DUPLICATE else Response.ERROR
            self._refuse(header, frame, reason, flag)
        else:  # GB 17691 has no answer flag: the only way to tell the terminal is to hang up
            self._refuse(header, frame, reason, None)
            self.close("refused")

    # ------------------------------------------------------------------ inferior platforms

    def _platform_frame(self, msg: Message) -> None:
        """A frame of a GB/T 32960 inferior platform's connection (or its login)."""
        header = msg.header
        if header.command == PLATFORM_LOGIN and header.is_command:
            if self.platform is not None:
                self._refuse(header, msg.raw, Refusal.UNSUPPORTED, Response.ERROR)
                return
            self._busy = True
            self._update_reading()
            self.ctx.loop.create_task(self._platform_login(msg))
        elif self.platform is None:
            self._refuse(header, msg.raw, Refusal.NOT_LOGGED_IN, Response.ERROR)
        elif header.command == HEARTBEAT and header.is_command:
            self._answer(header, Response.SUCCESS, b"")
        elif header.command == PLATFORM_LOGOUT and header.is_command:
            answer = self._answer(header, Response.SUCCESS, _command_time(header, msg.raw))
            self._log_platform(self.platform.id, msg, answer, Response.SUCCESS, None)
            self.close("logout")
        elif header.command in (REALTIME, REISSUED) and header.is_command:
            if header.encryption == Encryption.AES128 and self.platform.key is not None:
                clear = self._decrypted(msg, self.platform)
                if clear is None:
                    return
                msg, header = clear, clear.header
            terminal = self._relayed.get(header.vin)
            if terminal is not None:
                self.relay_frames += 1
                self.relay_last_rx = self.last_rx_at
                self._forward(msg, POLICIES["gb32960"][header.command], terminal=terminal)
                return
            self._busy = True
            self._update_reading()
            self.ctx.loop.create_task(self._relay_lookup(msg, self.platform))
        else:
            self._refuse(header, msg.raw, Refusal.UNSUPPORTED, Response.ERROR if header.is_command else None)

    def _decrypted(self, msg: Message, platform: InferiorPlatform) -> Message | None:
        """An inferior platform's AES data unit decrypted with its key (protocols/gb32960/cipher.py): the clear
        frame is what is forwarded, so every reader after the gateway sees it as if sent in clear. None when it
        does not decrypt or decode (refused 0x02, named on the platform's row)."""
        assert platform.key is not None
        try:
            return decode_frame(decrypt_frame(msg.raw, platform.key), protocol=self._protocol)
        except GB32960Error:
            self._refuse(msg.header, msg.raw, Refusal.UNDECRYPTABLE, Response.ERROR)
            self.ctx.inferior_links.refused(platform.id, UNDECRYPTABLE, utc_now())
            return None

    async def _platform_login(self, msg: Message) -> None:
        ctx = self.ctx
        header, body = msg.header, msg.body
        try:
            found = None
            if isinstance(body, PlatformLogin):
                try:
                    async with asyncio.timeout(ctx.settings.db_timeout_s):
                        found = await ctx.directory.inferior_platform(body.user)
                except Exception as exc:
                    ctx.counters.db_errors += 1
                    log.warning("conn %s (%s): platform account lookup failed: %r", self.connection_id, self.peer, exc)
                    if not self.closed:
                        self._refuse(header, msg.raw, Refusal.LOOKUP_FAILED, Response.ERROR)
                    return
            if self.closed:
                return
            reason = None
            if found is None or not hmac.compare_digest(found[1].encode(), body.password.encode()):
                reason = WRONG_PASSWORD
            elif not found[0].enabled:
                reason = PLATFORM_DISABLED
            if reason is not None:
                self._refuse(header, msg.raw, Refusal.PLATFORM_LOGIN, None)
                answer = self._answer(header, Response.ERROR, _command_time(header, msg.raw))
                if found is not None:
                    ctx.inferior_links.refused(found[0].id, reason, utc_now())
                    if ctx.inferior_links.log_refusal(found[0].id):
                        self._log_platform(found[0].id, msg, answer, Response.ERROR, reason)
                elif isinstance(body, PlatformLogin):  # a username no platform has: the unknown logins' table
                    ctx.inferior_links.unknown_login(body.user, self.peer, utc_now())
                    ctx.counters.inferior_unknown_dropped = ctx.inferior_links.dropped_unknown
                self.close("refused")
                return
            assert found is not None
            self.platform = found[0]
            ctx.connection_authenticated(self)
            log.info("conn %s (%s): inferior platform %s (%s) logged in", self.connection_id, self.peer,
                     found[0].id, found[0].name)
            answer = self._answer(header, Response.SUCCESS, _command_time(header, msg.raw))
            ctx.inferior_links.logged_in(found[0].id, self, utc_now())
            self._log_platform(found[0].id, msg, answer, Response.SUCCESS, None)
        finally:
            self._busy = False
            if not self.closed:
                self._drain()

    async def _relay_lookup(self, msg: Message, platform: InferiorPlatform) -> None:
        ctx = self.ctx
        header = msg.header
        try:
            try:
                async with asyncio.timeout(ctx.settings.db_timeout_s):
                    found = await ctx.directory.find(header.vin, PORT_PROTOCOLS["gb32960"],
                                                     platform.enterprise_id)
            except Exception as exc:
                ctx.counters.db_errors += 1
                log.warning("conn %s (%s): VIN lookup of %r failed: %r", self.connection_id, self.peer,
                            header.vin[:17], exc)
                if not self.closed:
                    self._refuse(header, msg.raw, Refusal.LOOKUP_FAILED, Response.ERROR)
                return
            if self.closed:
                return
            if len(found) != 1:
                refusal = Refusal.UNKNOWN_VIN if not found else Refusal.AMBIGUOUS_VIN
                self._refuse(header, msg.raw, refusal, Response.ERROR)
                ctx.inferior_links.refused(platform.id, UNKNOWN_VIN if not found else AMBIGUOUS_VIN, utc_now())
                return
            if len(self._relayed) >= ctx.settings.max_relayed_vehicles:
                self._relayed.clear()  # bounded memory: the cache starts again
            self._relayed[header.vin] = found[0]
            if len(self.relay_vins) < ctx.settings.max_relayed_vehicles:  # bounded: the count stops there
                self.relay_vins.add(header.vin)
            self.relay_frames += 1
            self.relay_last_rx = self.last_rx_at
            self._forward(msg, POLICIES["gb32960"][header.command], terminal=found[0])
        finally:
            self._busy = False
            if not self.closed:
                self._drain()

    def _log_platform(self, platform_id: int, msg: Message, answer: bytes | None, flag: int,
                      reason: str | None) -> None:
        """An inferior platform's login / logout and our answer, for its frame log (migration 0062): a 0x05's
        password and bytes are never kept."""
        ctx, at = self.ctx, utc_now()
        decoded = to_json(msg)
        body = decoded.get("body")
        if isinstance(body, dict):
            body.pop("password", None)
        login = msg.header.command == PLATFORM_LOGIN
        ctx.inferior_links.message(platform_id, "up", msg.header.command, decoded, "" if login else msg.raw.hex(), at)
        reply: dict[str, Any] = {"header": {"command": f"0x{msg.header.command:02X}", "response": flag},
                                 "result": "success" if flag == Response.SUCCESS else "error"}
        if reason is not None:
            reply["reason"] = reason
        ctx.inferior_links.message(platform_id, "down", msg.header.command, reply, (answer or b"").hex(), at)
        ctx.counters.inferior_log_dropped = ctx.inferior_links.dropped_messages

    def replaced(self) -> None:
        """Another connection logged in as this vehicle (this one was silent): end this session first."""
        self.emit_session("offline", "replaced")
        self.ctx.registry.release(self)
        self.terminal = None
        self.close("replaced", abort=True)

    # ------------------------------------------------------------------ forwarding

    def _forward(self, msg: Message, policy: CommandPolicy, *, login: bool = False,
                 terminal: VehicleTerminal | None = None) -> None:
        """``terminal``: the vehicle an inferior platform relays (default: the connection's own)."""
        ctx = self.ctx
        terminal = terminal or self.terminal
        assert terminal is not None
        header = msg.header
        if self._received_at is None:
            self._received_at = utc_now_iso()
        value = GbUplink(protocol=terminal.protocol, vin=terminal.vin, device_id=terminal.device_id,
                         car_id=terminal.car_id, enterprise_id=terminal.enterprise_id, command=header.command,
                         response=header.response, frame_protocol=header.protocol.value, raw_hex=msg.raw.hex(),
                         message=to_json(msg), connection_id=self.connection_id,
                         gateway_id=ctx.settings.gateway_id, received_at=self._received_at).encode()
        if policy.answer is Answer.AT_ONCE:
            self._answer(header, Response.SUCCESS, self._answer_body(policy, header, msg.raw))
        self.in_flight += 1
        ctx.counters.frames_forwarded += 1

        def on_done(stored: bool) -> None:
            self.in_flight -= 1
            if stored and not self.closed:
                if login:
                    ctx.counters.logins += 1
                if policy.answer is Answer.AFTER_KAFKA and answers_exist(self.family):
                    ctx.counters.answers_after_kafka += 1
                    self._answer(header, Response.SUCCESS, self._answer_body(policy, header, msg.raw))
                if policy.ends_session:
                    self._logged_out()
            if login and not self.closed:
                self._login_done(stored)
            if not self.closed and self._pending and not self._blocked():
                self._drain()
            elif not self.closed:
                self._update_reading()

        ctx.pipeline.submit(GB32960_UPLINK, terminal.vin.encode(), value, on_done)

    def write_downlink(self, frame: bytes) -> None:
        """A platform command framed by gateway/gb/downlinks.py, written in order with the answers."""
        self._write(frame)

    def _logged_out(self) -> None:
        """A stored logout ends the session (offline, reason logout), then the connection closes."""
        if self.terminal is not None and self.ctx.registry.release(self):
            self.emit_session("offline", "logout")
        self.terminal = None
        self.close("logout")

    def _answer_body(self, policy: CommandPolicy, header: Header, frame: bytes) -> bytes:
        if policy.body is AnswerBody.PLATFORM_TIME:
            return write_time(datetime.now(UTC))
        if policy.body is AnswerBody.COMMAND_TIME:
            return _command_time(header, frame)
        return b""

    def _answer(self, header: Header, flag: int, data: bytes) -> bytes | None:
        """The standard's answer to `header`'s command: same command and VIN, the response flag (GB/T
        32960; none in a GB 17691 header), no encryption, `data` as the data unit."""
        try:
            frame = encode_frame(header.command, data, vin=header.vin, protocol=header.protocol, response=flag,
                                 software_version=header.software_version or 0)
        except ValueError as exc:  # e.g. a VIN that does not fit
            self.ctx.counters.internal_errors += 1
            self.log_hostile(logging.WARNING, "conn %s: cannot answer 0x%02X: %s", self.connection_id,
                             header.command, exc)
            return None
        self._write(frame)
        return frame

    # ------------------------------------------------------------------ sessions, logging

    def log_hostile(self, level: int, msg: str, *args: object) -> None:
        self.ctx.hostile_log.log(log, level, self, msg, *args)

    def emit_session(self, event: str, reason: str) -> None:
        identity = self.identity
        if identity is None:
            return
        ctx = self.ctx
        value = session_value(identity, event=event, reason=reason, connection_id=self.connection_id,
                              gateway_id=ctx.settings.gateway_id, peer=self.peer)
        ctx.pipeline.submit(DEVICE_SESSIONS, identity.phone.encode(), value)

    # ------------------------------------------------------------------ sweep

    def sweep(self, now: float) -> None:
        """Called periodically by the server: login deadline and idle timeout."""
        settings = self.ctx.settings
        if self.terminal is None and self.platform is None and now - self.opened_at >= settings.login_deadline_s:
            self.ctx.counters.login_deadline_closed += 1
            self.log_hostile(logging.INFO, "conn %s (%s): no vehicle login %.0fs after connecting, closing",
                             self.connection_id, self.peer, now - self.opened_at)
            self.close("login_deadline", abort=True)
            return
        if self._reading_paused:
            self.last_rx_at = now  # our own back-pressure keeps the terminal's bytes in the socket
        elif now - self.last_rx_at >= settings.idle_timeout_s:
            self.ctx.counters.idle_timeouts += 1
            log.info("conn %s (%s): idle for %.0fs, closing", self.connection_id, self.vin, now - self.last_rx_at)
            self.close("idle_timeout", abort=True)


def _command_time(header: Header, frame: bytes) -> bytes:
    """The answer's data unit for a command whose data unit starts with its time (login, real-time,
    back-filled, logout: GB/T 32960.3-2016 §6.3.2): those 6 bytes; empty for an encrypted data unit
    (no keys here) or a shorter one."""
    if header.encrypted or header.length < TIME_BYTES or len(frame) < HEADER_BYTES + TIME_BYTES:
        return b""
    return bytes(frame[HEADER_BYTES:HEADER_BYTES + TIME_BYTES])
