"""The one error shape of the HTTP boundary: domain code raises these, `api.app` renders the envelope.

Every reply is ``{code, message, data}``. ``code`` is 0 on success; errors use the HTTP status as
the business code, except 40002 (session invalid, HTTP 401), which the console treats specially
(console-spec §8: log out and go to the login page).
"""

from __future__ import annotations

from typing import Any

SESSION_INVALID = 40002


class ApiError(Exception):
    """Base of every error the API answers on purpose. ``code`` is the envelope code."""

    http_status = 500
    code = 500
    default_message = "服务器内部错误 (internal server error)"

    def __init__(self, message: str | None = None, *, data: Any = None) -> None:
        self.message = message or self.default_message
        self.data = data
        super().__init__(self.message)


class BadRequest(ApiError):
    """Malformed input: unknown field, operator or sort key, bad value, invalid JSON."""

    http_status = 400
    code = 400
    default_message = "bad request"


class InvalidCredentials(ApiError):
    """User name or password wrong (or the account is disabled: the reply does not tell which)."""

    http_status = 401
    code = 401
    default_message = "用户名或密码错误 (wrong user name or password)"


class AuthError(ApiError):
    """Missing, malformed, forged or expired token: the console logs out (code 40002)."""

    http_status = 401
    code = SESSION_INVALID
    default_message = "会话已失效，请重新登录 (session invalid or expired, please sign in again)"


class Forbidden(ApiError):
    """Authenticated, but the role lacks the permission code and action of the route."""

    http_status = 403
    code = 403
    default_message = "用户得到授权，但是访问是被禁止的。 (permission denied)"


class NotFound(ApiError):
    """No such record, or it belongs to an enterprise outside the caller's scope (same reply)."""

    http_status = 404
    code = 404
    default_message = "记录不存在 (record does not exist)"


class Conflict(ApiError):
    """A unique field clashes with a live record (``data = {field}``)."""

    http_status = 409
    code = 409
    default_message = "记录已存在 (record already exists)"


class TooManyAttempts(ApiError):
    """The account had too many failed logins and is throttled for a while."""

    http_status = 429
    code = 429
    default_message = "登录失败次数过多，请稍后再试 (too many failed logins, try again later)"


class Unavailable(ApiError):
    http_status = 503
    code = 503
    default_message = "服务不可用 (service unavailable)"


def envelope(data: Any = None, *, code: int = 0, message: str = "ok") -> dict[str, Any]:
    return {"code": code, "message": message, "data": data}
