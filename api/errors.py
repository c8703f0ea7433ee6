"""The one error shape of the HTTP boundary: domain code raises these, `api.app` renders the envelope.

Every reply is ``{code, message, data}``. ``code`` is 0 on success; errors use the HTTP status as
the business code, except 40002 (session invalid, HTTP 401), which the console treats specially
(console-spec §8: log out and go to the login page).

An error's text is written once, bilingual: ``"中文 (english)"``. The reply's ``message`` is the Chinese part
only, the spec's exact text (console-spec §8, platform-spec §8: open-platform clients read it); its
``localMessage`` is the text in the caller's language (zh-CN, zh-HK generated from it, or the English part).
A 403 for a missing permission names it in ``data.permission`` (``"code:action"``; ``Forbidden.missing``).
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
# The 403 text of the status catalogue (platform-spec §8; the console's common:httpStatus.403).
FORBIDDEN_TEXT = "用户得到授权，但是访问是被禁止的。"
# The HTTP status catalogue of platform-spec §8 (the console's common:httpStatus), bilingual: the text of an
# error the framework raises without words of ours (werkzeug's 4xx/5xx).
STATUS_TEXTS = {
    400: "发出的请求有错误，服务器没有进行新建或修改数据的操作。 (bad request, nothing was changed)",
    401: "用户没有权限（令牌、用户名、密码错误）。 (no permission: token, user name or password wrong)",
    403: f"{FORBIDDEN_TEXT} (access is forbidden)",
    404: "发出的请求针对的是不存在的记录，服务器没有进行操作。 (the record does not exist)",
    406: "请求的格式不可得。 (the requested format is not available)",
    410: "请求的资源被永久删除，且不会再得到的。 (the resource has been permanently deleted)",
    422: "当创建一个对象时，发生一个验证错误。 (a validation error occurred on create)",
    500: "服务器发生错误，请检查服务器。 (server error, please check the server)",
    502: "网关错误。 (gateway error)",
    503: "服务不可用，服务器暂时过载或维护。 (service unavailable: the server is overloaded or under maintenance)",
    504: "网关超时。 (gateway timeout)",
}


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
    default_message = STATUS_TEXTS[400]


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
    default_message = f"{FORBIDDEN_TEXT} (permission denied)"

    @classmethod
    def missing(cls, code: str, action: str, *, detail: str = "", data: dict[str, Any] | None = None) -> Forbidden:
        """The 403 of a caller without ``code:action``: ``data.permission`` names it so a client can show it
        (more keys from ``data``); ``detail`` is appended to the English part."""
        permission = f"{code}:{action}"
        return cls(f"{FORBIDDEN_TEXT} (permission denied: {permission}{detail})",
                   data={"permission": permission, **(data or {})})


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
    """A service the request needs (the database, the media server) is down: try again later."""

    http_status = 503
    code = 503
    default_message = "服务不可用 (service unavailable)"


def envelope(data: Any = None, *, code: int = 0, message: str = "ok") -> dict[str, Any]:
    """The reply body. An error (code != 0) takes a bilingual ``message`` (``"中文 (english)"``) and answers
    its Chinese part as ``message`` (the spec's text, the same for every caller: `chinese_text`); inside a
    request it also carries ``localMessage``, the text in the caller's language (`request_language`)."""
    if code == 0:
        return {"code": code, "message": message, "data": data}
    message = bilingual(message, code)
    body: dict[str, Any] = {"code": code, "message": chinese_text(message), "data": data}
    if has_request_context():
        body["localMessage"] = localise(message, request_language())
    return body


def in_caller_language(item: dict[str, Any]) -> dict[str, Any]:
    """``item`` (a row error of an import, an import job) whose ``message`` is stored bilingual, answered as the
    envelope answers an error: ``message`` the Chinese part, ``localMessage`` the caller's language. An item
    without a text message is returned as it is."""
    message = item.get("message")
    if not isinstance(message, str) or not message:
        return item
    return {**item, "message": chinese_text(message), "localMessage": localise(message, request_language())}


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
                if english and _has_chinese(chinese):
                    return chinese, english
                return None
    return None


def bilingual(message: str, code: int) -> str:
    """``message`` as ``"中文 (english)"``: a text without Chinese (a library's words that reached an error) gets
    the status catalogue's Chinese for ``code`` in front, so no reply's ``message`` is English only."""
    if split_bilingual(message) is not None or _has_chinese(message):
        return message
    status = 401 if code == SESSION_INVALID else code
    fallback = STATUS_TEXTS.get(status) or STATUS_TEXTS[500 if status >= 500 else 400]
    return f"{chinese_text(fallback)} ({message})"


def with_detail(message: str, detail: str) -> str:
    """``message`` with an English ``detail`` (e.g. ``field 'phone'``) in its English part: ``"中文 (english; detail)"``,
    or ``"中文 (detail)"`` for a Chinese-only text, so the Chinese part stays the spec's text alone."""
    parts = split_bilingual(message)
    return f"{message} ({detail})" if parts is None else f"{parts[0]} ({parts[1]}; {detail})"


def _has_chinese(text: str) -> bool:
    return any("\u4e00" <= char <= "\u9fff" for char in text)


def chinese_text(message: str) -> str:
    """The zh-CN part of a bilingual message, the message itself otherwise (a Chinese-only text)."""
    parts = split_bilingual(message)
    return message if parts is None else parts[0]


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

