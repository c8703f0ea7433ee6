"""Create / read / update / soft delete of a declared entity, validated from its declaration.

Bodies are JSON objects of camelCase fields. A field the declaration does not accept on that
operation (unknown, read-only) is a 400 naming it; every value is checked against its field
(type, required, length, pattern, enum, range) with a bilingual 400 naming the field; a unique
field clashing with a live record of the enterprise is a 409 naming it. The tenant column comes
from the caller (or from ``enterpriseId`` when given: an enabled enterprise of the caller's
subtree, else 404). Every change writes an ``audit_log`` row in the same transaction.
"""

from __future__ import annotations

import re
from typing import Any

from psycopg import Connection, errors

from api.auth import Principal
from api.errors import BadRequest, Conflict, NotFound
from api.query.grammar import EntitySpec, FieldSpec
from api.query.runner import fetch_by_id
from api.query.values import coerce
from warehouse.queries import records
from warehouse.queries.scope import Scope

TENANT_FIELD = "enterpriseId"


def _table(entity: EntitySpec) -> records.Table:
    return records.Table(entity.table, entity.tenant_column, entity.record_state_column)


# A written value has exactly its JSON type (3.0 is an integer in JSON; the query's "12" for 12 is not taken).
_JSON_TYPES: dict[str, type | tuple[type, ...]] = {"int": (int, float), "float": (int, float), "str": str, "bool": bool}
_NAMES = {"int": "an integer", "float": "a number", "str": "a string", "bool": "true or false"}


def check_value(name: str, spec: FieldSpec, value: Any) -> Any:
    """``value`` coerced to the field's type and checked against its rules; BadRequest naming ``name``."""
    if value is None:
        if spec.required:
            raise BadRequest(f"字段不能为空 (field '{name}' is required)")
        return None
    json_types = _JSON_TYPES.get(spec.type)
    if json_types is not None and (not isinstance(value, json_types) or isinstance(value, bool) != (spec.type == "bool")):
        raise BadRequest(f"参数类型不符 (field '{name}' expects {_NAMES[spec.type]}, got {type(value).__name__})")
    value = coerce(name, spec.type, value)
    if isinstance(value, str):
        if spec.required and value == "":
            raise BadRequest(f"字段不能为空 (field '{name}' is required)")
        if spec.max_length is not None and len(value) > spec.max_length:
            raise BadRequest(f"字段过长 (field '{name}' is longer than {spec.max_length} characters)")
        if spec.pattern is not None and not re.fullmatch(spec.pattern, value):
            raise BadRequest(f"字段格式不正确 (field '{name}' must match {spec.pattern})")
    if spec.enum is not None and value not in spec.enum:
        raise BadRequest(f"字段取值不合法 (field '{name}' must be one of {', '.join(map(str, spec.enum))})")
    if spec.minimum is not None and value < spec.minimum:
        raise BadRequest(f"字段取值过小 (field '{name}' must be at least {spec.minimum})")
    if spec.maximum is not None and value > spec.maximum:
        raise BadRequest(f"字段取值过大 (field '{name}' must be at most {spec.maximum})")
    return value


def parse_body(entity: EntitySpec, body: Any, *, creating: bool) -> dict[str, Any]:
    """``{field: checked value}`` of the body; required fields must be there on create."""
    if body is None:
        body = {}
    if not isinstance(body, dict):
        raise BadRequest("请求体必须是 JSON 对象 (request body must be a JSON object of fields)")
    unknown = [k for k in body if k not in entity.fields]
    if unknown:
        raise BadRequest(f"未知字段 (unknown field(s) for {entity.name}: {', '.join(unknown)[:200]})")
    read_only = [k for k in body if not (entity.fields[k].create if creating else entity.fields[k].update)]
    if read_only:
        raise BadRequest(f"字段不可写 (field(s) of {entity.name} not writable here: {', '.join(read_only)})")
    values = {name: check_value(name, entity.fields[name], value) for name, value in body.items()}
    if creating:
        missing = [n for n, f in entity.fields.items() if f.required and f.create and n not in values]
        if missing:
            raise BadRequest(f"字段不能为空 (field(s) required: {', '.join(missing)})")
    return values


