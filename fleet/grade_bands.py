"""Driving-behaviour grade bands (platform-spec §2 Settings "drivingGradeRule", §3 dictionary entries, §9
dictionary ids): which grade a day's score earns.

Bands are ``(grade, minimum score)``, highest first; a score earns the first band whose minimum it reaches, the
lowest band otherwise. They are kept as dictionary entries whose content is ``{"grades": [{grade, minScore}]}``:
the system entry ``driving_behavior_grade`` (type 98) for the whole platform, and an enterprise's own entry of
type 50 with the same code for it and its subsidiaries (``bands_in_effect``: its own, else its nearest
ancestor's, else the system entry's, else ``DEFAULT_BANDS``). Read by the daily report build
(pipelines/grading.py) and the drivingGradeRule screen (api/routes/settings.py); checked on every write of such
an entry (api/query/entities_settings.py).
"""

from __future__ import annotations

from collections.abc import Mapping

Bands = tuple[tuple[str, float], ...]
DEFAULT_BANDS: Bands = (("A", 90.0), ("B", 80.0), ("C", 60.0), ("D", 0.0))
SYSTEM_BANDS_TYPE = 98  # the system dictionary
ENTERPRISE_BANDS_TYPE = 50  # platform-spec §9 dictionary ids: "Driving behaviour grade", one entry per enterprise
BANDS_CODE = "driving_behavior_grade"  # the code of the system entry (type 98) and of an enterprise's (type 50)
MAX_BANDS = 10
MAX_GRADE_CHARS = 8


def parse_bands(content: object) -> Bands | None:
    """The well-formed bands of a dictionary entry's content (``{"grades": [{grade, minScore}]}``), highest
    first; None when it has none."""
    grades = content.get("grades") if isinstance(content, dict) else None
    bands = [(str(g["grade"]), float(g["minScore"])) for g in grades or ()
             if isinstance(g, dict) and "grade" in g and isinstance(g.get("minScore"), int | float)
             and not isinstance(g.get("minScore"), bool)]
    return tuple(sorted(bands, key=lambda b: -b[1])) or None


def bands_of(content: object) -> Bands:
    """The bands of the entry's content, or the default bands when it has none that are well formed."""
    return parse_bands(content) or DEFAULT_BANDS


def bands_problem(content: object) -> tuple[str, str] | None:
    """What is wrong with a grade-band entry's content (parsed JSON) as an administrator writes it, (zh-CN,
    English); None when it is acceptable: ``{"grades": [...]}`` of 1 to 10 bands, each a grade of 1 to 8
    characters and a minimum score from 0 to 100, grades and minimums distinct, the lowest minimum 0 (so that
    every score has a grade)."""
    grades = content.get("grades") if isinstance(content, dict) else None
    if not isinstance(grades, list) or not 0 < len(grades) <= MAX_BANDS:
        return (f'内容须为 {{"grades": [{{"grade", "minScore"}}, ...]}}，1 到 {MAX_BANDS} 个等级',
                f'content must be {{"grades": [{{"grade", "minScore"}}, ...]}} with 1 to {MAX_BANDS} bands')
    for band in grades:
        grade = band.get("grade") if isinstance(band, dict) else None
        score = band.get("minScore") if isinstance(band, dict) else None
        if not isinstance(grade, str) or not 0 < len(grade.strip()) <= MAX_GRADE_CHARS or grade != grade.strip():
            return (f"等级名称须为 1 到 {MAX_GRADE_CHARS} 个字符",
                    f"each grade must be a text of 1 to {MAX_GRADE_CHARS} characters")
        if isinstance(score, bool) or not isinstance(score, int | float) or not 0 <= score <= 100:
            return "最低分须为 0 到 100 的数字", "each minScore must be a number from 0 to 100"
    if len({b["grade"] for b in grades}) < len(grades) or len({float(b["minScore"]) for b in grades}) < len(grades):
        return "等级名称和最低分不能重复", "grades and minScores must be distinct"
    if min(float(b["minScore"]) for b in grades) != 0:
        return ("最低的等级须从 0 分开始，每个分数才有等级",
                "the lowest band must start at minScore 0, so that every score has a grade")
    return None


def own_bands(entries: Mapping[int, tuple[int, object]]) -> dict[int, Bands]:
    """Enterprise id -> its well-formed bands, of ``entries`` (enterprise id -> (entry id, parsed content)); an
    entry without well-formed bands is left out (the bands next up the tree apply)."""
    return {enterprise_id: bands for enterprise_id, (_, content) in entries.items() if (bands := parse_bands(content))}


def ancestors_of(path: str) -> list[int]:
    """The enterprise ids of a materialised path ``/1/3/4/``, root first."""
    return [int(part) for part in path.strip("/").split("/") if part]


def bands_in_effect(path: str, own: Mapping[int, Bands], fallback: Bands) -> tuple[Bands, int | None]:
    """The bands of the enterprise at ``path``: its own, else its nearest ancestor's (``own``: enterprise id ->
    its type-50 bands), else ``fallback`` (the system entry's); with the id of the enterprise they belong to,
    None for the fallback."""
    for enterprise_id in reversed(ancestors_of(path)):
        if enterprise_id in own:
            return own[enterprise_id], enterprise_id
    return fallback, None
