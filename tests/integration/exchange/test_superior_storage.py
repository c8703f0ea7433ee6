"""Exchange vehicles and positions in the real PostgreSQL (migration 0048, warehouse.queries.exchange_inferior):
a position stored twice is one row, a late back-fill does not move the vehicle's last position back, the same
plate in another colour or from another platform is another vehicle."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg

from warehouse.queries import exchange_inferior as q

T0 = datetime(2026, 12, 2, 6, 0, tzinfo=UTC)


def _row(vehicle: int, at: datetime, lat: float, backfilled: bool = False) -> dict[str, Any]:
    return {"vehicle_id": vehicle, "fix_at": at, "received_at": T0 + timedelta(hours=1), "backfilled": backfilled,
            "lat": lat, "lng": 116.4, "speed_kmh": 30.0, "direction_deg": 10, "altitude_m": 5, "mileage_km": None,
            "status": 3, "alarm": 0}


def _platform(conn: psycopg.Connection[Any], enterprise: int, user: int) -> int:
    return conn.execute("INSERT INTO inferior_platform (enterprise_id, name, user_id, password, centre_id) VALUES "
                        "(%s, %s, %s, 'pw', 1) RETURNING id", (enterprise, f"p{user}", user)).fetchone()[0]  # type: ignore[index]


def test_positions_are_idempotent_and_a_late_backfill_keeps_the_last_position(pg_url: str) -> None:
    enterprise = _enterprise(pg_url)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        platform = _platform(conn, enterprise, 90_100_001)
        vehicle = q.vehicle_id(conn, platform, enterprise, "京A12345", 1)
        assert q.vehicle_id(conn, platform, enterprise, "京A12345", 1) == vehicle
        assert q.vehicle_id(conn, platform, enterprise, "京A12345", 2) != vehicle  # another colour
        other = _platform(conn, enterprise, 90_100_002)
        assert q.vehicle_id(conn, other, enterprise, "京A12345", 1) != vehicle  # another platform
        real_time = [_row(vehicle, T0 + timedelta(seconds=s), 39.0 + s / 1000) for s in (10, 20)]
        q.store_positions(conn, real_time)
        q.store_positions(conn, real_time)  # the same frames again
        q.store_positions(conn, [_row(vehicle, T0 + timedelta(seconds=20), 45.0, True),  # a repeat, other values
                                 _row(vehicle, T0, 38.0, True)])  # a late back-fill of an older fix
        rows = conn.execute("SELECT fix_at, lat, backfilled FROM exchange_position WHERE vehicle_id = %s "
                            "ORDER BY fix_at", (vehicle,)).fetchall()
        assert rows == [(T0, 38.0, True), (T0 + timedelta(seconds=10), 39.01, False),
                        (T0 + timedelta(seconds=20), 39.02, False)]
        last = conn.execute("SELECT last_fix_at, last_lat FROM exchange_vehicle WHERE id = %s", (vehicle,)).fetchone()
        assert last == (T0 + timedelta(seconds=20), 39.02)


def _enterprise(pg_url: str) -> int:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        ent = conn.execute("INSERT INTO enterprise (name, short_name) VALUES ('superior storage', 'ss') "
                           "RETURNING id").fetchone()[0]  # type: ignore[index]
        conn.execute("UPDATE enterprise SET path = %s WHERE id = %s", (f"/{ent}/", ent))
        return int(ent)
