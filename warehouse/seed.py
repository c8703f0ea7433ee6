"""Demo data: an enterprise tree, permissions, roles, admin users, groups, drivers, vehicles, devices,
the catalogues (car models and types, device producers and types) and the parent's default alarm
notification rules (window and voice for the emergency and ADAS/DSM alarms and for entering or leaving a
platform fence, ``sounding_alarm_keys``).

``seed_demo(url, terminals)`` is idempotent (natural keys: enterprise name under its parent, user
name, VIN, device phone, ...; an advisory lock serialises concurrent seeds). Re-running with more
terminals adds the missing ones; nothing is deleted or overwritten (passwords changed since stay).

Contract shared with the simulator: simulated terminal ``i`` (1-based) has phone
``terminal_phone(i)`` = ``f"0138{i:08d}"`` (stored canonical, ``device_phone(i)``) and serial ``f"SIM{i:07d}"``. ``DEMO_PASSWORD`` is the
password of the demo users ``admin`` (parent), ``admin_a`` and ``admin_b`` (subsidiaries): a demo
seed, not a secret.
"""

from __future__ import annotations

from typing import Any

import click
from psycopg import Connection, sql

from fleet.alarm_catalog import ALARMS, AlarmKind, describe
from fleet.demo_fleet import (
    DRIVER_NAMES,
    PARENT,
    SUBSIDIARY_A,
    SUBSIDIARY_B,
    DemoEnterprise,
    GbDemoVehicle,
    device_phone,
    gb_demo_vehicles,
    terminal_enterprise,
    terminal_has_video,
    terminal_phone,
    terminal_plate,
    terminal_vin,
)
from warehouse.db import connect
from warehouse.passwords import hash_password
from warehouse.seed_dictionaries import seed_system_dictionaries

DEMO_PASSWORD = "Fleet@2026"
SEED_LOCK_KEY = 7_208_080_001

