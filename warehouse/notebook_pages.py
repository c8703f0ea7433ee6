"""The analysts' notebooks (``notebooks/*.ipynb``) executed on the lake and rendered to HTML pages, so an analyst
reads them with their charts without running anything (the console shows them: ``api/routes/analysis.py``).

``render_notebooks(lake_dir, out_dir)`` executes each notebook with nbclient (the venv's ``python3`` kernel,
``FLEET_REPORT_LAKE_DIR`` set to ``lake_dir``) and writes ``<name>.html`` (nbconvert's lab template; charts
are PNGs embedded in the page, no network) and ``index.json`` (name, title, rendered time, error) into
``out_dir``, each file to a temporary name then renamed, so a reader sees the old page or the new one. A
notebook that fails keeps its previous page and is listed with its error; the others are still rendered.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

NOTEBOOKS_DIR = Path(__file__).resolve().parent.parent / "notebooks"
INDEX = "index.json"
# A page name is a notebook's file stem: letters, digits, underscores (the API serves nothing else).
PAGE_NAME = re.compile(r"^[a-z0-9_]{1,64}$")
SCRIPT = re.compile(r"<script\b[^>]*>.*?</script\s*>", re.IGNORECASE | re.DOTALL)


@dataclass
class Page:
    name: str
    title: str
    rendered_at: str
    error: str = ""


def _write_atomic(target: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix=".page-", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_index(out_dir: Path) -> list[Page]:
    """The pages listed in ``out_dir/index.json`` (none when it is missing or unreadable)."""
    try:
        rows = json.loads((out_dir / INDEX).read_text(encoding="utf-8"))
        return [Page(**row) for row in rows]
    except (OSError, ValueError, TypeError):
        return []


def render_notebook(path: Path, lake_dir: Path, timeout_s: int = 300) -> tuple[str, str]:
    """(title, html) of the notebook at ``path`` executed on ``lake_dir``. Raises nbclient's
    CellExecutionError (a cell failed) or TimeoutError."""
    import nbformat
    from nbclient import NotebookClient
    from nbconvert import HTMLExporter

    book = nbformat.read(path, as_version=4)
    env = {**os.environ, "FLEET_REPORT_LAKE_DIR": str(lake_dir), "MPLBACKEND": "Agg"}
    client = NotebookClient(book, kernel_name="python3", timeout=timeout_s,
                            resources={"metadata": {"path": str(path.parent)}})
    client.execute(env=env)
    title = str(book.metadata.get("title") or path.stem)
    exporter = HTMLExporter(template_name="lab", mathjax_url="", require_js_url="")
    html, _ = exporter.from_notebook_node(book, resources={"metadata": {"name": title}})
    # A static page: no script (the template's loaders would fetch from the internet; the API serves the page
    # under a CSP that forbids scripts anyway, and the console shows it in a sandboxed frame).
    return title, SCRIPT.sub("", html)


def render_notebooks(lake_dir: Path, out_dir: Path, notebooks_dir: Path = NOTEBOOKS_DIR,
                     names: list[str] | None = None) -> list[Page]:
    """Render the notebooks of ``notebooks_dir`` (or only ``names``, file stems) into ``out_dir``; returns
    the index written (pages not rendered this time keep their previous entry)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    pages = {page.name: page for page in read_index(out_dir)}
    for path in sorted(notebooks_dir.glob("*.ipynb")):
        if names is not None and path.stem not in names or not PAGE_NAME.match(path.stem):
            continue
        now = datetime.now(UTC).isoformat(timespec="seconds")
        try:
            title, html = render_notebook(path, lake_dir)
        except Exception as exc:  # one failing notebook never takes the others' pages away
            previous = pages.get(path.stem)
            pages[path.stem] = Page(path.stem, previous.title if previous else path.stem,
                                    previous.rendered_at if previous else "", f"{type(exc).__name__}: {exc}"[:2000])
            continue
        _write_atomic(out_dir / f"{path.stem}.html", html)
        pages[path.stem] = Page(path.stem, title, now)
    index = sorted(pages.values(), key=lambda p: p.name)
    _write_atomic(out_dir / INDEX, json.dumps([asdict(p) for p in index], ensure_ascii=False, indent=1))
    return index
