"""The demo superior platform (`fleet up`): the regulator in a box on loopback, for the root demo enterprise.

Idempotent: a row with the demo name is left as it is (an operator may have changed it). The account below is
the one `fleet up` gives the regulator in a box (``DEMO_ACCOUNT``, its ``--account``), at its main link port
(FLEET_REGULATOR_PORT); JT/T 809-2019, unencrypted, every position forwarded (interval 0) so the regulator can
count them against the database.
"""

from __future__ import annotations

from typing import Any

from psycopg import Connection

from fleet.settings import ExchangeSettings, RegulatorSettings

DEMO_NAME = "监管平台 (regulator in a box)"
DEMO_USER_ID = 80900001
DEMO_PASSWORD = "fleet809"
DEMO_CENTRE_ID = 80900001
DEMO_ACCOUNT = f"{DEMO_USER_ID}:{DEMO_PASSWORD}:{DEMO_CENTRE_ID}:2019"  # the regulator's USER:PASSWORD:CENTRE:VERSION

_SEED = """
INSERT INTO superior_platform (enterprise_id, name, host, port, user_id, password, centre_id, version, encrypted,
                               down_link_host, down_link_port, position_interval_s, enabled)
SELECT %(enterprise_id)s, %(name)s, '127.0.0.1', %(port)s, %(user_id)s, %(password)s, %(centre_id)s, '2019', false,
       '127.0.0.1', %(down_link_port)s, 0, true
WHERE NOT EXISTS (SELECT 1 FROM superior_platform WHERE enterprise_id = %(enterprise_id)s AND name = %(name)s)"""


def seed_superior_platform(conn: Connection[Any], enterprise_id: int, settings: ExchangeSettings | None = None,
                           regulator: RegulatorSettings | None = None) -> None:
    settings = settings or ExchangeSettings()
    port = (regulator or RegulatorSettings()).port
    conn.execute(_SEED, {"enterprise_id": enterprise_id, "name": DEMO_NAME, "port": port,
                         "user_id": DEMO_USER_ID, "password": DEMO_PASSWORD, "centre_id": DEMO_CENTRE_ID,
                         "down_link_port": settings.demo_down_link_port})
