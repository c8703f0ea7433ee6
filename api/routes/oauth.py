"""``/oauth2/token.json``: password and refresh_token grants (console-spec §7), and client_credentials
for open platform apps (``api/open_platform.py``)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, request

from api.errors import BadRequest
from api.http import ok
from api.services import SERVICE_KEY
from api.tokens import TokenService

bp = Blueprint("oauth", __name__)


def _param(name: str) -> str:
    value = request.args.get(name)
    if value is None:
        value = request.form.get(name, "")
    return value


@bp.route("/oauth2/token.json", methods=["GET", "POST"])
def token() -> dict[str, Any]:
    """Query (or form) grant_type=password&username=&password=, grant_type=refresh_token&refresh_token=
    or grant_type=client_credentials&client_id=&client_secret= (or HTTP Basic)."""
    service: TokenService = current_app.extensions[SERVICE_KEY]
    grant_type = _param("grant_type")
    if grant_type == "password":
        return ok(service.password_grant(_param("username"), _param("password"), request.remote_addr or ""))
    if grant_type == "refresh_token":
        return ok(service.refresh_grant(_param("refresh_token")))
    if grant_type == "client_credentials":
        # RFC 6749 §2.3.1: HTTP Basic (client_id:client_secret), or the parameters
        basic = request.authorization if request.authorization and request.authorization.type == "basic" else None
        address = request.remote_addr or ""
        if basic is not None:
            return ok(service.client_credentials_grant(basic.username or "", basic.password or "", address))
        return ok(service.client_credentials_grant(_param("client_id"), _param("client_secret"), address))
    raise BadRequest(f"unsupported grant_type {grant_type!r}; use password, refresh_token or client_credentials")
