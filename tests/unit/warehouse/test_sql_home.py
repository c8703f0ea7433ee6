"""The SQL of the gateway, the streams and the API lives in warehouse/ (one data-access layer, each table
one writer); the only SQL left in api/ is the generic query builder's (api/query/). The census rule is in
scripts/sql_census.py."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
_spec = importlib.util.spec_from_file_location("sql_census", ROOT / "scripts" / "sql_census.py")
assert _spec is not None and _spec.loader is not None
sql_census = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sql_census)


def test_census_counts_whole_statements_only() -> None:
    source = '''
A = "SELECT id FROM device WHERE phone = %s"
B = ("INSERT INTO video_log (id) "
     "VALUES (%s)")
C = f"""
    UPDATE device SET state = {1} WHERE id = %s"""
D = " AND record_state = 1"
E = "Select a vehicle"
'''
    assert sql_census.statements_in(source) == 3


def test_gateway_writes_no_sql_of_its_own() -> None:
    found = {m: n for m, n in sql_census.census(ROOT).items() if m.startswith("gateway/")}
    assert found == {}


def test_streams_write_no_sql_of_their_own() -> None:
    found = {m: n for m, n in sql_census.census(ROOT).items() if m.startswith("streams/")}
    assert found == {}


def test_api_sql_only_in_the_generic_query_builder() -> None:
    found = {m: n for m, n in sql_census.census(ROOT).items()
             if m.startswith("api/") and not m.startswith("api/query/")}
    assert found == {}
