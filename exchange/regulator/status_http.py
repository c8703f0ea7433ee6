"""The regulator's status on a loopback HTTP port (``GET /status``: ``Regulator.status()`` as JSON, the
first 1,000 vehicles' counts or ``?vehicles=N``), for
the tests, the benchmark and a curious operator. Standard library only; it runs in a thread and reads
the status through the event loop, so it never sees a half-updated count."""

from __future__ import annotations

import asyncio
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from exchange.regulator.regulator import Regulator


class StatusServer:
    def __init__(self, regulator: Regulator, loop: asyncio.AbstractEventLoop, port: int = 0) -> None:
        self._regulator, self._loop = regulator, loop
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                url = urlsplit(self.path)
                if url.path not in ("/", "/status"):
                    self._reply(404, {"error": "not found: GET /status[?vehicles=N]"})
                    return
                try:
                    vehicles = int(parse_qs(url.query).get("vehicles", ["1000"])[0])
                    if vehicles < 0:
                        raise ValueError
                except ValueError:
                    self._reply(400, {"error": "vehicles must be a whole number >= 0"})
                    return
                try:
                    status = asyncio.run_coroutine_threadsafe(outer._status(vehicles), outer._loop).result(5)
                except Exception as exc:  # the loop stopped or is stuck: say so, do not hang
                    self._reply(503, {"error": f"status unavailable: {type(exc).__name__}"})
                    return
                self._reply(200, status)

            def _reply(self, code: int, body: Any) -> None:
                raw = json.dumps(body, ensure_ascii=False).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, format: str, *args: Any) -> None:
                return

        self._http = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.port = self._http.server_address[1]
        self._thread = threading.Thread(target=self._http.serve_forever, name="regulator-status", daemon=True)

    async def _status(self, vehicles: int) -> dict[str, Any]:
        return self._regulator.status(vehicles)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._http.shutdown()
        self._http.server_close()
