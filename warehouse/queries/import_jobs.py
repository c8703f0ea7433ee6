"""Spreadsheet import jobs (table ``import_job``, migration 0006): created by the API worker that
received the file, advanced by the greenlet or thread applying its rows, read by any worker.

A running job whose owner stopped refreshing ``heartbeat_at`` (its process died) is marked failed
when read (``stale_after_s``), so nobody waits for it forever.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from psycopg import Connection, sql
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from warehouse.queries.scope import Scope

DIED = "导入进程已中止 (the process running this import stopped)"


def _jsonb(value: Any) -> Jsonb:
    return Jsonb(value, dumps=lambda o: json.dumps(o, ensure_ascii=False, default=str))


def create(conn: Connection[Any], *, enterprise_id: int, user_id: int, entity: str, total: int, owner: str) -> str:
    job_id = str(uuid.uuid4())
    conn.execute(
        "INSERT INTO import_job (id, enterprise_id, user_id, entity, total, owner) VALUES (%s, %s, %s, %s, %s, %s)",
        (job_id, enterprise_id, user_id, entity, total, owner),
    )
    return job_id


def progress(conn: Connection[Any], job_id: str, *, processed: int, created: int, failed: int,
             new_errors: list[dict[str, Any]]) -> None:
    """Counts so far (absolute) and the refused rows found since the last call (appended)."""
    conn.execute(
        "UPDATE import_job SET processed = %s, created = %s, failed = %s, errors = errors || %s,"
        " heartbeat_at = now() WHERE id = %s",
        (processed, created, failed, _jsonb(new_errors), job_id),
    )


def finish(conn: Connection[Any], job_id: str, state: str, message: str | None = None) -> None:
    conn.execute(
        "UPDATE import_job SET state = %s, message = %s, finished_at = now(), heartbeat_at = now()"
        " WHERE id = %s AND state = 'running'",
        (state, message, job_id),
    )


def read(conn: Connection[Any], scope: Scope, entity: str, job_id: str, *, stale_after_s: float,
         owner_alive: Any = None) -> dict[str, Any] | None:
    """The job of ``entity`` inside ``scope``; None when absent or outside it. A running job with a
    stale heartbeat, or whose owner ``owner_alive(owner)`` says is gone, is marked failed first."""
    tenant, params = scope.clause(sql.Identifier("enterprise_id"))
    statement = sql.SQL(
        "SELECT id, state, message, total, processed, created, failed, errors, owner,"
        " heartbeat_at < now() - make_interval(secs => %s) AS stale"
        " FROM import_job WHERE id = %s AND entity = %s AND {}"
    ).format(tenant)
    with conn.cursor(row_factory=dict_row) as cur:
        row = cur.execute(statement, [stale_after_s, job_id, entity, *params]).fetchone()
    if row is None:
        return None
    if row["state"] == "running" and (row["stale"] or (owner_alive is not None and not owner_alive(row["owner"]))):
        finish(conn, job_id, "failed", DIED)
        row["state"], row["message"] = "failed", DIED
    return {
        "jobId": str(row["id"]), "state": row["state"], "message": row["message"], "total": row["total"],
        "processed": row["processed"], "created": row["created"], "failed": row["failed"],
        "errors": row["errors"],
    }
