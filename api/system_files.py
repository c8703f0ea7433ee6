"""The console's system files (console-spec §3 "System file", §7 ``GET /api/common/systemFile/{name}.json``):
files of the built console (``ApiSettings.console_dir``) that keep their name from build to build, so a
browser may hold an old copy. The console asks for one by name once per session and links it as
``path?t=modifyTime``: a new build's file gets a new URL, an unchanged one stays cached.

| name | file | shown by |
|---|---|---|
| ``logo`` | ``favicon.svg`` | the layout's logo (console-spec §2) |
| ``apiManual`` | ``api-reference.html`` | the footer's open-platform API manual (console-spec §2) |
| ``userManual-<language>`` | ``manual/<language>.html`` | the footer's user manual in zh-CN, zh-HK, en-US |

An unknown name, or a file the build does not have (the console not built), is None: the route answers 404.
"""

from __future__ import annotations

from pathlib import Path
from typing import TypedDict

from api.errors import LANGUAGES

SYSTEM_FILES: dict[str, str] = {
    "logo": "favicon.svg",
    "apiManual": "api-reference.html",
    **{f"userManual-{language}": f"manual/{language}.html" for language in LANGUAGES},
}


class SystemFile(TypedDict):
    name: str
    path: str
    modifyTime: int  # epoch ms of the file's last change


def system_file(console_dir: Path, name: str) -> SystemFile | None:
    relative = SYSTEM_FILES.get(name)
    if relative is None:
        return None
    try:
        modified_ns = (console_dir / relative).stat().st_mtime_ns
    except OSError:
        return None
    return {"name": name, "path": f"/{relative}", "modifyTime": modified_ns // 1_000_000}
