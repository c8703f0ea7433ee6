"""Unauthenticated endpoints: health and the OpenAPI document."""

from __future__ import annotations

import functools
from importlib import resources
from typing import Any

import yaml
from flask import Blueprint

from api.db import get_db
from api.errors import Unavailable
from api.http import ok
from api.query import contract as query_contract
from api.query import spreadsheet_contract
from warehouse.queries import database_health

bp = Blueprint("meta", __name__)


@bp.get("/api/health.json")
def health() -> dict[str, Any]:
    """data {db: "ok"}; 503 with data {db: "unavailable"} when PostgreSQL does not answer."""
    try:
        with get_db().connection() as conn:
            database_health.ping(conn)
    except Exception as exc:  # any failure of the database is "unavailable" here
        raise Unavailable(f"数据库不可用 (database unavailable: {type(exc).__name__})",
                          data={"db": "unavailable"}) from exc
    return ok({"db": "ok"})


@functools.lru_cache(maxsize=1)
def openapi_document() -> dict[str, Any]:
    text = resources.files("api").joinpath("openapi.yaml").read_text(encoding="utf-8")
    document: dict[str, Any] = yaml.safe_load(text)
    # The generic query's fields, operators and value forms come from the entity whitelists.
    for section, entries in query_contract.components().items():
        document["components"].setdefault(section, {}).update(entries)
    # The declared writable entities' paths are generated whole.
    own_password_change = document["paths"].get(OWN_PASSWORD_PATH, {}).get("patch")
    document["paths"].update(query_contract.paths())
    if own_password_change is not None:
        _merge_patch(document["paths"][OWN_PASSWORD_PATH], own_password_change)
    document["paths"].update(spreadsheet_contract.openapi_paths())  # export / import of the declared entities
    return document


# One route, two bodies (api/routes/console.py patch_user): the caller's own password change
# (documented in api/openapi.yaml) or the generic update of a user (generated).
OWN_PASSWORD_PATH = "/api/common/user/{id}.json"


def _merge_patch(item: dict[str, Any], own: dict[str, Any]) -> None:
    generic = item["patch"]
    own_body = own["requestBody"]["content"]["application/json"]["schema"]
    generic_body = generic["requestBody"]["content"]["application/json"]["schema"]
    item["patch"] = {
        **generic,
        "summary": f"{own['summary']}; or {generic['summary']}",
        "description": f"{own.get('description', '')}\nAny other body is the generic update of the user (user:update).",
        "requestBody": {"required": False, "content": {"application/json": {
            "schema": {"anyOf": [own_body, generic_body]}}}},
        "responses": {**generic["responses"], **own["responses"]},
    }


@bp.get("/api/openapi.json")
def openapi() -> dict[str, Any]:
    """The OpenAPI 3.1 document itself (not wrapped in the envelope)."""
    return openapi_document()
