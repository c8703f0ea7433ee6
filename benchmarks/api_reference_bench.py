"""The open-platform API reference in Chromium: how long until its sections are listed, and until one operation
opens (its parameters and replies shown), at 1440 px and on a phone (390 px).

    .venv/bin/python benchmarks/api_reference_bench.py [--rounds 2] [--document FILE] [--dist DIR]

Serves the built console (``dashboards/dist``, ``scripts/build-console.sh``) and the API's OpenAPI document
(``api.routes.meta.openapi_document``; ``--document`` and ``--dist``: another checkout's, to compare) from a local HTTP server,
with no API, database or Kafka: the page's work is Swagger UI's on that document. Each round is a new browser
context (a cold page): load -> the first section listed; the "auth" section opened; its first operation opened.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _server(dist: Path, document: bytes) -> http.server.ThreadingHTTPServer:
    class Handler(http.server.SimpleHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path.split("?")[0] == "/api/openapi.json":
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(document)))
                self.end_headers()
                self.wfile.write(document)
                return
            super().do_GET()

        def log_message(self, *args: Any) -> None:
            pass

    handler = functools.partial(Handler, directory=str(dist))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--document", type=Path, help="an OpenAPI document to serve instead of this checkout's")
    parser.add_argument("--dist", type=Path, help="a built console to serve instead of this checkout's dashboards/dist")
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    from tests.e2e.support import CONSOLE_DIST, launch_chromium

    if args.document is not None:
        document = args.document.read_bytes()
    else:
        from api.routes.meta import openapi_document

        document = json.dumps(openapi_document()).encode()
    server = _server(args.dist or CONSOLE_DIST, document)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    print(f"document: {len(document):,} bytes")
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright, full=True)
        for width, height in ((1440, 900), (390, 844)):
            listed, opened = [], []
            for _ in range(args.rounds):
                context = browser.new_context(viewport={"width": width, "height": height})
                page = context.new_page()
                start = time.perf_counter()
                page.goto(f"{base}/api-reference.html")
                page.locator(".opblock-tag").first.wait_for(timeout=180_000)
                listed.append(time.perf_counter() - start)
                page.locator('.opblock-tag[data-tag="auth"]').click()
                page.locator('.opblock-summary-path[data-path="/oauth2/token.json"]').first.wait_for()
                start = time.perf_counter()
                page.locator(".opblock-summary").first.click()
                page.locator(".opblock.is-open .responses-wrapper").first.wait_for(timeout=180_000)
                opened.append(time.perf_counter() - start)
                context.close()
            print(f"{width} px: sections listed {statistics.median(listed):.2f} s "
                  f"({', '.join(f'{t:.2f}' for t in listed)}), an operation opened {statistics.median(opened):.2f} s "
                  f"({', '.join(f'{t:.2f}' for t in opened)})")
        browser.close()
    server.shutdown()


if __name__ == "__main__":
    main()