def _clash(entity: EntitySpec, exc: errors.UniqueViolation) -> Conflict:
    index = exc.diag.constraint_name or ""
    field = next((n for n, f in entity.fields.items() if f.unique and index == f"{entity.table}_{f.column}_uniq"), "")
    return Conflict(f"{field or entity.name} 已存在 ({entity.name} with this {field or 'value'} already exists)",
                    data={"field": field or None})


def _not_found(entity: EntitySpec, record_id: int) -> NotFound:
    return NotFound(f"{entity.name} {record_id} 不存在 (does not exist)")


def _columns(entity: EntitySpec, values: dict[str, Any]) -> dict[str, Any]:
    return {entity.fields[name].column: value for name, value in values.items()}


def _audit(conn: Connection[Any], who: Principal, entity: EntitySpec, enterprise_id: int, record_id: int,
           action: str, changes: dict[str, Any]) -> None:
    records.audit(conn, user_id=who.user_id, user_name=who.user_name, enterprise_id=enterprise_id,
                  entity=entity.name, record_id=record_id, action=action, changes=changes)


def create(conn: Connection[Any], entity: EntitySpec, who: Principal, body: Any) -> dict[str, Any]:
    """The created record (as the detail route answers it)."""
    values = parse_body(entity, body, creating=True)
    tenant = values.pop(TENANT_FIELD, None)
    if tenant is None:
        tenant = who.enterprise_id
    else:
        path = records.enterprise_path(conn, tenant)
        if path is None or not path.startswith(who.enterprise_path):
            raise NotFound(f"企业 {tenant} 不存在 (enterprise {tenant} does not exist)")
    row = {**_columns(entity, values), entity.tenant_column: tenant}
    try:
        with conn.transaction():
            record_id = records.insert(conn, _table(entity), row)
            _audit(conn, who, entity, tenant, record_id, "create",
                   {n: {"before": None, "after": v} for n, v in {**values, TENANT_FIELD: tenant}.items()})
    except errors.UniqueViolation as exc:
        raise _clash(entity, exc) from None
    scope = Scope(who.enterprise_id, who.enterprise_path, subtree=True)
    created = fetch_by_id(conn, entity, record_id, scope)
    assert created is not None
    return created


def update(conn: Connection[Any], entity: EntitySpec, who: Principal, scope: Scope, record_id: int,
           body: Any) -> dict[str, Any]:
    """The updated record; 404 when absent, deleted or outside ``scope``."""
    values = parse_body(entity, body, creating=False)
    fields = [entity.tenant_column, *(entity.fields[n].column for n in values)]
    try:
        with conn.transaction():
            before = records.lock_row(conn, _table(entity), scope, record_id, fields)
            if before is None:
                raise _not_found(entity, record_id)
            changed = {n: v for n, v in values.items() if before[entity.fields[n].column] != v}
            if changed:
                records.update(conn, _table(entity), record_id, _columns(entity, changed))
                _audit(conn, who, entity, before[entity.tenant_column], record_id, "update",
                       {n: {"before": before[entity.fields[n].column], "after": v} for n, v in changed.items()})
    except errors.UniqueViolation as exc:
        raise _clash(entity, exc) from None
    updated = fetch_by_id(conn, entity, record_id, scope)
    assert updated is not None
    return updated


def delete(conn: Connection[Any], entity: EntitySpec, who: Principal, scope: Scope, record_id: int) -> dict[str, Any]:
    """Soft delete (record state 0): ``{id}``; 404 when absent, already deleted or outside ``scope``."""
    with conn.transaction():
        before = records.lock_row(conn, _table(entity), scope, record_id, [entity.tenant_column])
        if before is None:
            raise _not_found(entity, record_id)
        records.soft_delete(conn, _table(entity), record_id)
        _audit(conn, who, entity, before[entity.tenant_column], record_id, "delete",
               {"recordState": {"before": 1, "after": 0}})
    return {"id": record_id}


def read(conn: Connection[Any], entity: EntitySpec, scope: Scope, record_id: int) -> dict[str, Any]:
    row = fetch_by_id(conn, entity, record_id, scope)
    if row is None:
        raise _not_found(entity, record_id)
    return row
