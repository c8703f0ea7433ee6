"""Open viewers and talk sockets end with their user's session.

The API signs a stream URL with the user's session epoch (``app_user.session_epoch``, fleet/video_tokens.py).
The database bumps that epoch whenever the user's sessions are revoked (disabled, password changed,
roles or enterprise changed, sessions revoked; migration 0004), and a deleted user has no row. Every
``session_check_s`` the media server looks up the users of its open sockets at once and closes every
viewer and talk socket whose user is gone, inactive, or on another epoch than the one its URL was
signed with, as the API refuses that user's access token.

A look-up that fails (database down) closes nothing and is logged: live video does not depend on the
database being up, and the next check catches up.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

log = logging.getLogger("gateway.video")

SESSION_REVOKED = "session revoked"
# user id -> (session epoch, active); a user missing from the answer no longer exists; None: no user
# directory (a media server without a database, in unit tests): nothing is closed
Lookup = Callable[[list[int]], Awaitable[dict[int, tuple[int, bool]] | None]]


@dataclass(eq=False)
class UserSocket:
    user_id: int
    session_epoch: int | None  # None: the URL carried no epoch; only existence and state are checked
    close: Callable[[str], None]
    what: str = "viewer"


class UserSockets:
    def __init__(self) -> None:
        self.open: set[UserSocket] = set()
        self.closed_revoked = 0

    def add(self, user_id: int | None, session_epoch: int | None, close: Callable[[str], None],
            what: str) -> UserSocket | None:
        if not user_id:  # no user (an open platform app's token has user id 0): nothing to check
            return None
        socket = UserSocket(user_id, session_epoch, close, what)
        self.open.add(socket)
        return socket

    def discard(self, socket: UserSocket | None) -> None:
        if socket is not None:
            self.open.discard(socket)

    async def check(self, lookup: Lookup) -> int:
        """Close the sockets of revoked sessions; how many were closed."""
        users = sorted({s.user_id for s in self.open})
        if not users:
            return 0
        try:
            states = await lookup(users)
        except Exception as exc:
            log.warning("session check of %d user(s) failed, nothing closed: %r", len(users), exc)
            return 0
        if states is None:
            return 0
        closed = 0
        for socket in list(self.open):
            state = states.get(socket.user_id)
            if state is None or not state[1] or (socket.session_epoch is not None
                                                 and socket.session_epoch != state[0]):
                log.info("closing a %s of user %s: session revoked", socket.what, socket.user_id)
                self.open.discard(socket)
                socket.close(SESSION_REVOKED)
                closed += 1
        self.closed_revoked += closed
        return closed
