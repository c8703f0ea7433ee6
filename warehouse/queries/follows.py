"""Followed cars (platform-spec §7 carUserView): a user's own list of vehicles, kept in ``car_user``.

A user follows only a car of their scope (the car's enterprise, like every car read); following twice is
one row, unfollowing a car not followed is nothing."""

from __future__ import annotations

from typing import Any

from psycopg import Connection, sql

from warehouse.queries.scope import Scope


def follow(conn: Connection[Any], scope: Scope, user_id: int, car_id: int) -> bool:
    """Adds the car to the user's list; False when no such car is in scope (nothing written)."""
    where, params = scope.clause(sql.Identifier("c", "enterprise_id"))
    query = (
        sql.SQL("INSERT INTO car_user (user_id, car_id) SELECT %s, c.id FROM car c "
                "WHERE c.id = %s AND c.record_state = 1 AND ")
        + where
        + sql.SQL(" ON CONFLICT (user_id, car_id) DO NOTHING RETURNING car_id")
    )
    with conn.cursor() as cur:
        cur.execute(query, [user_id, car_id, *params])
        if cur.fetchone() is not None:
            return True
    return in_scope_followed(conn, scope, user_id, car_id)


def in_scope_followed(conn: Connection[Any], scope: Scope, user_id: int, car_id: int) -> bool:
    """Whether the user follows this car and it is in scope."""
    where, params = scope.clause(sql.Identifier("c", "enterprise_id"))
    query = (
        sql.SQL("SELECT 1 FROM car_user f JOIN car c ON c.id = f.car_id "
                "WHERE f.user_id = %s AND f.car_id = %s AND c.record_state = 1 AND ")
        + where
    )
    with conn.cursor() as cur:
        cur.execute(query, [user_id, car_id, *params])
        return cur.fetchone() is not None


def car_in_scope(conn: Connection[Any], scope: Scope, car_id: int) -> bool:
    where, params = scope.clause(sql.Identifier("c", "enterprise_id"))
    query = sql.SQL("SELECT 1 FROM car c WHERE c.id = %s AND c.record_state = 1 AND ") + where
    with conn.cursor() as cur:
        cur.execute(query, [car_id, *params])
        return cur.fetchone() is not None


def unfollow(conn: Connection[Any], user_id: int, car_id: int) -> None:
    with conn.cursor() as cur:
        cur.execute("DELETE FROM car_user WHERE user_id = %s AND car_id = %s", [user_id, car_id])
