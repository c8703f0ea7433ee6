"""One figure per concept (warehouse/queries/fleet_figures.py): at one moment, every screen's call reads the
same online, alarming, today's mileage, today's alarms and unhandled numbers, over the caller's subtree.

The fleet lives in a database of its own (the demo seed of 10 terminals, then states, fixes and alarms set
here), so the numbers are exact. The screens' calls: the dashboard (enterprise counters, alarm counts, the
figures), the cockpits (the figures), the live map (the bulk last positions and the car list), the bell (the
notice overview) and a vehicle's detail (today's mileage per car).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.app import create_app
from api.db import get_db
from fleet.enums import BizState, DeviceState
from fleet.settings import ApiSettings
from protocols.china_time import local_midnight
from tests.support.databases import create_database, drop_database
from warehouse.db import connect
from warehouse.partitions import ensure_gps_partitions
from warehouse.seed import DEMO_PASSWORD, device_phone, seed_demo

TERMINALS = 10
KM_PER_DEG_LNG = 111.32 * 0.7672  # cos(39.9°)
TRUCK_KMH = 40.0
JUMP_KM = 8000.0


@dataclass(frozen=True)
class Fleet:
    app: Flask
    cars: list[int]
    truck: int  # drives at 40 km/h today; its odometer jumps by 8,000 km once
    reset: int  # its odometer is reset to 0 once today
    truck_km: float  # what the truck drove today by its positions
    reset_km: float  # what the other vehicle drove today, either side of its odometer's reset


def _car_and_device(conn: Any, terminal: int) -> tuple[int, int]:
    row = conn.execute("SELECT c.id, d.id FROM device d JOIN car c ON c.id = d.car_id WHERE d.phone = %s",
                       (device_phone(terminal),)).fetchone()
    return int(row[0]), int(row[1])


def _track(conn: Any, car: int, device: int, points: list[tuple[datetime, float, float]]) -> None:
    enterprise = conn.execute("SELECT enterprise_id FROM car WHERE id = %s", (car,)).fetchone()[0]
    for at, lng, odo in points:
        conn.execute("INSERT INTO gps (device_id, fix_at, car_id, enterprise_id, lng, lat, speed_kmh, mileage_km,"
                     " status_flags) VALUES (%s, %s, %s, %s, %s, 39.9, %s, %s, 3)",
                     (device, at, car, enterprise, lng, TRUCK_KMH, odo))


@pytest.fixture(scope="module")
def fleet(pg_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fleet]:
    url = create_database(pg_url, "figures")
    seed_demo(url, terminals=TERMINALS)
    now = datetime.now(UTC)
    since = local_midnight(now)
    with connect(url) as conn:
        ensure_gps_partitions(conn, (since - timedelta(days=1)).astimezone(UTC).date(), 2)
        ids = [_car_and_device(conn, t) for t in range(1, TERMINALS + 1)]
        # (device state, business state, alarm bits of the last fix) per terminal
        states = [(DeviceState.ONLINE, BizState.DRIVING, 1), (DeviceState.ONLINE, BizState.PARKED, 0),
                  (DeviceState.ONLINE, BizState.ENGINE_OFF, 4), (DeviceState.ONLINE, BizState.NO_SIGNAL, 0),
                  (DeviceState.ONLINE, BizState.OFFLINE, 1),  # online terminal, offline vehicle: not online
                  (DeviceState.OFFLINE, BizState.DRIVING, 1),  # stale business state: offline, not alarming
                  (DeviceState.ONLINE, BizState.DRIVING, 0), (DeviceState.OFFLINE, BizState.OFFLINE, 0),
                  (DeviceState.ONLINE, BizState.PARKED, 2), (DeviceState.REGISTERED, BizState.OFFLINE, 0)]
        for (car, device), (state, biz, alarm) in zip(ids, states, strict=True):
            conn.execute("UPDATE device SET state = %s, biz_state = %s WHERE id = %s", (int(state), int(biz), device))
            conn.execute("INSERT INTO device_last (device_id, car_id, enterprise_id, fix_at, lng, lat, speed_kmh,"
                         " mileage_km, alarm_flags, status_flags) SELECT %s, %s, enterprise_id, %s, 116.4, 39.9, 0,"
                         " 100, %s, 3 FROM car WHERE id = %s", (device, car, now - timedelta(minutes=1), alarm, car))
        # A disabled car (state 0) is still a live car: the map lists it, so the fleet counts it.
        conn.execute("UPDATE car SET state = 0 WHERE id = %s", (ids[6][0],))
        # Today: the truck at 40 km/h, one fix a step, its odometer jumping by 8,000 km half way.
        step = min(timedelta(minutes=1), (now - since - timedelta(minutes=2)) / 40)
        start = now - step * 40
        step_km = TRUCK_KMH * step.total_seconds() / 3600
        truck_points = [(start + step * i, 116.3 + i * step_km / KM_PER_DEG_LNG,
                         50_000 + i * step_km + (JUMP_KM if i >= 20 else 0)) for i in range(40)]
        _track(conn, *ids[0], truck_points)
        # The other vehicle: yesterday's fix does not count, then 10 steps' drive at the truck's speed, a reset to
        # 0, 10 steps more (just after midnight the steps are short: faster would be a flagged teleport).
        leg = step_km * 10
        reset_points = [(since - timedelta(minutes=5), 116.3, 4_000.0), (start, 116.3, 5_000.0),
                        (start + step * 10, 116.3 + leg / KM_PER_DEG_LNG, 5_000.0 + leg),
                        (start + step * 20, 116.3 + leg / KM_PER_DEG_LNG, 0.0),
                        (start + step * 30, 116.3 + 2 * leg / KM_PER_DEG_LNG, leg)]
        _track(conn, *ids[1], reset_points)
        # Alarms: three today (one handled), one unhandled from yesterday.
        for _car, device in (ids[0], ids[1], ids[2]):
            conn.execute("INSERT INTO alarm (enterprise_id, device_id, car_id, phone, type, key, start_time, alarm_flags)"
                         " SELECT enterprise_id, id, car_id, phone, 1, 'a0', %s, 1 FROM device WHERE id = %s",
                         (now - timedelta(minutes=2), device))
        conn.execute("UPDATE alarm SET state = 2 WHERE device_id = %s", (ids[2][1],))
        conn.execute("INSERT INTO alarm (enterprise_id, device_id, car_id, phone, type, key, start_time, alarm_flags)"
                     " SELECT enterprise_id, id, car_id, phone, 1, 'a2', %s, 4 FROM device WHERE id = %s",
                     (since - timedelta(hours=3), ids[3][1]))
        conn.commit()
    app = create_app(ApiSettings(token_secret="figures-secret"), url, var_dir=tmp_path_factory.mktemp("figures-var"))
    try:
        yield Fleet(app, [car for car, _ in ids], ids[0][0], ids[1][0], truck_km=39 * step_km, reset_km=2 * leg)
    finally:
        get_db(app).close()
        drop_database(pg_url, url)


@pytest.fixture(scope="module")
def as_admin(fleet: Fleet) -> Callable[..., Any]:
    """``as_admin(method, path, **kw)`` -> data of a call by the group's administrator (the parent)."""
    client: FlaskClient = fleet.app.test_client()
    token = client.get("/oauth2/token.json", query_string={"grant_type": "password", "username": "admin",
                                                          "password": DEMO_PASSWORD}).json["data"]["access_token"]

    def call(method: str, path: str, **kwargs: Any) -> Any:
        reply = client.open(path, method=method, headers={"Authorization": f"Bearer {token}"}, **kwargs)
        assert reply.status_code == 200 and reply.json["code"] == 0, (path, reply.json)
        return reply.json["data"]

    return call