PERMISSIONS: dict[str, tuple[str, tuple[str, ...]]] = {
    "dashboard": ("仪表盘", ("query", "get")),
    "monitor": ("实时监控", ("query", "get", "cmd", "video")),
    "car": ("车辆管理", ("add", "delete", "update", "query", "get", "import", "export", "cmd")),
    "device": ("终端管理", ("add", "delete", "update", "query", "get", "import", "export", "cmd", "enable",
                        "disable")),
    "sim": ("SIM卡管理", ("add", "delete", "update", "query", "get", "import", "export")),
    "driver": ("驾驶员管理", ("add", "delete", "update", "query", "get", "import", "export")),
    "group": ("车组管理", ("add", "delete", "update", "query", "get", "import", "export")),
    "enterprise": ("企业管理", ("add", "delete", "update", "query", "get", "enable", "disable", "export", "superior")),
    "user": ("用户管理", ("add", "delete", "update", "query", "get", "enable", "disable", "export")),
    "role": ("角色管理", ("add", "delete", "update", "query", "get", "export")),
    "gps": ("轨迹数据", ("query", "get", "export")),
    "alarm": ("报警管理", ("query", "get", "update", "export", "more")),
    "report": ("统计报表", ("query", "export")),
    "fence": ("电子围栏", ("add", "delete", "update", "query", "get", "fence", "import", "export")),
    "command": ("指令下发", ("cmd", "query", "get")),
    # Commands that can take a terminal off the platform or re-identify it (server, APN, phone and identity
    # parameters), track or record without end, or delete media on the terminal (api/routes/commands.py).
    "sensitiveCommand": ("敏感指令", ("cmd",)),
    "carModel": ("车辆型号", ("add", "delete", "update", "query", "get", "import", "export")),
    "carType": ("车辆类型", ("add", "delete", "update", "query", "get", "import", "export")),
    "deviceProducer": ("终端厂商", ("add", "delete", "update", "query", "get", "import", "export")),
    "deviceType": ("终端类型", ("add", "delete", "update", "query", "get", "import", "export")),
    "dictionary": ("字典管理", ("add", "delete", "update", "query", "get", "import", "export")),
    "system": ("系统监控", ("query", "update")),  # update: the platform parameters (settings "param")
    "license": ("许可证管理", ("add", "query", "get", "update")),
    "notify": ("通知公告", ("add", "delete", "update", "query", "get")),
    "auditLog": ("操作日志", ("query", "get", "export")),
    "gpsLog": ("GPS日志", ("query", "export")),
    "tpmsLog": ("胎压日志", ("query", "export")),
    "onlineLog": ("上下线日志", ("query", "export")),
    "accStateLog": ("ACC状态日志", ("query", "export")),
    "parkLog": ("停车日志", ("query", "export")),
    "idlingLog": ("怠速日志", ("query", "export")),
    "videoLog": ("视频日志", ("query", "get", "export")),  # get: a live session's detail (logLiveDetail)
    "downstreamMessage": ("下行消息", ("query", "export")),
    "upstreamMessage": ("上行消息", ("query", "export")),
    "originalMessage": ("原始报文", ("query", "export")),
    "evidence": ("多媒体证据", ("query", "get", "export", "delete")),
    "db": ("数据库", ("query", "add")),
    "sourceCodeLog": ("版本日志", ("query",)),
    "openPlatform": ("开放平台", ("add", "delete", "update", "query", "get")),
    "terminalParams": ("终端参数", ("query", "cmd")),
    "alarmLevel": ("报警等级", ("add", "delete", "update", "query", "get", "import", "export")),
    "platformAlarmRule": ("平台报警规则", ("add", "delete", "update", "query", "get", "export")),
    "platformAlarmNotifyRule": ("平台报警通知规则", ("add", "delete", "update", "query", "get", "import", "export")),
    "drivingGradeRule": ("驾驶行为评分规则", ("add", "delete", "update", "query", "get", "import", "export")),
    # JT/T 809 superior platforms; ``superior`` guards the link operations (link state, inspection answers).
    "superiorPlatform": ("上级平台", ("add", "delete", "update", "query", "get", "export", "superior")),
    # JT/T 809 inferior platforms, their exchange vehicles and positions; ``superior`` guards the link
    # operations (link state, sending inspections and messages).
    "inferiorPlatform": ("下级平台", ("add", "delete", "update", "query", "get", "export", "superior")),
}

# Per-enterprise catalogues (api/query/entities.py): table -> [(code, name)].
CATALOGUES: dict[str, tuple[tuple[str, str], ...]] = {
    "car_model": (("J6P", "解放J6P"), ("H5", "东风天龙H5"), ("X3000", "陕汽德龙X3000")),
    "car_type": (("HGV", "重型货车"), ("BUS", "大型客车"), ("TAXI", "出租车")),
    "device_producer": (("70101", "深圳示范电子"), ("70102", "北京示范科技"), ("70103", "广州示范通信")),
    "device_type": (("JT808", "JT/T 808 终端"), ("JT1078", "JT/T 1078 视频终端"), ("ADAS", "主动安全终端")),
}


