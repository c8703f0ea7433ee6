"""The spec audit (docs/spec-coverage.md) is true of the product: every row that says served or partial has its
route, every row that says missing has none yet, and the committed table is the one the rows generate."""

import logging
from pathlib import Path

import pytest

from api import spec_coverage as sc

logging.getLogger("psycopg.pool").setLevel(logging.CRITICAL)


@pytest.mark.parametrize("screen", sc.SCREENS, ids=lambda s: f"{s.spec}:{s.family}:{s.item}")
def test_a_screen_row_matches_the_routes(screen: sc.Screen) -> None:
    names = sc.screen_names()
    if screen.route == sc.NO_PAGE:
        assert not screen.missing
    elif screen.missing:
        assert screen.route not in names, f"{screen.route} is routed now: mark the row served"
    else:
        assert screen.route in names, f"no route {screen.route} for {screen.item}"


@pytest.mark.parametrize("call", sc.CALLS, ids=lambda c: f"{c.method} {c.path}")
def test_a_call_row_matches_the_url_map(call: sc.Call) -> None:
    if call.missing:
        assert not sc.call_served(call), f"{call.method} {call.path} is served now: mark the row served"
    else:
        assert sc.call_served(call), f"{call.method} {call.path} matches no route"


def test_every_row_is_written_once() -> None:
    screens = [(s.spec, s.family, s.item) for s in sc.SCREENS]
    calls = [(c.spec, c.method, c.path) for c in sc.CALLS]
    assert len(screens) == len(set(screens)) and len(calls) == len(set(calls))


def test_the_committed_table_is_current() -> None:
    committed = (Path(__file__).resolve().parents[3] / "docs/spec-coverage.md").read_text(encoding="utf-8")
    assert committed == sc.render(), "run: python -m api.spec_coverage > docs/spec-coverage.md"
