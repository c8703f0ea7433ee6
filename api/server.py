"""The API's gunicorn worker: gevent (every connection, WebSockets included, is a greenlet, not a
thread) plus a cap on open connections per client address and a deadline on request bodies.

gunicorn's gevent worker monkey-patches the process in ``init_process`` before it imports
``api.wsgi`` (no ``--preload``), so psycopg, psycopg_pool, simple-websocket and kafka-python's
consumer thread all run as greenlets. The master imports only this module, gunicorn and gevent
(no threads, no sockets of ours). Slow clients: gunicorn bounds the read of a request's line and
headers by ``--keep-alive`` (``ApiSettings.header_timeout_s``); the body's reads are bounded by
``api.body_deadline`` (``body_timeout_s`` plus the size at ``body_min_rate_bytes_s``: 408, then the
connection closes); one client cannot hold more than ``max_connections_per_address`` connections,
nor more than ``busy_connections_per_address`` new ones while the worker is half full, an IPv6
client counted by its /64 (``api.addresses.address_key``: one host has a whole /64 to pick
addresses from), so slow clients or a flood from a few hosts stay bounded. Trusted reverse proxies
(``trusted_proxies``) carry many clients on their connections and are not capped here; the app
counts their clients by the forwarded address.
"""

from __future__ import annotations

import json
import logging
import socket
from typing import Any

import gevent
from gunicorn.workers.ggevent import GeventWorker

from api.addresses import Network, address_key, is_trusted, parse_networks
from api.body_deadline import DeadlineBody

log = logging.getLogger("fleet.api")

REFUSE_DRAIN_S = 1.0  # how long a refused client's request is read (and dropped) before closing


def too_many_connections_reply(address: str) -> bytes:
    """The raw 503 sent to a connection over the per-address cap (the request is never parsed, so its language
    is unknown: the envelope's Chinese ``message`` alone, as ``api.errors.envelope`` answers outside a request)."""
    body = json.dumps({"code": 503, "data": None, "message": f"来自同一地址（{address}）的连接过多"},
                      ensure_ascii=False).encode()
    head = ("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nRetry-After: 5\r\nConnection: close\r\n\r\n")
    return head.encode() + body


class ConnectionCap:
    """Open connections per client: at most ``max_per_client`` each (0: no cap at all), and once the
    worker holds ``busy_at`` connections (half its ``worker_connections``) at most
    ``busy_per_client`` each for new ones, so a few clients each just under the cap cannot fill
    the worker together while everyone else waits for a slot. A client is an IPv4 address or an
    IPv6 /64 (``address_key``); a trusted proxy is never counted. Greenlets switch only on I/O, so
    no lock is needed."""

    def __init__(self, max_per_client: int, trusted_proxies: tuple[Network, ...] = (), *,
                 busy_at: int = 0, busy_per_client: int = 0) -> None:
        self.max_per_client = max_per_client
        self.trusted_proxies = trusted_proxies
        self.busy_at = busy_at
        self.busy_per_client = busy_per_client
        self.open_by_client: dict[str, int] = {}
        self.open_total = 0

    def admit(self, address: str) -> str | None:
        """The key the connection is counted under ("" when it is not counted), or None: refuse it."""
        if not self.max_per_client or is_trusted(address, self.trusted_proxies):
            self.open_total += 1
            return ""
        key = address_key(address)
        held = self.open_by_client.get(key, 0)
        if held >= self.limit():
            return None
        self.open_by_client[key] = held + 1
        self.open_total += 1
        return key

    def limit(self) -> int:
        """Connections one client may hold now."""
        if self.busy_at and self.busy_per_client and self.open_total >= self.busy_at:
            return min(self.max_per_client, self.busy_per_client)
        return self.max_per_client

    def release(self, key: str) -> None:
        self.open_total = max(0, self.open_total - 1)
        if not key:
            return
        left = self.open_by_client.get(key, 1) - 1
        if left > 0:
            self.open_by_client[key] = left
        else:
            self.open_by_client.pop(key, None)


class FleetGeventWorker(GeventWorker):
    """``GeventWorker`` refusing connections beyond ``max_connections_per_address`` with a 503."""

    body_timeout_s = 10.0
    body_min_rate = 8192

    def init_process(self) -> None:
        from fleet.settings import ApiSettings

        settings = ApiSettings()
        self.cap = ConnectionCap(settings.max_connections_per_address, parse_networks(settings.trusted_proxies),
                                 busy_at=settings.worker_connections // 2,
                                 busy_per_client=settings.busy_connections_per_address)
        self.body_timeout_s = settings.body_timeout_s
        self.body_min_rate = settings.body_min_rate_bytes_s
        super().init_process()

    def run(self) -> None:
        hub = getattr(self.wsgi, "extensions", {}).get("fleet_push")
        if hub is not None:  # positioned at the topic's end before the first SUBSCRIBE (api.push_hub)
            hub.start()
        try:
            super().run()
        finally:  # close the pool and the Kafka consumer while the hub still runs (not in __del__)
            app = self.wsgi
            extensions = getattr(app, "extensions", {})
            for key in ("fleet_push", "fleet_db"):
                resource = extensions.get(key)
                if resource is not None:
                    try:
                        resource.close()
                    except Exception:
                        log.exception("closing %s at worker exit", key)

    def handle(self, listener: Any, client: Any, addr: Any) -> None:
        address = str(addr[0]) if isinstance(addr, tuple) else str(addr)
        key = self.cap.admit(address)
        if key is None:
            self._refuse(client, address_key(address))
            return
        try:
            super().handle(listener, client, addr)
        finally:
            self.cap.release(key)

    def handle_request(self, listener_name: Any, req: Any, sock: Any, addr: Any) -> bool:
        # Every body read from here on (the app's, and gunicorn's drain before the next request)
        # answers to the body deadline.
        if req.body is not None and not isinstance(req.body, DeadlineBody):
            req.body = DeadlineBody(req.body, self.body_timeout_s, self.body_min_rate,
                                    on_expiry=lambda: setattr(req, "must_close", True))
        try:
            handled: bool = super().handle_request(listener_name, req, sock, addr)
        finally:
            if isinstance(req.body, DeadlineBody) and req.body.failed:
                linger(sock)  # the client still sending must read its 408, not a reset
        return handled

    def _refuse(self, client: Any, address: str) -> None:
        try:
            client.sendall(too_many_connections_reply(address))
        except OSError:
            pass
        log.warning("refusing a connection from %s: %d open already (worker: %d)", address, self.cap.limit(),
                    self.cap.open_total)
        linger(client)
        client.close()


def linger(client: Any) -> None:
    """Ends our side and reads (and drops) what the client still sends for up to REFUSE_DRAIN_S, so
    closing with unread bytes does not reset the connection before the client reads our reply."""
    try:
        client.shutdown(socket.SHUT_WR)
        with gevent.Timeout(REFUSE_DRAIN_S, False):
            while client.recv(65536):
                pass
    except OSError:
        pass
