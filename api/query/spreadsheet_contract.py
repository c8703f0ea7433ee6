"""What the spreadsheet routes (``api/routes/spreadsheets.py``) serve, derived from the entity declarations:
which entities export and import, and the OpenAPI paths of those routes (merged into api/openapi.yaml by
``api/routes/meta.py``). A module apart, so the document and the routes read one list and no route module
imports another."""

from __future__ import annotations

from typing import Any

from api.query import contract as query_contract
from api.query import spreadsheet, transfer
from api.query.entities import PERMISSION_OF, QUERYABLE, WRITABLE
from api.query.grammar import EntitySpec

EXPORTABLE: dict[str, EntitySpec] = {n: e for n, e in QUERYABLE.items() if transfer.export_fields(e)}
IMPORTABLE: dict[str, EntitySpec] = {n: e for n, e in WRITABLE.items() if transfer.import_fields(e)}
MIME = {"xlsx": spreadsheet.XLSX_TYPE, "csv": spreadsheet.CSV_TYPE}

_ENVELOPE = {"application/json": {"schema": {"$ref": "#/components/schemas/Envelope"}}}
_BINARY = {"schema": {"type": "string", "format": "binary"}}


def _errors(*statuses: str) -> dict[str, Any]:
    named = {"400": "BadRequest", "401": "Unauthenticated", "403": "Forbidden", "404": "NotFound",
             "413": "TooLarge", "503": "Unavailable"}
    return {s: {"$ref": f"#/components/responses/{named[s]}"} for s in statuses}


def semantic_paths() -> set[str]:
    """Import paths: whether an uploaded file's rows fit is more than a schema can say (a 400 for a
    schema-valid request is right there)."""
    windowed = {f"/api/common/export/{name}.{fmt}" for name, entity in EXPORTABLE.items()
                if entity.window is not None for fmt in ("xlsx", "csv")}  # need a vehicle and a bounded range
    return {f"/api/common/import/{name}.json" for name in IMPORTABLE} | windowed


def openapi_paths() -> dict[str, Any]:
    found: dict[str, Any] = {}
    for name in EXPORTABLE:
        code = PERMISSION_OF[name]
        for fmt in ("xlsx", "csv"):
            found[f"/api/common/export/{name}.{fmt}"] = {"post": {
                "tags": ["reports" if name in query_contract.REPORT_NAMES else "spreadsheets"],
                "summary": f"Every {name} row matching the conditions as {fmt.upper()} ({code}:export); header row:"
                           " the field labels; CSV is UTF-8 with a BOM; more rows than FLEET_API_EXPORT_MAX_ROWS: 400",
                "parameters": [{"$ref": f"#/components/parameters/{name}OrderBy"},
                               {"$ref": "#/components/parameters/desc"}, {"$ref": "#/components/parameters/isParent"}],
                "requestBody": {"$ref": f"#/components/requestBodies/{name}Query"},
                "responses": {"200": {"description": f"the {fmt.upper()} file", "content": {MIME[fmt].split(";")[0]: _BINARY}},
                              **_errors("400", "401", "403", "413", "503")},
            }}
    job_id = {"name": "id", "in": "path", "required": True, "description": "the jobId of the import's answer",
              "schema": {"type": "string", "format": "uuid"}}
    for name, entity in IMPORTABLE.items():
        code = entity.permission
        found[f"/api/common/import/{name}/template.xlsx"] = {"get": {
            "tags": ["spreadsheets"],
            "summary": f"The {name} import template: header of the importable fields, and a sheet describing each ({code}:import)",
            "responses": {"200": {"description": "the XLSX template", "content": {spreadsheet.XLSX_TYPE: _BINARY}},
                          **_errors("400", "401", "403", "503")},
        }}
        found[f"/api/common/import/{name}.json"] = {"post": {
            "tags": ["spreadsheets"],
            "summary": f"Import {name} rows from an XLSX or CSV file ({code}:import): data {{jobId, total}} at once, rows"
                       " applied in the background, each like a create; headers are field names or labels"
                       " (case-insensitive); unknown columns, an unreadable file or too many rows: 400, nothing applied",
            "requestBody": {"required": True, "content": {"multipart/form-data": {"schema": {
                "type": "object", "required": ["file"],
                "properties": {"file": {"type": "string", "format": "binary"}}}}}},
            "responses": {"200": {"description": "data {jobId, total}", "content": _ENVELOPE},
                          **_errors("400", "401", "403", "413", "503")},
        }}
        found[f"/api/common/import/{name}/{{id}}.json"] = {"get": {
            "tags": ["spreadsheets"],
            "summary": f"An import job of the caller's enterprise ({code}:import): data {{state: running|done|failed,"
                       " total, processed, created, failed, errors: [{row, field, message}], message}; another"
                       " enterprise's job: 404",
            "parameters": [job_id],
            "responses": {"200": {"description": "the job", "content": _ENVELOPE}, **_errors("400", "401", "403", "404", "503")},
        }}
    return found
