"""Browsers' live sessions during an API kill drill (``ingest_bench.py --topology cluster --kill api``).

``StompWatch`` plays ``clients`` consoles: each signs in through HAProxy, opens the STOMP WebSocket
(``/wss/stomp``) through it, subscribes to its enterprise's ``positions`` and, when the socket drops,
does what the console's live hub does (dashboards/src/live/LiveHub.ts): reconnect with the same jittered
exponential backoff (1 s, 2 s, 4 s ... ±20 %, dashboards/src/live/backoff.ts), subscribe again, then
resync over REST (``POST /api/gps/last.json``, useFleetSnapshot.ts). HAProxy's ``leastconn`` spreads the
sockets over the APIs, so some sit on the API the drill kills.

``gaps(killed_at)`` reports, for every session whose socket dropped after the kill, the seconds from the
kill to its socket closing, to its new session (CONNECTED and the subscription's RECEIPT), to the end of its
REST resync, and to its first live position after the kill: the last one is what an operator sees as the gap.
"""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Session:
    """One console's timeline, in ``time.monotonic()`` seconds."""

    name: str
    messages: list[float] = field(default_factory=list)
    dropped: list[float] = field(default_factory=list)
    connected: list[float] = field(default_factory=list)
    resynced: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def backoff_s(attempt: int) -> float:
    """The console's reconnect delay (dashboards/src/live/backoff.ts defaults)."""
    return min(30.0, 1.0 * 2 ** max(0, attempt)) * (0.8 + 0.4 * random.random())


class StompWatch:
    """``clients`` STOMP sessions of ``user`` (password ``password``, of enterprise ``enterprise_id``) through
    ``host:port`` (HAProxy)."""

    def __init__(self, host: str, port: int, user: str, password: str, enterprise_id: int, clients: int = 4) -> None:
        self.base = f"http://{host}:{port}"
        self.ws_url = f"ws://{host}:{port}/wss/stomp"
        self.user, self.password = user, password
        self.sessions = [Session(f"console-{i}") for i in range(1, clients + 1)]
        self._running = threading.Event()
        self._threads: list[threading.Thread] = []
        self.token = ""
        self.enterprise_id = enterprise_id

    def start(self, timeout_s: float = 60.0) -> None:
        """Sign in, then open every session; returns once each has its first live position."""
        import requests

        reply = requests.post(f"{self.base}/oauth2/token.json", timeout=30, params={
            "grant_type": "password", "username": self.user, "password": self.password}).json()
        if reply.get("code") != 0:
            raise RuntimeError(f"sign-in of {self.user} refused: {reply}")
        self.token = str(reply["data"]["access_token"])
        self._running.set()
        for session in self.sessions:
            thread = threading.Thread(target=self._run, args=(session,), daemon=True, name=session.name)
            thread.start()
            self._threads.append(thread)
        deadline = time.monotonic() + timeout_s
        while not all(s.messages for s in self.sessions):
            if time.monotonic() > deadline:
                raise RuntimeError(f"STOMP sessions without a live position after {timeout_s:.0f} s: "
                                   f"{[(s.name, s.errors[-1:]) for s in self.sessions if not s.messages]}")
            time.sleep(0.2)

    def stop(self) -> None:
        self._running.clear()
        for thread in self._threads:
            thread.join(timeout=5)

    def _run(self, session: Session) -> None:
        attempt = 0
        while self._running.is_set():
            try:
                self._session(session)
                attempt = 0
            except Exception as exc:  # a refused or dropped socket: the console's backoff, then again
                if len(session.errors) < 20:
                    session.errors.append(repr(exc)[:200])
                if session.connected and (not session.dropped or session.dropped[-1] < session.connected[-1]):
                    session.dropped.append(time.monotonic())
                if not self._running.is_set():
                    return
                time.sleep(backoff_s(attempt))
                attempt += 1

    def _session(self, session: Session) -> None:
        import requests
        import websocket

        from api.stomp import Frame, FrameParser, serialize

        # websocket-client checks a text frame's UTF-8 in pure Python (~275 ns a byte without wsaccel): at 5,000
        # positions/s four sessions would take most of a core and read their sockets late, so that a drop is seen
        # seconds after it happened. recv() decodes the frame with str's codec, which still refuses bad UTF-8.
        ws = websocket.create_connection(self.ws_url, timeout=5, subprotocols=["v12.stomp"], skip_utf8_validation=True)
        try:
            parser = FrameParser()
            ws.send(serialize(Frame("CONNECT", {"accept-version": "1.2", "heart-beat": "0,0",
                                                "Authorization": f"Bearer {self.token}"})).decode())
            ws.send(serialize(Frame("SUBSCRIBE", {"id": "p", "destination": f"/user/{self.enterprise_id}/positions",
                                                  "receipt": "r"})).decode())
            seen: list[str] = []
            while "RECEIPT" not in seen:
                frames = parser.feed(_bytes(ws.recv()))
                if not frames and not ws.connected:
                    raise ConnectionError("socket closed before the subscription's receipt")
                seen += [f.command for f in frames]
                if "ERROR" in seen:
                    raise RuntimeError(f"STOMP refused: {frames}")
            reconnected = bool(session.connected)
            session.connected.append(time.monotonic())
            if reconnected:  # what was pushed while disconnected is lost: read it over REST
                reply = requests.post(f"{self.base}/api/gps/last.json", json={}, timeout=10,
                                      headers={"Authorization": f"Bearer {self.token}"})
                if reply.status_code != 200 or reply.json().get("code") != 0:
                    raise RuntimeError(f"resync refused: {reply.status_code} {reply.text[:200]}")
                session.resynced.append(time.monotonic())
            ws.settimeout(1.0)
            while self._running.is_set():
                try:
                    data = ws.recv()
                except websocket.WebSocketTimeoutException:
                    continue
                if not data:
                    raise ConnectionError("socket closed")
                now = time.monotonic()
                for frame in parser.feed(_bytes(data)):
                    if frame.command == "MESSAGE":
                        session.messages.append(now)
        finally:
            ws.close(timeout=0.2)

    def gaps(self, killed_at: float) -> dict[str, Any]:
        """For the sessions that lost their socket after ``killed_at``: seconds from the kill to the drop,
        to the new session, to the end of the REST resync, to the first live position (the worst of each)."""
        hit = [s for s in self.sessions if any(d >= killed_at for d in s.dropped)]
        out: dict[str, Any] = {"stomp_sessions": len(self.sessions), "stomp_sessions_on_killed_api": len(hit)}
        if not hit:
            return out
        stages: dict[str, list[float]] = {"drop": [], "reconnect": [], "resync": [], "first_live_position": []}
        for s in hit:
            dropped = min(d for d in s.dropped if d >= killed_at)
            stages["drop"].append(dropped - killed_at)
            for stage, times in (("reconnect", s.connected), ("resync", s.resynced),
                                 ("first_live_position", s.messages)):
                after = [t for t in times if t > dropped]
                stages[stage].append((min(after) - killed_at) if after else float("inf"))
        for stage, values in stages.items():
            out[f"stomp_kill_to_{stage}_max_s"] = round(max(values), 2)
        return out


def _bytes(data: str | bytes) -> bytes:
    return data.encode() if isinstance(data, str) else data
