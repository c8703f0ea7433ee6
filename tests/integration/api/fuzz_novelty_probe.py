"""A measurement, not a test (its name keeps it out of the suite): what each generated example of the contract fuzz
adds. Run by hand, one part or several, with the examples per hand-written operation to try:

    FLEET_PROBE_EXAMPLES=60 FLEET_PROBE_OUT=var/probe-60.json \
        .venv/bin/pytest tests/integration/api/fuzz_novelty_probe.py -q -k hand-written

(``FLEET_PROBE_GENERATED_EXAMPLES`` sets the examples per operation of the generated parts and the commands,
``FLEET_PROBE_SPREADSHEET_EXAMPLES`` those of the spreadsheet routes, ``FLEET_PROBE_REPORT_EXAMPLES`` those of the
reports; by default the test's own.)

For every request it records the lines of the project's own code (api/, warehouse/, fleet/, protocols/) run for
the first time in this run, and the reply's (status, envelope code). The JSON written holds, per operation and
phase, the number of cases and the index of the last case that ran a new line or gave a new reply, plus the
whole run's set of lines and replies, so two runs with different example counts can be compared
(docs/performance.md "The whole suite's time")."""

from __future__ import annotations

import json
import os
import sys
import threading
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
import schemathesis

from tests.integration.api import test_contract_fuzz as contract
from tests.integration.api.test_contract_fuzz import (  # noqa: F401 (the fixtures)
    FUZZ_PARTS,
    WsgiApp,
    app,
    fuzz,
    fuzz_db,
    fuzz_user,
    fuzz_wsgi,
)

ROOT = str(Path(__file__).resolve().parents[3])
OWN = tuple(f"{ROOT}/{package}/" for package in ("api", "warehouse", "fleet", "protocols"))
SEEN_LINES: set[tuple[str, int]] = set()
SEEN_REPLIES: set[tuple[str, int, Any]] = set()
CURRENT: dict[str, Any] = {"label": "?", "phase": "?"}
# (label, phase) -> list of (new lines, new reply) per case, in order
CASES: dict[tuple[str, str], list[tuple[int, bool]]] = defaultdict(list)
_local = threading.local()


def _line_tracer(frame: FrameType, event: str, arg: Any) -> Any:
    if event == "line":
        key = (frame.f_code.co_filename, frame.f_lineno)
        if key not in SEEN_LINES:
            SEEN_LINES.add(key)
            _local.new += 1
    return _line_tracer


def _call_tracer(frame: FrameType, event: str, arg: Any) -> Any:
    if frame.f_code.co_filename.startswith(OWN):
        return _line_tracer
    return None


@schemathesis.hook
def before_call(context: Any, case: Any, **kwargs: Any) -> None:
    CURRENT["label"] = case.operation.label
    CURRENT["phase"] = case.meta.phase.name.value if case.meta is not None else "?"


@pytest.fixture(scope="module")
def traced_wsgi(fuzz_wsgi: WsgiApp) -> WsgiApp:  # noqa: F811 (the imported fixture)
    def wsgi(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        _local.new = 0
        sys.settrace(_call_tracer)
        try:
            body = b"".join(fuzz_wsgi(environ, start_response_recording))
        finally:
            sys.settrace(None)
        try:
            code = json.loads(body).get("code")
        except (ValueError, AttributeError):
            code = None
        reply = (CURRENT["label"], status[0], code)
        new_reply = reply not in SEEN_REPLIES
        SEEN_REPLIES.add(reply)
        CASES[(CURRENT["label"], CURRENT["phase"])].append((_local.new, new_reply))
        return [body]

    status: list[int] = [0]

    def start_response_recording(code: str, headers: Any, *rest: Any) -> Any:
        status[0] = int(code.split()[0])
        return _start[0](code, headers, *rest)

    _start: list[Any] = [None]

    def outer(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        _start[0] = start_response
        return wsgi(environ, start_response)

    return outer


@pytest.mark.parametrize("part", FUZZ_PARTS)
def test_probe(monkeypatch: pytest.MonkeyPatch, traced_wsgi: WsgiApp, fuzz_user: dict[str, str], part: str) -> None:  # noqa: F811
    examples = int(os.environ.get("FLEET_PROBE_EXAMPLES", "60"))
    for name, variable in (("GENERATED_MAX_EXAMPLES", "FLEET_PROBE_GENERATED_EXAMPLES"),
                           ("SPREADSHEET_MAX_EXAMPLES", "FLEET_PROBE_SPREADSHEET_EXAMPLES"),
                           ("REPORT_MAX_EXAMPLES", "FLEET_PROBE_REPORT_EXAMPLES")):
        if variable in os.environ:
            monkeypatch.setattr(contract, name, int(os.environ[variable]))
    failures = fuzz(traced_wsgi, fuzz_user, examples, token_endpoint=False, part=part)
    out = Path(os.environ.get("FLEET_PROBE_OUT", "var/fuzz-probe.json"))
    out.parent.mkdir(parents=True, exist_ok=True)
    summary = {
        "examples": examples,
        "failures": failures,
        "lines": sorted(f"{f[len(ROOT) + 1:]}:{n}" for f, n in SEEN_LINES),
        "replies": sorted(f"{label} {s} {c}" for label, s, c in SEEN_REPLIES),
        "operations": {f"{phase} {label}": {
            "cases": len(cases),
            "last_new_line": max((i for i, (n, _) in enumerate(cases) if n), default=-1),
            "last_new_reply": max((i for i, (_, r) in enumerate(cases) if r), default=-1),
            "new_lines": sum(n for n, _ in cases),
        } for (label, phase), cases in sorted(CASES.items())},
    }
    out.write_text(json.dumps(summary, indent=1, ensure_ascii=False))
