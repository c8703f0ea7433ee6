"""UTC+8 is written once (protocols/china_time.py); everything else imports it.

The scan's rule, outside ``protocols/china_time.py`` and the tests: no ``timedelta(hours=8)`` (nor
``timedelta(0, 28800)``-style seconds) and no ``timezone(...)`` built by hand. The report time zone that
an operator may configure (``FLEET_REPORT_TZ``, a zone name) is a setting, not a hard-coded offset.
"""

from __future__ import annotations

import ast
from datetime import UTC, datetime
from pathlib import Path

from protocols.china_time import CHINA_TZ, CHINA_UTC_OFFSET, local_midnight

ROOT = Path(__file__).resolve().parents[3]
SCANNED = ("api", "benchmarks", "fleet", "gateway", "notebooks", "orchestration", "pipelines", "protocols",
           "scripts", "simulator", "streams", "warehouse")
HOME = ROOT / "protocols" / "china_time.py"


def _name(func: ast.expr) -> str:
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _hand_written_offsets(source: str) -> list[int]:
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        name = _name(node.func)
        hours = [k.value for k in node.keywords if k.arg == "hours"]
        eight_hours = any(isinstance(v, ast.Constant) and v.value == 8 for v in hours) or any(
            isinstance(a, ast.Constant) and a.value == 28_800 for a in node.args + [k.value for k in node.keywords])
        if (name == "timedelta" and eight_hours) or (name == "timezone" and node.args):
            lines.append(node.lineno)
    return lines


def test_utc_plus_8_is_written_only_in_the_china_time_module() -> None:
    offenders = {}
    for folder in SCANNED:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path != HOME and (lines := _hand_written_offsets(path.read_text(encoding="utf-8"))):
                offenders[str(path.relative_to(ROOT))] = lines
    assert offenders == {}, "import CHINA_TZ / CHINA_UTC_OFFSET / local_midnight from protocols.china_time"


def test_the_scan_finds_each_way_of_writing_the_offset() -> None:
    source = ("a = timedelta(hours=8)\nb = datetime.timedelta(seconds=28800)\nc = timezone(a, 'CST')\n"
              "d = timedelta(hours=1)\ne = ZoneInfo('UTC')\n")
    assert _hand_written_offsets(source) == [1, 2, 3]


def test_china_time_is_utc_plus_8_and_its_midnight_is_16_00_utc() -> None:
    assert CHINA_TZ.utcoffset(None) == CHINA_UTC_OFFSET and CHINA_UTC_OFFSET.total_seconds() == 8 * 3600
    assert local_midnight(datetime(2026, 3, 1, 15, 59, tzinfo=UTC)) == datetime(2026, 2, 28, 16, 0, tzinfo=UTC)
    assert local_midnight().tzinfo is CHINA_TZ
