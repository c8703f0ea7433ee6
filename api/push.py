"""Console push: console.events.v1 (routed by ``api.push_hub``) over STOMP 1.2 on the ``/wss/stomp`` WebSocket,
and over SockJS's websocket transport under ``/wss/stomp/`` (console-spec §7; ``api.sockjs`` frames it).

Each WebSocket is served by its own thread plus a small reader thread; under gunicorn's gevent
worker (``api.server``, how ``python -m api`` runs) these "threads" are greenlets, so a thousand
sockets cost no OS threads and never starve REST requests. The hub never writes to a socket: it appends to the connection's bounded ``Outbox`` and
wakes the connection's thread, so a slow client delays only itself. When an outbox is full the
oldest position batch goes first; pushes (``/message``) are dropped only when no position batch
is left to drop.

Guards: a foreign ``Origin`` gets 403 before the upgrade; a WebSocket message over
64 KiB (the STOMP frame limit) is refused by simple-websocket while it arrives (close 1009);
a socket without CONNECT is closed after ``stomp_connect_timeout_s``; sockets per address and
sessions per user are capped (``api.push_guard``); a connected session re-verifies its token
every ``stomp_token_check_s`` and ends with an ERROR once it is expired or revoked.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

from api.addresses import address_key
from api.push_guard import (
    ConnectionLimits,
    PushOptions,
    origin_allowed,
    per_user_admission,
    refuse,
    session_user,
)
from api.push_hub import (
    OUTBOX_CAPACITY,
    Outbox,
    Outgoing,
    PushHub,
    kafka_source_starter,
)
from api.sockjs import HEARTBEAT_S as SOCKJS_HEARTBEAT_S
from api.sockjs import SockJsSocket, info, valid_ids
from api.stomp import (
    BASIC_PREFIX,
    MAX_FRAME_BYTES,
    AuthenticationFailed,
    Frame,
    FrameParser,
    PrincipalLike,
    StompError,
    StompSession,
    serialize,
)

log = logging.getLogger(__name__)

PUSH_PATH = "/wss/stomp"
# SockJS under the same prefix (api.sockjs): the info call and the websocket transport.
SOCKJS_INFO_PATH = PUSH_PATH + "/info"
SOCKJS_WEBSOCKET_PATH = PUSH_PATH + "/<server>/<session>/websocket"
SERVER_HEARTBEAT_MS = (10000, 10000)  # we can send every 10 s; we want the client's every 10 s
CONNECT_TIMEOUT_S = 5.0  # a socket that sends no CONNECT by then is closed (default of PushOptions)
TOKEN_CHECK_S = 30.0  # a connected session re-verifies its access token this often


class WebSocketLike(Protocol):
    def send(self, data: str | bytes) -> None: ...

    def receive(self, timeout: float | None = None) -> str | bytes | None: ...

    def close(self, reason: int | None = None, message: str | None = None) -> None: ...


class StompConnection:
    """Serves one WebSocket: STOMP frames in, replies, MESSAGEs and heart-beats out.

    ``run`` returns when the client disconnects, the session errs, the client stays silent for
    more than twice its negotiated heart-beat interval, or its token fails a re-verification.
    ``limits`` (optional) gets back the session's per-user slot when the connection ends.
    """

    def __init__(
        self,
        ws: WebSocketLike,
        session: StompSession,
        hub: PushHub,
        *,
        outbox_capacity: int = OUTBOX_CAPACITY,
        connect_timeout_s: float = CONNECT_TIMEOUT_S,
        token_check_s: float = TOKEN_CHECK_S,
        limits: ConnectionLimits | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.ws = ws
        self.session = session
        self.hub = hub
        self.outbox = Outbox(outbox_capacity)
        self.kinds: frozenset[str] = frozenset()
        self._connect_timeout_s = connect_timeout_s
        self._token_check_s = token_check_s
        self._limits = limits
        self._next_check = 0.0
        self._clock = clock
        self._parser = FrameParser()
        self._cond = threading.Condition()
        self._inbox: deque[str | bytes] = deque()
        self._peer_closed = False
        self._attached = False

    @property
    def enterprise_id(self) -> int:
        return int(self.session.principal.enterprise_id)

    @property
    def user_id(self) -> int | None:
        """The signed-in user; None for an open platform app's session (it sends no console commands)."""
        principal = self.session.principal
        if getattr(principal, "app_id", None) is not None:
            return None
        user_id = getattr(principal, "user_id", None)
        return int(user_id) if isinstance(user_id, int) else None

    def offer(self, item: Outgoing) -> None:
        with self._cond:
            self.outbox.put(item)
            self._cond.notify()

    def run(self) -> None:
        reader = threading.Thread(target=self._read, name="stomp-reader", daemon=True)
        reader.start()
        started = self._last_rx = self._last_tx = self._clock()
        try:
            while True:
                with self._cond:
                    if not (self._inbox or self.outbox or self._peer_closed):
                        self._cond.wait(self._wait_s(started))
                    inbound = list(self._inbox)
                    self._inbox.clear()
                    outbound = self.outbox.drain()
                    peer_closed = self._peer_closed
                if inbound:
                    self._last_rx = self._clock()
                    self._receive(inbound)
                self._reverify()
                if not self.session.closing:
                    for item in outbound:
                        self._send(self.session.message_frames(item.kind, item.body_for(self.session.language)))
                if self.session.closing or peer_closed or self._timed_out(started):
                    return
                self._beat()
        finally:
            if self._attached:
                self.hub.detach(self)
            if self._limits is not None and self.session.admitted:
                self._limits.end_session(session_user(self.session.principal))
            self._close()

    def _read(self) -> None:
        """Relays the socket into the inbox, so the serving thread can wait on one condition."""
        try:
            while True:
                data = self.ws.receive()
                if data is not None:
                    with self._cond:
                        self._inbox.append(data)
                        self._cond.notify()
        except Exception as exc:  # simple_websocket.ConnectionClosed, or a socket error
            log.debug("stomp reader ends: %r", exc)
        finally:
            with self._cond:
                self._peer_closed = True
                self._cond.notify()

    def _receive(self, inbound: list[str | bytes]) -> None:
        for data in inbound:
            try:
                frames = self._parser.feed(data.encode() if isinstance(data, str) else data)
            except StompError as exc:
                self._send(self.session.error("STOMP 帧格式错误 (malformed frame)", detail=str(exc)))
                return
            for frame in frames:
                replies = self.session.handle(frame)
                self.kinds = self.session.kinds
                if self.kinds and not self._attached:
                    self.hub.attach(self)  # before the RECEIPT: once subscribed, nothing is missed
                    self._attached = True
                self._send(replies)
                if self.session.closing:
                    return

    def _send(self, frames: list[Frame]) -> None:
        for frame in frames:
            self.ws.send(serialize(frame).decode())
            self._last_tx = self._clock()

    def _reverify(self) -> None:
        """Every ``token_check_s`` once connected: the token must still verify (expiry, revocation)."""
        if not self.session.connected or self.session.closing:
            return
        now = self._clock()
        if not self._next_check:
            self._next_check = now + self._token_check_s
        elif now >= self._next_check:
            self._next_check = now + self._token_check_s
            try:
                replies = self.session.reverify()
            except Exception:  # the database is down: expiry is still checked (no lookup), retry later
                log.warning("could not re-verify a STOMP session's token; keeping it", exc_info=True)
                return
            self._send(replies)

    def _beat(self) -> None:
        send_ms = self.session.heartbeat[0]
        if send_ms and self._clock() - self._last_tx >= send_ms / 1000:
            self.ws.send("\n")
            self._last_tx = self._clock()

    def _timed_out(self, started: float) -> bool:
        now = self._clock()
        if not self.session.connected:
            if now - started >= self._connect_timeout_s:
                self._send(self.session.error(f"{self._connect_timeout_s:g} 秒内未收到 CONNECT 帧 "
                                               f"(no CONNECT frame within {self._connect_timeout_s:g} s)"))
                return True
            return False
        expect_ms = self.session.heartbeat[1]
        if expect_ms and now - self._last_rx > 2 * expect_ms / 1000:
            log.info("closing STOMP connection silent for more than 2 x %d ms", expect_ms)
            return True
        return False

    def _wait_s(self, started: float) -> float:
        now = self._clock()
        if not self.session.connected:
            return max(0.0, started + self._connect_timeout_s - now)
        send_ms, expect_ms = self.session.heartbeat
        deadlines = [3600.0, self._next_check - now if self._next_check else self._token_check_s]
        if send_ms:
            deadlines.append(self._last_tx + send_ms / 1000 - now)
        if expect_ms:
            deadlines.append(self._last_rx + 2 * expect_ms / 1000 - now + 0.001)
        return max(0.0, min(deadlines))

    def _close(self) -> None:
        try:
            self.ws.close()
        except Exception as exc:  # already closed by the peer
            log.debug("closing websocket: %r", exc)


