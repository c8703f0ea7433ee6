"""An error reply's ``message`` is the spec's Chinese text (platform-spec §8, console-spec §8) and its
``localMessage`` the caller's language: every error text the API can raise has a Chinese part."""

from __future__ import annotations

import ast
import importlib
import json
import pkgutil
import re
from pathlib import Path

import pytest
from flask import Flask

import api
from api.errors import (
    FORBIDDEN_TEXT,
    STATUS_TEXTS,
    ApiError,
    BadRequest,
    Forbidden,
    bilingual,
    chinese_text,
    envelope,
    localise,
    split_bilingual,
)
from api.push_language import localised_bodies

ROOT = Path(__file__).resolve().parents[3]
CHINESE = re.compile("[\u4e00-\u9fff]")
# Where errors are raised: every module of these packages is imported, so every ApiError subclass is seen.
RAISING_PACKAGES = ("api", "exchange", "fleet")


def _all_subclasses(cls: type[ApiError]) -> list[type[ApiError]]:
    found: list[type[ApiError]] = []
    for sub in cls.__subclasses__():
        found += [sub, *_all_subclasses(sub)]
    return found


def _import_everything() -> None:
    for package in (api,):
        for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            importlib.import_module(module.name)


def test_every_error_class_default_message_has_its_chinese_and_english_part() -> None:
    _import_everything()
    classes = [ApiError, *_all_subclasses(ApiError)]
    assert len(classes) >= 15  # the nine of api.errors and those of the routes (video, media, licence, ...)
    for cls in classes:
        parts = split_bilingual(cls.default_message)
        assert parts is not None, f"{cls.__name__}.default_message is not '中文 (english)': {cls.default_message!r}"
        chinese, english = parts
        assert CHINESE.search(chinese) and not re.search("[A-Za-z]{3,}", chinese), (cls.__name__, chinese)
        assert english and not CHINESE.search(english), (cls.__name__, english)


def test_bad_request_default_is_the_status_catalogue_text() -> None:
    assert chinese_text(BadRequest().message) == "发出的请求有错误，服务器没有进行新建或修改数据的操作。"
    assert localise(BadRequest().message, "en-US") == "bad request, nothing was changed"


def _message_literal(node: ast.expr) -> str | None:
    """The text of a string or f-string argument (placeholders as {}), None for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
    return None


def test_no_raised_error_text_in_the_code_is_english_only() -> None:
    """Every literal given to an ApiError class has Chinese, and ends in its English part in parentheses
    (so ``message`` loses no Chinese and ``localMessage`` finds the English)."""
    _import_everything()
    names = {cls.__name__ for cls in [ApiError, *_all_subclasses(ApiError)]}
    offenders = []
    for package in RAISING_PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.Call) or not node.args:
                    continue
                func = node.func
                name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
                text = _message_literal(node.args[0]) if name in names else None
                if text is None or text.startswith("{}"):  # a Chinese constant in front: checked where defined
                    continue
                if not CHINESE.search(text) or (not text.rstrip().endswith(")") and "(" in text):
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}: {text[:80]}")
    assert offenders == []


def test_message_is_the_chinese_part_and_local_message_the_callers_language() -> None:
    app = Flask("t")
    text = "记录不存在 (record does not exist)"
    for language, local in (("zh-CN", "记录不存在"), ("zh-HK", "記錄不存在"), ("en-US", "record does not exist")):
        with app.test_request_context(headers={"X-Fleet-Language": language}):
            assert envelope(None, code=404, message=text) == {
                "code": 404, "message": "记录不存在", "data": None, "localMessage": local}
    # outside a request (a background job): the Chinese text, no localMessage
    assert envelope(None, code=404, message=text) == {"code": 404, "message": "记录不存在", "data": None}
    # success replies are untouched
    assert envelope({"a": 1}) == {"code": 0, "message": "ok", "data": {"a": 1}}


def test_an_english_only_text_gets_the_catalogue_chinese_for_its_status() -> None:
    assert bilingual("boom", 503) == "服务不可用，服务器暂时过载或维护。 (boom)"
    assert bilingual("boom", 40002) == "用户没有权限（令牌、用户名、密码错误）。 (boom)"
    assert bilingual("boom", 418) == f"{chinese_text(STATUS_TEXTS[400])} (boom)"
    assert bilingual("已有中文", 400) == "已有中文"
    app = Flask("t")
    with app.test_request_context(headers={"X-Fleet-Language": "en-US"}):
        body = envelope(None, code=500, message="KeyError")
    assert body["message"] == "服务器发生错误，请检查服务器。" and body["localMessage"] == "KeyError"


def test_a_missing_permission_is_named_in_data() -> None:
    error = Forbidden.missing("car", "update")
    assert error.data == {"permission": "car:update"} and error.http_status == 403
    assert chinese_text(error.message) == FORBIDDEN_TEXT
    assert localise(error.message, "en-US") == "permission denied: car:update"
    sensitive = Forbidden.missing("sensitiveCommand", "cmd", detail="; needed for x", data={"sensitive": ["x"]})
    assert sensitive.data == {"permission": "sensitiveCommand:cmd", "sensitive": ["x"]}


@pytest.mark.parametrize("status", sorted(STATUS_TEXTS))
def test_status_catalogue_texts_are_bilingual(status: int) -> None:
    assert split_bilingual(STATUS_TEXTS[status]) is not None


def test_a_push_message_is_the_chinese_text_and_its_local_message_the_subscribers_language() -> None:
    push = {"type": 12, "data": {"commandId": 7, "message": "终端不支持该指令 (the terminal does not support this command)"}}
    bodies = {language: json.loads(body)["data"] for language, body in localised_bodies(push).items()}
    assert {language: (data["message"], data["localMessage"]) for language, data in bodies.items()} == {
        "zh-CN": ("终端不支持该指令", "终端不支持该指令"),
        "zh-HK": ("终端不支持该指令", "終端不支援該指令"),
        "en-US": ("终端不支持该指令", "the terminal does not support this command"),
    }
    # a Chinese-only text is sent as it came
    assert localised_bodies({"type": 12, "data": {"message": "终端不支持该指令"}}) == {}
