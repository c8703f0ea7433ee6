"""What the operator console needs around the map (console-spec §2-§7): the current user
with permissions and route map, map config, system files (api/system_files.py), notice overview, profile and password change, and the
enterprise counters of the dashboard (platform-spec §7 "Enterprise reports").

Access: every route needs a valid access token. Routes about the caller themself (current user,
profile, password, map config, notices) need no permission code; the fleet counters need
``car:query`` (they reveal nothing a car query could not) and are scoped like every list
(the caller's enterprise and its subsidiaries; ``isParent=false``: the enterprise only).

Password change (``PATCH /api/common/user/{id}.json``) changes the caller's own password only: any
other id answers 404 exactly like a missing user (setting another user's password belongs to user
management, which checks ``user:update`` in the enterprise tree). A wrong old password counts as a
failed login of that account (same throttle as the token endpoint), so a stolen access token
cannot be used to guess the password. Success revokes every refresh token of the user, and the
password change bumps the user's session epoch, so access tokens already issued stop working
within the session check TTL (``api.auth``); the console signs out right away.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from flask import Blueprint, current_app, request

from api import platform_params, system_files
from api.db import get_db
from api.errors import AuthError, BadRequest, Forbidden, NotFound
from api.http import json_body, ok
from api.notices import NOTICE_BIZ_TYPES, overview_queries
from api.platform_params import BASE_LAYERS
from api.query import records
from api.query.org_entities import USER
from api.query.runner import run_count
from api.query.validators import PASSWORD_INVALID, password_is_valid
from api.query.values import parse_flag
from api.routemap import denied_paths, routes_for
from api.security import (
    authenticated,
    current_principal,
    request_scope,
    requires,
)
from api.services import SERVICE_KEY
from fleet.settings import ApiSettings
from protocols.china_time import local_midnight
from warehouse.queries import auth as auth_q
from warehouse.queries import console as q
from warehouse.queries import fleet_figures

bp = Blueprint("console", __name__)
F = TypeVar("F", bound=Callable[..., Any])

DEFAULT_ZOOM, MAX_ZOOM = 11, 18

PASSWORDS_DIFFER = "两次输入的密码不一致 (two password entries are inconsistent)"
OLD_PASSWORD_WRONG = "旧密码错误 (old password is wrong)"
_REQUIRED = {
    "oldPassword": "旧密码不能为空 (old password is required)",
    "password": "新密码不能为空 (new password is required)",
    "confirmPassword": "确认密码不能为空 (confirm password is required)",
}
# Patterns as in api/openapi.yaml, with explicit classes (JSON Schema's \s is not Python's).
_EMAIL = re.compile(r"^[^@\x00-\x20]+@[^@\x00-\x20]+\.[^@\x00-\x20]+$")
_BLANKS = " \t\n\r\f\v"
_NOT_BLANK = re.compile(r"[^ \t\n\r\f\v]")
_PHONE = re.compile(r"^(?:[0-9]{11}|(?:0[0-9]{2,3}-?)?[0-9]{7,8}(?:-[0-9]{1,6})?)$")  # mobile or landline[-ext]
_PROFILE_LIMITS = {"email": 128, "nickName": 32, "phone": 20, "profile": 500, "country": 64, "province": 64,
                   "city": 64, "address": 200}


# --- the caller ---------------------------------------------------------------------------------


def _user_reply(row: dict[str, Any]) -> dict[str, Any]:
    data = dict(row.pop("profileData") or {})
    reply = {**row, "avatar": row.get("avatar") or ""}
    for key in q.PROFILE_KEYS:
        reply[key] = str(data.get(key) or "")
    return reply


def _own_record(conn: Any) -> dict[str, Any]:
    row = q.user_record(conn, current_principal().user_id)
    if row is None:  # deleted or disabled since the token was issued
        raise AuthError("账号已停用 (account disabled)")
    return row


@bp.get("/api/user/current.json")
@authenticated
def current_user() -> dict[str, Any]:
    """The caller with permissions [{code, actions}] (granted ones: implied reads open no screen), the
    route map those permissions allow and ``deniedPaths``, the map's screens they do not (the console
    shows its 403 page there). Permissions are read from the database, so a role change shows here
    before the next refresh."""
    with get_db().connection() as conn:
        row = _own_record(conn)
        permissions = auth_q.permissions_of(conn, row["id"])
    reply = _user_reply(row)
    reply["permissions"] = [{"code": code, "actions": sorted(actions)} for code, actions in sorted(permissions.items())]
    reply["routes"] = routes_for(permissions)
    reply["deniedPaths"] = denied_paths(permissions)
    # console-spec §7 "General": the console sends what the authorization protocol says (api/basic_auth.py)
    reply["authProtocol"] = current_app.config["FLEET_API_SETTINGS"].auth_protocol
    return ok(reply)


@bp.put("/api/user/profile.json")
@authenticated
def update_profile() -> dict[str, Any]:
    """Body {email, nickName, profile, country, province, city, address, phone}; keys left out stay
    as they are. email and nickName may not be empty; email and phone are checked for format."""
    body = json_body()
    if not isinstance(body, dict) or not body:
        raise BadRequest("请求体必须是非空 JSON 对象 (body must be a non-empty JSON object)")
    unknown = sorted(set(body) - set(_PROFILE_LIMITS))
    if unknown:
        raise BadRequest(f"未知字段：{', '.join(unknown)} (unknown profile field(s): {', '.join(unknown)})")
    values: dict[str, str] = {}
    for key, value in body.items():  # checked as sent (api/openapi.yaml), stored without edge blanks
        if value is None:
            value = ""
        if not isinstance(value, str):
            raise BadRequest(f"{key} 必须是文本 ({key} must be text)")
        if len(value) > _PROFILE_LIMITS[key]:
            raise BadRequest(f"{key} 不能超过 {_PROFILE_LIMITS[key]} 个字符 "
                             f"({key} is longer than {_PROFILE_LIMITS[key]} characters)")
        if key == "email" and not _EMAIL.fullmatch(value):
            raise BadRequest("请输入邮箱 (email is required)" if not value.strip(_BLANKS)
                             else "邮箱格式不正确 (not an email address)")
        if key == "nickName" and not _NOT_BLANK.search(value):
            raise BadRequest("请输入昵称 (nickname is required)")
        if key == "phone" and value and not _PHONE.fullmatch(value):
            raise BadRequest("电话号码格式不正确 (not a phone number)")
        values[key] = value.strip(_BLANKS)
    columns = {column: values[key] for key, column in (("email", "email"), ("nickName", "nick_name"),
                                                       ("phone", "phone")) if key in values}
    profile = {key: values[key] for key in q.PROFILE_KEYS if key in values}
    with get_db().connection() as conn:
        _own_record(conn)
        q.update_profile(conn, current_principal().user_id, columns, profile)
        row = _own_record(conn)
    return ok(_user_reply(row))


PASSWORD_CHANGE_KEYS = frozenset({"oldPassword", "confirmPassword", "account"})


@bp.patch("/api/common/user/<int:user_id>.json")
@authenticated
def patch_user(user_id: int) -> dict[str, Any]:
    """The caller's own password change when the body has oldPassword, confirmPassword or account
    (console-spec §7), else the generic update of the declared ``user`` (needs ``user:update``;
    an administrator's password reset is ``{password}``)."""
    body = json_body()
    if isinstance(body, dict) and PASSWORD_CHANGE_KEYS.intersection(body):
        return change_password(user_id, body)
    principal = current_principal()
    if not principal.can(USER.permission, "update"):
        raise Forbidden.missing(USER.permission, "update")
    with get_db().connection() as conn:
        return ok(records.update(conn, USER, principal, request_scope(), user_id, body))


def change_password(user_id: int, body: dict[str, Any]) -> dict[str, Any]:
    """Body {id, account, oldPassword, password, confirmPassword}; see the module doc for the rules."""
    for key, message in _REQUIRED.items():
        if not isinstance(body.get(key), str) or not body[key]:
            raise BadRequest(message)
    if body.get("id") not in (None, "", user_id, str(user_id)):
        raise BadRequest(f"请求体的 id 与路径的 id 不一致 (body id {body.get('id')!r} does not match the path id {user_id})")
    principal = current_principal()
    if user_id != principal.user_id:
        raise NotFound(f"user {user_id} 不存在 (does not exist)")
    account = body.get("account")
    if account not in (None, "") and account != principal.user_name:
        raise BadRequest("账号与用户不一致 (account does not match the user)")
    if not password_is_valid(body["password"]):
        raise BadRequest(PASSWORD_INVALID)
    if body["password"] != body["confirmPassword"]:
        raise BadRequest(PASSWORDS_DIFFER)
    _verify_old_password(principal.user_id, principal.user_name, body["oldPassword"])
    new_hash = current_app.extensions[SERVICE_KEY].new_password_hash(body["password"])
    with get_db().connection() as conn:
        revoked = q.set_password(conn, principal.user_id, new_hash, datetime.now(UTC))
    return ok({"id": principal.user_id, "revokedRefreshTokens": revoked})


def _verify_old_password(user_id: int, user_name: str, old_password: str) -> None:
    """Raises BadRequest for a wrong old password and TooManyAttempts while throttled: the same
    throttle, audit and off-hub password check as the token endpoint (``api.tokens``)."""
    current_app.extensions[SERVICE_KEY].check_password(
        user_name, old_password, request.remote_addr or "", wrong=lambda: BadRequest(OLD_PASSWORD_WRONG))


# --- map and notices ----------------------------------------------------------------------------


@bp.get("/api/system/mapConfig.json")
@authenticated
def map_config() -> dict[str, Any]:
    """Tile keys and the map's starting view (console-spec §9); keys are empty when not configured."""
    # the starting view is a run-time parameter (api/platform_params.py); the keys are read at start
    with get_db().connection() as conn:
        settings = platform_params.effective(conn, current_app.config["FLEET_API_SETTINGS"])
    default_layer = settings.map_default_base_layer if settings.map_default_base_layer in BASE_LAYERS else "blank"
    return ok({
        "tiandituKey": settings.map_tianditu_key,
        "bingKey": settings.map_bing_key,
        "amapKey": settings.map_amap_key,
        "mapCenter": {"lng": settings.map_center_lng, "lat": settings.map_center_lat},
        "defaultZoom": DEFAULT_ZOOM,
        "maxZoom": MAX_ZOOM,
        "baseLayers": list(BASE_LAYERS),
        "defaultBaseLayer": default_layer,
    })


@bp.get("/api/common/systemFile/<name>.json")
@authenticated
def system_file(name: str) -> dict[str, Any]:
    """{name, path, modifyTime} of a system file of the built console (api/system_files.py); 404 for a name
    it does not know or a file the build lacks."""
    settings: ApiSettings = current_app.config["FLEET_API_SETTINGS"]
    found = system_files.system_file(Path(settings.console_dir), name)
    if found is None:
        raise NotFound(f"系统文件 {name[:64]} 不存在 (no system file {name[:64]}; known: "
                       f"{', '.join(system_files.SYSTEM_FILES)})")
    return ok(found)


@bp.get("/api/notice/overView.json")
@authenticated
def notice_overview() -> dict[str, Any]:
    """[{bizType, total}] for bizType 1-6 (console-spec §9): the caller's open notices per kind, as
    ``POST /api/query/notice.json`` lists them (api/notices.py); announcements only while unread by the caller;
    0 for a kind the caller may not read."""
    settings: ApiSettings = current_app.config["FLEET_API_SETTINGS"]
    totals = dict.fromkeys(NOTICE_BIZ_TYPES, 0)
    scope = request_scope()
    with get_db().connection() as conn:
        # the expiry windows are run-time parameters (api/platform_params.py): read per request
        settings = platform_params.effective(conn, settings)
        for biz_type, query in overview_queries(current_principal(), settings).items():
            totals[biz_type] = run_count(conn, query, scope)
    return ok([{"bizType": biz_type, "total": totals[biz_type]} for biz_type in NOTICE_BIZ_TYPES])


# --- enterprise counters (platform-spec §7) -------------------------------------------------------


BIZ_STATE_REPORT_KEYS = ("running", "parking", "flameout", "noSignal", "offline", "total")  # platform-spec §7


def _biz_state_report(counts: dict[str, int]) -> dict[str, int]:
    return {key: counts[key] for key in BIZ_STATE_REPORT_KEYS}


@bp.post("/api/common/query/enterpriseCarBizstateReport.json")
@requires("car", "query")
def enterprise_car_biz_state_report() -> dict[str, Any]:
    """{running, offline, parking, flameout, noSignal, total}: the scope's cars by business state, the
    fleet figures' definition (warehouse/queries/fleet_figures.py)."""
    parse_flag("countable", request.args.get("countable"))  # accepted and ignored, but well-formed
    with get_db().connection() as conn:
        return ok(_biz_state_report(fleet_figures.state_counts(conn, request_scope())))


@bp.post("/api/common/query/enterpriseVideoCarBizstateReport.json")
@requires("car", "query")
def enterprise_video_car_biz_state_report() -> dict[str, Any]:
    """As enterpriseCarBizstateReport, over the cars whose master device has video (platform-spec §7)."""
    parse_flag("countable", request.args.get("countable"))
    with get_db().connection() as conn:
        return ok(_biz_state_report(fleet_figures.state_counts(conn, request_scope(), video=True)))


@bp.post("/api/common/query/enterpriseTodayOnlineCarReport.json")
@requires("car", "query")
def enterprise_today_online_car_report() -> dict[str, Any]:
    """{total}: the scope's cars online now or at some point since midnight (UTC+8)."""
    parse_flag("countable", request.args.get("countable"))  # accepted and ignored, but well-formed
    since = local_midnight(datetime.now(UTC))
    with get_db().connection() as conn:
        return ok({"total": q.cars_online_since(conn, request_scope(), since)})
