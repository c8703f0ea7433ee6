"""Create / read / update / soft delete of a declared entity, validated from its declaration.

Bodies are JSON objects of camelCase fields. A field the declaration does not accept on that
operation (unknown, read-only) is a 400 naming it; every value is checked against its field
(type, required, length, pattern, enum, range) with a bilingual 400 naming the field; a unique
field clashing with a live record of the enterprise is a 409 naming it. The tenant column comes
from the caller (or from ``enterpriseId`` when given: an enabled enterprise of the caller's
subtree, else 404). Every change writes an ``audit_log`` row in the same transaction.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from contextlib import nullcontext
from dataclasses import replace
from typing import Any

from psycopg import Connection, errors
from psycopg.types.json import Jsonb

from api.auth import Principal
from api.errors import BadRequest, Conflict, NotFound, with_detail
from api.query.grammar import EntitySpec, FieldSpec
from api.query.runner import fetch_by_id
from api.query.values import MAX_TEXT_CHARS, coerce
from warehouse.queries import records
from warehouse.queries.scope import Scope

TENANT_FIELD = "enterpriseId"


def _table(entity: EntitySpec) -> records.Table:
    return records.Table(entity.table, entity.tenant_column, entity.record_state_column)


# A written value has exactly its JSON type (3.0 is an integer in JSON; the query's "12" for 12 is not taken).
_JSON_TYPES: dict[str, type | tuple[type, ...]] = {"int": (int, float), "float": (int, float), "str": str, "bool": bool,
                                                   "json": (dict, list)}
_NAMES = {"int": "an integer", "float": "a number", "str": "a string", "bool": "true or false",
          "json": "an object or a list"}
MAX_JSON_CHARS = 1_000_000  # a structured value's JSON text (a district-sized polygon fits)


def _bad(name: str, message: str) -> BadRequest:
    return BadRequest(message, data={"field": name})


def check_value(name: str, spec: FieldSpec, value: Any) -> Any:
    """``value`` coerced to the field's type and checked against its rules; BadRequest naming ``name``
    (in the message and as ``data.field``, where the console shows it)."""
    try:
        value = _checked(name, spec, value)
    except BadRequest as exc:
        raise _bad(name, exc.message) from None
    if value is not None and spec.check is not None:
        problem = spec.check(value)
        if problem:
            raise _bad(name, with_detail(problem, f"field '{name}'"))
    return value


def _checked(name: str, spec: FieldSpec, value: Any) -> Any:
    if value is None:
        if spec.required:
            raise BadRequest(f"字段不能为空 (field '{name}' is required)")
        return None
    if spec.virtual:
        return value  # shaped by the field's check and consumed by the entity's hooks
    json_types = _JSON_TYPES.get(spec.type)
    if json_types is not None and (not isinstance(value, json_types) or isinstance(value, bool) != (spec.type == "bool")):
        raise BadRequest(f"参数类型不符 (field '{name}' expects {_NAMES[spec.type]}, got {type(value).__name__})")
    if spec.type == "json":  # shaped by the field's check; bounded here
        if len(json.dumps(value)) > MAX_JSON_CHARS:
            raise BadRequest(f"字段过长 (field '{name}' is longer than {MAX_JSON_CHARS} characters of JSON)")
        return value
    # A text field declared longer than a filter value (a dictionary's JSON content) is bounded by
    # its max_length below, not by coerce's filter-value limit.
    long_text = isinstance(value, str) and spec.max_length is not None and spec.max_length > MAX_TEXT_CHARS
    value = value if long_text else coerce(name, spec.type, value)
    if isinstance(value, str):
        if spec.required and value == "":
            raise BadRequest(f"字段不能为空 (field '{name}' is required)")
        if spec.max_length is not None and len(value) > spec.max_length:
            raise BadRequest(f"字段过长 (field '{name}' is longer than {spec.max_length} characters)")
        if spec.pattern is not None and not re.fullmatch(spec.pattern, value):
            raise BadRequest(f"字段格式不正确 (field '{name}' must match {spec.pattern})")
    if spec.many and isinstance(value, str):
        items = value.split(",") if value else []
        if any(item not in (spec.enum or ()) for item in items):
            raise BadRequest(f"字段取值不合法 (field '{name}' must be a comma list of values of "
                             f"{', '.join(map(str, spec.enum or ()))})")
    elif spec.enum is not None and value not in spec.enum:
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
    # a structure a hook left as one (a fence's attributes become a bit set first) goes as jsonb
    return {entity.fields[name].column: Jsonb(value) if entity.fields[name].type == "json"
            and isinstance(value, dict | list) else value for name, value in values.items() if not entity.fields[name].virtual}


def _stored_columns(entity: EntitySpec) -> list[str]:
    return [f.column for f in entity.fields.values() if not f.virtual and f.expression is None]


def _shown(entity: EntitySpec, name: str, value: Any) -> Any:
    return "***" if entity.fields[name].secret and value is not None else value


def _audit(conn: Connection[Any], who: Principal, entity: EntitySpec, enterprise_id: int, record_id: int,
           action: str, changes: dict[str, Any]) -> None:
    records.audit(conn, user_id=who.user_id, user_name=who.user_name, enterprise_id=enterprise_id,
                  entity=entity.name, record_id=record_id, action=action, changes=changes)


def caller_scope(who: Principal) -> Scope:
    """Everything the caller may see: its enterprise and the subsidiaries below it."""
    return Scope(who.enterprise_id, who.enterprise_path, subtree=True)


def check_refs(conn: Connection[Any], entity: EntitySpec, who: Principal, values: dict[str, Any]) -> None:
    """Every reference names a live record the caller can see, else a 404 naming the field (the same
    answer for absent, deleted and another enterprise's records)."""
    from api.query.entities import QUERYABLE

    for name, value in values.items():
        target = entity.fields[name].ref
        if not target or value is None:
            continue
        # a list field with a ref (a platform's exchanged cars) names several records: each is checked
        for one in (value if isinstance(value, list) else [value]):
            if fetch_by_id(conn, QUERYABLE[target], one, caller_scope(who)) is None:
                raise NotFound(f"关联记录不存在 (field '{name}': {target} {one} does not exist)", data={"field": name})


def create(conn: Connection[Any], entity: EntitySpec, who: Principal, body: Any) -> dict[str, Any]:
    """The created record (as the detail route answers it)."""
    return read(conn, entity, caller_scope(who), create_id(conn, entity, who, body))


def create_id(conn: Connection[Any], entity: EntitySpec, who: Principal, body: Any, *, savepoint: bool = True) -> int:
    """Validates and writes a new record in its own transaction (a savepoint inside the caller's):
    the new id. The spreadsheet import applies every row through this; ``savepoint=False`` is its
    batch: the caller's own savepoint around many rows, rolled back whole when one row fails."""
    values = parse_body(entity, body, creating=True)
    tenant = values.pop(TENANT_FIELD, None)
    if tenant is None:
        tenant = who.enterprise_id
    else:
        path = records.enterprise_path(conn, tenant)
        if path is None or not path.startswith(who.enterprise_path):
            # outside the caller's subtree answers as a missing enterprise, naming the field (the form shows it there)
            raise NotFound(f"企业 {tenant} 不存在或不在您的企业树内 (field 'enterpriseId': enterprise {tenant} does not "
                           "exist or is outside your enterprise tree)", data={"field": TENANT_FIELD})
    try:
        with conn.transaction() if savepoint else nullcontext():
            check_refs(conn, entity, who, values)
            values = entity.hooks.before_write(conn, who, "create", {**values, TENANT_FIELD: tenant}, None)
            tenant = values.pop(TENANT_FIELD, tenant)
            row = {**_columns(entity, values), entity.tenant_column: tenant}
            record_id = records.insert(conn, _table(entity), row)
            entity.hooks.after_write(conn, who, "create", record_id, {**values, TENANT_FIELD: tenant})
            _audit(conn, who, entity, tenant, record_id, "create",
                   {n: {"before": None, "after": _shown(entity, n, v)}
                    for n, v in {**values, TENANT_FIELD: tenant}.items()})
    except errors.UniqueViolation as exc:
        raise _clash(entity, exc) from None
    return record_id


def update(conn: Connection[Any], entity: EntitySpec, who: Principal, scope: Scope, record_id: int,
           body: Any) -> dict[str, Any]:
    """The updated record; 404 when absent, deleted or outside ``scope``."""
    values = parse_body(entity, body, creating=False)
    fields = list(dict.fromkeys([entity.tenant_column, *_stored_columns(entity)]))
    try:
        with conn.transaction():
            before = records.lock_row(conn, _table(entity), scope, record_id, fields)
            if before is None:
                raise _not_found(entity, record_id)
            check_refs(conn, entity, who, values)
            values = entity.hooks.before_write(conn, who, "update", values, before)
            changed = {n: v for n, v in values.items()
                       if entity.fields[n].virtual or before[entity.fields[n].column] != v}
            if changed:
                columns = _columns(entity, changed)
                if columns:
                    records.update(conn, _table(entity), record_id, columns)
                entity.hooks.after_write(conn, who, "update", record_id, changed)
                _audit(conn, who, entity, before[entity.tenant_column], record_id, "update",
                       {n: {"before": None if entity.fields[n].virtual
                            else _shown(entity, n, before[entity.fields[n].column]),
                            "after": _shown(entity, n, v)} for n, v in changed.items()})
    except errors.UniqueViolation as exc:
        raise _clash(entity, exc) from None
    return read(conn, entity, scope, record_id)


def delete(conn: Connection[Any], entity: EntitySpec, who: Principal, scope: Scope, record_id: int) -> dict[str, Any]:
    """Soft delete (record state 0), or for an entity without a record state the row removed (its
    audit lines stay): ``{id}``; 404 when absent, already deleted or outside ``scope``."""
    with conn.transaction():
        before = records.lock_row(conn, _table(entity), scope, record_id, [entity.tenant_column])
        if before is None:
            raise _not_found(entity, record_id)
        entity.hooks.before_delete(conn, who, record_id, before)
        if entity.record_state_column:
            records.soft_delete(conn, _table(entity), record_id)
            change = {"recordState": {"before": 1, "after": 0}}
        else:
            records.hard_delete(conn, _table(entity), record_id)
            change = {"deleted": {"before": False, "after": True}}
        _audit(conn, who, entity, before[entity.tenant_column], record_id, "delete", change)
    return {"id": record_id}


def read(conn: Connection[Any], entity: EntitySpec, scope: Scope, record_id: int) -> dict[str, Any]:
    row = fetch_by_id(conn, entity, record_id, scope)
    if row is None and entity.self_readable and record_id == scope.enterprise_id:
        row = fetch_by_id(conn, entity, record_id, replace(scope, unrestricted=True))
    if row is None:
        raise _not_found(entity, record_id)
    return entity.hooks.after_read(conn, row)


_DEFAULT_TYPES: dict[str, tuple[type, ...]] = {"bool": (bool,), "int": (int,), "float": (int, float), "str": (str,),
                                               "json": (list, dict)}


def meta(entity: EntitySpec, column_defaults: Mapping[tuple[str, str], Any] | None = None) -> dict[str, Any]:
    """The declaration as the console reads it (``GET /api/common/meta/{entity}.json``): enough to
    build columns, filters and a create/edit form with the server's own rules. A field a create may set gets the
    ``default`` its column stores when the create leaves it out (``column_defaults``, the schema's constants): a new
    record's form starts with it, so a switch shows what saving stores."""
    defaults = column_defaults or {}

    def default(f: FieldSpec) -> Any:
        value = defaults.get((entity.table, f.column)) if entity.table and f.create and not f.virtual else None
        # only a value of the field's own type: a column the declaration presents otherwise (a fence's attribute
        # bits, read and written as a list) has no default a form could start with
        return value if isinstance(value, _DEFAULT_TYPES.get(f.type, ())) and not (
            f.type in ("int", "float") and isinstance(value, bool)) else None

    return {
        "name": entity.name,
        "label": entity.label,
        "idField": entity.id_field,
        "permission": entity.permission,
        "writable": bool(entity.table),
        "fields": [
            {
                "name": name, "type": "json" if f.virtual else f.type, "label": f.label,
                "required": f.required, "maxLength": f.max_length, "pattern": f.pattern,
                "enum": list(f.enum) if f.enum is not None else None, "multiple": f.many,
                "minimum": f.minimum, "maximum": f.maximum, "unique": f.unique, "ref": f.ref or None,
                "secret": f.secret, "create": f.create, "update": f.update, "listable": f.listable,
                "filterable": f.filterable, "sortable": f.sortable, "importable": f.importable,
                "exportable": f.exportable, "display": f.display or None, "default": default(f),
            }
            for name, f in entity.fields.items()
        ],
    }
