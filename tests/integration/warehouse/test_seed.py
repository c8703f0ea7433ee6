"""The demo seed: contract with the simulator and the console, idempotence."""

from __future__ import annotations

from typing import Any

from warehouse.db import connect
from warehouse.passwords import verify_password
from warehouse.seed import DEMO_PASSWORD, PERMISSIONS, device_phone, seed_demo, terminal_phone


def scalar(conn: Any, query: str, *params: Any) -> Any:
    return conn.execute(query, params).fetchone()[0]


def test_seed_is_idempotent_and_grows_with_terminals(pg_url: str) -> None:
    first = seed_demo(pg_url, terminals=12)
    with connect(pg_url) as conn:
        before = {t: scalar(conn, f"SELECT count(*) FROM {t}") for t in ("enterprise", "app_user", "role", "car_group", "driver")}  # noqa: S608
    again = seed_demo(pg_url, terminals=12)
    assert again["enterprises"] == first["enterprises"]
    with connect(pg_url) as conn:
        after = {t: scalar(conn, f"SELECT count(*) FROM {t}") for t in before}  # noqa: S608
        assert after == before
        assert scalar(conn, "SELECT count(*) FROM device WHERE phone = ANY(%s)", [device_phone(i) for i in range(1, 13)]) == 12
    seed_demo(pg_url, terminals=14)
    with connect(pg_url) as conn:
        assert scalar(conn, "SELECT count(*) FROM device WHERE phone = %s", device_phone(14)) == 1
        assert device_phone(14) == terminal_phone(14).lstrip("0")  # stored canonical


def test_enterprise_tree_users_and_permissions(pg_url: str) -> None:
    ids = seed_demo(pg_url, terminals=10)["enterprises"]
    with connect(pg_url) as conn:
        parent_path = scalar(conn, "SELECT path FROM enterprise WHERE id = %s", ids["parent"])
        assert parent_path == f"/{ids['parent']}/"
        assert scalar(conn, "SELECT short_name FROM enterprise WHERE id = %s", ids["parent"]) == "北京示范运输集团"
        for key in ("a", "b"):
            assert scalar(conn, "SELECT path FROM enterprise WHERE id = %s", ids[key]) == f"{parent_path}{ids[key]}/"
        for user, key in (("admin", "parent"), ("admin_a", "a"), ("admin_b", "b")):
            row: Any = conn.execute("SELECT enterprise_id, password_hash FROM app_user WHERE user_name = %s", (user,)).fetchone()
            assert row[0] == ids[key] and row[1].startswith("$argon2id$") and verify_password(row[1], DEMO_PASSWORD)
        codes = {r[0] for r in conn.execute("SELECT code FROM permission").fetchall()}
        assert set(PERMISSIONS) <= codes


def test_terminals_follow_the_simulator_contract(pg_url: str) -> None:
    ids = seed_demo(pg_url, terminals=20)["enterprises"]
    with connect(pg_url) as conn:
        rows = conn.execute(
            "SELECT d.phone, d.device_sn, d.protocol_version, d.enterprise_id, d.has_video, d.video_channel,"
            " c.plate_number, c.vin, c.master_device_id = d.id FROM device d JOIN car c ON c.id = d.car_id"
            " WHERE d.phone = ANY(%s) ORDER BY d.phone",
            ([device_phone(i) for i in range(1, 21)],),
        ).fetchall()
    assert len(rows) == 20
    assert rows[0][:3] == ("13800000001", "SIM0000001", "2013")
    assert all(len(r[0]) == 11 and len(r[7]) == 17 and r[8] for r in rows)
    owners = {r[3] for r in rows}
    assert owners == {ids["parent"], ids["a"], ids["b"]}
    assert any(r[4] == 1 and r[5] == "1,2,3,4" for r in rows) and any(r[4] == 0 for r in rows)
    assert len({r[6] for r in rows}) == 20 and rows[0][6].startswith("京") and "·" in rows[0][6]


def test_drivers_have_valid_national_ids_every_terminal_a_sim_and_deleted_rows_stay_deleted(pg_url: str) -> None:
    from api.query.validators import national_id_is_valid
    from warehouse.seed import DRIVER_NAMES

    seed_demo(pg_url, terminals=10)
    with connect(pg_url) as conn:
        # the seed's own drivers (other tests of the session add drivers without an ID: it is optional)
        ids = [row[0] for row in conn.execute("SELECT id_card FROM driver WHERE record_state = 1 AND name = ANY(%s)",
                                              (list(DRIVER_NAMES),)).fetchall()]
        assert len(ids) >= len(DRIVER_NAMES) and all(i is not None and national_id_is_valid(i) for i in ids)
        assert scalar(conn, "SELECT count(*) FROM device d WHERE d.phone = ANY(%s) AND NOT EXISTS"
                            " (SELECT 1 FROM sim s WHERE s.device_id = d.id AND s.record_state = 1)",
                      [device_phone(i) for i in range(1, 11)]) == 0
        conn.execute("UPDATE car SET record_state = 0 WHERE vin = 'LFVSM000000000003'")
        conn.commit()
    seed_demo(pg_url, terminals=10)  # a vehicle an administrator deleted is not seeded again
    with connect(pg_url) as conn:
        assert scalar(conn, "SELECT count(*) FROM car WHERE vin = 'LFVSM000000000003'") == 1
        assert scalar(conn, "SELECT record_state FROM car WHERE vin = 'LFVSM000000000003'") == 0
        conn.execute("UPDATE car SET record_state = 1 WHERE vin = 'LFVSM000000000003'")  # shared database
        conn.commit()


