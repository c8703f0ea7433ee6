"""The OpenAPI components of the generic query, generated from the entity whitelists, and the
whole paths of the declared writable entities (query, count, create, get, update, delete).

``api/openapi.yaml`` refers to ``#/components/{schemas,parameters,requestBodies}/<entity>...``;
``api.routes.meta`` merges these in, so the document says exactly what ``grammar`` and ``values``
accept: the fields of each entity, the operators per field type, the value forms per type.
A schema-valid request is answered (2xx), an invalid one is a 400 (the contract fuzz test checks both).
"""

from __future__ import annotations

import re
from typing import Any

from api.query.entities import COUNTABLE, QUERYABLE, WRITABLE
from api.query.entities_reports import REPORT_ENTITIES
from api.query.grammar import MAX_LIST_VALUES, RANGE_TYPES, EntitySpec, FieldSpec
from api.query.values import FLOAT_TEXT, INT_TEXT, MAX_EPOCH_MS, MAX_TEXT_CHARS, MIN_EPOCH_MS

Schema = dict[str, Any]
INT64 = {"type": "integer", "minimum": -(2**63), "maximum": 2**63 - 1}
_BOUNDS = ("start", "end", "gte", "gt", "lte", "lt")


def _value(ftype: str) -> Schema:
    """One value of a field of ``ftype`` (what ``values.coerce`` accepts)."""
    if ftype == "int":
        return {"anyOf": [INT64, {"type": "string", "pattern": f"^{INT_TEXT.pattern}$"}]}
    if ftype == "float":
        return {"anyOf": [{"type": "number"}, {"type": "string", "pattern": f"^{FLOAT_TEXT.pattern}$"}]}
    if ftype == "time":
        return {"anyOf": [
            {"type": "string", "format": "date-time"},
            {"type": "number", "minimum": MIN_EPOCH_MS, "maximum": MAX_EPOCH_MS, "description": "epoch ms"},
        ]}
    if ftype == "bool":
        return {"anyOf": [{"type": "boolean"}, {"enum": ["true", "false"]}]}
    return {"anyOf": [{"type": "string", "maxLength": MAX_TEXT_CHARS}, INT64]}


# The value forms are components every entity's conditions refer to, so the document states each once: a
# document with every entity's forms inline was 2 MB, and Swagger UI (the API reference page) took 10 s to list it
# and 6.6 s to open an operation.
FIELD_TYPES = ("bool", "float", "int", "str", "time")


def _schema_ref(name: str) -> Schema:
    return {"$ref": f"#/components/schemas/{name}"}


def _value_ref(ftype: str) -> Schema:
    return _schema_ref(f"QueryValue{ftype.capitalize()}")


def _nullable_ref(ftype: str) -> Schema:
    return _schema_ref(f"QueryValueOrNull{ftype.capitalize()}")


def value_components() -> dict[str, Schema]:
    """The shared value forms: a value, a value or null, a list, per field type; ``exists``'s and ``like``'s."""
    out: dict[str, Schema] = {}
    for ftype in FIELD_TYPES:
        name = ftype.capitalize()
        out[f"QueryValue{name}"] = _value(ftype)
        out[f"QueryValueOrNull{name}"] = {"anyOf": [_value_ref(ftype), {"type": "null"}]}
        out[f"QueryList{name}"] = _list(ftype)
        # a range condition has at least one bound that is not null
        out[f"QueryRangeBound{name}"] = {"anyOf": [{"required": [key], "properties": {key: _value_ref(ftype)}}
                                                  for key in _BOUNDS]}
    out["QueryRangeType"] = {"enum": [*RANGE_TYPES, None], "description": "inclusiveness of start/end (default closed)"}
    out["QueryExists"] = {"enum": [True, False, "true", "false", None]}
    out["QueryLike"] = {"type": "string", "minLength": 1, "maxLength": MAX_TEXT_CHARS}
    return out


def _list(ftype: str) -> Schema:
    items = {"type": "array", "maxItems": MAX_LIST_VALUES, "items": _nullable_ref(ftype)}
    if ftype == "int":
        one = INT_TEXT.pattern
        return {"anyOf": [items, {"type": "string", "pattern": f"^{one}(,{one}){{0,{MAX_LIST_VALUES - 1}}}$"}]}
    if ftype == "str":  # comma text: each piece is a string
        return {"anyOf": [items, {"type": "string", "maxLength": MAX_TEXT_CHARS}]}
    return items


