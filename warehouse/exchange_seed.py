"""The demo superior platform (`fleet up`): the regulator in a box on loopback, for the root demo enterprise.

Idempotent: a row with the demo name is left as it is (an operator may have changed it). The account below is
the one `fleet up` gives the regulator in a box (``DEMO_ACCOUNT``, its ``--account``), at its main link port
(FLEET_REGULATOR_PORT); JT/T 809-2019, unencrypted, every position forwarded (interval 0) so the regulator can
count them against the database.
"""

from __future__ import annotations

from typing import Any

from psycopg import Connection
from psycopg.types.json import Jsonb

from fleet.settings import ExchangeSettings, MediaServerSettings, RegulatorSettings

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


# The demo inferior platform (platform-spec §2 inferiorPlatform, car, gps, map): fleetwatch's own link service
# logs in to its own superior service on the loopback. One inferior_platform row (what the superior accepts) and
# one superior_platform row with the same credentials (what the link service dials: FLEET_EXCHANGE_SUPERIOR_PORT,
# its sub link on FLEET_EXCHANGE_DEMO_INFERIOR_DOWN_LINK_PORT). It forwards one subsidiary's vehicles, one
# position per vehicle every LOOPBACK_INTERVAL_S, so the exchange screens have data without doubling the load.
# Its video servers are the address our link service answers a video request with (FLEET_EXCHANGE_VIDEO_HOST,
# else FLEET_MEDIA_SERVER_PUBLIC_HOST): the superior pulls from nothing else (exchange/superior/video.py).
LOOPBACK_NAME = "演示下级平台 (loopback)"
LOOPBACK_USER_ID = 80900002
LOOPBACK_PASSWORD = "loop809"
LOOPBACK_CENTRE_ID = 80900002
LOOPBACK_INTERVAL_S = 30

_SEED_INFERIOR = """
INSERT INTO inferior_platform (enterprise_id, name, user_id, password, centre_id, version, allowed_hosts, video_hosts,
                               remark)
SELECT %(enterprise_id)s, %(name)s, %(user_id)s, %(password)s, %(centre_id)s, '2019', '["127.0.0.1"]',
       %(video_hosts)s, 'fleetwatch itself on the loopback (fleet up)'
WHERE NOT EXISTS (SELECT 1 FROM inferior_platform WHERE name = %(name)s OR user_id = %(user_id)s)"""

_SEED_LOOPBACK_SUPERIOR = """
INSERT INTO superior_platform (enterprise_id, name, host, port, user_id, password, centre_id, version, encrypted,
                               down_link_host, down_link_port, position_interval_s, exchanged_enterprise_ids,
                               enabled)
SELECT %(enterprise_id)s, %(name)s, '127.0.0.1', %(port)s, %(user_id)s, %(password)s, %(centre_id)s, '2019', false,
       '127.0.0.1', %(down_link_port)s, %(interval)s, %(exchanged)s, true
WHERE NOT EXISTS (SELECT 1 FROM superior_platform WHERE enterprise_id = %(enterprise_id)s AND name = %(name)s)"""


def seed_loopback_inferior(conn: Connection[Any], enterprise_id: int, exchanged_enterprise_id: int,
                           settings: ExchangeSettings | None = None) -> None:
    """Idempotent like the demo superior platform: rows with the demo names (or the demo user id) are left as
    they are. ``exchanged_enterprise_id``: the enterprise (in ``enterprise_id``'s subtree) whose vehicles go."""
    settings = settings or ExchangeSettings()
    params = {"enterprise_id": enterprise_id, "name": LOOPBACK_NAME, "user_id": LOOPBACK_USER_ID,
              "password": LOOPBACK_PASSWORD, "centre_id": LOOPBACK_CENTRE_ID}
    video_host = (settings.video_host or MediaServerSettings().public_host).strip()
    conn.execute(_SEED_INFERIOR, {**params, "video_hosts": Jsonb([video_host] if video_host else [])})
    conn.execute(_SEED_LOOPBACK_SUPERIOR, {**params, "port": settings.superior_port,
                                           "down_link_port": settings.demo_inferior_down_link_port,
                                           "interval": LOOPBACK_INTERVAL_S,
                                           "exchanged": Jsonb([exchanged_enterprise_id])})
