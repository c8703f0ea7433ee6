"""Computed read-only entities (``EntitySpec.provider``): the rows a provider function returns for
the query's window are filtered, sorted and paged here with the same grammar as SQL entities, so
``run_page``, ``run_count`` and the export serve them unchanged (the parking and idling logs,
``api/query/entities_logs.py``).

A provider returns every row of its window (one vehicle, a bounded time range: ``EntitySpec.window``),
so the work is bounded by that range, not by the table.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from psycopg import Connection

from api.query.grammar import Condition, Query, RangeCondition
from warehouse.queries.scope import Scope

_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "eq": lambda a, b: a == b, "ne": lambda a, b: a != b,
    "gt": lambda a, b: a is not None and a > b, "gte": lambda a, b: a is not None and a >= b,
    "lt": lambda a, b: a is not None and a < b, "lte": lambda a, b: a is not None and a <= b,
}


def provided_rows(conn: Connection[Any], query: Query, scope: Scope) -> list[dict[str, Any]]:
    """Every row matching the query's conditions and ranges, in its order (tiebreak appended)."""
    entity = query.entity
    assert entity.provider is not None
    rows = [r for r in entity.provider(conn, query, scope) if _matches(r, query)]
    keys = list(query.order_by)
    keys += [k for k in entity.tiebreak or (entity.id_field,) if k not in keys]
    for key in reversed(keys):  # stable sorts, last key first; NULLs last ascending (as PostgreSQL)
        present = [r for r in rows if r.get(key) is not None]
        missing = [r for r in rows if r.get(key) is None]
        present.sort(key=lambda r: r[key], reverse=query.desc)
        rows = missing + present if query.desc else present + missing
    return rows


def provided_page(conn: Connection[Any], query: Query, scope: Scope) -> tuple[list[dict[str, Any]], int]:
    """(the page's rows with the selected fields, the number of matching rows)."""
    rows = provided_rows(conn, query, scope)
    page = rows[query.offset:query.offset + query.page_size]
    return [selected(row, query.select) for row in page], len(rows)


def selected(row: dict[str, Any], names: tuple[str, ...] | list[str]) -> dict[str, Any]:
    """The row's ``names``. A provider may give a field that is neither filterable nor sortable as a
    callable (an address to look up): it is called only for the rows answered, not for every row."""
    return {name: value() if callable(value) else value for name, value in ((n, row.get(n)) for n in names)}


def _matches(row: dict[str, Any], query: Query) -> bool:
    return all(_condition(row.get(c.field), c) for c in query.conditions) and all(
        _in_range(row.get(r.field), r) for r in query.ranges)


def _condition(value: Any, cond: Condition) -> bool:
    op, wanted = cond.op, cond.value
    if op == "exists":
        return (value is not None) == bool(wanted)
    if op == "in":
        return value in wanted
    if op == "nin":
        return value is None or value not in wanted
    if op == "like":
        return value is not None and str(wanted).lower() in str(value).lower()
    if op == "rlike":
        return value is not None and str(value).startswith(str(wanted))
    if wanted is None:
        return (value is None) == (op == "eq")
    return _COMPARE[op](value, wanted)


def _in_range(value: Any, rng: RangeCondition) -> bool:
    if value is None:
        return False
    if rng.lower is not None and (value < rng.lower if rng.lower_inclusive else value <= rng.lower):
        return False
    return not (rng.upper is not None and (value > rng.upper if rng.upper_inclusive else value >= rng.upper))
