"""No file of the repository points at a tracker issue by number: a reader of the code, tests or docs cannot
open one. A comment states the rule itself and, where the rule comes from the product spec, names the
spec section (``console-spec §7``, ``platform-spec §2``). CHANGELOG.md is the one exception: it is the
release history, and each release is named after the work it closed."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]
EXEMPT = {"CHANGELOG.md"}
CITATION = re.compile(r"\bissues?[ -]?#?\d+", re.IGNORECASE)


def tracked_text_files() -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=REPOSITORY, capture_output=True, check=True).stdout
    paths = [REPOSITORY / name for name in listed.decode().split("\0") if name and name not in EXEMPT]
    return [path for path in paths if path.is_file()]


def citations(text: str) -> list[str]:
    return [match.group(0) for match in CITATION.finditer(text)]


def test_the_citation_rule_finds_an_issue_number_in_any_spelling() -> None:
    word = "issue"  # spelled apart, so this file passes its own check
    sample = f"see {word.title()} 8 §3, {word}s 7 and 9, {word} #2 and {word}-12; an {word} of wiring is fine"
    assert citations(sample) == [f"{word.title()} 8", f"{word}s 7", f"{word} #2", f"{word}-12"]


def test_no_code_test_or_doc_cites_an_issue_number() -> None:
    found = []
    for path in tracked_text_files():
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except UnicodeDecodeError:
            continue  # images, fonts and other binary files
        found += [f"{path.relative_to(REPOSITORY)}:{number}: {line.strip()[:120]}"
                  for number, line in enumerate(lines, 1) if citations(line)]
    assert found == [], "state the rule (and the spec section) instead:\n" + "\n".join(found)