def _screens(fleet: Fleet, call: Callable[..., Any]) -> dict[str, dict[str, Any]]:
    """Each figure as each screen's call gives it, at one moment."""
    figures = call("GET", "/api/fleet/figures.json")
    counters = call("POST", "/api/common/query/enterpriseCarBizstateReport.json", json={})
    alarm_counts = call("GET", "/api/dashboard/alarmCounts.json", query_string={"range": "today"})
    last = call("POST", "/api/gps/last.json", json={})
    column = {name: i for i, name in enumerate(last["fields"])}
    cars = call("POST", "/api/common/query/carView.json", query_string={"countable": "true"}, json={})
    notices = {n["bizType"]: n["total"] for n in call("GET", "/api/notice/overView.json")}
    details = [call("GET", f"/api/car/{car}/detail.json")["today"]["mileageKm"] or 0 for car in fleet.cars]
    map_online = [r for r in last["rows"] if r[column["online"]] == 1]
    return {
        "figures (dashboard, cockpits)": {
            "total": figures["total"], "online": figures["online"], "alarming": figures["alarming"],
            "todayMileageKm": figures["todayMileageKm"], "todayAlarms": figures["todayAlarms"],
            "unhandled": figures["unhandled"]},
        "dashboard counters": {
            "total": counters["total"],
            "online": counters["running"] + counters["parking"] + counters["flameout"] + counters["noSignal"]},
        "dashboard alarm counts": {"todayAlarms": sum(t["count"] for t in alarm_counts["byType"]),
                                   "unhandled": alarm_counts["unhandled"]},
        "live map": {"total": cars["total"], "online": len(map_online),
                     "alarming": sum(1 for r in map_online if r[column["alarmType"]])},
        "bell": {"unhandled": notices[6]},
        "vehicle details": {"todayMileageKm": round(sum(details), 1)},
    }