def token_authenticator(app_or_settings: Any, address: str = "") -> Callable[[str], PrincipalLike]:
    """Adapts the API's ``verify_access_token`` to the session's ``authenticate``; a CONNECT's
    ``Basic`` credentials (``"Basic ..."``, ``api.stomp.bearer_token``) go to ``api.basic_auth``,
    which accepts them only under authorization protocol 1 (console-spec §7), counting a wrong
    password from ``address`` in the sign-in throttle."""
    from flask import Flask

    from api.auth import AuthError, verify_access_token
    from api.basic_auth import BASIC_REFUSED, basic_principal
    from api.errors import ApiError

    def authenticate(token: str) -> PrincipalLike:
        principal: PrincipalLike
        try:
            if token.startswith(BASIC_PREFIX):
                if not isinstance(app_or_settings, Flask):
                    raise AuthError(BASIC_REFUSED)
                principal = basic_principal(app_or_settings, token[len(BASIC_PREFIX):], address)
            else:
                principal = verify_access_token(app_or_settings, token)
        except AuthError as exc:
            raise AuthenticationFailed(str(exc) or AuthError.default_message) from None
        except ApiError as exc:  # wrong Basic password (401), throttled (429), password checks busy (503)
            raise AuthenticationFailed(exc.message) from None
        return principal

    return authenticate


