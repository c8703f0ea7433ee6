"""Import and export of declared entities, driven by their declarations (fields flagged
``exportable`` / ``importable``, headers from ``label``). Files: ``api/query/spreadsheet.py``;
routes: ``api/routes/spreadsheets.py``; jobs: ``warehouse/queries/import_jobs.py``.

Export: the query route's conditions and ``orderBy`` / ``desc`` / ``isParent``, every matching row
up to a maximum (past it a 400), read through a server-side cursor.

Import: the header (field names or labels, case-insensitive) is checked before anything is
applied; the rows are then applied in the background, each through the create route's own code
(``records.create_id``: validation, refs, checks, hooks, unique clashes, audit), so a row is never
half-applied: the valid rows of a batch in one savepoint, and row by row, each in its own savepoint,
only when that batch hits a clash. Each batch is committed with the job's progress and refused rows
(``import_job``), which any API process can read.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import IO, Any

from psycopg import Connection, errors, sql
from psycopg.rows import tuple_row

from api.auth import Principal
from api.errors import ApiError, BadRequest
from api.query import display, records, spreadsheet
from api.query.grammar import EntitySpec, parse_query
from api.query.provided import provided_rows, selected
from api.query.sqlgen import compile_select
from warehouse.queries import import_jobs
from warehouse.queries.scope import Scope

log = logging.getLogger("fleet.api.import")

EXPORT_PARAMS = ("orderBy", "desc", "isParent")
OWNER = f"{socket.gethostname()}:{os.getpid()}"


def export_fields(entity: EntitySpec) -> list[str]:
    return [n for n, f in entity.fields.items() if f.exportable]


def import_fields(entity: EntitySpec) -> list[str]:
    return [n for n, f in entity.fields.items() if f.importable and f.create]


# --- export ----------------------------------------------------------------------------------------


def export_file(conn: Connection[Any], entity: EntitySpec, params: Mapping[str, str], body: Any, scope: Scope,
                fmt: str, max_rows: int) -> IO[bytes]:
    """The matching rows as an XLSX or CSV file (header row = labels); BadRequest past ``max_rows``."""
    query = parse_query(entity, {k: params[k] for k in EXPORT_PARAMS if k in params}, body)
    names = export_fields(entity)
    query = replace(query, select=tuple(names), page_no=1, page_size=max_rows + 1)
    statement, values = compile_select(query, scope) if entity.provider is None else (sql.SQL(""), [])
    head = [spreadsheet.header(n, entity.fields[n]) for n in names]
    # each value as the field's display shows it on screen (days as dates, seconds as h:mm:ss, codes as labels)
    shows = [(entity.fields[n].display, entity.fields[n].choices) for n in names]
    shaped = any(d or c for d, c in shows)

    def as_shown(row: Sequence[Any]) -> Sequence[Any]:
        return [display.shown(d, c, v) for (d, c), v in zip(shows, row, strict=True)] if shaped else row

    def rows() -> Iterator[Sequence[Any]]:
        if entity.provider is not None:  # a computed entity: its window bounds the rows
            found = provided_rows(conn, query, scope)
            if len(found) > max_rows:
                raise BadRequest(f"导出行数超过上限 (more than {max_rows} rows match; narrow the filters)")
            yield from (as_shown(list(selected(row, names).values())) for row in found)
            return
        with conn.cursor(name=f"export_{entity.name}", row_factory=tuple_row) as cur:
            cur.itersize = 2000
            cur.execute(statement, values)
            for count, row in enumerate(cur, start=1):
                if count > max_rows:
                    raise BadRequest(f"导出行数超过上限 (more than {max_rows} rows match; narrow the filters)")
                yield as_shown(row)

    if fmt == "csv":
        return spreadsheet.write_csv(head, rows())
    return spreadsheet.write_xlsx([(entity.label or entity.name, head, rows())])


# --- import: reading the file ------------------------------------------------------------------------


@dataclass(frozen=True)
class ImportRow:
    number: int  # row number in the sheet (the header is row 1)
    body: dict[str, Any]


def _column_map(entity: EntitySpec, head: Sequence[Any]) -> dict[int, str]:
    """Column index -> importable field, from the header cells (other fields of the entity are
    ignored, so an exported file imports back); BadRequest for unknown, repeated or missing columns."""
    names = import_fields(entity)
    known: dict[str, str] = {}  # header -> field; a field that is not importable (an exported
    # createTime) is a known column, ignored; where two fields share a label (a list's localised twin
    # of a stored field), the importable one owns the header
    for name, spec in sorted(entity.fields.items(), key=lambda item: item[0] in names):
        if not spec.secret:
            known[name.lower()] = name
            if spec.label:
                known[spec.label.strip().lower()] = name
    columns: dict[int, str] = {}
    unknown: list[str] = []
    for index, cell in enumerate(head):
        title = "" if cell is None else str(cell).strip()
        if not title:
            continue
        field = known.get(title.lower())
        if field is None:
            unknown.append(title)
        elif field in columns.values():
            raise BadRequest(f"表头重复 (column '{title}' appears twice: both are field {field})")
        elif field in names:
            columns[index] = field
    if unknown:
        allowed = ", ".join(spreadsheet.header(n, entity.fields[n]) for n in names)
        raise BadRequest(f"未知的列 (unknown column(s) for {entity.name}: {', '.join(unknown)[:200]};"
                         f" allowed: {allowed})", data={"columns": unknown[:50]})
    missing = [n for n in names if entity.fields[n].required and n not in columns.values()]
    if missing:
        shown = ", ".join(spreadsheet.header(n, entity.fields[n]) for n in missing)
        raise BadRequest(f"缺少必填列 (required column(s) missing: {shown})", data={"columns": missing})
    return columns


def read_import(entity: EntitySpec, data: bytes, max_rows: int) -> list[ImportRow]:
    """The data rows of an uploaded file as create bodies (empty rows skipped). Raises BadRequest for
    an unreadable file, a bad header, no header or more than ``max_rows`` rows."""
    if not data:
        raise BadRequest("文件为空 (the uploaded file is empty)")
    rows = spreadsheet.read_rows(data, max_rows)
    first = next(rows, None)
    if first is None:
        raise BadRequest("文件没有表头 (the file has no header row)")
    columns = _column_map(entity, first[1])
    result = []
    for number, cells in rows:
        body = {}
        for index, field in columns.items():
            value = spreadsheet.json_value(entity.fields[field], cells[index] if index < len(cells) else None)
            if value is not None:
                body[field] = value
        if body or any(c not in (None, "") for c in cells):
            result.append(ImportRow(number, body))
    return result


# --- import: the job ---------------------------------------------------------------------------------


def owner_alive(owner: str) -> bool:
    """Whether the process ``host:pid`` that runs a job is alive (unknowable for another host: True,
    its heartbeat decides)."""
    host, _, pid = owner.rpartition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _refusal(row: ImportRow, exc: Exception) -> dict[str, Any]:
    if isinstance(exc, ApiError):
        field = exc.data.get("field") if isinstance(exc.data, dict) else None
        return {"row": row.number, "field": field, "message": exc.message}
    diag = getattr(exc, "diag", None)
    detail = getattr(diag, "message_primary", None) or type(exc).__name__
    return {"row": row.number, "field": None, "message": f"数据库拒绝该行 (the database refused the row: {detail})"}


_ROW_ERRORS = (ApiError, errors.IntegrityError, errors.DataError)


def _apply_batch(conn: Connection[Any], entity: EntitySpec, who: Principal,
                 rows: Sequence[ImportRow]) -> tuple[int, list[dict[str, Any]]]:
    """(rows created, refused rows) of one batch, inside the caller's transaction. Rows whose body
    the declaration refuses are set aside first (no database work); the others are written in one
    savepoint, and only when one of them fails there (a unique clash, a reference, a hook) is that
    savepoint rolled back and the batch written again row by row, each in its own savepoint."""
    refused: list[dict[str, Any]] = []
    valid: list[ImportRow] = []
    for row in rows:
        try:
            records.parse_body(entity, row.body, creating=True)
            valid.append(row)
        except ApiError as exc:
            refused.append(_refusal(row, exc))
    created = 0
    try:
        with conn.transaction():
            for row in valid:
                records.create_id(conn, entity, who, row.body, savepoint=False)
        created = len(valid)
    except _ROW_ERRORS:
        for row in valid:
            try:
                records.create_id(conn, entity, who, row.body)
                created += 1
            except _ROW_ERRORS as exc:
                refused.append(_refusal(row, exc))
    return created, sorted(refused, key=lambda e: int(e["row"]))


def apply_rows(connect: Callable[[], Any], entity: EntitySpec, who: Principal, job_id: str,
               rows: Sequence[ImportRow], batch_rows: int, pause: Callable[[], None] = lambda: None) -> None:
    """Applies ``rows`` as job ``job_id`` through the create route's code (``_apply_batch``),
    ``batch_rows`` rows per transaction, which also records the job's progress. ``connect()`` is a
    context manager giving a connection (the API's pool). The job ends done, or failed with the reason."""
    processed = created = failed = 0
    try:
        for start in range(0, len(rows), batch_rows):
            batch = rows[start:start + batch_rows]
            with connect() as conn, conn.transaction():
                made, refused = _apply_batch(conn, entity, who, batch)
                created += made
                failed += len(refused)
                processed = start + len(batch)
                import_jobs.progress(conn, job_id, processed=processed, created=created, failed=failed,
                                     new_errors=refused)
            pause()  # let the other greenlets of the worker run between batches
        with connect() as conn:
            import_jobs.finish(conn, job_id, "done")
    except Exception as exc:  # the job must not stay "running": say why it stopped
        log.exception("import job %s of %s failed after %d rows", job_id, entity.name, processed)
        try:
            with connect() as conn:
                import_jobs.finish(conn, job_id, "failed", f"导入失败 (import stopped: {type(exc).__name__})")
        except Exception:
            log.exception("could not mark import job %s failed", job_id)


def _gevent_active() -> bool:
    try:
        from gevent import monkey
    except ImportError:
        return False
    return bool(monkey.is_module_patched("threading"))


def start_background(work: Callable[[], None]) -> None:
    """``work()`` as a greenlet under the API's gevent worker, else as a daemon thread."""
    if _gevent_active():
        import gevent

        gevent.spawn(work)
    else:
        threading.Thread(target=work, name="fleet-import", daemon=True).start()


def pause() -> None:
    time.sleep(0)  # gevent's sleep once the worker is patched: a yield to the hub