def _alternatives(names: list[str]) -> str:
    return "(" + "|".join(re.escape(n) for n in names) + ")"


def conditions_schema(entity: EntitySpec) -> Schema:
    """``{"field.op": value}`` keys of the entity; ``field`` alone means ``eq``."""
    by_type: dict[str, list[str]] = {}
    for name in entity.filterable:
        by_type.setdefault(entity.fields[name].type, []).append(name)
    patterns: dict[str, Schema] = {}
    for ftype, names in sorted(by_type.items()):
        fields = _alternatives(sorted(names))
        patterns[f"^{fields}(\\.(eq|ne))?$"] = _nullable_ref(ftype)
        patterns[f"^{fields}\\.(gt|gte|lt|lte)$"] = _value_ref(ftype)
        patterns[f"^{fields}\\.(in|nin)$"] = _schema_ref(f"QueryList{ftype.capitalize()}")
        patterns[f"^{fields}\\.exists$"] = _schema_ref("QueryExists")
        if ftype == "str":
            patterns[f"^{fields}\\.(like|rlike)$"] = _schema_ref("QueryLike")
    return {"type": "object", "patternProperties": patterns, "additionalProperties": False}


def _range_item(entity: EntitySpec, ftype: str, names: list[str]) -> Schema:
    return {
        "type": "object",
        "required": ["fieldName"],
        "additionalProperties": False,
        "properties": {
            "fieldName": {"enum": sorted(names)},
            "type": _schema_ref("QueryRangeType"),
            **{key: _nullable_ref(ftype) for key in _BOUNDS},
        },
        "allOf": [_schema_ref(f"QueryRangeBound{ftype.capitalize()}")],
    }


def query_body_schema(entity: EntitySpec) -> Schema:
    by_type: dict[str, list[str]] = {}
    for name in entity.filterable:
        by_type.setdefault(entity.fields[name].type, []).append(name)
    conditions = conditions_schema(entity)
    return {
        "type": "object",
        "description": f"Conditions on {entity.name} fields (see QueryBody), flat or under `conditions`.",
        "properties": {
            "conditions": {"anyOf": [_schema_ref(f"{entity.name}QueryConditions"), {"type": "null"}]},
            "rangeConditions": {"anyOf": [
                {"type": "array", "items": {"anyOf": [_range_item(entity, t, n) for t, n in sorted(by_type.items())]}},
                {"type": "null"},
            ]},
        },
        "patternProperties": conditions["patternProperties"],
        "additionalProperties": False,
    }


def _name_list(names: list[str]) -> str:
    one = _alternatives(names)
    return f"^({one}(,{one})*)?$"


def components() -> dict[str, dict[str, Any]]:
    """``{schemas, parameters, requestBodies}`` to merge into the document's components."""
    schemas: dict[str, Any] = value_components()
    parameters: dict[str, Any] = {}
    bodies: dict[str, Any] = {}
    for name, entity in {**QUERYABLE, **COUNTABLE}.items():
        schemas[f"{name}QueryBody"] = query_body_schema(entity)
        schemas[f"{name}QueryConditions"] = conditions_schema(entity)
        bodies[f"{name}Query"] = {
            "required": False,
            "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{name}QueryBody"}}},
        }
        fields = list(entity.fields)
        parameters[f"{name}Select"] = {
            "name": "select", "in": "query", "description": "comma list of fields (default all)",
            "schema": {"type": "string", "pattern": _name_list(list(entity.listable))},
        }
        parameters[f"{name}OrderBy"] = {
            "name": "orderBy", "in": "query", "description": "comma list of sortable fields",
            "schema": {"type": "string", "pattern": _name_list([f for f in fields if entity.fields[f].sortable])},
        }
        parameters[f"{name}PageSize"] = {
            "name": "pageSize", "in": "query", "description": f"rows per page, at most {entity.max_page_size}",
            "schema": {"type": "integer", "minimum": 1, "maximum": entity.max_page_size,
                       "default": entity.default_page_size},
        }
    for name, entity in WRITABLE.items():
        schemas[f"{name}Create"] = write_body_schema(entity, creating=True)
        schemas[f"{name}Update"] = write_body_schema(entity, creating=False)
    responses = {"Conflict": {
        "description": "Code 409: a unique field clashes with a live record of the enterprise (data.field names it)",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Envelope"}}},
    }}
    return {"schemas": schemas, "parameters": parameters, "requestBodies": bodies, "responses": responses}