def test_the_demo_enterprises_notify_the_emergency_and_adas_dsm_alarms_with_window_and_voice(pg_url: str) -> None:
    """On a database of its own: other tests of the session change the shared demo's rules."""
    from tests.support.databases import create_database, drop_database
    from warehouse.queries.alarms import effective_rules
    from warehouse.seed import sounding_alarm_keys

    keys = sounding_alarm_keys()
    assert keys[0] == "a0" and {"adas_1", "adas_2", "dsm_1", "dsm_2", "dsm_3", "dsm_4"} <= set(keys)
    assert not any(k.startswith(("tpms_", "bsd_", "p_")) or k.endswith(("_16", "_17")) for k in keys)
    url = create_database(pg_url, "seed_rules")
    try:
        ids = seed_demo(url, terminals=10)["enterprises"]
        seed_demo(url, terminals=10)  # idempotent: one rule per key
        with connect(url) as conn:
            rows = conn.execute(
                "SELECT alarm_key, count(*), bool_and(window_enable AND voice_enable), min(start_hour), max(end_hour)"
                " FROM platform_alarm_notify_rule WHERE enterprise_id = %s AND record_state = 1 GROUP BY alarm_key",
                (ids["parent"],)).fetchall()
            assert {r[0]: r[1:] for r in rows} == {k: (1, True, 0, 24) for k in keys}
            for user in ("admin", "admin_a", "admin_b"):  # the subsidiaries' users inherit the parent's rules
                user_id, enterprise_id = conn.execute("SELECT id, enterprise_id FROM app_user WHERE user_name = %s",
                                                      (user,)).fetchone()  # type: ignore[misc]
                rules = effective_rules(conn, user_id, enterprise_id, keys)
                assert all(r["voice_enable"] and r["window_enable"] and not r["disabled"] for r in rules.values()), user
                assert {(r["source"], r["source_enterprise_id"]) for r in rules.values()} == {
                    ("enterprise", ids["parent"])}, user
            # a rule an administrator deleted is not seeded again
            conn.execute("UPDATE platform_alarm_notify_rule SET record_state = 0 WHERE enterprise_id = %s"
                         " AND alarm_key = 'dsm_3'", (ids["parent"],))
            conn.commit()
        seed_demo(url, terminals=10)
        with connect(url) as conn:
            assert scalar(conn, "SELECT count(*) FROM platform_alarm_notify_rule WHERE enterprise_id = %s"
                                " AND alarm_key = 'dsm_3' AND record_state = 1", ids["parent"]) == 0
    finally:
        drop_database(pg_url, url)


def test_gb_demo_vehicles_are_cars_with_a_master_device_of_their_protocol(pg_url: str) -> None:
    from fleet.demo_fleet import GB_DEMO_VEHICLES
    from fleet.vin import is_valid_vin

    ids = seed_demo(pg_url, terminals=2, gb_vehicles=10)["enterprises"]
    seed_demo(pg_url, terminals=2, gb_vehicles=10)  # idempotent
    with connect(pg_url) as conn:
        rows = conn.execute(
            "SELECT c.vin, c.enterprise_id, c.car_type, d.protocol, d.protocol_version, d.car_id = c.id, s.iccid"
            " FROM car c JOIN device d ON d.id = c.master_device_id LEFT JOIN sim s ON s.device_id = d.id"
            " WHERE c.vin = ANY(%s) AND c.record_state = 1 ORDER BY c.vin",
            ([v.vin for v in GB_DEMO_VEHICLES],)).fetchall()
    by_vin = {row[0]: row for row in rows}
    assert len(rows) == 10
    for v in GB_DEMO_VEHICLES:
        vin, enterprise_id, car_type, protocol, version, linked, iccid = by_vin[v.vin]
        assert is_valid_vin(vin) and enterprise_id == ids[v.enterprise] and linked and iccid == v.iccid
        assert (protocol, version) == (v.protocol, v.protocol_version)
        assert car_type == (2 if v.electric else 1)
    assert sorted({row[3] for row in rows}) == ["gb17691", "gb32960", "hj1239"]
    assert {row[4] for row in rows if row[3] == "gb32960"} == {"2016", "2025"}

