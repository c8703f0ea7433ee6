"""The analyst notebooks, executed on the lake and rendered to HTML (warehouse/notebook_pages.py), for the
console's 分析笔记本 page:

- ``GET /api/analysis/notebooks.json``: ``[{name, title, renderedAt, error}]`` of the rendered pages.
- ``GET /api/analysis/notebooks/<name>.json``: ``{name, title, renderedAt, html}`` of one page (static HTML
  without scripts, charts embedded as PNG), which the console shows in a sandboxed frame.

Both need ``report:query`` (the analyst's right) and a caller of a root enterprise: the lake, hence every
page, holds every enterprise's figures (docs/reports.md §9), so a subsidiary's user would read others' data;
anyone else gets a 403.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import Blueprint, current_app

from api.errors import Forbidden, NotFound
from api.http import ok
from api.query.entities_settings import is_root_path
from api.security import current_principal, requires
from fleet.settings import report_notebook_pages_dir
from warehouse.notebook_pages import PAGE_NAME, read_index

bp = Blueprint("analysis", __name__)

def _pages_dir() -> Path:
    configured = current_app.config.get("FLEET_NOTEBOOK_PAGES_DIR")
    return Path(configured) if configured else report_notebook_pages_dir()


def _root_only() -> None:
    if not is_root_path(current_principal().enterprise_path):
        raise Forbidden("分析笔记本包含所有企业的数据，只有根企业的用户可以查看 "
                        "(the notebooks hold every enterprise's figures: only users of a root enterprise may read them)")


@bp.get("/api/analysis/notebooks.json")
@requires("report", "query")
def notebook_list() -> dict[str, Any]:
    _root_only()
    return ok([{"name": p.name, "title": p.title, "renderedAt": p.rendered_at or None, "error": p.error or None}
               for p in read_index(_pages_dir())])


@bp.get("/api/analysis/notebooks/<name>.json")
@requires("report", "query")
def notebook_page(name: str) -> dict[str, Any]:
    _root_only()
    pages = {p.name: p for p in read_index(_pages_dir())}
    path = _pages_dir() / f"{name}.html"
    if not PAGE_NAME.match(name) or name not in pages or not path.is_file():
        raise NotFound(f"分析笔记本 {name} 不存在或尚未生成 (notebook page {name!r} does not exist or is not rendered yet)")
    page = pages[name]
    return ok({"name": name, "title": page.title, "renderedAt": page.rendered_at or None,
               "html": path.read_text(encoding="utf-8")})
