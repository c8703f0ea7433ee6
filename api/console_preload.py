"""The opening page's code named in ``index.html`` by the address (performance target: a report's first rows
<= 1 s, docs/performance.md).

The console finds a screen by its file (``src/screens/<area>/<name>.tsx`` is the page at ``/<area>/<name>``,
``dashboards/src/router/components.ts``). Without help the browser learns which chunk that page needs only
once the shell (React, the router, the app's shell with antd, about 1.4 MB) has been fetched, parsed and run:
a second, serial round of chunk loading. Vite's build manifest (``dist/.vite/manifest.json``, written because
``build.manifest`` is on in ``vite.config.ts``) names each source file's chunk and the chunks it imports, so
the server can add ``<link rel="modulepreload">`` for the page chunk and its static imports to the
``index.html`` it answers for that address: the page code downloads while the shell does.

Rules:
- Only addresses of the form ``/<segment>/.../<segment>`` made of letters, digits, ``_`` and ``-`` are looked
  up, only as ``src/screens/<address>.tsx``; anything else (an unknown page, ``/``, a query) gets the plain
  ``index.html``.
- Only static imports are preloaded (the page's lazy parts stay lazy), and never what ``index.html``
  already loads. Their CSS is preloaded as a style (Vite's loader waits for it before the page runs) but not
  applied: the loader adds the stylesheet as before.
- Only same-origin ``/assets/`` URLs, as attributes Vite itself writes (``crossorigin``, so the preload and
  the module loader share one fetch): nothing inline, so the CSP (``script-src 'self'``) holds.
- A missing or unreadable manifest (an older build, a dev setup) means no preloads, never an error.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from threading import Lock
from typing import Any

MANIFEST = Path(".vite") / "manifest.json"
PAGE_ADDRESS = re.compile(r"^/([A-Za-z0-9_-]+(?:/[A-Za-z0-9_-]+)*)/?$")
SCREEN_SOURCE = "src/screens/{}.tsx"
ENTRY_SOURCE = "index.html"
# Built file names are Vite's: letters, digits, '-', '_', '.', under assets/ (checked before they reach HTML).
ASSET_FILE = re.compile(r"^assets/[A-Za-z0-9_.-]+\.(?:js|css)$")


@dataclass
class _Manifest:
    mtime_ns: int = -1
    chunks: dict[str, Any] = field(default_factory=dict)


_cache: dict[Path, _Manifest] = {}
_lock = Lock()


def _manifest(console_dir: Path) -> dict[str, Any]:
    """The build's manifest, read again when the file changes (a new build); {} when there is none."""
    path = console_dir / MANIFEST
    try:
        mtime_ns = path.stat().st_mtime_ns
    except OSError:
        return {}
    with _lock:
        cached = _cache.get(path)
        if cached is not None and cached.mtime_ns == mtime_ns:
            return cached.chunks
    try:
        chunks = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        chunks = {}
    if not isinstance(chunks, dict):
        chunks = {}
    with _lock:
        _cache[path] = _Manifest(mtime_ns, chunks)
    return chunks


def _static_closure(chunks: dict[str, Any], key: str) -> list[str]:
    """``key`` and every chunk it imports statically, depth first, each once (manifest keys)."""
    seen: list[str] = []
    stack = [key]
    while stack:
        current = stack.pop()
        if current in seen or not isinstance(chunks.get(current), dict):
            continue
        seen.append(current)
        imports = chunks[current].get("imports") or []
        stack.extend(reversed([i for i in imports if isinstance(i, str)]))
    return seen


def page_preloads(console_dir: Path, address: str) -> list[str]:
    """The ``/assets/...`` URLs of the page at ``address`` and its static imports, minus what the entry loads;
    [] for an address that is no screen of the build."""
    match = PAGE_ADDRESS.match(address)
    if not match:
        return []
    chunks = _manifest(console_dir)
    page = SCREEN_SOURCE.format(match.group(1))
    if page not in chunks:
        return []
    loaded_by_entry = {chunks[k].get("file") for k in _static_closure(chunks, ENTRY_SOURCE)}
    loaded_by_entry |= {css for k in _static_closure(chunks, ENTRY_SOURCE) for css in chunks[k].get("css") or []}
    urls: list[str] = []
    for key in _static_closure(chunks, page):
        for file in [chunks[key].get("file"), *(chunks[key].get("css") or [])]:
            if isinstance(file, str) and file not in loaded_by_entry and ASSET_FILE.match(file) \
                    and f"/{file}" not in urls:
                urls.append(f"/{file}")
    return urls


def in_head(index_html: str, lines: str) -> str:
    """``index_html`` with ``lines`` (whole lines, each ending in a newline) just before ``</head>``, on a line
    of their own; unchanged without ``lines`` or without a ``</head>``."""
    at = index_html.find("</head>")
    if not lines or at < 0:
        return index_html
    line = index_html.rfind("\n", 0, at) + 1
    if index_html[line:at].strip():
        line = at
    return index_html[:line] + lines + index_html[line:]


def with_preloads(index_html: str, urls: list[str]) -> str:
    """``index_html`` with one ``<link rel="modulepreload">`` per script URL (``<link rel="preload" as="style">``
    per CSS URL) just before ``</head>`` (unchanged without URLs or without a ``</head>``)."""
    return in_head(index_html, "".join(
        f'    <link rel="preload" as="style" crossorigin href="{url}">\n' if url.endswith(".css")
        else f'    <link rel="modulepreload" crossorigin href="{url}">\n' for url in urls))
