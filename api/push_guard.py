"""Guards of the STOMP socket: which browser origins may open it, and how many
sockets one client address and sessions one user may hold.

The caps are bookkeeping (a lock and counters), so they work under gunicorn's gevent worker (the
lock is monkey-patched) and in unit tests alike; counts are per API process. ``refuse`` sends the
STOMP ERROR a refused socket gets; ``PushOptions`` are the ``ApiSettings`` the socket uses.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import urlsplit

from api.errors import DEFAULT_LANGUAGE
from api.stomp import AuthenticationFailed, StompSession, serialize

log = logging.getLogger("api.push")

_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def _origin_key(origin: str) -> tuple[str, str, int] | None:
    """(scheme, host, port) of an ``Origin`` value; None for ``null`` or anything unparsable."""
    try:
        parts = urlsplit(origin.strip())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    return parts.scheme, parts.hostname.lower(), port or _DEFAULT_PORTS[parts.scheme]


def origin_allowed(origin: str | None, host: str | None, allowed: Sequence[str] = ()) -> bool:
    """Whether a WebSocket upgrade with this ``Origin`` header may proceed.

    No Origin: yes (only browsers send one, and a browser always does on a WebSocket). With
    ``allowed`` (configured console origins, ``scheme://host[:port]``): exactly one of them. Without:
    the API's own origin, i.e. the request's ``Host`` (name and port; a Host without a port
    matches the Origin scheme's default port), so the console the API serves can connect.
    """
    if origin is None or origin == "":
        return True
    key = _origin_key(origin)
    if key is None:
        return False
    if allowed:
        return any(key == _origin_key(a) for a in allowed)
    if not host:
        return False
    scheme, name, port = key
    try:
        own = urlsplit(f"{scheme}://{host.strip()}")
        own_port = own.port or _DEFAULT_PORTS[scheme]
    except ValueError:
        return False
    return (own.hostname or "").lower() == name and own_port == port


class ConnectionLimits:
    """Open STOMP sockets per client address and connected sessions per user.

    ``0`` disables a cap. Every successful ``open_socket``/``start_session`` must be paired with
    ``close_socket``/``end_session`` (the connection does it in a ``finally``).
    """

    def __init__(self, max_per_address: int, max_per_user: int) -> None:
        self.max_per_address = max_per_address
        self.max_per_user = max_per_user
        self._lock = threading.Lock()
        self._by_address: dict[str, int] = {}
        self._by_user: dict[str, int] = {}

    def open_socket(self, address: str) -> bool:
        return self._take(self._by_address, address, self.max_per_address)

    def close_socket(self, address: str) -> None:
        self._give_back(self._by_address, address)

    def start_session(self, user: str) -> bool:
        return self._take(self._by_user, user, self.max_per_user)

    def end_session(self, user: str) -> None:
        self._give_back(self._by_user, user)

    def sockets_of(self, address: str) -> int:
        with self._lock:
            return self._by_address.get(address, 0)

    def sessions_of(self, user: str) -> int:
        with self._lock:
            return self._by_user.get(user, 0)

    def _take(self, counts: dict[str, int], key: str, cap: int) -> bool:
        with self._lock:
            held = counts.get(key, 0)
            if cap and held >= cap:
                return False
            counts[key] = held + 1
            return True

    def _give_back(self, counts: dict[str, int], key: str) -> None:
        with self._lock:
            held = counts.get(key, 0) - 1
            if held > 0:
                counts[key] = held
            else:
                counts.pop(key, None)


def session_user(principal: Any) -> str:
    """The key of a principal's per-user session cap."""
    return str(getattr(principal, "user_name", "") or getattr(principal, "user_id", ""))


def per_user_admission(limits: ConnectionLimits) -> Callable[[Any], str | None]:
    """A session's ``admit``: takes a slot of the user's cap, or says why not."""

    def admit(principal: Any) -> str | None:
        user = session_user(principal)
        if limits.start_session(user):
            return None
        return (f"用户 {user} 的推送连接已达上限 {limits.max_per_user} (too many STOMP sessions: "
                f"user {user} has {limits.max_per_user} open; close a console tab)")

    return admit


@dataclass(frozen=True)
class PushOptions:
    """What ``register_push`` takes from ``ApiSettings`` (the defaults are its defaults)."""

    connect_timeout_s: float = 5.0
    token_check_s: float = 30.0
    max_per_address: int = 64
    max_per_user: int = 16
    allowed_origins: tuple[str, ...] = ()

    @classmethod
    def from_settings(cls, settings: Any) -> PushOptions:
        if settings is None:
            return cls()
        return cls(settings.stomp_connect_timeout_s, settings.stomp_token_check_s,
                   settings.stomp_max_per_address, settings.stomp_max_per_user, tuple(settings.allowed_origins))


def _never_authenticates(token: str) -> Any:
    raise AuthenticationFailed(token)


class _Closable(Protocol):
    def send(self, data: str | bytes) -> None: ...

    def close(self, reason: int | None = None, message: str | None = None) -> None: ...


def refuse(ws: _Closable, message: str, language: str = DEFAULT_LANGUAGE) -> None:
    """Sends one STOMP ERROR frame for ``message`` (bilingual) and closes the socket (a refused connection).
    Before any CONNECT, ``language`` is the upgrade request's (``api.errors.request_language``): the frame
    has the session ERROR's shape (``StompSession.error``)."""
    session = StompSession(_never_authenticates)
    session.language = language
    frame = session.error(message)[0]
    try:
        ws.send(serialize(frame).decode())
        ws.close()
    except Exception as exc:  # the client left already
        log.debug("refusing a STOMP socket: %r", exc)