# --- writable entities ------------------------------------------------------------------------------


def semantic_paths() -> set[str]:
    """Write paths whose bodies have rules no schema states (a ``check`` such as the national ID's
    check digit, a virtual field shaped by its check): a schema-valid body may still be a 400 there."""
    found = set()
    for name, entity in WRITABLE.items():
        for creating, path in ((True, f"/api/common/{name}.json"), (False, f"/api/common/{name}/{{id}}.json")):
            if entity.hooks.cross_field_rules or any(
                    (f.create if creating else f.update) and (f.check is not None or f.virtual)
                    for f in entity.fields.values()):
                found.add(path)
    for name, entity in QUERYABLE.items():  # a history entity needs a vehicle and a bounded range
        if entity.window is not None:
            found |= {f"/api/common/query/{name}.json", f"/api/common/count/{name}.json"}
    return found


def _write_value(spec: FieldSpec) -> Schema:
    """One value of a written field, exactly as ``api.query.records.check_value`` accepts it."""
    schema: Schema
    if spec.virtual:
        return {"description": "shaped by the entity's own rule (see its documentation)"}
    if spec.type == "json":
        shape: Schema = {"type": "array" if isinstance(spec.example, list) else "object",
                         "description": "shaped by the entity's own rule (see its documentation)"}
        if spec.example is not None:
            shape["example"] = spec.example
        return shape if spec.required else {"anyOf": [shape, {"type": "null"}]}
    if spec.type == "int":
        schema = dict(INT64)
    elif spec.type == "float":
        schema = {"type": "number"}
    elif spec.type == "bool":
        schema = {"type": "boolean"}
    elif spec.type == "time":
        schema = _value("time")
    else:
        schema = {"type": "string", "maxLength": min(spec.max_length or MAX_TEXT_CHARS, MAX_TEXT_CHARS)}
        if spec.required:
            schema["minLength"] = 1
        if spec.pattern is not None:
            schema["pattern"] = f"^(?:{spec.pattern})$"
    if spec.minimum is not None:
        schema["minimum"] = spec.minimum
    if spec.maximum is not None:
        schema["maximum"] = spec.maximum
    if spec.enum is not None and spec.many:
        choice = "|".join(re.escape(str(v)) for v in spec.enum)
        schema["pattern"] = f"^(?:(?:{choice})(?:,(?:{choice}))*)?$"
    elif spec.enum is not None:
        schema["enum"] = list(spec.enum)
    return schema if spec.required else {"anyOf": [schema, {"type": "null"}]}


def write_body_schema(entity: EntitySpec, *, creating: bool) -> Schema:
    names = [n for n, f in entity.fields.items() if (f.create if creating else f.update)]
    schema: Schema = {
        "type": "object",
        "properties": {n: _write_value(entity.fields[n]) for n in names},
        "additionalProperties": False,
    }
    if creating:
        schema["required"] = [n for n in names if entity.fields[n].required]
    return schema


def _responses(*statuses: str) -> dict[str, Any]:
    named = {"400": "BadRequest", "401": "Unauthenticated", "403": "Forbidden", "404": "NotFound",
             "409": "Conflict", "413": "TooLarge", "503": "Unavailable"}
    record = {"description": "the record (its declared fields)",
              "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Envelope"}}}}
    return {"200": record, **{s: {"$ref": f"#/components/responses/{named[s]}"} for s in statuses}}


def _ref(kind: str, name: str) -> dict[str, str]:
    return {"$ref": f"#/components/{kind}/{name}"}


REPORT_NAMES = frozenset(e.name for e in REPORT_ENTITIES)


def tag_of(name: str) -> str:
    """The OpenAPI tag of an entity's generated paths: ``reports`` for the report entities."""
    return "reports" if name in REPORT_NAMES else "entities"


