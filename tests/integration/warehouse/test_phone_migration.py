"""Migration 0016: stored terminal phones and SIM numbers become canonical (no leading
zeros) unless that would name one terminal twice. Run again inside a transaction that is rolled back,
over rows of a fresh enterprise, so the session database is left as it was."""

from __future__ import annotations

import uuid

import psycopg

from warehouse.migrate import MIGRATIONS_DIR

MIGRATION = (MIGRATIONS_DIR / "0016_device_phone_canonical.sql").read_text(encoding="utf-8")


def test_phones_become_canonical_where_no_other_terminal_clashes(pg_url: str) -> None:
    base = "139" + str(uuid.uuid4().int)[:8]  # 11 digits; variants below differ in the last digit
    lone, taken, twice, deleted, sim = (base[:-1] + d for d in "12345")
    with psycopg.connect(pg_url) as conn:
        try:
            name = f"phones-{uuid.uuid4().hex[:8]}"
            row = conn.execute("INSERT INTO enterprise (name, short_name) VALUES (%s, %s) RETURNING id",
                               (name, name)).fetchone()
            assert row is not None
            enterprise = row[0]
            phones = {"lone": "0" + lone, "taken_old": "0" + taken, "taken": taken,
                      "twice_2013": "0" + twice, "twice_2019": "000000000" + twice,
                      "deleted": "0" + deleted, "deleted_live": deleted}
            ids = {}
            for key, phone in phones.items():
                ids[key] = conn.execute(
                    "INSERT INTO device (enterprise_id, phone, device_sn, record_state) VALUES (%s, %s, %s, %s) "
                    "RETURNING id", (enterprise, phone, f"SN{uuid.uuid4().hex[:12]}",
                                     0 if key == "deleted" else 1)).fetchone()[0]  # type: ignore[index]
            conn.execute("INSERT INTO sim (enterprise_id, msisdn) VALUES (%s, %s)", (enterprise, "0" + sim))
            conn.execute(MIGRATION)
            stored: dict[int, str] = dict(conn.execute("SELECT id, phone FROM device WHERE enterprise_id = %s",
                                       (enterprise,)).fetchall())
            assert stored[ids["lone"]] == lone                      # rewritten
            assert stored[ids["taken_old"]] == "0" + taken          # the canonical one exists: left alone
            assert stored[ids["taken"]] == taken
            assert (stored[ids["twice_2013"]], stored[ids["twice_2019"]]) == ("0" + twice, "000000000" + twice)
            assert stored[ids["deleted"]] == deleted                # deleted rows are outside the unique index
            assert conn.execute("SELECT msisdn FROM sim WHERE enterprise_id = %s", (enterprise,)).fetchone() == (sim,)
        finally:
            conn.rollback()