def seed_demo(url: str, terminals: int = 200, gb_vehicles: int = 0) -> dict[str, Any]:
    """Seeds (or completes) the demo data; returns a summary with ids, users and password.
    ``gb_vehicles``: also the first that many of ``fleet.demo_fleet.GB_DEMO_VEHICLES`` (electric buses and
    vans over GB/T 32960, diesel trucks over GB 17691 / HJ 1239; ``fleet up`` seeds them for
    ``simulator.gb32960``).

    Raises psycopg.Error on database failures (the whole seed is one transaction, so a failure
    leaves nothing half-seeded).
    """
    if terminals < 0 or terminals > 99_999:
        raise ValueError("terminals must be between 0 and 99999 (plates and phones have 5/8 digits)")
    with connect(url) as conn:
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (SEED_LOCK_KEY,))
        _upsert_permissions(conn)
        parent_id = _enterprise(conn, PARENT, None)
        ids = {PARENT.key: parent_id}
        for sub in (SUBSIDIARY_A, SUBSIDIARY_B):
            ids[sub.key] = _enterprise(conn, sub, parent_id)
        for ent in (PARENT, SUBSIDIARY_A, SUBSIDIARY_B):
            role_id = _role(conn, ids[ent.key])
            _admin_user(conn, ent, ids[ent.key], role_id)
        groups = {key: _groups(conn, eid) for key, eid in ids.items()}
        drivers = {key: _drivers(conn, eid) for key, eid in ids.items()}
        for eid in ids.values():
            _catalogues(conn, eid)
        seed_system_dictionaries(conn, parent_id)
        _notify_rules(conn, parent_id)
        _grade_rules(conn, parent_id)
        _vehicles(conn, terminals, ids, groups, drivers)
        _gb_vehicles(conn, gb_demo_vehicles(gb_vehicles), ids, groups, drivers)
        conn.commit()
    return {
        "enterprises": ids,
        "users": [PARENT.admin, SUBSIDIARY_A.admin, SUBSIDIARY_B.admin],
        "password": DEMO_PASSWORD,
        "terminals": terminals,
        "phones": [terminal_phone(1), terminal_phone(terminals)] if terminals else [],
    }


def _upsert_permissions(conn: Connection[Any]) -> None:
    with conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO permission (code, name, actions) VALUES (%s, %s, %s)"
            " ON CONFLICT (code) DO UPDATE SET name = EXCLUDED.name,"
            " actions = (SELECT array_agg(DISTINCT a ORDER BY a) FROM unnest(permission.actions || EXCLUDED.actions) a)",
            [(code, name, list(actions)) for code, (name, actions) in PERMISSIONS.items()],
        )


def _scalar(conn: Connection[Any], query: str | sql.Composed, params: tuple[Any, ...]) -> Any:
    row = conn.execute(query, params).fetchone()
    return None if row is None else row[0]


def _enterprise(conn: Connection[Any], ent: DemoEnterprise, parent_id: int | None) -> int:
    found = _scalar(
        conn, "SELECT id FROM enterprise WHERE name = %s AND parent_id IS NOT DISTINCT FROM %s", (ent.name, parent_id)
    )
    if found is not None:
        return int(found)
    new_id = int(
        _scalar(
            conn,
            "INSERT INTO enterprise (parent_id, name, short_name, type) VALUES (%s, %s, %s, 3) RETURNING id",
            (parent_id, ent.name, ent.short_name),
        )
    )
    conn.execute(
        "UPDATE enterprise SET path = COALESCE((SELECT path FROM enterprise WHERE id = %s), '/') || id || '/'"
        " WHERE id = %s",
        (parent_id, new_id),
    )
    return new_id


def _role(conn: Connection[Any], enterprise_id: int) -> int:
    name = "管理员"
    role_id = _scalar(conn, "SELECT id FROM role WHERE enterprise_id = %s AND name = %s", (enterprise_id, name))
    if role_id is None:
        role_id = _scalar(
            conn, "INSERT INTO role (enterprise_id, name) VALUES (%s, %s) RETURNING id", (enterprise_id, name)
        )
    with conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO role_permission (role_id, permission_code, actions) VALUES (%s, %s, %s)"
            " ON CONFLICT (role_id, permission_code) DO UPDATE SET actions = EXCLUDED.actions",
            [(role_id, code, list(actions)) for code, (_, actions) in PERMISSIONS.items()],
        )
    return int(role_id)


