"""``/oauth2/token.json``: password and refresh_token grants (console-spec §7), and client_credentials
for open platform apps (``api/open_platform.py``)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, request

from api.basic_auth import PROTOCOL_CLIENT_BASIC, auth_protocol
from api.errors import BadRequest, InvalidCredentials
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
    basic = request.authorization if request.authorization and request.authorization.type == "basic" else None
    address = request.remote_addr or ""
    if grant_type in ("password", "refresh_token") and auth_protocol(current_app) == PROTOCOL_CLIENT_BASIC:
        # Authorization protocol 2 (console-spec §7 "General"): the token call authenticates the
        # client with HTTP Basic client credentials (an open platform app's key and secret).
        if basic is None:
            raise InvalidCredentials("缺少客户端凭证 (authorization protocol 2: the token call needs "
                                     "'Authorization: Basic base64(client_id:client_secret)')")
        service.check_client(basic.username or "", basic.password or "", address)
    if grant_type == "password":
        return ok(service.password_grant(_param("username"), _param("password"), request.remote_addr or ""))
    if grant_type == "refresh_token":
        return ok(service.refresh_grant(_param("refresh_token")))
    if grant_type == "client_credentials":
        # RFC 6749 §2.3.1: HTTP Basic (client_id:client_secret), or the parameters
        if basic is not None:
            return ok(service.client_credentials_grant(basic.username or "", basic.password or "", address))
        return ok(service.client_credentials_grant(_param("client_id"), _param("client_secret"), address))
    raise BadRequest(f"不支持的授权类型 {grant_type!r} "
                     f"(unsupported grant_type {grant_type!r}; use password, refresh_token or client_credentials)")
