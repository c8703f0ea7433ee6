"""Migration 0055 on an installation that existed before it: the tpmsLog permission is in the catalogue, and
every role that could read the GPS log may read the TPMS log with the same actions (its rows are part of the
fixes that role already sees); a role without the GPS log gets nothing, a role's own tpmsLog grant stays."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from warehouse.db import connect
from warehouse.seed import seed_demo

MIGRATION = Path(__file__).parents[3] / "warehouse" / "migrations" / "0055_tpms_log.sql"


def _role(conn: Any, enterprise_id: int, grants: dict[str, list[str]]) -> int:
    role_id: int = conn.execute("INSERT INTO role (enterprise_id, name) VALUES (%s, %s) RETURNING id",
                                (enterprise_id, f"m55 {uuid.uuid4().hex[:8]}")).fetchone()[0]
    for code, actions in grants.items():
        conn.execute("INSERT INTO role_permission (role_id, permission_code, actions) VALUES (%s, %s, %s)",
                     (role_id, code, actions))
    return role_id


def test_roles_that_read_the_gps_log_get_the_tpms_log_with_the_same_actions(pg_url: str) -> None:
    seed_demo(pg_url, terminals=2)
    with connect(pg_url) as conn:
        enterprise = conn.execute("SELECT id FROM enterprise WHERE parent_id IS NULL LIMIT 1").fetchone()[0]  # type: ignore[index]
        reader = _role(conn, enterprise, {"gpsLog": ["query"]})
        exporter = _role(conn, enterprise, {"gpsLog": ["export", "query"]})
        other = _role(conn, enterprise, {"parkLog": ["query"]})
        own = _role(conn, enterprise, {"gpsLog": ["export", "query"], "tpmsLog": ["query"]})
        conn.execute(MIGRATION.read_text())  # forward-only SQL: running it again changes nothing else
        held = dict(conn.execute(
            "SELECT role_id, actions FROM role_permission WHERE permission_code = 'tpmsLog' AND role_id = ANY(%s)",
            ([reader, exporter, other, own],)).fetchall())
        catalogue = conn.execute("SELECT name, actions FROM permission WHERE code = 'tpmsLog'").fetchone()
        conn.rollback()
    assert held == {reader: ["query"], exporter: ["export", "query"], own: ["query"]}
    assert catalogue == ("胎压日志", ["export", "query"])
