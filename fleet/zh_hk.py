"""Server texts in zh-HK: the generated table of ``fleet zh-hk`` (``fleet/zh_hk_build.py``) applied.

``to_hk(text)`` replaces each run of Chinese characters of a server text (an error message, an alarm
or permission name) by its Hong Kong form from ``fleet/zh_hk_texts.json``. A run the table does not
hold whole (a literal joined with a value, as in an f-string message) is converted piece by piece,
longest known run first; characters of no known run (a name a user typed) stay as they are.
Never raises; pure apart from reading the table once.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

# CJK unified ideographs (with extension A and the compatibility block): one "run" is a maximal span.
CHINESE_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
TABLE_PATH = Path("fleet/zh_hk_texts.json")


@cache
def _table() -> tuple[dict[str, str], int]:
    path = Path(__file__).resolve().parent / TABLE_PATH.name
    table: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))
    return table, max((len(run) for run in table), default=1)


def _convert_run(run: str) -> str:
    table, longest = _table()
    whole = table.get(run)
    if whole is not None:
        return whole
    out: list[str] = []
    index = 0
    while index < len(run):
        for length in range(min(longest, len(run) - index), 0, -1):
            found = table.get(run[index:index + length])
            if found is not None:
                out.append(found)
                index += length
                break
        else:
            out.append(run[index])
            index += 1
    return "".join(out)


def to_hk(text: str) -> str:
    """``text`` (zh-CN) as Hong Kong writes it."""
    return CHINESE_RUN.sub(lambda match: _convert_run(match.group()), text)
