"""The one error shape of the HTTP boundary: domain code raises these, `api.app` renders the envelope.

Every reply is ``{code, message, data}``. ``code`` is 0 on success; errors use the HTTP status as
the business code, except 40002 (session invalid, HTTP 401), which the console treats specially
(console-spec §8: log out and go to the login page).
"""

from __future__ import annotations

from typing import Any

from flask import has_request_context, request

from fleet.zh_hk import to_hk

SESSION_INVALID = 40002

#: The console's language header (its i18n language); Accept-Language is the fallback.
LANGUAGE_HEADER = "X-Fleet-Language"
LANGUAGES = ("zh-CN", "zh-HK", "en-US")
DEFAULT_LANGUAGE = "zh-CN"


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
    """The reply body. An error (code != 0) inside a request also carries ``localMessage``: the
    bilingual ``message`` in the caller's language (`request_language`); ``message`` itself stays
    bilingual for clients that do not read it."""
    body: dict[str, Any] = {"code": code, "message": message, "data": data}
    if code != 0 and has_request_context():
        body["localMessage"] = localise(message, request_language())
    return body


def request_language() -> str:
    """The console's X-Fleet-Language header, else the best Accept-Language match, else zh-CN (also
    outside a request: a background job speaks the default language)."""
    if not has_request_context():
        return DEFAULT_LANGUAGE
    chosen = match_language(request.headers.get(LANGUAGE_HEADER, ""))
    if chosen:
        return chosen
    for tag, _quality in sorted(request.accept_languages, key=lambda item: -item[1]):
        chosen = match_language(tag)
        if chosen:
            return chosen
    return DEFAULT_LANGUAGE


def match_language(tag: str) -> str | None:
    """One of LANGUAGES for a language tag (``en-GB`` -> en-US, ``zh-Hant`` -> zh-HK), else None."""
    tag = tag.strip().lower().replace("_", "-")
    if not tag:
        return None
    if tag.startswith("en"):
        return "en-US"
    if tag in ("zh-hk", "zh-tw", "zh-mo", "zh-hant") or tag.startswith("zh-hant"):
        return "zh-HK"
    if tag.startswith("zh"):
        return "zh-CN"
    return None


def split_bilingual(message: str) -> tuple[str, str] | None:
    """``"中文 (english)"`` as ``("中文", "english")``: the last top-level parenthesis group at the
    end, when the text before it has Chinese. None for any other message (a plain English one)."""
    text = message.rstrip()
    if not text.endswith(")"):
        return None
    depth = 0
    for index in range(len(text) - 1, -1, -1):
        if text[index] == ")":
            depth += 1
        elif text[index] == "(":
            depth -= 1
            if depth == 0:
                chinese, english = text[:index].strip(), text[index + 1:-1].strip()
                if english and any("\u4e00" <= char <= "\u9fff" for char in chinese):
                    return chinese, english
                return None
    return None


def localise(message: str, language: str) -> str:
    """The part of a bilingual message for ``language``; zh-HK gets the Chinese part as Hong Kong writes
    it (``fleet.zh_hk``, generated from zh-CN). A message that is not bilingual is returned as it is."""
    parts = split_bilingual(message)
    if parts is None:
        return message
    chinese, english = parts
    if language == "en-US":
        return english
    if language == "zh-HK":
        return to_hk(chinese)
    return chinese

