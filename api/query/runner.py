"""Runs parsed queries on a connection and shapes the page reply."""

from __future__ import annotations

from typing import Any

from psycopg import Connection
from psycopg.rows import dict_row

from api.query.grammar import Condition, EntitySpec, Query
from api.query.provided import provided_page, provided_rows
from api.query.sqlgen import compile_count, compile_select
from warehouse.queries.scope import Scope


def run_page(conn: Connection[Any], query: Query, scope: Scope) -> dict[str, Any]:
    """``{list, pageNo, pageSize}`` plus ``total`` when the query is countable."""
    if query.entity.provider is not None:
        rows, total = provided_page(conn, query, scope)
        computed: dict[str, Any] = {"list": rows, "pageNo": query.page_no, "pageSize": query.page_size}
        return {**computed, "total": total} if query.countable else computed
    statement, params = compile_select(query, scope)
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(statement, params)
        rows = cur.fetchall()
    rows = query.entity.hooks.after_list(conn, rows)
    page: dict[str, Any] = {"list": rows, "pageNo": query.page_no, "pageSize": query.page_size}
    if query.countable:
        page["total"] = run_count(conn, query, scope)
    return page


def run_count(conn: Connection[Any], query: Query, scope: Scope) -> int:
    if query.entity.provider is not None:
        return len(provided_rows(conn, query, scope))
    statement, params = compile_count(query, scope)
    with conn.cursor() as cur:
        cur.execute(statement, params)
        row = cur.fetchone()
    return int(row[0]) if row else 0


def fetch_by_id(conn: Connection[Any], entity: EntitySpec, record_id: Any, scope: Scope) -> dict[str, Any] | None:
    """One record by its id field inside the scope; None when absent or outside it (same answer)."""
    query = Query(
        entity=entity,
        select=entity.default_select or entity.listable,
        conditions=(Condition(entity.id_field, "eq", record_id),),
        order_by=(entity.id_field,),
        page_size=1,
    )
    rows = run_page(conn, query, scope)["list"]
    return rows[0] if rows else None
