"""Serves the built console (``ApiSettings.console_dir``, i.e. ``dashboards/dist``) on the API's origin.

- ``/`` and every other GET that is no API route and no file of the build answer ``index.html``
  (the console uses history-mode URLs such as ``/dashboard/map``), with ``Cache-Control: no-cache``
  so a new build is picked up at the next load. The address of a screen gets its page chunks'
  ``<link rel="modulepreload">`` added (``api/console_preload.py``).
- ``/assets/...`` (Vite's content-hashed bundles) are cached for a year, immutable; a missing asset
  is a plain 404 (never index.html: a stale page asking for an old chunk must fail loudly).
- Other files at the top of the build (favicon, images) are served with ``no-cache``.
- Compressed where the browser takes it: the build writes a brotli (``.br``) and a gzip (``.gz``) twin
  of each text file (``dashboards/scripts/precompress.ts``); a GET answers the ``.br`` one when
  ``Accept-Encoding`` accepts br, else the ``.gz`` one when it accepts gzip, else the file itself, with
  ``Content-Encoding``, the twin's ``Content-Length`` and ETag, and ``Vary: Accept-Encoding``. A
  ``Range`` request gets the file itself (a range of the compressed bytes would be a range of another
  representation). The index.html with the address's preloads is made per request: gzip-compressed
  then (the standard library has no brotli), as is the index.html that names the console's client
  credentials under authorization protocol 2 (``_client_meta``).
- Paths under ``/api``, ``/oauth2`` and ``/wss`` keep the API's JSON 404 envelope.
- Without a build, ``/`` and history paths answer 503 saying how to build it (HTML for browsers,
  the envelope otherwise).

Implemented as the 404 handler of the app (plus ``/`` and ``/assets``), not as a catch-all route,
so a wrong method on an API path still answers 405.
"""

from __future__ import annotations

import gzip
import hashlib
import mimetypes
from html import escape
from pathlib import Path

from flask import Blueprint, Response, current_app, jsonify, request, send_from_directory
from werkzeug.exceptions import NotFound as HttpNotFound
from werkzeug.security import safe_join

from api.basic_auth import PROTOCOL_CLIENT_BASIC
from api.console_preload import in_head, page_preloads, with_preloads
from api.errors import envelope
from fleet.settings import ApiSettings

bp = Blueprint("console_static", __name__)

API_PREFIXES = ("/api/", "/oauth2/", "/wss/")
API_EXACT = ("/api", "/oauth2", "/wss")
ASSET_MAX_AGE_S = 365 * 86400
NOT_BUILT = (
    "控制台尚未构建 (the console is not built: run `make up`, which builds it, "
    "or `cd dashboards && npm ci && npm run build`; during development use `npm run dev`, see dashboards/README.md)"
)


def _console_dir() -> Path:
    settings: ApiSettings = current_app.config["FLEET_API_SETTINGS"]
    return Path(settings.console_dir)


def _no_cache(response: Response) -> Response:
    response.headers["Cache-Control"] = "no-cache"
    return response


# The precompressed twins the build writes, in the order they are preferred (brotli is ~15 % smaller).
ENCODINGS = (("br", ".br"), ("gzip", ".gz"))


def _accepted(encoding: str) -> bool:
    return request.accept_encodings[encoding] > 0  # werkzeug: the quality, 0 when not named (nor by *)


def _send_build_file(directory: Path, relative: str, max_age: int) -> Response:
    """``relative`` (a file of the build) or its precompressed twin, as the module docstring says."""
    original = safe_join(str(directory), relative)
    twins = [] if original is None or not Path(original).is_file() else [
        (encoding, relative + suffix) for encoding, suffix in ENCODINGS if Path(original + suffix).is_file()]
    chosen = None if "Range" in request.headers else next(
        ((encoding, twin) for encoding, twin in twins if _accepted(encoding)), None)
    if chosen is None:
        response = send_from_directory(directory, relative, max_age=max_age)
    else:
        # Flask would take the twin's type from its name (and add its own Content-Encoding): name the original's.
        mimetype = mimetypes.guess_type(relative)[0] or "application/octet-stream"
        response = send_from_directory(directory, chosen[1], max_age=max_age, mimetype=mimetype)
        if response.status_code in (200, 304):
            response.headers["Content-Encoding"] = chosen[0]
    if twins:
        response.vary.add("Accept-Encoding")
    return response


