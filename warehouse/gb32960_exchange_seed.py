"""The demo GB/T 32960 superior platform (`fleet up`): the superior in a box on loopback
(``fleet gb32960-exchange-sim``, FLEET_GB32960_EXCHANGE_BOX_PORT, its first account), for the root demo enterprise,
exchanging the enterprise tree's GB/T 32960 vehicles: the 2016 ones' frames relayed as they came, the `$$` 2025
ones' written in the box's 2016 edition (exchange/gb32960/forwarding.py). The link is AES-128 (GB/T 32960.3-2016 table 2, encryption 0x03) with a key and IV the first `fleet up`
makes into ``var/gb32960-box-aes`` (``demo_aes_key``), which the box is given too (``demo_box_aes``), so a first
start shows an encrypted link as a regulated fleet runs one, and no key is in the repository.

Idempotent: a row with the demo name is left as it is, its vehicles too (an operator may have changed them).
"""

from __future__ import annotations

import json
import secrets
from pathlib import Path
from typing import Any

from psycopg import Connection

from fleet.secret_files import generated_secret
from fleet.settings import Gb32960ExchangeSettings
from protocols.gb32960 import Encryption
from protocols.gb32960.cipher import AesKey

DEMO_NAME = "GB/T 32960 上级平台 (superior in a box)"
KEY_FILE = "gb32960-box-aes"

_SEED = """
INSERT INTO gb32960_superior_platform (enterprise_id, name, host, port, username, password, encryption, aes_key, aes_iv,
                                       version)
SELECT %(enterprise_id)s, %(name)s, '127.0.0.1', %(port)s, %(username)s, %(password)s, %(encryption)s, %(aes_key)s,
       %(aes_iv)s, '2016'
WHERE NOT EXISTS (SELECT 1 FROM gb32960_superior_platform WHERE enterprise_id = %(enterprise_id)s AND name = %(name)s)
RETURNING id"""

_CARS = """
INSERT INTO gb32960_exchange_car (enterprise_id, platform_id, car_id)
SELECT %(enterprise_id)s, %(platform_id)s, c.id
FROM car c JOIN device d ON d.id = c.master_device_id
JOIN enterprise e ON e.id = c.enterprise_id
WHERE d.protocol = 'gb32960'
  AND (e.id = %(enterprise_id)s
       OR e.path LIKE (SELECT NULLIF(path, '') FROM enterprise WHERE id = %(enterprise_id)s) || '%%')
ON CONFLICT DO NOTHING"""


def demo_aes_key(var_dir: Path) -> AesKey:
    """The demo link's AES-128 key and IV (``KEYHEX:IVHEX`` in ``var_dir/gb32960-box-aes``, made on first use)."""
    text = generated_secret(var_dir / KEY_FILE, lambda: f"{secrets.token_hex(16)}:{secrets.token_hex(16)}")
    key_hex, _, iv_hex = text.partition(":")
    return AesKey.from_hex(key_hex, iv_hex)


def demo_box_aes(var_dir: Path, settings: Gb32960ExchangeSettings | None = None) -> str:
    """FLEET_GB32960_EXCHANGE_BOX_AES for the box `fleet up` starts: its demo account decrypts with the demo key."""
    settings = settings or Gb32960ExchangeSettings()
    username = settings.box_accounts[0].partition(":")[0]
    key = demo_aes_key(var_dir)
    return json.dumps([f"{username}:{key.key.hex()}:{key.iv.hex()}"])


def seed_gb32960_superior(conn: Connection[Any], enterprise_id: int,
                          settings: Gb32960ExchangeSettings | None = None, aes: AesKey | None = None) -> int | None:
    """The demo platform's id when it was created now, else None; with ``aes`` its link is AES-128 with that key."""
    settings = settings or Gb32960ExchangeSettings()
    username, _, password = settings.box_accounts[0].partition(":")
    row = conn.execute(_SEED, {"enterprise_id": enterprise_id, "name": DEMO_NAME, "port": settings.box_port,
                               "username": username, "password": password,
                               "encryption": int(Encryption.AES128 if aes else Encryption.NONE),
                               "aes_key": aes.key.hex() if aes else None,
                               "aes_iv": aes.iv.hex() if aes else None}).fetchone()
    if row is None:
        return None
    conn.execute(_CARS, {"platform_id": row[0], "enterprise_id": enterprise_id})
    return int(row[0])