def _list_paths(name: str, code: str, summary: str) -> dict[str, Any]:
    page = {"description": "A page of rows (the entity's camelCase fields)",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/PageEnvelope"}}}}
    tag = tag_of(name)
    return {
        f"/api/common/query/{name}.json": {"post": {
            "tags": [tag], "summary": f"{summary} ({code}:query)",
            "parameters": [_ref("parameters", f"{name}Select"), _ref("parameters", f"{name}OrderBy"),
                           _ref("parameters", "desc"), _ref("parameters", "pageNo"),
                           _ref("parameters", f"{name}PageSize"), _ref("parameters", "countable"),
                           _ref("parameters", "isParent")],
            "requestBody": _ref("requestBodies", f"{name}Query"),
            "responses": {**_responses("400", "401", "403", "413", "503"), "200": page},
        }},
        f"/api/common/count/{name}.json": {"post": {
            "tags": [tag], "summary": f"Count of {name} rows ({code}:query)",
            "parameters": [_ref("parameters", "isParent")],
            "requestBody": _ref("requestBodies", f"{name}Query"),
            "responses": {**_responses("400", "401", "403", "413", "503"), "200": _ref("responses", "Count")},
        }},
    }


def paths() -> dict[str, Any]:
    """The declaration of every queryable entity (meta), the list paths of the report entities (query, count),
    and the paths of every writable entity: query, count, create, get, update (PATCH), delete (soft)."""
    found: dict[str, Any] = {}
    for entity in REPORT_ENTITIES:
        found.update(_list_paths(entity.name, entity.permission, f"{entity.label} rows: {entity.name}"))
    for name in QUERYABLE:
        found[f"/api/common/meta/{name}.json"] = {"get": {
            "tags": [tag_of(name)],
            "summary": f"The declaration of {name}: fields, types, rules, flags (the console builds its list page from it)",
            "responses": _responses("400", "401", "403", "503"),
        }}
    for name, entity in WRITABLE.items():
        code = entity.permission
        page = {"description": "A page of rows (the entity's camelCase fields)",
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/PageEnvelope"}}}}
        found[f"/api/common/query/{name}.json"] = {"post": {
            "tags": ["entities"], "summary": f"{name} rows ({code}:query)",
            "parameters": [_ref("parameters", f"{name}Select"), _ref("parameters", f"{name}OrderBy"),
                           _ref("parameters", "desc"), _ref("parameters", "pageNo"),
                           _ref("parameters", f"{name}PageSize"), _ref("parameters", "countable"),
                           _ref("parameters", "isParent")],
            "requestBody": _ref("requestBodies", f"{name}Query"),
            "responses": {**_responses("400", "401", "403", "413", "503"), "200": page},
        }}
        found[f"/api/common/count/{name}.json"] = {"post": {
            "tags": ["entities"], "summary": f"Count of {name} rows ({code}:query)",
            "parameters": [_ref("parameters", "isParent")],
            "requestBody": _ref("requestBodies", f"{name}Query"),
            "responses": {**_responses("400", "401", "403", "413", "503"), "200": _ref("responses", "Count")},
        }}
        found[f"/api/common/{name}.json"] = {"post": {
            "tags": ["entities"],
            "summary": f"Create a {name} ({code}:add); enterpriseId defaults to the caller's (another: its subtree)",
            "requestBody": {"required": True, "content": {"application/json": {
                "schema": _ref("schemas", f"{name}Create")}}},
            "responses": _responses("400", "401", "403", "404", "409", "413", "503"),
        }}
        item = [_ref("parameters", "id"), _ref("parameters", "isParent")]
        found[f"/api/common/{name}/{{id}}.json"] = {
            "get": {"tags": ["entities"], "summary": f"One {name} ({code}:get)", "parameters": item,
                    "responses": _responses("400", "401", "403", "404", "503")},
            "patch": {"tags": ["entities"], "summary": f"Update the given fields of a {name} ({code}:update)",
                      "parameters": item,
                      "requestBody": {"required": False, "content": {"application/json": {
                          "schema": _ref("schemas", f"{name}Update")}}},
                      "responses": _responses("400", "401", "403", "404", "409", "413", "503")},
            "delete": {"tags": ["entities"], "summary": f"Soft-delete a {name}: record state 0 ({code}:delete)",
                       "parameters": item,
                       # 409: an entity's hook refuses to delete a record still in use (EntityHooks.before_delete)
                       "responses": _responses("400", "401", "403", "404", "409", "503")},
        }
    return found
