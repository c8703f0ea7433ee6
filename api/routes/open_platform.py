"""Open platform routes beyond the generic ``openApp`` ones (``api/open_platform.py``): the catalogue
of API groups an app may be allowed, and a new secret for an app (shown once)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint

from api import open_platform
from api.db import get_db
from api.errors import NotFound
from api.http import ok
from api.query.entities_settings import OPEN_APP
from api.security import current_principal, request_scope, requires
from warehouse.queries import records as record_queries

bp = Blueprint("open_platform", __name__)


@bp.get("/api/openPlatform/apis.json")
@requires(OPEN_APP.permission, "query")
def api_catalogue() -> dict[str, Any]:
    """``[{name, label, labelEn, permissions: [{code, actions}], routes}]``."""
    return ok(open_platform.catalogue())


@bp.post("/api/common/openApp/<int:record_id>/secret.json")
@requires(OPEN_APP.permission, "update")
def new_secret(record_id: int) -> dict[str, Any]:
    """``{id, appKey, appSecret}``: a new secret, answered this once; the old one and every token
    issued with it stop working. Another enterprise's (or a deleted) app: 404."""
    with get_db().connection() as conn, conn.transaction():
        row = record_queries.lock_row(conn, record_queries.Table(OPEN_APP.table, OPEN_APP.tenant_column,
                                                                  OPEN_APP.record_state_column),
                                      request_scope(), record_id, ["enterprise_id", "app_key"])
        if row is None:
            raise NotFound(f"openApp {record_id} 不存在 (does not exist)")
        secret = open_platform.issue_new_secret(conn, record_id)
        who = current_principal()
        record_queries.audit(conn, user_id=who.user_id, user_name=who.user_name, enterprise_id=row["enterprise_id"],
                             entity=OPEN_APP.name, record_id=record_id, action="update",
                             changes={"appSecret": {"before": "***", "after": "***"}})
    return ok({"id": record_id, "appKey": row["app_key"], "appSecret": secret})
