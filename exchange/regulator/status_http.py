"""The regulator's status on a loopback HTTP port (``GET /status``: ``Regulator.status()`` as JSON, the
first 1,000 vehicles' counts or ``?vehicles=N``), for
the tests, the benchmark and a curious operator. Standard library only; it runs in a thread and reads
the status through the event loop, so it never sees a half-updated count.

``GET /pull?plate=&colour=&channel=&av=&seconds=[&code=]`` makes the regulator pull the stream its latest
successful 0x1801 / 0x1A01 for that vehicle named (``Regulator.pull_video``, regulator/video.py) and answers
``{status, bytes, jt1078, flv, closed}``; 400 naming a bad parameter, 409 without such an answer or a reported code."""

from __future__ import annotations

import asyncio
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from exchange.regulator.regulator import Regulator


def pull_arguments(query: dict[str, list[str]]) -> tuple[str, int, int, int, float]:
    """(plate, colour, channel, av flag, seconds) of a ``/pull`` query; ValueError naming a bad one."""
    def number(name: str, low: float, high: float, cast: Any = int) -> Any:
        try:
            value = cast(query.get(name, [""])[0])
        except ValueError:
            raise ValueError(f"{name} must be a number from {low} to {high}") from None
        if not low <= value <= high:
            raise ValueError(f"{name} must be a number from {low} to {high}")
        return value

    plate = query.get("plate", [""])[0]
    if not plate or len(plate) > 21:
        raise ValueError("plate is required (at most 21 characters)")
    return (plate, number("colour", 0, 255), number("channel", 0, 255), number("av", 0, 2),
            number("seconds", 0.1, 60, float))


class StatusServer:
    def __init__(self, regulator: Regulator, loop: asyncio.AbstractEventLoop, port: int = 0) -> None:
        self._regulator, self._loop = regulator, loop
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                url = urlsplit(self.path)
                if url.path == "/pull":
                    self._pull(parse_qs(url.query))
                    return
                if url.path not in ("/", "/status"):
                    self._reply(404, {"error": "not found: GET /status[?vehicles=N], GET /pull?plate=..."})
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

            def _pull(self, query: dict[str, list[str]]) -> None:
                try:
                    args = pull_arguments(query)
                except ValueError as exc:
                    self._reply(400, {"error": str(exc)})
                    return
                code = query.get("code", [None])[0]
                call = outer._regulator.pull_video(*args, code=code)
                try:
                    result = asyncio.run_coroutine_threadsafe(call, outer._loop).result(args[4] + 10)
                except LookupError as exc:
                    self._reply(409, {"error": str(exc)})
                    return
                except Exception as exc:  # the address answered is unreachable, or the loop is stuck
                    self._reply(502, {"error": f"pull failed: {type(exc).__name__}: {exc}"})
                    return
                self._reply(200, result)

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
