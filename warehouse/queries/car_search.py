"""Finding a vehicle by what an operator has at hand: plate, VIN, SIM (the terminal's phone number, or
a SIM card's ICCID / MSISDN), terminal id, driver name.

One parameterised query over the caller's scope (``Scope.clause`` on the car's enterprise); the keyword
is matched case-insensitively as a substring with LIKE metacharacters escaped. Each row says which
field matched and its value, the first in the order plate, VIN, SIM, terminal id, driver.
"""

from __future__ import annotations

from typing import Any

from psycopg import Connection, sql
from psycopg.rows import dict_row

from warehouse.queries.scope import Scope

# The fields in the order a row names its match (a plate that matches wins over a driver that does).
MATCH_FIELDS = ("plateNumber", "vin", "sim", "terminalId", "driverName")

_SEARCH = sql.SQL(
    """
SELECT c.id AS "carId", c.master_device_id AS "masterDeviceId", c.plate_number AS "plateNumber",
       c.enterprise_id AS "enterpriseId", m.field AS "matchedField", m.value AS "matchedValue"
FROM car c
LEFT JOIN device d ON d.id = c.master_device_id
LEFT JOIN driver dr ON dr.id = c.driver_id
LEFT JOIN LATERAL (
    SELECT s.iccid, s.msisdn FROM sim s
    WHERE s.device_id = d.id AND s.record_state = 1 AND (s.iccid ILIKE %s OR s.msisdn ILIKE %s)
    LIMIT 1
) sm ON d.id IS NOT NULL
CROSS JOIN LATERAL (
    SELECT field, value FROM (VALUES
        (1, 'plateNumber', c.plate_number),
        (2, 'vin', c.vin),
        (3, 'sim', d.phone),
        (4, 'sim', sm.iccid),
        (5, 'sim', sm.msisdn),
        (6, 'terminalId', d.device_sn),
        (7, 'driverName', dr.name)
    ) AS f(rank, field, value)
    WHERE value ILIKE %s
    ORDER BY rank LIMIT 1
) m
WHERE c.record_state = 1 AND {scope}
ORDER BY (m.value ILIKE %s) DESC, c.plate_number, c.id
LIMIT %s
"""
)


def contains_pattern(keyword: str) -> str:
    """A LIKE pattern matching strings that contain ``keyword`` (metacharacters escaped)."""
    return "%" + keyword.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def search_cars(conn: Connection[Any], scope: Scope, keyword: str, limit: int) -> list[dict[str, Any]]:
    """Cars of ``scope`` one of whose fields contains ``keyword``, exact matches first, then by plate."""
    where, params = scope.clause(sql.Identifier("c", "enterprise_id"))
    pattern = contains_pattern(keyword)
    exact = contains_pattern(keyword)[1:-1]
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(_SEARCH.format(scope=where), [pattern, pattern, pattern, *params, exact, limit])
        return cur.fetchall()