def _admin_user(conn: Connection[Any], ent: DemoEnterprise, enterprise_id: int, role_id: int) -> None:
    user_id = _scalar(conn, "SELECT id FROM app_user WHERE user_name = %s", (ent.admin,))
    if user_id is None:
        user_id = _scalar(
            conn,
            "INSERT INTO app_user (enterprise_id, user_name, password_hash, name, nick_name)"
            " VALUES (%s, %s, %s, %s, %s) RETURNING id",
            (enterprise_id, ent.admin, hash_password(DEMO_PASSWORD), f"{ent.short_name}管理员", ent.admin),
        )
    conn.execute(
        "INSERT INTO user_role (user_id, role_id) VALUES (%s, %s) ON CONFLICT DO NOTHING", (user_id, role_id)
    )


def _select_or_insert(conn: Connection[Any], table: str, enterprise_id: int, name: str) -> int:
    ident = sql.Identifier(table)
    found = _scalar(
        conn, sql.SQL("SELECT id FROM {} WHERE enterprise_id = %s AND name = %s AND record_state = 1").format(ident),
        (enterprise_id, name)
    )
    if found is None:
        found = _scalar(
            conn,
            sql.SQL("INSERT INTO {} (enterprise_id, name) VALUES (%s, %s) RETURNING id").format(ident),
            (enterprise_id, name),
        )
    return int(found)


def _catalogues(conn: Connection[Any], enterprise_id: int) -> None:
    for table, rows in CATALOGUES.items():
        with conn.cursor() as cur:
            cur.executemany(
                sql.SQL("INSERT INTO {} (enterprise_id, code, name) VALUES (%s, %s, %s)"
                        " ON CONFLICT (enterprise_id, code) WHERE record_state = 1 DO NOTHING").format(sql.Identifier(table)),
                [(enterprise_id, code, name) for code, name in rows],
            )


def _groups(conn: Connection[Any], enterprise_id: int) -> list[int]:
    return [_select_or_insert(conn, "car_group", enterprise_id, name) for name in ("第一车队", "第二车队")]


def sounding_alarm_keys() -> list[str]:
    """The rule keys the demo enterprise notifies with a window and a voice: the emergency alarm (a0), the
    ADAS/DSM alarms (not their capture / recognition / driver-change events, types 16 and up, which
    terminals report routinely) and every platform fence's enter / leave (the kinds' rule keys: the seeded
    fences' crossings speak)."""
    safety = [d.key for d in ALARMS.values()
              if d.kind in (AlarmKind.ADAS, AlarmKind.DSM) and int(d.key.rsplit("_", 1)[1]) < 16]
    return ["a0", *safety, "fence_enter", "fence_leave"]


def _notify_rules(conn: Connection[Any], enterprise_id: int) -> None:
    """The parent's default notification rules (its subsidiaries inherit them): so alarms pop up and speak
    in ``make up``. A key the enterprise already has a rule for (live or deleted) is left alone."""
    with conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO platform_alarm_notify_rule (enterprise_id, name, alarm_key, window_enable, voice_enable,"
            " start_hour, end_hour, remark) SELECT %s, %s, %s, true, true, 0, 24, '演示数据'"
            " WHERE NOT EXISTS (SELECT 1 FROM platform_alarm_notify_rule WHERE enterprise_id = %s AND alarm_key = %s)"
            " ON CONFLICT DO NOTHING",
            [(enterprise_id, f"{describe(key)}({key})", key, enterprise_id, key) for key in sounding_alarm_keys()],
        )


# The parent's grading deductions (its subsidiaries inherit them; platform-spec §2 drivingGradeRule):
# (alarm key, points per occurrence, per minute, cap, normalisation 0 none / 1 per 100 km / 2 per hour).
DEMO_GRADE_RULES: tuple[tuple[str, float, float, float | None, int], ...] = (
    ("a1", 2.0, 0.5, 30.0, 1),  # overspeed: per 100 km driven
    ("a2", 3.0, 0.2, 30.0, 2),  # fatigue: per hour of driving
    ("a3", 3.0, 0.0, 20.0, 0),  # dangerous driving
    ("p_overspeed", 2.0, 0.5, 30.0, 1),
    ("p_fatigue", 3.0, 0.2, 30.0, 2),
    ("adas_1", 2.0, 0.0, 20.0, 2),  # forward collision warning
    ("adas_2", 1.0, 0.0, 10.0, 2),  # lane departure
    ("dsm_1", 3.0, 0.0, 20.0, 2),  # fatigue (DSM)
    ("dsm_2", 2.0, 0.0, 10.0, 2),  # phone call
    ("dsm_3", 2.0, 0.0, 10.0, 2),  # smoking
)


