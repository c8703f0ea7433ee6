"""JT/T 809 link operations (platform-spec §2 superiorPlatform, §6 action ``superior``; exchange/link). The
superior platform rows themselves are the declared entity ``superiorPlatform`` (api/query/entities_exchange.py).

- ``GET /api/exchange/superiorPlatform/{id}/linkState.json`` (``superiorPlatform:superior``): the main and sub
  link's state, since, last heartbeat, sent / received / back-filled / thinned counts, 0x9101 mismatches and
  last error, as the link service last saved them (every FLEET_EXCHANGE_POLL_S); ``[]`` before its first run.
  A platform outside the caller's scope is a 404.
- ``POST /api/exchange/inspection/{id}/answer.json`` ``{"answer": text}`` (``superiorPlatform:superior``):
  answers an open 0x9301 inspection. The answer is stored (state ``answered``); the link service, which polls
  the table, sends it as 0x1301 and marks it ``sent``. Not in scope: 404; already answered: 409; past its
  deadline (state ``expired``: the superior no longer waits for it): 409 saying so.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint

from api.db import get_db
from api.errors import BadRequest, Conflict, NotFound
from api.http import json_object, ok
from api.security import current_principal, request_scope, requires
from warehouse.queries import exchange as q
from warehouse.queries.scope import like_prefix

bp = Blueprint("exchange", __name__)
MAX_ANSWER_CHARS = 1000


def _expired(inspection_id: int) -> Conflict:
    return Conflict(f"该查岗已过应答截止时间，不能再应答 (inspection {inspection_id} is past its deadline and can no "
                    "longer be answered)", data={"state": "expired"})


@bp.get("/api/exchange/superiorPlatform/<int:platform_id>/linkState.json")
@requires("superiorPlatform", "superior")
def link_state(platform_id: int) -> dict[str, Any]:
    with get_db().connection() as conn:
        if not q.platform_in_scope(conn, platform_id, like_prefix(request_scope().enterprise_path)):
            raise NotFound(f"superiorPlatform {platform_id} 不存在 (does not exist)")
        return ok(q.link_states(conn, platform_id))


@bp.post("/api/exchange/inspection/<int:inspection_id>/answer.json")
@requires("superiorPlatform", "superior")
def answer_inspection(inspection_id: int) -> dict[str, Any]:
    body = json_object()
    prefix = like_prefix(request_scope().enterprise_path)
    with get_db().connection() as conn:
        # another enterprise's inspection is a 404 before anything about the request is judged
        state = q.inspection_state(conn, inspection_id, prefix)
        if state is None:
            raise NotFound(f"inspection {inspection_id} 不存在 (does not exist)")
        if state == "expired":
            raise _expired(inspection_id)
        answer = body.get("answer")
        if not isinstance(answer, str) or not answer.strip() or len(answer) > MAX_ANSWER_CHARS:
            raise BadRequest(f"请填写应答内容 (field 'answer': text of 1 to {MAX_ANSWER_CHARS} characters)",
                             data={"field": "answer"})
        if q.answer_inspection(conn, inspection_id, answer.strip(), current_principal().user_id, prefix):
            return ok({"id": inspection_id, "state": "answered"})
        if q.inspection_state(conn, inspection_id, prefix) == "expired":  # the deadline passed meanwhile
            raise _expired(inspection_id)
    raise Conflict(f"该查岗已应答 (inspection {inspection_id} is already answered)")