STOMP_SUBPROTOCOLS = ("v12.stomp", "v11.stomp", "v10.stomp")


def register_push(
    app: Any,
    sock: Any = None,
    *,
    kafka_bootstrap: str | None = None,
    authenticate: Callable[[str], PrincipalLike] | None = None,
    hub: PushHub | None = None,
    server_heartbeat_ms: tuple[int, int] = SERVER_HEARTBEAT_MS,
    outbox_capacity: int = OUTBOX_CAPACITY,
    options: PushOptions | None = None,
    sockjs_heartbeat_s: float = SOCKJS_HEARTBEAT_S,
) -> PushHub:
    """Adds the STOMP route ``/wss/stomp`` to ``app`` (on ``sock``, a ``flask_sock.Sock``; one is
    made when None), and SockJS beside it (``GET /wss/stomp/info``, the websocket transport
    ``/wss/stomp/<server>/<session>/websocket`` with ``h`` every ``sockjs_heartbeat_s``: the same
    STOMP connection behind ``api.sockjs.SockJsSocket``), and returns its hub, also kept in
    ``app.extensions["fleet_push"]``.

    Nothing connects to Kafka here: the consumer starts on the first subscription.
    ``kafka_bootstrap`` defaults to ``fleet.settings.kafka_bootstrap()``; ``authenticate`` to the
    API's ``verify_access_token(app, token)``, or Basic under authorization protocol 1 (``token_authenticator``); ``options`` to the app's ``ApiSettings``
    (``app.config["FLEET_API_SETTINGS"]``). Raises nothing; a refused upgrade is a 403 envelope.
    """
    from flask import request
    from flask_sock import Sock

    from api.errors import Forbidden, request_language

    if sock is None:
        sock = Sock(app)
    if options is None:
        options = PushOptions.from_settings(app.config.get("FLEET_API_SETTINGS"))
    # Browsers (stompjs) offer STOMP's WebSocket subprotocols and refuse a handshake that selects
    # none of them; flask-sock hands these options to simple-websocket at each handshake. The
    # message cap makes simple-websocket drop a message over the STOMP frame limit as it arrives
    # (close 1009) instead of buffering megabytes for the STOMP parser to refuse.
    server_options = dict(app.config.get("SOCK_SERVER_OPTIONS", {}))
    server_options.setdefault("subprotocols", list(STOMP_SUBPROTOCOLS))
    server_options.setdefault("max_message_size", MAX_FRAME_BYTES)
    app.config["SOCK_SERVER_OPTIONS"] = server_options
    if hub is None:
        if kafka_bootstrap is None:
            from fleet.settings import kafka_bootstrap as configured_bootstrap

            kafka_bootstrap = configured_bootstrap()
        hub = PushHub(kafka_source_starter(kafka_bootstrap))
    app.extensions["fleet_push"] = hub
    fixed_auth = authenticate
    push_hub = hub
    push_options = options
    limits = ConnectionLimits(options.max_per_address, options.max_per_user)
    app.extensions["fleet_push_limits"] = limits
    admit = per_user_admission(limits)

    @app.before_request
    def check_websocket_origin() -> None:
        # Before the upgrade: a page of another site must not open a socket with the user's
        # token (a WebSocket is not subject to CORS; the browser always sends Origin). The SockJS
        # paths under /wss/stomp/ get the same check.
        if request.path != PUSH_PATH and not request.path.startswith(PUSH_PATH + "/"):
            return
        origin = request.headers.get("Origin")
        if not origin_allowed(origin, request.headers.get("Host"), push_options.allowed_origins):
            log.warning("refusing a STOMP socket from origin %.200r", origin)
            raise Forbidden(f"不允许的来源 (origin not allowed: {origin[:200] if origin else ''})")

    def serve(ws: WebSocketLike) -> None:
        """One STOMP connection on ``ws`` (a plain WebSocket or a SockJS session): the caps, the
        CONNECT timeout and the token checks are the same for both."""
        remote = str(request.remote_addr or "")
        address = address_key(remote)  # an IPv6 client counts by its /64
        if not limits.open_socket(address):
            refuse(ws, f"来自 {address} 的推送连接过多 (too many STOMP sockets from {address}: "
                       f"{limits.max_per_address} open)", request_language())
            return
        try:
            auth = fixed_auth if fixed_auth is not None else token_authenticator(app, remote)
            session = StompSession(auth, server_heartbeat=server_heartbeat_ms, admit=admit,
                                   query_token=request.args.get("access_token"))
            StompConnection(ws, session, push_hub, outbox_capacity=outbox_capacity, limits=limits,
                            connect_timeout_s=push_options.connect_timeout_s,
                            token_check_s=push_options.token_check_s).run()
        finally:
            limits.close_socket(address)

    @sock.route(PUSH_PATH)
    def stomp_socket(ws: WebSocketLike) -> None:
        serve(ws)

    @app.get(SOCKJS_INFO_PATH)
    def sockjs_info() -> Any:
        # SockJS (console-spec §7): websocket is the only transport served (module doc of api.sockjs).
        from flask import jsonify

        reply = jsonify(info(list(push_options.allowed_origins) or None))
        reply.headers["Cache-Control"] = "no-store, no-cache, must-revalidate, max-age=0"
        return reply

    @sock.route(SOCKJS_WEBSOCKET_PATH)
    def sockjs_socket(ws: WebSocketLike, server: str, session: str) -> None:
        if not valid_ids(server, session):
            ws.close(1002, "invalid SockJS server or session id")
            return
        sockjs = SockJsSocket(ws, sockjs_heartbeat_s)
        sockjs.start()
        serve(sockjs)

    return hub