def _grade_rules(conn: Connection[Any], enterprise_id: int) -> None:
    """The parent's default grading rules, so ``make up``'s reports show scores; a key the enterprise already
    has a rule for (live or deleted) is left alone."""
    with conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO driving_grade_rule (enterprise_id, name, alarm_key, per_occurrence, per_minute, cap,"
            " normalisation, remark) SELECT %s, %s, %s, %s, %s, %s, %s, '演示数据'"
            " WHERE NOT EXISTS (SELECT 1 FROM driving_grade_rule WHERE enterprise_id = %s AND alarm_key = %s)"
            " ON CONFLICT DO NOTHING",
            [(enterprise_id, f"{describe(key)}({key})", key, per, per_min, cap, norm, enterprise_id, key)
             for key, per, per_min, cap, norm in DEMO_GRADE_RULES],
        )


def demo_national_id(enterprise_id: int, i: int) -> str:
    """A valid 18-character national ID (Beijing Dongcheng, born 1980-1989) for demo driver ``i``."""
    first17 = f"110101198{i % 10}{(i % 12) + 1:02d}{(i % 28) + 1:02d}{(enterprise_id % 100):02d}{i % 10}"
    weights = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
    return first17 + "10X98765432"[sum(w * int(d) for w, d in zip(weights, first17, strict=True)) % 11]


def _drivers(conn: Connection[Any], enterprise_id: int) -> list[int]:
    ids = [_select_or_insert(conn, "driver", enterprise_id, name) for name in DRIVER_NAMES]
    with conn.cursor() as cur:  # fills what an older seed left empty; never overwrites an edit
        cur.executemany(
            "UPDATE driver SET phone = coalesce(phone, %s), id_card = coalesce(id_card, %s),"
            " license_no = coalesce(license_no, %s), license_class = coalesce(license_class, %s),"
            " license_expire = coalesce(license_expire, %s), qualification_no = coalesce(qualification_no, %s)"
            " WHERE id = %s",
            [(f"139{enterprise_id % 1000:03d}{i:05d}", demo_national_id(enterprise_id, i),
              demo_national_id(enterprise_id, i), ("A2", "B2", "C1")[i % 3], f"{2028 + i % 4}-0{1 + i % 9}-15",
              f"{enterprise_id:04d}{i:08d}", driver_id) for i, driver_id in enumerate(ids)],
        )
    return ids


