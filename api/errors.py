"""The one error shape of the HTTP boundary: domain code raises these, `api.app` renders the envelope.

Every reply is ``{code, message, data}``. ``code`` is 0 on success; errors use the HTTP status as
the business code, except 40002 (session invalid, HTTP 401), which the console treats specially
(console-spec §8: log out and go to the login page).
"""

from __future__ import annotations

from typing import Any

from flask import has_request_context, request

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
    """The console's X-Fleet-Language header, else the best Accept-Language match, else zh-CN."""
    chosen = _match_language(request.headers.get(LANGUAGE_HEADER, ""))
    if chosen:
        return chosen
    for tag, _quality in sorted(request.accept_languages, key=lambda item: -item[1]):
        chosen = _match_language(tag)
        if chosen:
            return chosen
    return DEFAULT_LANGUAGE


def _match_language(tag: str) -> str | None:
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
    """The part of a bilingual message for ``language``; zh-HK gets traditional characters. A
    message that is not bilingual is returned as it is."""
    parts = split_bilingual(message)
    if parts is None:
        return message
    chinese, english = parts
    if language == "en-US":
        return english
    if language == "zh-HK":
        return chinese.translate(_TO_TRADITIONAL)
    return chinese


# Simplified to traditional (Hong Kong) forms of the characters our messages use; one-to-one only.
_SIMPLIFIED = (
    "业东两个为于从仪会伟传体侧关册写军准划刘则创删务动劳区协单压参发变号后吴员团围图块备复头实对导属广库应开异张"
    "强当录态户择护报换据摄数断无旧时显条来杨构标栏横汇汉没涛点状电监盗盘确离种称签简类紧级线组终给绝统维编网联规"
    "视计认议记讲许设访证评试话询该误说请读败账货资赵车轨转辆输达过运还进违连迹选钥链销错长门闭问间队陈陕险须预频"
    "颜风驶驾麦黄龙鉴邮内厂昵机权杠码范营补装静启坏执获缓处响载钟仅产价众优亲义们这见页题项额络细约纸织经绑结续负"
    "购费质贴轮软辑邻释针铁银锁阅际陆隐难飞马鱼鸟齐齿"
)
_TRADITIONAL = (
    "業東兩個為於從儀會偉傳體側關冊寫軍準劃劉則創刪務動勞區協單壓參發變號後吳員團圍圖塊備複頭實對導屬廣庫應開異張"
    "強當錄態戶擇護報換據攝數斷無舊時顯條來楊構標欄橫匯漢沒濤點狀電監盜盤確離種稱簽簡類緊級線組終給絕統維編網聯規"
    "視計認議記講許設訪證評試話詢該誤說請讀敗賬貨資趙車軌轉輛輸達過運還進違連跡選鑰鏈銷錯長門閉問間隊陳陝險須預頻"
    "顏風駛駕麥黃龍鑑郵內廠暱機權槓碼範營補裝靜啟壞執獲緩處響載鐘僅產價眾優親義們這見頁題項額絡細約紙織經綁結續負"
    "購費質貼輪軟輯鄰釋針鐵銀鎖閱際陸隱難飛馬魚鳥齊齒"
)
_TO_TRADITIONAL = str.maketrans(_SIMPLIFIED, _TRADITIONAL)