def _index() -> Response | tuple[Response, int]:
    directory = _console_dir()
    if not (directory / "index.html").is_file():
        return _not_built()
    preloads = page_preloads(directory, request.path)
    client = _client_meta(current_app.config["FLEET_API_SETTINGS"])
    if not preloads and not client:
        return _no_cache(_send_build_file(directory, "index.html", max_age=0))
    # The opening page's chunks named by the address, fetched beside the shell (api/console_preload.py).
    html = in_head(with_preloads((directory / "index.html").read_text(encoding="utf-8"), preloads), client)
    body = html.encode()
    encoding = "gzip" if _accepted("gzip") else None
    response = Response(gzip.compress(body, 6, mtime=0) if encoding else body, mimetype="text/html")
    # One ETag per representation: a cache must not answer a 304 for the gzip body to an identity request.
    response.set_etag(hashlib.sha256(body).hexdigest()[:32] + ("-gzip" if encoding else ""))
    if encoding:
        response.headers["Content-Encoding"] = encoding
    response.vary.add("Accept-Encoding")
    response.make_conditional(request)  # a 304 for the same build and address (it changes the reply in place)
    return _no_cache(response)


def _client_meta(settings: ApiSettings) -> str:
    """Authorization protocol 2 (console-spec §7 "General": the token call carries Basic client credentials):
    the console's open platform app key and secret as two ``<meta>`` the console reads at start
    (``dashboards/src/config.ts``), so one build serves any server's app. Nothing under protocols 1 and 3, or
    when no console app is configured (the console then sends the ones it was built with, if any)."""
    if settings.auth_protocol != PROTOCOL_CLIENT_BASIC or not settings.console_client_id:
        return ""
    return (f'    <meta name="fleetwatch:client-id" content="{escape(settings.console_client_id)}">\n'
            f'    <meta name="fleetwatch:client-secret" content="{escape(settings.console_client_secret)}">\n')


def _not_built() -> tuple[Response, int]:
    if request.accept_mimetypes.accept_html and not request.accept_mimetypes.accept_json:
        html = (
            "<!doctype html><html lang=\"zh-CN\"><head><meta charset=\"utf-8\"><title>fleetwatch</title></head>"
            f"<body><h1>fleetwatch</h1><p>{escape(NOT_BUILT)}</p></body></html>"
        )
        response = Response(html, status=503, mimetype="text/html")
    else:
        response = jsonify(envelope(None, code=503, message=NOT_BUILT))
        response.status_code = 503
    return _no_cache(response), 503


@bp.get("/")
def index() -> Response | tuple[Response, int]:
    return _index()


@bp.get("/assets/<path:filename>")
def asset(filename: str) -> Response:
    """A hashed bundle file; 404 when it does not exist (also when the console is not built)."""
    response = _send_build_file(_console_dir() / "assets", filename, max_age=ASSET_MAX_AGE_S)
    response.headers["Cache-Control"] = f"public, max-age={ASSET_MAX_AGE_S}, immutable"
    return response


def _is_api_path(path: str) -> bool:
    return path.startswith(API_PREFIXES) or path in API_EXACT


@bp.app_errorhandler(404)
def history_fallback(exc: HttpNotFound) -> Response | tuple[Response, int]:
    """A top-level build file, or index.html for a console URL; the JSON 404 for API paths."""
    path = request.path
    if request.method not in ("GET", "HEAD") or _is_api_path(path) or path.startswith("/assets/"):
        message = f"接口不存在 (no such endpoint: {request.method} {path})"
        if path.startswith("/assets/"):
            message = f"控制台文件不存在 (no such console asset: {path})"
        return jsonify(envelope(None, code=404, message=message)), 404
    directory = _console_dir()
    relative = path.lstrip("/")
    # Dot folders of the build (Vite's .vite/manifest.json) are the server's, not the browser's.
    hidden = any(part.startswith(".") for part in relative.split("/"))
    candidate = safe_join(str(directory), relative) if relative and not hidden else None
    if candidate is not None and Path(candidate).is_file():
        return _no_cache(_send_build_file(directory, relative, max_age=0))
    return _index()
