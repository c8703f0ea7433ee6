"""SQL for a parsed Query. Identifiers come only from the entity whitelist; values are parameters."""

from __future__ import annotations

from typing import Any

from psycopg import sql

from api.errors import request_language
from api.query.grammar import Condition, EntitySpec, Query, RangeCondition
from warehouse.queries.scope import Scope, like_prefix

_COMPARATORS = {"eq": "=", "ne": "<>", "gt": ">", "gte": ">=", "lt": "<", "lte": "<="}


def column(entity: EntitySpec, name: str) -> sql.Composable:
    spec = entity.fields[name]
    if spec.localised is not None:  # a server text: in the caller's language (api.errors.request_language)
        return sql.SQL("(" + spec.localised(request_language()) + ")")
    if spec.expression is not None:
        return sql.SQL("(" + spec.expression + ")")
    return sql.Identifier(spec.column)


def compile_where(query: Query, scope: Scope) -> tuple[sql.Composed, list[Any]]:
    """The WHERE clause: tenant scope first, then every condition and range, ANDed."""
    entity = query.entity
    tenant, params = scope.clause(sql.Identifier(entity.tenant_column))
    parts: list[sql.Composable] = [tenant]
    if entity.owner_column:  # per-user rows: the caller's own only (none without a user)
        owner = sql.Identifier(entity.owner_column)
        mine = sql.SQL("{} = %s").format(owner)
        parts.append(sql.SQL("({} OR {} IS NULL)").format(mine, owner) if entity.shared_rows else mine)
        params.append(scope.user_id if scope.user_id is not None else -1)
    if entity.record_state_column:  # soft-deleted rows are hidden from every read
        parts.append(sql.SQL("{} = 1").format(sql.Identifier(entity.record_state_column)))
    for cond in query.conditions:
        part, values = _condition(entity, cond)
        parts.append(part)
        params.extend(values)
    for rng in query.ranges:
        for part, value in _range(entity, rng):
            parts.append(part)
            params.append(value)
    return sql.SQL(" WHERE ") + sql.SQL(" AND ").join(parts), params


def compile_select(query: Query, scope: Scope) -> tuple[sql.Composed, list[Any]]:
    """SELECT of the page: columns aliased to their camelCase names, stable order, LIMIT/OFFSET."""
    entity = query.entity
    columns = sql.SQL(", ").join(
        sql.SQL("{} AS {}").format(column(entity, name), sql.Identifier(name)) for name in query.select
    )
    where, params = compile_where(query, scope)
    order_keys = list(query.order_by)
    for key in entity.tiebreak or (entity.id_field,):
        if key not in order_keys:
            order_keys.append(key)  # pages never repeat or skip rows
    direction = sql.SQL(" DESC") if query.desc else sql.SQL(" ASC")
    order = sql.SQL(", ").join(column(entity, key) + direction for key in order_keys)
    statement = (
        sql.SQL("SELECT ")
        + columns
        + sql.SQL(" FROM ")
        + sql.Identifier(entity.relation)
        + where
        + sql.SQL(" ORDER BY ")
        + order
        + sql.SQL(" LIMIT %s OFFSET %s")
    )
    return statement, [*params, query.page_size, query.offset]


def compile_count(query: Query, scope: Scope) -> tuple[sql.Composed, list[Any]]:
    where, params = compile_where(query, scope)
    return sql.SQL("SELECT count(*) FROM ") + sql.Identifier(query.entity.relation) + where, params


def _condition(entity: EntitySpec, cond: Condition) -> tuple[sql.Composable, list[Any]]:
    col = column(entity, cond.field)
    op, value = cond.op, cond.value
    if op == "exists":
        return col + sql.SQL(" IS NOT NULL" if value else " IS NULL"), []
    if op in ("eq", "ne") and value is None:
        return col + sql.SQL(" IS NULL" if op == "eq" else " IS NOT NULL"), []
    if op == "in":
        return col + sql.SQL(" = ANY(%s)"), [value]
    if op == "nin":
        # NULLs are "not in" any list: the console expects them kept.
        return sql.SQL("({} IS NULL OR NOT ({} = ANY(%s)))").format(col, col), [value]
    if op == "like":
        return col + sql.SQL(" ILIKE %s"), ["%" + like_prefix(value)]
    if op == "rlike":
        return col + sql.SQL(" LIKE %s"), [like_prefix(value)]
    return col + sql.SQL(" " + _COMPARATORS[op] + " %s"), [value]


def _range(entity: EntitySpec, rng: RangeCondition) -> list[tuple[sql.Composable, Any]]:
    col = column(entity, rng.field)
    parts: list[tuple[sql.Composable, Any]] = []
    if rng.lower is not None:
        parts.append((col + sql.SQL(" >= %s" if rng.lower_inclusive else " > %s"), rng.lower))
    if rng.upper is not None:
        parts.append((col + sql.SQL(" <= %s" if rng.upper_inclusive else " < %s"), rng.upper))
    return parts
