"""docs/scaling.md: its generated arithmetic matches its input tables (benchmarks/scaling_arithmetic.py)."""

from __future__ import annotations

from pathlib import Path

from tests.support.arithmetic import load_arithmetic


def test_generated_section_matches_the_input_tables() -> None:
    arithmetic = load_arithmetic()
    text = Path(arithmetic.DOC).read_text()
    assert arithmetic.regenerate(text) == text, (
        "docs/scaling.md is stale: run `.venv/bin/python benchmarks/scaling_arithmetic.py --write`")


def test_input_tables_hold_every_figure_the_arithmetic_uses() -> None:
    arithmetic = load_arithmetic()
    cpu, values = arithmetic.read_inputs(Path(arithmetic.DOC).read_text())
    assert set(cpu) == {"worker", "gateway", "kafka", "postgres", "total"}
    for name, figure in cpu.items():
        assert figure.low <= figure.median <= figure.high, name
    parts = sum(cpu[name].median for name in ("worker", "gateway", "kafka", "postgres"))
    assert abs(parts - cpu["total"].median) <= 0.05 * cpu["total"].median, "the total's median is not the sum of the parts"
    arithmetic.render(cpu, values)  # a missing input raises KeyError


def test_a_changed_input_changes_the_arithmetic() -> None:
    arithmetic = load_arithmetic()
    text = Path(arithmetic.DOC).read_text()
    faster = text.replace("| `worker` | streams worker (`python -m streams worker`, 2 processes) | 108-149 | 116 |",
                          "| `worker` | streams worker (`python -m streams worker`, 2 processes) | 54-75 | 58 |")
    assert faster != text, "the worker row of the CPU table changed: update this test"
    assert arithmetic.doc_topology(1_000_000, faster).workers < arithmetic.doc_topology(1_000_000, text).workers
