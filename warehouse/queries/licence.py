"""Licences, licence applications and the installation's identity (migration 0007)."""

from __future__ import annotations

from datetime import date
from typing import Any

from psycopg import Connection
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from warehouse.queries.scope import like_prefix


def installation_id(conn: Connection[Any]) -> str:
    row = conn.execute("SELECT id::text FROM installation").fetchone()
    assert row is not None, "migration 0007 inserts the installation row"
    return str(row[0])


def current(conn: Connection[Any]) -> dict[str, Any] | None:
    """The newest installed licence (the one in force), or None."""
    with conn.cursor(row_factory=dict_row) as cur:
        return cur.execute(
            "SELECT id, licence_id, licensee, enterprise_name, max_vehicles, valid_from, valid_to, features,"
            " installed_by, created_at FROM licence ORDER BY created_at DESC, id DESC LIMIT 1"
        ).fetchone()


def insert_licence(conn: Connection[Any], *, enterprise_id: int, licence_id: str, licensee: str,
                   enterprise_name: str, max_vehicles: int, valid_from: date, valid_to: date,
                   features: list[str], document: str, installed_by: str) -> int:
    row = conn.execute(
        "INSERT INTO licence (enterprise_id, licence_id, licensee, enterprise_name, max_vehicles, valid_from,"
        " valid_to, features, document, installed_by) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING id",
        (enterprise_id, licence_id, licensee, enterprise_name, max_vehicles, valid_from, valid_to,
         Jsonb(features), document, installed_by),
    ).fetchone()
    assert row is not None
    return int(row[0])


def live_vehicles(conn: Connection[Any]) -> int:
    """Vehicles of the whole installation that count against a licence (not deleted)."""
    row = conn.execute("SELECT count(*) FROM car WHERE record_state = 1").fetchone()
    assert row is not None
    return int(row[0])


def live_vehicles_under(conn: Connection[Any], enterprise_path: str) -> int:
    """Vehicles (not deleted) of the enterprise with materialised path ``enterprise_path`` and its subsidiaries."""
    row = conn.execute(
        "SELECT count(*) FROM car c JOIN enterprise e ON e.id = c.enterprise_id"
        " WHERE c.record_state = 1 AND e.path LIKE %s",
        (like_prefix(enterprise_path),),
    ).fetchone()
    assert row is not None
    return int(row[0])


def applications_since(conn: Connection[Any], address: str, seconds: int) -> int:
    row = conn.execute(
        "SELECT count(*) FROM licence_application WHERE address = %s AND created_at > now() - make_interval(secs => %s)",
        (address, seconds),
    ).fetchone()
    assert row is not None
    return int(row[0])


def insert_application(conn: Connection[Any], *, company: str, contact: str, phone: str, email: str,
                       vehicles: int, machine_code: str, address: str) -> int:
    row = conn.execute(
        "INSERT INTO licence_application (company, contact, phone, email, vehicles, machine_code, address)"
        " VALUES (%s, %s, %s, %s, %s, %s, %s) RETURNING id",
        (company, contact, phone, email, vehicles, machine_code, address),
    ).fetchone()
    assert row is not None
    return int(row[0])


def lock_address(conn: Connection[Any], address: str) -> None:
    """Serialises applications from one address until the transaction ends (the rate limit's count
    and insert are then atomic)."""
    conn.execute("SELECT pg_advisory_xact_lock(72087, hashtext(%s))", (address,))
