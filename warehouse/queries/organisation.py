"""Enterprises, users, roles and the permission catalogue: what the declared entities of
``api/query/org_entities.py`` need beyond a row (paths, role links, role permissions).

The caller owns the transaction (the entity hooks run inside the write's)."""

from __future__ import annotations

from typing import Any

from psycopg import AsyncConnection, Connection
from psycopg.rows import dict_row


def set_enterprise_path(conn: Connection[Any], enterprise_id: int) -> str:
    """Gives a new enterprise its materialised path (parent's path + id + '/'); returns it."""
    row = conn.execute(
        "UPDATE enterprise e SET path = COALESCE((SELECT p.path FROM enterprise p WHERE p.id = e.parent_id), '/')"
        " || e.id || '/' WHERE e.id = %s RETURNING e.path",
        (enterprise_id,),
    ).fetchone()
    assert row is not None
    return str(row[0])


def enterprise_in_use(conn: Connection[Any], enterprise_id: int) -> tuple[int, int]:
    """(live subsidiaries, live users) of the enterprise."""
    row = conn.execute(
        "SELECT (SELECT count(*) FROM enterprise WHERE parent_id = %s AND record_state = 1),"
        " (SELECT count(*) FROM app_user WHERE enterprise_id = %s AND record_state = 1)",
        (enterprise_id, enterprise_id),
    ).fetchone()
    assert row is not None
    return int(row[0]), int(row[1])


# --- permissions and roles ------------------------------------------------------------------------


def permission_catalogue(conn: Connection[Any]) -> list[dict[str, Any]]:
    """[{code, name, actions}] of every known permission, by code."""
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute("SELECT code, name, actions FROM permission ORDER BY code")
        return [{"code": r["code"], "name": r["name"], "actions": list(r["actions"] or [])} for r in cur.fetchall()]


def role_permissions(conn: Connection[Any], role_id: int) -> list[dict[str, Any]]:
    """[{code, actions}] granted by the role, by code."""
    rows = conn.execute(
        "SELECT permission_code, actions FROM role_permission WHERE role_id = %s ORDER BY permission_code",
        (role_id,),
    ).fetchall()
    return [{"code": code, "actions": sorted(actions or [])} for code, actions in rows]


def set_role_permissions(conn: Connection[Any], role_id: int, granted: dict[str, list[str]]) -> None:
    """Replaces the role's grants with ``granted`` (code -> actions); codes left out are removed."""
    conn.execute(
        "DELETE FROM role_permission WHERE role_id = %s AND NOT (permission_code = ANY(%s))",
        (role_id, list(granted)),
    )
    with conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO role_permission (role_id, permission_code, actions) VALUES (%s, %s, %s)"
            " ON CONFLICT (role_id, permission_code) DO UPDATE SET actions = EXCLUDED.actions"
            " WHERE role_permission.actions IS DISTINCT FROM EXCLUDED.actions",
            [(role_id, code, actions) for code, actions in granted.items()],
        )


def assignable_roles(conn: Connection[Any], role_ids: list[int], user_enterprise_path: str,
                     caller_path: str) -> set[int]:
    """Those of ``role_ids`` that are live roles of the user's enterprise or one of its ancestors,
    inside the caller's subtree."""
    rows = conn.execute(
        "SELECT r.id FROM role r JOIN enterprise e ON e.id = r.enterprise_id"
        " WHERE r.id = ANY(%s) AND r.record_state = 1 AND starts_with(%s, e.path) AND starts_with(e.path, %s)",
        (role_ids, user_enterprise_path, caller_path),
    ).fetchall()
    return {int(r[0]) for r in rows}


def roles_permissions(conn: Connection[Any], role_ids: list[int]) -> dict[str, set[str]]:
    """Union of the grants of ``role_ids`` (code -> actions)."""
    granted: dict[str, set[str]] = {}
    for code, actions in conn.execute(
        "SELECT permission_code, actions FROM role_permission WHERE role_id = ANY(%s)", (role_ids,)
    ).fetchall():
        granted.setdefault(code, set()).update(actions or [])
    return granted


def user_roles(conn: Connection[Any], user_id: int) -> list[int]:
    """Ids of the user's live roles."""
    rows = conn.execute(
        "SELECT ur.role_id FROM user_role ur JOIN role r ON r.id = ur.role_id"
        " WHERE ur.user_id = %s AND r.record_state = 1 ORDER BY ur.role_id",
        (user_id,),
    ).fetchall()
    return [int(r[0]) for r in rows]


def set_user_roles(conn: Connection[Any], user_id: int, role_ids: list[int]) -> None:
    """Replaces the user's roles with ``role_ids`` (a removed role ends the user's sessions: 0004)."""
    conn.execute("DELETE FROM user_role WHERE user_id = %s AND NOT (role_id = ANY(%s))", (user_id, role_ids))
    with conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO user_role (user_id, role_id) VALUES (%s, %s) ON CONFLICT DO NOTHING",
            [(user_id, role_id) for role_id in role_ids],
        )


def enterprise_path_of(conn: Connection[Any], enterprise_id: int) -> str | None:
    row = conn.execute("SELECT path FROM enterprise WHERE id = %s", (enterprise_id,)).fetchone()
    return None if row is None else str(row[0])


async def enterprise_path_of_async(conn: AsyncConnection[Any], enterprise_id: int) -> str | None:
    """``enterprise_path_of`` for an asyncio service (the media server's push 14)."""
    row = await (await conn.execute("SELECT path FROM enterprise WHERE id = %s", (enterprise_id,))).fetchone()
    return None if row is None else str(row[0])
