"""The link state and frame log of GB/T 32960 inferior platforms on this GB gateway (platform-spec §2, the gb32960
exchange's inferiorPlatform; GB/T 32960.3-2016 §7.5; migration 0062).

Rules:
- Nothing here is on a frame's path: a relayed real-time / back-filled frame only bumps two attributes of its
  connection (``relay_frames``, ``relay_last_rx``); logins, logouts, refusals and closes (a few a day) are noted
  here; ``take`` gathers it all every ``inferior_link_flush_s`` for one write (gateway/gb/server.py).
- Each gateway owns its row per platform (key platform + ``gateway_id``): in the cluster topology several
  gateways may hold a session of one platform without overwriting each other's counters; the view of
  migration 0062 aggregates the rows. Counts are sent as increments since the last write.
- A platform is online on this gateway while at least one of its connections here is logged in (``since``: the
  first of them); offline when the last one closes. Online rows are written at every flush (their ``updated_at``
  is the liveness the view reads).
- The frame log (``exchange_message``, platform kind gb32960_inferior) holds the platform login 0x05 (decoded
  without its password, no bytes), logout 0x06 and their answers, a refusal's answer naming its reason. A
  platform's refused logins are logged once per flush interval (the others counted in ``refused``), so a password
  guesser cannot fill the log. At most ``max_messages`` wait for a write; more are counted dropped, never kept.
- A login with a username no platform has names no platform: it is gathered by (username, address) with its
  attempts, first and last time (``unknown_login``) and written to ``gb32960_unknown_login`` (migration 0064) with
  the flush, for the root enterprise's administrators (someone probing, or a platform not yet configured). At most
  ``max_unknown`` keys wait for a write; attempts of other keys are counted dropped, never kept. An undecodable
  0x05 has no username: the gateway's bad-input log and its counters show it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

# Why a platform's login or relayed frame was refused, as last_error (the console translates the code)
WRONG_PASSWORD = "wrong_password"
PLATFORM_DISABLED = "platform_disabled"
UNKNOWN_VIN = "unknown_vin"
AMBIGUOUS_VIN = "ambiguous_vin"
UNDECRYPTABLE = "undecryptable"  # an AES data unit its key does not decrypt (migration 0068)
LAST_ERRORS = (WRONG_PASSWORD, PLATFORM_DISABLED, UNKNOWN_VIN, AMBIGUOUS_VIN, UNDECRYPTABLE)
MAX_USERNAME_CHARS = 32  # a 0x05 username is 12 bytes; what arrives is cut, and unprintable characters shown as "?"


def shown_username(user: str) -> str:
    """A username as received, printable and bounded (it is whatever a stranger sent)."""
    return "".join(c if c.isprintable() else "?" for c in user[:MAX_USERNAME_CHARS])


def address_of(peer: str | None) -> str:
    """The address of a ``host:port`` peer (attempts from one host are one row whatever their ports)."""
    if not peer:
        return "unknown"
    return peer.rsplit(":", 1)[0] if ":" in peer else peer


class RelayConnection(Protocol):
    """What the tracker reads of a logged-in platform's connection (gateway/gb/connection.py)."""

    peer: str | None
    relay_frames: int  # real-time / back-filled frames forwarded on this connection
    relay_last_rx: float | None  # loop time of the last of them
    relay_vins: set[str]  # VINs relayed on this connection (bounded by the connection)


@dataclass
class _Session:
    platform_id: int
    flushed_frames: int = 0


@dataclass
class _Link:
    """One platform on this gateway; counts are increments since the last take."""

    platform_id: int
    state: str | None = None  # None: not known to this process (only refusals seen): the row keeps its own
    since: datetime | None = None
    peer: str | None = None
    last_frame_at: datetime | None = None
    logins: int = 0
    frames: int = 0
    refused: int = 0
    vehicles: int | None = None
    last_error: str | None = None
    last_error_at: datetime | None = None
    dirty: bool = True
    sessions: set[int] = field(default_factory=set)  # id() of its logged-in connections here


