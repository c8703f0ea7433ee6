"""Wording rules of the Chinese texts, read from the files a user's screen is built from: the console's
zh-CN and zh-HK locale files and the server's generated zh-HK table (``fleet/zh_hk_texts.json``,
whose keys are the server's zh-CN texts).

- One word for alarm: the spec's 报警 (zh-HK 報警); never 告警 or 警报 beside it.
- zh-HK reads as Hong Kong writes, not as mainland wording converted character by character.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from fleet.settings import REPO_ROOT

LOCALES = REPO_ROOT / "dashboards" / "src" / "locales"
SERVER_TABLE = REPO_ROOT / "fleet" / "zh_hk_texts.json"

# The opinion an ignored alarm gets when none is given is quoted from console-spec §3 ("告警已忽略"): it
# is stored with the alarm as written there, so it is the one text allowed the other word.
SPEC_QUOTES = frozenset({"告警已忽略"})

# Mainland terms as a character-by-character conversion writes them, and what Hong Kong writes instead.
MAINLAND_IN_TRADITIONAL = {
    "賬戶": "帳戶", "賬户": "帳戶", "用户": "用戶", "登錄": "登入", "實時": "即時", "默認": "預設",
    "服務器": "伺服器", "數據庫": "資料庫", "視頻": "視像", "模塊": "模組", "攝像頭": "攝影機",
    "上傳": "上載", "導出": "匯出", "導入": "匯入", "加載": "載入", "菜單": "選單", "不支持": "不支援",
}


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _texts(language: str) -> Iterator[tuple[str, str]]:
    """(where, text) of every string of a console language's locale files."""
    for path in sorted((LOCALES / language).glob("*.json")):
        for text in _strings(json.loads(path.read_text(encoding="utf-8"))):
            yield f"{language}/{path.name}", text


def _server_texts() -> Iterator[tuple[str, str]]:
    table: dict[str, str] = json.loads(SERVER_TABLE.read_text(encoding="utf-8")) if SERVER_TABLE.exists() else {}
    for zh_cn, zh_hk in table.items():
        yield "server zh-CN", zh_cn
        yield "server zh-HK", zh_hk


@pytest.mark.parametrize("language", ["zh-CN", "zh-HK"])
def test_console_uses_the_specs_word_for_alarm(language: str) -> None:
    other_words = [(where, text) for where, text in _texts(language)
                   if ("告警" in text or "警报" in text or "警報" in text) and text not in SPEC_QUOTES]
    assert other_words == []


def test_server_texts_use_the_specs_word_for_alarm() -> None:
    other_words = [(where, text) for where, text in _server_texts()
                   if ("告警" in text or "警报" in text or "警報" in text) and text not in SPEC_QUOTES]
    assert other_words == []


def test_zh_hk_console_has_no_mainland_wording() -> None:
    found = [(where, text, term) for where, text in _texts("zh-HK")
             for term in MAINLAND_IN_TRADITIONAL if term in text]
    assert found == []


def test_zh_hk_server_texts_have_no_mainland_wording() -> None:
    found = [(where, text, term) for where, text in _server_texts() if where == "server zh-HK"
             for term in MAINLAND_IN_TRADITIONAL if term in text]
    assert found == []


def test_zh_hk_signs_in_and_monitors_as_hong_kong_writes() -> None:
    auth = json.loads((LOCALES / "zh-HK" / "auth.json").read_text(encoding="utf-8"))
    menu = json.loads((LOCALES / "zh-HK" / "menu.json").read_text(encoding="utf-8"))
    assert (auth["login"]["title"], auth["login"]["submit"]) == ("帳戶密碼登入", "登入")
    assert menu["menu.dashboard.map"] == "即時監控"
    assert menu["menu.list.alarm"] == "報警管理"
