"""The demo GB/T 32960 superior platform (`fleet up`): the superior in a box on loopback
(``fleet gb32960-exchange-sim``, FLEET_GB32960_EXCHANGE_BOX_PORT, its first account), for the root demo enterprise,
exchanging the enterprise tree's GB/T 32960-2016 vehicles (the box's edition; the `$$` 2025 ones would need a 2025
superior).

Idempotent: a row with the demo name is left as it is, its vehicles too (an operator may have changed them).
"""

from __future__ import annotations

from typing import Any

from psycopg import Connection

from fleet.settings import Gb32960ExchangeSettings

DEMO_NAME = "GB/T 32960 上级平台 (superior in a box)"

_SEED = """
INSERT INTO gb32960_superior_platform (enterprise_id, name, host, port, username, password, encryption, version)
SELECT %(enterprise_id)s, %(name)s, '127.0.0.1', %(port)s, %(username)s, %(password)s, 1, '2016'
WHERE NOT EXISTS (SELECT 1 FROM gb32960_superior_platform WHERE enterprise_id = %(enterprise_id)s AND name = %(name)s)
RETURNING id"""

_CARS = """
INSERT INTO gb32960_exchange_car (enterprise_id, platform_id, car_id)
SELECT %(enterprise_id)s, %(platform_id)s, c.id
FROM car c JOIN device d ON d.id = c.master_device_id
JOIN enterprise e ON e.id = c.enterprise_id
WHERE d.protocol = 'gb32960' AND d.protocol_version = '2016'
  AND (e.id = %(enterprise_id)s
       OR e.path LIKE (SELECT NULLIF(path, '') FROM enterprise WHERE id = %(enterprise_id)s) || '%%')
ON CONFLICT DO NOTHING"""


def seed_gb32960_superior(conn: Connection[Any], enterprise_id: int,
                          settings: Gb32960ExchangeSettings | None = None) -> int | None:
    """The demo platform's id when it was created now, else None."""
    settings = settings or Gb32960ExchangeSettings()
    username, _, password = settings.box_accounts[0].partition(":")
    row = conn.execute(_SEED, {"enterprise_id": enterprise_id, "name": DEMO_NAME, "port": settings.box_port,
                               "username": username, "password": password}).fetchone()
    if row is None:
        return None
    conn.execute(_CARS, {"platform_id": row[0], "enterprise_id": enterprise_id})
    return int(row[0])