class InferiorLinks:
    def __init__(self, gateway_id: str, *, max_messages: int = 1000, max_unknown: int = 100) -> None:
        self.gateway_id = gateway_id
        self.max_messages = max_messages
        self.max_unknown = max_unknown
        self.dropped_messages = 0
        self.dropped_unknown = 0
        self._unknown: dict[tuple[str, str], dict[str, Any]] = {}
        self._links: dict[int, _Link] = {}
        self._sessions: dict[int, tuple[RelayConnection, _Session]] = {}
        self._messages: list[dict[str, Any]] = []
        self._refusals_logged: set[int] = set()  # platforms whose refusal of this interval is logged

    def _link(self, platform_id: int) -> _Link:
        link = self._links.get(platform_id)
        if link is None:
            link = self._links[platform_id] = _Link(platform_id)
        link.dirty = True
        return link

    # ------------------------------------------------------------------ events

    def logged_in(self, platform_id: int, conn: RelayConnection, at: datetime) -> None:
        link = self._link(platform_id)
        if not link.sessions:
            link.state, link.since = "online", at
        link.sessions.add(id(conn))
        link.peer = conn.peer
        link.logins += 1
        self._sessions[id(conn)] = (conn, _Session(platform_id))

    def closed(self, conn: RelayConnection, at: datetime, now_loop: float) -> None:
        """A logged-in connection ended (logout, idle, error, gateway stop): its last counts are kept."""
        found = self._sessions.pop(id(conn), None)
        if found is None:
            return
        session = found[1]
        link = self._link(session.platform_id)
        self._fold(link, conn, session, at, now_loop)
        link.sessions.discard(id(conn))
        if link.sessions:  # another session of the platform goes on here
            link.vehicles = max(link.vehicles or 0, len(conn.relay_vins))
        else:
            link.vehicles = len(conn.relay_vins)
            link.state, link.since = "offline", at

    def refused(self, platform_id: int, reason: str, at: datetime) -> None:
        """A login of this platform refused (wrong password, disabled), or a relayed VIN refused."""
        link = self._link(platform_id)
        if reason in (WRONG_PASSWORD, PLATFORM_DISABLED):
            link.refused += 1
        link.last_error, link.last_error_at = reason, at

    def log_refusal(self, platform_id: int) -> bool:
        """Whether this refused login of the platform is logged (its first of the flush interval)."""
        if platform_id in self._refusals_logged:
            return False
        self._refusals_logged.add(platform_id)
        return True

    def unknown_login(self, user: str, peer: str | None, at: datetime) -> None:
        """A platform login 0x05 whose username no platform has (refused)."""
        key = (shown_username(user), address_of(peer))
        row = self._unknown.get(key)
        if row is None:
            if len(self._unknown) >= self.max_unknown:
                self.dropped_unknown += 1
                return
            row = self._unknown[key] = {"gateway_id": self.gateway_id, "username": key[0], "address": key[1],
                                        "first_at": at, "last_at": at, "attempts": 0}
        row["attempts"] += 1
        row["last_at"] = max(row["last_at"], at)

    def take_unknown(self) -> list[dict[str, Any]]:
        """The unknown usernames' attempts gathered since the last take (increments)."""
        rows, self._unknown = list(self._unknown.values()), {}
        return rows

    def restore_unknown(self, rows: Iterable[dict[str, Any]]) -> None:
        """A write failed: its attempts come back for the next take (bounded as new ones are)."""
        for row in rows:
            key = (row["username"], row["address"])
            kept = self._unknown.get(key)
            if kept is None:
                if len(self._unknown) >= self.max_unknown:
                    self.dropped_unknown += row["attempts"]
                    continue
                self._unknown[key] = dict(row)
            else:
                kept["attempts"] += row["attempts"]
                kept["first_at"] = min(kept["first_at"], row["first_at"])
                kept["last_at"] = max(kept["last_at"], row["last_at"])

    def message(self, platform_id: int, direction: str, msg_id: int, decoded: dict[str, Any], raw_hex: str,
                at: datetime) -> None:
        if len(self._messages) >= self.max_messages:
            self.dropped_messages += 1
            return
        self._messages.append({"platform_id": platform_id, "direction": direction, "msg_id": msg_id,
                               "decoded": decoded, "raw_hex": raw_hex, "time": at})

    # ------------------------------------------------------------------ flush

    @staticmethod
    def _fold(link: _Link, conn: RelayConnection, session: _Session, now: datetime, now_loop: float) -> None:
        delta = conn.relay_frames - session.flushed_frames
        if delta:
            link.frames += delta
            session.flushed_frames = conn.relay_frames
            link.dirty = True
        if conn.relay_last_rx is not None:
            at = now - timedelta(seconds=max(0.0, now_loop - conn.relay_last_rx))
            if link.last_frame_at is None or at > link.last_frame_at:
                link.last_frame_at = at

    def take(self, now: datetime, now_loop: float) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """(link state rows, frame log rows) to write now; counts restart from zero. Online links are always
        in it (liveness); a link with nothing new is not."""
        for conn, session in self._sessions.values():
            link = self._links[session.platform_id]
            self._fold(link, conn, session, now, now_loop)
        vehicles: dict[int, int] = {}
        for conn, session in self._sessions.values():
            vehicles[session.platform_id] = max(vehicles.get(session.platform_id, 0), len(conn.relay_vins))
        rows = []
        for platform_id, link in list(self._links.items()):
            if platform_id in vehicles:
                link.vehicles = vehicles[platform_id]
            if not (link.dirty or link.sessions):
                continue
            rows.append({"platform_id": platform_id, "gateway_id": self.gateway_id, "state": link.state,
                         "since": link.since, "peer": link.peer, "last_frame_at": link.last_frame_at,
                         "logins": link.logins, "frames": link.frames, "refused": link.refused,
                         "vehicles": link.vehicles, "last_error": link.last_error,
                         "last_error_at": link.last_error_at})
            link.logins = link.frames = link.refused = 0
            link.last_error = link.last_error_at = None
            link.dirty = False
            if not link.sessions:
                del self._links[platform_id]  # written: the row holds it now
        messages, self._messages = self._messages, []
        self._refusals_logged.clear()
        return rows, messages

    def restore(self, rows: Iterable[dict[str, Any]], messages: Iterable[dict[str, Any]]) -> None:
        """A write failed: its rows' increments and its messages come back for the next take (bounded)."""
        for row in rows:
            link = self._link(row["platform_id"])
            link.logins += row["logins"]
            link.frames += row["frames"]
            link.refused += row["refused"]
            if link.state is None:
                link.state, link.since = row["state"], row["since"]
            if row["last_error"] is not None and link.last_error is None:
                link.last_error, link.last_error_at = row["last_error"], row["last_error_at"]
            if link.last_frame_at is None:
                link.last_frame_at = row["last_frame_at"]
            if link.vehicles is None:
                link.vehicles = row["vehicles"]
        for message in messages:
            if len(self._messages) >= self.max_messages:
                self.dropped_messages += 1
            else:
                self._messages.append(message)


def utc_now() -> datetime:
    return datetime.now(UTC)
