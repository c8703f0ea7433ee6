"""The API's gunicorn worker: gevent (every connection, WebSockets included, is a greenlet, not a
thread) plus a cap on open connections per client address (issue 13 §2).

gunicorn's gevent worker monkey-patches the process in ``init_process`` before it imports
``api.wsgi`` (no ``--preload``), so psycopg, psycopg_pool, simple-websocket and kafka-python's
consumer thread all run as greenlets. The master imports only this module, gunicorn and gevent
(no threads, no sockets of ours). Slow clients: gunicorn bounds the read of a request's line and
headers by ``--keep-alive`` (``ApiSettings.header_timeout_s``); one address cannot hold more than
``max_connections_per_address`` connections, so a slow body or a flood from one host stays bounded.
"""

from __future__ import annotations

import json
import logging
import socket
from typing import Any

import gevent
from gunicorn.workers.ggevent import GeventWorker

log = logging.getLogger("fleet.api")

REFUSE_DRAIN_S = 1.0  # how long a refused client's request is read (and dropped) before closing


def too_many_connections_reply(address: str) -> bytes:
    """The raw 503 sent to a connection over the per-address cap (the request is never parsed)."""
    body = json.dumps({"code": 503, "data": None,
                       "message": f"来自同一地址的连接过多 (too many open connections from {address})"},
                      ensure_ascii=False).encode()
    head = ("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nRetry-After: 5\r\nConnection: close\r\n\r\n")
    return head.encode() + body


class FleetGeventWorker(GeventWorker):
    """``GeventWorker`` refusing connections beyond ``max_connections_per_address`` with a 503."""

    max_per_address = 0

    def init_process(self) -> None:
        from fleet.settings import ApiSettings

        self.max_per_address = ApiSettings().max_connections_per_address
        self.open_by_address: dict[str, int] = {}
        super().init_process()

    def run(self) -> None:
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
        held = self.open_by_address.get(address, 0)  # greenlets switch only on I/O: no lock needed
        if self.max_per_address and held >= self.max_per_address:
            self._refuse(client, address)
            return
        self.open_by_address[address] = held + 1
        try:
            super().handle(listener, client, addr)
        finally:
            left = self.open_by_address.get(address, 1) - 1
            if left > 0:
                self.open_by_address[address] = left
            else:
                self.open_by_address.pop(address, None)

    def _refuse(self, client: Any, address: str) -> None:
        log.warning("refusing a connection from %s: %d open already", address, self.max_per_address)
        try:
            client.sendall(too_many_connections_reply(address))
            client.shutdown(socket.SHUT_WR)
            # Read what the client sent, so closing does not reset the connection before it reads the 503.
            with gevent.Timeout(REFUSE_DRAIN_S, False):
                while client.recv(65536):
                    pass
        except OSError:
            pass
        finally:
            client.close()
