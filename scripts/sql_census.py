"""Count the SQL statements written outside ``warehouse/``, by module.

Rule: a statement is a Python string literal (plain, implicitly concatenated, or the literal parts of an
f-string) that begins, after white space, with an upper-case SQL verb: SELECT, INSERT INTO, UPDATE,
DELETE FROM, WITH, COPY, CREATE, ALTER, DROP, TRUNCATE, LOCK or MERGE. Fragments that are not whole
statements (a WHERE clause, a column list) are not counted. Scanned: every ``*.py`` of the repository
outside ``warehouse/`` (its home), ``tests/`` and ``benchmarks/`` (test scaffolding and load rigs set up
their own rows), ``.venv`` and ``dashboards/``.

``python scripts/sql_census.py [ROOT]`` prints "count path" per module, then the total.
"""

from __future__ import annotations

import ast
import re
import sys
from collections import Counter
from pathlib import Path

STATEMENT = re.compile(
    r"^\s*(SELECT|INSERT\s+INTO|UPDATE|DELETE\s+FROM|WITH|COPY|CREATE|ALTER|DROP|TRUNCATE|LOCK|MERGE)\s", re.S)
NOT_SCANNED = {"warehouse", "tests", "benchmarks", ".venv", "dashboards", "node_modules", ".git", "var"}


def literal_text(node: ast.AST) -> str | None:
    """The text of a string literal node (an f-string's placeholders become ``{}``); None otherwise."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
    return None


def statements_in(source: str) -> int:
    """How many string literals of ``source`` are SQL statements by the rule above."""
    tree = ast.parse(source)
    inner = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}
    return sum(1 for node in ast.walk(tree)
               if id(node) not in inner and (text := literal_text(node)) is not None and STATEMENT.match(text))


def census(root: Path) -> Counter[str]:
    """Statements per module (path relative to ``root``, POSIX form) outside warehouse/."""
    counts: Counter[str] = Counter()
    tops = [p for p in sorted(root.iterdir()) if p.name not in NOT_SCANNED and not p.name.startswith(".")]
    for top in tops:
        for path in [top] if top.is_file() else sorted(top.rglob("*.py")):
            if path.suffix != ".py":
                continue
            found = statements_in(path.read_text(encoding="utf-8"))
            if found:
                counts[path.relative_to(root).as_posix()] = found
    return counts


def main(argv: list[str]) -> int:
    root = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parent.parent
    counts = census(root)
    for module, found in sorted(counts.items()):
        print(f"{found:4d} {module}")
    print(f"{sum(counts.values()):4d} statements in {len(counts)} modules outside warehouse/")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
