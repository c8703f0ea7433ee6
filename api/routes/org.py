"""The user menu area (platform-spec §2 user) beyond the generic entity routes: enabling and disabling
enterprises and users, and the permission catalogue the role editor offers.

- ``POST /api/common/{enterprise|user}/{id}/enable.json`` and ``.../disable.json`` (``<code>:enable``
  / ``<code>:disable``): the record's ``state`` through the generic update (scope, audit, 404 for
  another enterprise's id). Disabling an enterprise ends the sessions of its whole subtree and
  refuses their sign-in until it is enabled again; disabling a user ends that user's sessions.
- ``GET /api/aas/permission.json`` (``role:query``): ``[{code, name, actions, opens, implies}]``, every
  permission code (``name`` in the caller's language, ``api.permission_names``) with the actions it offers, the screens a grant of it opens (``opens``: [{title,
  action}], menu title keys; action "" for any action) and the reads those screens bring with them
  (``implies``: [{code, actions}], ``api.rights``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from flask import Blueprint

from api.db import get_db
from api.errors import BadRequest, Conflict, request_language
from api.http import json_body, ok
from api.permission_names import permission_name
from api.query import records
from api.query.grammar import EntitySpec
from api.query.org_entities import ENTERPRISE, ROLE, USER
from api.rights import catalogue_implications
from api.routemap import screens_opened_by
from api.security import current_principal, request_scope, requires
from warehouse.queries import organisation as org

bp = Blueprint("org", __name__)
STATES = {"enable": 1, "disable": 0}


def _state_writer(entity: EntitySpec) -> EntitySpec:
    """The declaration with ``state`` writable: used only by the enable / disable routes."""
    state = dataclasses.replace(entity.fields["state"], update=True)
    return dataclasses.replace(entity, fields={**entity.fields, "state": state})


def _state_view(entity: EntitySpec, action: str) -> Callable[[int], dict[str, Any]]:
    writer = _state_writer(entity)

    def view(record_id: int) -> dict[str, Any]:
        body = json_body()
        if body not in (None, {}):
            raise BadRequest(f"请求体必须为空 ({action} takes no body)")
        who = current_principal()
        if entity is USER and record_id == who.user_id and action == "disable":
            raise Conflict("不能停用当前登录用户 (you cannot disable yourself)")
        if entity is ENTERPRISE and record_id == who.enterprise_id and action == "disable":
            raise Conflict("不能停用本企业 (you cannot disable your own enterprise)")
        with get_db().connection() as conn:
            return ok(records.update(conn, writer, who, request_scope(), record_id, {"state": STATES[action]}))

    view.__name__ = f"{action}_{entity.name}"
    return view


for _entity in (ENTERPRISE, USER):
    for _action in STATES:
        bp.add_url_rule(f"/api/common/{_entity.name}/<int:record_id>/{_action}.json",
                        view_func=requires(_entity.permission, _action)(_state_view(_entity, _action)),
                        methods=["POST"])


@bp.get("/api/aas/permission.json")
@requires(ROLE.permission, "query")
def permission_catalogue() -> dict[str, Any]:
    with get_db().connection() as conn:
        catalogue = org.permission_catalogue(conn)
    language = request_language()
    return ok([{**entry, "name": permission_name(entry["code"], entry["name"], language),
                "opens": screens_opened_by(entry["code"]), "implies": catalogue_implications(entry["code"])}
               for entry in catalogue])