def test_every_screen_reads_the_same_figure_at_one_moment(fleet: Fleet, as_admin: Callable[..., Any]) -> None:
    screens = _screens(fleet, as_admin)
    expected = {"total": TERMINALS, "online": 6, "alarming": 3, "todayAlarms": 3, "unhandled": 3}
    for screen, figures in screens.items():
        for name, value in figures.items():
            if name in expected:
                assert value == expected[name], (screen, name, value)
    km = screens["figures (dashboard, cockpits)"]["todayMileageKm"]
    assert km == screens["vehicle details"]["todayMileageKm"]
    assert km == pytest.approx(fleet.truck_km + fleet.reset_km, abs=0.3)


def test_an_odometer_jump_does_not_become_thousands_of_km(fleet: Fleet, as_admin: Callable[..., Any]) -> None:
    truck = as_admin("GET", f"/api/car/{fleet.truck}/detail.json")["today"]["mileageKm"]
    reset = as_admin("GET", f"/api/car/{fleet.reset}/detail.json")["today"]["mileageKm"]
    assert truck == pytest.approx(fleet.truck_km, abs=0.2)  # the jump's segment counts its GPS distance
    assert reset == pytest.approx(fleet.reset_km, abs=0.1)  # a reset counts nothing, the km either side count


def _token(client: FlaskClient, user: str) -> dict[str, str]:
    reply = client.get("/oauth2/token.json", query_string={"grant_type": "password", "username": user,
                                                          "password": DEMO_PASSWORD})
    return {"Authorization": f"Bearer {reply.json['data']['access_token']}"}


def test_figures_are_the_callers_subtree_or_its_own_enterprise_when_asked(fleet: Fleet) -> None:
    client = fleet.app.test_client()
    with get_db(fleet.app).connection() as conn:
        cars = dict(conn.execute("SELECT u.user_name, count(*) FROM car c JOIN app_user u ON u.enterprise_id = c.enterprise_id"
                                 " WHERE u.user_name IN ('admin', 'admin_a') AND c.record_state = 1"
                                 " GROUP BY u.user_name").fetchall())
    subsidiary = client.get("/api/fleet/figures.json", headers=_token(client, "admin_a")).json["data"]
    own = client.get("/api/fleet/figures.json", query_string={"isParent": "false"},
                     headers=_token(client, "admin")).json["data"]
    assert subsidiary["total"] == cars["admin_a"] and 0 < subsidiary["total"] < TERMINALS
    assert own["total"] == cars["admin"] and 0 < own["total"] < TERMINALS


def test_figures_need_a_token_and_car_query(fleet: Fleet) -> None:
    reply = fleet.app.test_client().get("/api/fleet/figures.json")
    assert reply.status_code == 401 and reply.json["code"] == 40002


def test_todays_mileage_follows_new_fixes_on_every_screen(fleet: Fleet, as_admin: Callable[..., Any]) -> None:
    """The fleet's sum is kept incrementally (fleet_figures.TodayMileage): a fix arriving after a read
    counts on the next one, and the figure still equals the vehicles' own."""
    before = as_admin("GET", "/api/fleet/figures.json")["todayMileageKm"]
    with get_db(fleet.app).connection() as conn:
        last = conn.execute("SELECT fix_at, lng, mileage_km, device_id FROM gps WHERE car_id = %s"
                            " ORDER BY fix_at DESC LIMIT 1", (fleet.truck,)).fetchone()
        _track(conn, fleet.truck, last[3], [(datetime.now(UTC), last[1] + 0.5 / KM_PER_DEG_LNG, last[2] + 0.5)])
    time.sleep(2.1)  # TodayMileage refreshes at most every 2 s
    after = as_admin("GET", "/api/fleet/figures.json")["todayMileageKm"]
    details = [as_admin("GET", f"/api/car/{car}/detail.json")["today"]["mileageKm"] or 0 for car in fleet.cars]
    assert after == pytest.approx(before + 0.5, abs=0.05)
    assert after == pytest.approx(round(sum(details), 1), abs=0.05)