def _vehicles(
    conn: Connection[Any],
    terminals: int,
    ids: dict[str, int],
    groups: dict[str, list[int]],
    drivers: dict[str, list[int]],
) -> None:
    """Cars, devices and SIMs in three set-based statements, then the car <-> device links."""
    cars, devices, sims = [], [], []
    for i in range(1, terminals + 1):
        key = terminal_enterprise(i)
        eid = ids[key]
        video = terminal_has_video(i)
        cars.append((eid, groups[key][i % 2], terminal_plate(i), 2, terminal_vin(i), drivers[key][i % len(DRIVER_NAMES)]))
        devices.append((
            eid, device_phone(i), f"SIM{i:07d}", f"终端{i:05d}",
            "1,2,3,4" if video else "", "1" if video else "", int(video), int(video), int(video),
        ))
        sims.append((eid, f"898600{i:014d}", device_phone(i), 1 + i % 3, f"{2027 + i % 3}-12-31"))
    # A row deleted since (record state 0) is not seeded again: the natural key is looked up among all rows.
    # One statement a table over arrays (an anti-join), not one a row: per row, the VIN lookup has no index of
    # its own (car_vin_uniq leads with the enterprise) and 100,000 terminals took minutes.
    with conn.cursor() as cur:
        cur.execute(
            "INSERT INTO car (enterprise_id, group_id, plate_number, plate_color, vin, driver_id)"
            " SELECT t.* FROM unnest(%s::bigint[], %s::bigint[], %s::text[], %s::smallint[], %s::text[], %s::bigint[])"
            " AS t(enterprise_id, group_id, plate_number, plate_color, vin, driver_id)"
            " WHERE NOT EXISTS (SELECT 1 FROM car c WHERE c.vin = t.vin) ON CONFLICT DO NOTHING",
            _columns(cars, 6),
        )
        cur.execute(
            "INSERT INTO device (enterprise_id, phone, device_sn, device_name, video_channel, talk_channel,"
            " has_video, has_photo, has_microphone, protocol, protocol_version, video_protocol_version)"
            " SELECT t.*, 'jt808', '2013', '2016' FROM unnest(%s::bigint[], %s::text[], %s::text[], %s::text[],"
            " %s::text[], %s::text[], %s::smallint[], %s::smallint[], %s::smallint[])"
            " AS t(enterprise_id, phone, device_sn, device_name, video_channel, talk_channel, has_video, has_photo,"
            " has_microphone)"
            " WHERE NOT EXISTS (SELECT 1 FROM device d WHERE d.phone = t.phone) ON CONFLICT DO NOTHING",
            _columns(devices, 9),
        )
        cur.execute(
            "INSERT INTO sim (enterprise_id, iccid, msisdn, operator, expire_date)"
            " SELECT t.* FROM unnest(%s::bigint[], %s::text[], %s::text[], %s::smallint[], %s::text[])"
            " AS t(enterprise_id, iccid, msisdn, operator, expire_date)"
            " WHERE NOT EXISTS (SELECT 1 FROM sim s WHERE s.iccid = t.iccid) ON CONFLICT DO NOTHING",
            _columns(sims, 5),
        )
        # the links below join the pairs to these tables: planned on an empty table's statistics, they ran a
        # nested loop over all cars for each pair (minutes at 100,000)
        cur.execute("ANALYZE car, device, sim")
    _link(conn, [(device_phone(i), terminal_vin(i)) for i in range(1, terminals + 1)])


def _columns(rows: list[tuple[Any, ...]], width: int) -> list[list[Any]]:
    """Rows as ``width`` column lists, the parameters of an ``unnest(...)`` of arrays."""
    return [[row[k] for row in rows] for k in range(width)]


def _link(conn: Connection[Any], links: list[tuple[str, str]]) -> None:
    """(device phone, car VIN) pairs: the device on the car, the car's master device, the SIM in the device,
    each only where still unset (a user's edit stays). One statement each over the pairs as arrays."""
    params = _columns(links, 2)
    with conn.cursor() as cur:
        cur.execute(
            "UPDATE device d SET car_id = c.id FROM unnest(%s::text[], %s::text[]) AS l(phone, vin), car c"
            " WHERE d.phone = l.phone AND c.vin = l.vin"
            " AND d.car_id IS NULL AND d.record_state = 1 AND c.record_state = 1 AND d.enterprise_id = c.enterprise_id",
            params,
        )
        cur.execute(
            "UPDATE car c SET master_device_id = d.id FROM unnest(%s::text[], %s::text[]) AS l(phone, vin), device d"
            " WHERE d.phone = l.phone AND c.vin = l.vin AND c.master_device_id IS NULL"
            " AND d.record_state = 1 AND c.record_state = 1 AND d.enterprise_id = c.enterprise_id",
            params,
        )
        # a SIM whose msisdn is the device's phone goes into that device when it holds none yet; one SIM a
        # device (the lowest id) even where several free ones carry its number
        cur.execute(
            "UPDATE sim s SET device_id = x.device_id FROM ("
            " SELECT DISTINCT ON (d.id) d.id AS device_id, f.id AS sim_id FROM unnest(%s::text[]) AS l(phone)"
            " JOIN device d ON d.phone = l.phone AND d.record_state = 1"
            " JOIN sim f ON f.msisdn = l.phone AND f.device_id IS NULL AND f.record_state = 1"
            " WHERE NOT EXISTS (SELECT 1 FROM sim o WHERE o.device_id = d.id AND o.record_state = 1)"
            " ORDER BY d.id, f.id) x WHERE s.id = x.sim_id",
            [params[0]],
        )


