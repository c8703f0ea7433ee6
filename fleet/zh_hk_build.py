"""Generates every zh-HK text from its zh-CN source: the console's locale files and the server's table.

zh-HK is never written by hand. ``fleet zh-hk`` (after a zh-CN change, or after a merge) rewrites
- ``dashboards/src/locales/zh-HK/<ns>.json`` from ``zh-CN/<ns>.json`` (same keys, same order), and
- ``fleet/zh_hk_texts.json``: every run of Chinese characters written in the server's code (string
  literals of ``api/``, ``fleet/``, ``warehouse/``, ``streams/`` and the SQL migrations) with its
  Hong Kong form, which ``fleet.zh_hk.to_hk`` applies to server texts at run time.
``fleet zh-hk --check`` changes nothing and fails naming the files that differ (a unit test does the same).

The conversion is OpenCC's ``s2hk`` (Hong Kong character forms) after ``PHRASES``, a reviewed table of
the product terms Hong Kong writes differently from the mainland (帳戶 for 账户, 登入 for 登录, 即時 for
实时): OpenCC converts characters, not vocabulary. Needs the ``opencc`` package (a dev dependency);
the running server only reads the generated table.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import click

from fleet.settings import REPO_ROOT
from fleet.zh_hk import CHINESE_RUN, TABLE_PATH

LOCALES = Path("dashboards/src/locales")
SERVER_SOURCES = ("api", "fleet", "warehouse", "streams", "protocols")  # protocols: the message catalogue's names
MIGRATIONS = Path("warehouse/migrations")

# Mainland (zh-CN) term -> how Hong Kong writes it. Longest match wins; what no entry covers goes
# through OpenCC s2hk character by character. Reviewed: add a term when a zh-HK screen reads mainland.
PHRASES: dict[str, str] = {
    "账户": "帳戶", "帐户": "帳戶", "账号": "帳號", "帐号": "帳號", "户": "戶",
    "用户名": "用戶名稱", "用户": "用戶",
    "退出登录": "登出", "登录": "登入",
    "实时": "即時",
    "车队": "車隊",
    "默认": "預設", "缺省": "預設",
    "设置": "設定",
    "信息": "資訊", "消息": "訊息", "短信": "短訊",
    "音视频": "影音", "视频": "視像", "音频": "音訊",
    "服务器": "伺服器", "数据库": "資料庫", "内存": "記憶體", "硬盘": "硬碟",
    "模块": "模組", "程序": "程式", "字符串": "字串", "字符": "字元", "文本": "文字", "文件": "檔案",
    "上传": "上載", "导出": "匯出", "导入": "匯入", "加载": "載入",
    "搜索": "搜尋", "屏幕": "螢幕", "全屏": "全螢幕", "菜单": "選單", "界面": "介面",
    "图标": "圖示", "链接": "連結", "鼠标": "滑鼠", "打印": "列印", "分辨率": "解像度",
    "支持": "支援", "保存": "儲存", "存储": "儲存", "激活": "啟用",
    "传感器": "感應器", "摄像头": "攝影機", "网关": "閘道", "仪表盘": "儀表板",
    "什么": "甚麼", "汇报": "匯報", "汇总": "匯總", "自定义": "自訂", "重置": "重設", "创建": "建立",
    "只读": "唯讀", "哈希": "雜湊",
    "“": "「", "”": "」", "‘": "『", "’": "』",
}
_LONGEST = max(len(term) for term in PHRASES)


def converter() -> Callable[[str], str]:
    """zh-CN text -> zh-HK text (PHRASES, then OpenCC s2hk for the rest)."""
    import opencc  # a dev dependency: only the generator converts

    characters = opencc.OpenCC("s2hk")

    def convert(text: str) -> str:
        out: list[str] = []
        pending: list[str] = []
        index = 0
        while index < len(text):
            for length in range(min(_LONGEST, len(text) - index), 0, -1):
                term = text[index:index + length]
                if term in PHRASES:
                    out.append(characters.convert("".join(pending)) if pending else "")
                    pending.clear()
                    out.append(PHRASES[term])
                    index += length
                    break
            else:
                pending.append(text[index])
                index += 1
        if pending:
            out.append(characters.convert("".join(pending)))
        return "".join(out)

    return convert


def _convert_tree(value: Any, convert: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return convert(value)
    if isinstance(value, dict):
        return {key: _convert_tree(item, convert) for key, item in value.items()}
    if isinstance(value, list):
        return [_convert_tree(item, convert) for item in value]
    return value


def _json_text(value: Any) -> str:
    """The locale files' format: 2-space indent, characters as they are, a final newline."""
    return json.dumps(value, ensure_ascii=False, indent=2) + "\n"


def console_files(root: Path, convert: Callable[[str], str]) -> dict[Path, str]:
    """zh-HK file path -> its generated text, one per zh-CN file."""
    out: dict[Path, str] = {}
    for source in sorted((root / LOCALES / "zh-CN").glob("*.json")):
        messages = json.loads(source.read_text(encoding="utf-8"))
        out[root / LOCALES / "zh-HK" / source.name] = _json_text(_convert_tree(messages, convert))
    return out


def _literals(path: Path) -> Iterator[str]:
    """Every string constant of a Python file (f-string parts included)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.value


def server_runs(root: Path) -> list[str]:
    """The runs of Chinese characters the server can send: in its Python string literals and its SQL."""
    runs: set[str] = set()
    for folder in SERVER_SOURCES:
        for path in sorted((root / folder).rglob("*.py")):
            if "tests" in path.parts or path.name == Path(__file__).name:
                continue
            for literal in _literals(path):
                runs.update(CHINESE_RUN.findall(literal))
    for path in sorted((root / MIGRATIONS).glob("*.sql")):
        runs.update(CHINESE_RUN.findall(path.read_text(encoding="utf-8")))
    return sorted(runs)


def server_table(root: Path, convert: Callable[[str], str]) -> str:
    """The generated ``fleet/zh_hk_texts.json``: {zh-CN run: zh-HK}, sorted."""
    return _json_text({run: convert(run) for run in server_runs(root)})


def generated(root: Path = REPO_ROOT) -> dict[Path, str]:
    """Every generated file with the text it must have."""
    convert = converter()
    return {**console_files(root, convert), root / TABLE_PATH: server_table(root, convert)}


def stale(root: Path = REPO_ROOT) -> list[Path]:
    """The generated files whose committed text differs from the generator's."""
    return [path for path, text in generated(root).items()
            if not path.exists() or path.read_text(encoding="utf-8") != text]


@click.command("zh-hk")
@click.option("--check", is_flag=True, help="change nothing; fail when a zh-HK file is out of date")
def zh_hk_command(check: bool) -> None:
    """Regenerate the zh-HK console locale files and server texts from zh-CN (OpenCC s2hk + PHRASES)."""
    if check:
        out_of_date = stale()
        if out_of_date:
            names = ", ".join(str(path.relative_to(REPO_ROOT)) for path in out_of_date)
            raise click.ClickException(f"zh-HK out of date (run `fleet zh-hk`): {names}")
        click.echo("zh-HK up to date")
        return
    written = 0
    for path, text in generated().items():
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            written += 1
    click.echo(f"zh-HK: {written} file(s) rewritten")
