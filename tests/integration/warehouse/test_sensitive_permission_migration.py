"""Migration 0034 on an installation that existed before it: the sensitiveCommand permission is in the
catalogue, and only the root enterprises' roles that could already send commands and edit roles hold it."""

from __future__ import annotations

import uuid
from pathlib import Path

from warehouse.db import connect
from warehouse.seed import seed_demo

MIGRATION = Path(__file__).parents[3] / "warehouse" / "migrations" / "0034_sensitive_command_permission.sql"


def _role(conn: object, enterprise_id: int, grants: dict[str, list[str]]) -> int:
    role_id: int = conn.execute("INSERT INTO role (enterprise_id, name) VALUES (%s, %s) RETURNING id",  # type: ignore[attr-defined]
                                (enterprise_id, f"m34 {uuid.uuid4().hex[:8]}")).fetchone()[0]
    for code, actions in grants.items():
        conn.execute("INSERT INTO role_permission (role_id, permission_code, actions) VALUES (%s, %s, %s)",  # type: ignore[attr-defined]
                     (role_id, code, actions))
    return role_id


def test_only_root_roles_that_send_commands_and_edit_roles_get_the_sensitive_command_permission(pg_url: str) -> None:
    seed_demo(pg_url, terminals=2)
    admin = {"command": ["cmd", "query", "get"], "role": ["update", "query"]}
    with connect(pg_url) as conn:
        sub, root = conn.execute("SELECT id, parent_id FROM enterprise WHERE parent_id IN"  # the demo's subsidiary
                                 " (SELECT id FROM enterprise WHERE parent_id IS NULL) LIMIT 1").fetchone()  # type: ignore[misc]
        platform_admin = _role(conn, root, admin)
        platform_operator = _role(conn, root, {"command": ["cmd"]})
        subsidiary_admin = _role(conn, sub, admin)
        conn.execute(MIGRATION.read_text())  # forward-only SQL: running it again changes nothing else
        held = {row[0] for row in conn.execute(
            "SELECT role_id FROM role_permission WHERE permission_code = 'sensitiveCommand' AND role_id = ANY(%s)",
            ([platform_admin, platform_operator, subsidiary_admin],))}
        catalogue = conn.execute("SELECT actions FROM permission WHERE code = 'sensitiveCommand'").fetchone()
        conn.rollback()
    assert held == {platform_admin}
    assert catalogue == (["cmd"],)