CAR_TYPE_FUEL, CAR_TYPE_NEW_ENERGY = 1, 2  # car.car_type (0001_core_schema.sql)


def _gb_vehicles(
    conn: Connection[Any],
    vehicles: tuple[GbDemoVehicle, ...],
    ids: dict[str, int],
    groups: dict[str, list[int]],
    drivers: dict[str, list[int]],
) -> None:
    """The GB demo vehicles: a car (its VIN is what the terminal logs in with), a device of its protocol
    (gb32960 with version 2016 or 2025, gb17691 2018, hj1239 2021) as the car's master device, and a SIM;
    natural keys as in ``_vehicles``."""
    if not vehicles:
        return
    with conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO car (enterprise_id, group_id, plate_number, plate_color, vin, driver_id, car_type)"
            " SELECT %s, %s, %s, %s, %s::text, %s, %s WHERE NOT EXISTS (SELECT 1 FROM car WHERE vin = %s)"
            " ON CONFLICT DO NOTHING",
            [(ids[v.enterprise], groups[v.enterprise][v.index % 2], v.plate, 1 if v.kind == "van" else 2, v.vin,
              drivers[v.enterprise][(v.index + 3) % len(DRIVER_NAMES)],
              CAR_TYPE_NEW_ENERGY if v.electric else CAR_TYPE_FUEL, v.vin) for v in vehicles],
        )
        cur.executemany(
            "INSERT INTO device (enterprise_id, phone, device_sn, device_name, protocol, protocol_version)"
            " SELECT %s, %s::text, %s, %s, %s, %s WHERE NOT EXISTS (SELECT 1 FROM device WHERE phone = %s)"
            " ON CONFLICT DO NOTHING",
            [(ids[v.enterprise], v.phone, v.device_sn, f"{v.protocol}终端{v.index:02d}", v.protocol,
              v.protocol_version, v.phone) for v in vehicles],
        )
        cur.executemany(
            "INSERT INTO sim (enterprise_id, iccid, msisdn, operator, expire_date)"
            " SELECT %s, %s::text, %s, %s, %s WHERE NOT EXISTS (SELECT 1 FROM sim WHERE iccid = %s)"
            " ON CONFLICT DO NOTHING",
            [(ids[v.enterprise], v.iccid, v.phone, 1 + v.index % 3, "2028-12-31", v.iccid) for v in vehicles],
        )
    links = [(v.phone, v.vin) for v in vehicles]
    _link(conn, links)


@click.command("seed")
@click.option("--terminals", default=200, show_default=True, help="vehicles with a simulated terminal each")
@click.option("--gb-vehicles", default=10, show_default=True, type=click.IntRange(0, 10),
              help="GB/T 32960 electric and GB 17691 / HJ 1239 diesel demo vehicles (simulator.gb32960)")
@click.option("--database-url", default=None, help="libpq URL; default: the configured database")
def seed_command(terminals: int, gb_vehicles: int, database_url: str | None) -> None:
    """Seed the demo enterprises, users, vehicles and terminals (idempotent)."""
    from fleet.settings import database_url as configured_url

    summary = seed_demo(database_url or configured_url(), terminals=terminals, gb_vehicles=gb_vehicles)
    click.echo(f"seeded {summary['terminals']} terminals; enterprises {summary['enterprises']}")
    click.echo(f"users: {', '.join(summary['users'])}  password: {summary['password']}")
