"""Spreadsheet export and import of the declared entities (``api/query/transfer.py``), routes made
from the declarations: an entity with ``exportable`` fields gets the export routes, a writable one
with ``importable`` fields the import routes.

- ``POST /api/common/export/{entity}.xlsx|.csv`` (``{permission}:export``): the query route's body and
  ``orderBy`` / ``desc`` / ``isParent``; every matching row up to ``FLEET_API_EXPORT_MAX_ROWS``.
- ``GET /api/common/import/{entity}/template.xlsx`` (``:import``): header and field descriptions.
- ``POST /api/common/import/{entity}.json`` (``:import``, multipart ``file``) -> ``{jobId, total}``.
- ``GET /api/common/import/{entity}/{jobId}.json`` (``:import``): the job, in the caller's enterprise; its
  ``message`` and each row error's are the Chinese text, with ``localMessage`` in the caller's language.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import Any

from flask import Blueprint, Response, current_app, request, send_file

from api.db import get_db
from api.errors import BadRequest, NotFound, in_caller_language
from api.http import json_body, ok
from api.query import spreadsheet, transfer
from api.query.entities import PERMISSION_OF
from api.query.grammar import EntitySpec
from api.query.spreadsheet_contract import EXPORTABLE, IMPORTABLE, MIME
from api.security import current_principal, request_scope, requires
from fleet.settings import ApiSettings
from warehouse.queries import import_jobs
from warehouse.queries.scope import Scope

bp = Blueprint("spreadsheets", __name__)



def _settings() -> ApiSettings:
    settings: ApiSettings = current_app.config["FLEET_API_SETTINGS"]
    return settings


def _stamp() -> str:
    return time.strftime("%Y%m%d%H%M%S")


def _export_view(entity: EntitySpec, fmt: str) -> Callable[[], Response]:
    def view() -> Response:
        body = json_body()
        with get_db().connection() as conn:
            out = transfer.export_file(conn, entity, request.args, body, request_scope(), fmt,
                                       _settings().export_max_rows)
        return send_file(out, mimetype=MIME[fmt], as_attachment=True,
                         download_name=f"{entity.name}-{_stamp()}.{fmt}")

    view.__name__ = f"export_{entity.name}_{fmt}"
    return view


def _template_view(entity: EntitySpec) -> Callable[[], Response]:
    def view() -> Response:
        out = spreadsheet.template(entity, transfer.import_fields(entity))
        return send_file(out, mimetype=spreadsheet.XLSX_TYPE, as_attachment=True,
                         download_name=f"{entity.name}-template.xlsx")

    view.__name__ = f"import_template_{entity.name}"
    return view


def _import_view(entity: EntitySpec) -> Callable[[], dict[str, Any]]:
    def view() -> dict[str, Any]:
        upload = request.files.get("file")
        if upload is None:
            raise BadRequest("缺少文件 (multipart field 'file' with an XLSX or CSV file is required)")
        settings = _settings()
        rows = transfer.read_import(entity, upload.read(), settings.import_max_rows)
        who = current_principal()
        db = get_db()
        with db.connection() as conn:
            job_id = import_jobs.create(conn, enterprise_id=who.enterprise_id, user_id=who.user_id,
                                        entity=entity.name, total=len(rows), owner=transfer.OWNER)

        app = current_app._get_current_object()  # type: ignore[attr-defined]

        def work() -> None:
            with app.app_context():  # hooks may read the app (settings, offloaded hashing)
                transfer.apply_rows(db.connection, entity, who, job_id, rows, settings.import_batch_rows,
                                    transfer.pause)

        transfer.start_background(work)
        return ok({"jobId": job_id, "total": len(rows)})

    view.__name__ = f"import_{entity.name}"
    return view


def _job_view(entity: EntitySpec) -> Callable[[uuid.UUID], dict[str, Any]]:
    def view(job_id: uuid.UUID) -> dict[str, Any]:
        who = current_principal()
        with get_db().connection() as conn:
            job = import_jobs.read(conn, Scope(who.enterprise_id, who.enterprise_path), entity.name, str(job_id),
                                   stale_after_s=_settings().import_stale_s, owner_alive=transfer.owner_alive)
        if job is None:
            raise NotFound(f"导入任务不存在 (import job {job_id} does not exist)")
        # Row errors are stored bilingual; each caller reads them as an error reply (platform-spec §8).
        return ok(in_caller_language({**job, "errors": [in_caller_language(e) for e in job.get("errors") or []]}))

    view.__name__ = f"import_job_{entity.name}"
    return view


def _export_guarded(entity: EntitySpec, name: str, fmt: str) -> Callable[..., Any]:
    """An export needs the ``export`` action (platform-spec §6), and also the entity's read action where reading
    it needs one (the data-exchange logs: ``superior``), so an export never shows what the list would not."""
    view = _export_view(entity, fmt)
    if entity.read_action:
        view = requires(PERMISSION_OF[name], entity.read_action)(view)
    return requires(PERMISSION_OF[name], "export")(view)


for _name, _entity in EXPORTABLE.items():
    for _fmt in ("xlsx", "csv"):
        bp.add_url_rule(f"/api/common/export/{_name}.{_fmt}", view_func=_export_guarded(_entity, _name, _fmt),
                        methods=["POST"])
for _name, _entity in IMPORTABLE.items():
    _guard = requires(_entity.permission, "import")
    bp.add_url_rule(f"/api/common/import/{_name}/template.xlsx", view_func=_guard(_template_view(_entity)),
                    methods=["GET"])
    bp.add_url_rule(f"/api/common/import/{_name}.json", view_func=_guard(_import_view(_entity)), methods=["POST"])
    bp.add_url_rule(f"/api/common/import/{_name}/<uuid:job_id>.json",
                    view_func=_guard(_job_view(_entity)), methods=["GET"])
