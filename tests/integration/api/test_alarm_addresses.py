"""Every alarm list shows an address: an alarm stored without one gets the address of its point from the
product's reverse geocoder (fleet.geo) when listed or read; a point outside China stays empty, and a stored
address is kept. Through the real app on the session's PostgreSQL."""

from __future__ import annotations

from typing import Any

from flask.testing import FlaskClient

from tests.integration.api.test_alarms_api import Fleet, add_alarm, client_module, ok  # noqa: F401
from tests.integration.api.test_alarms_api import fleet as fleet  # the module's fixture
from warehouse.db import connect


def _move(pg_url: str, alarm_id: int, lng: float, lat: float, address: str | None = None) -> None:
    with connect(pg_url) as conn:
        conn.execute("UPDATE alarm SET lng = %s, lat = %s, address = %s WHERE id = %s", (lng, lat, address, alarm_id))
        conn.commit()


def _rows(client: FlaskClient, owner: Fleet, entity: str, car_id: int, **args: Any) -> dict[int, dict[str, Any]]:
    page = ok(client.post(f"/api/common/query/{entity}.json", headers=owner.headers, json={"carId.eq": car_id},
                          query_string=args))
    return {r["id"]: r for r in page["list"]}


def test_alarm_lists_show_the_address_of_the_alarm_s_point(client: FlaskClient, fleet: Fleet,
                                                            pg_url: str) -> None:
    car = fleet.online
    beijing = add_alarm(pg_url, fleet.root, car, "a1", minutes_ago=40)  # 116.4, 39.9: central Beijing
    safety = add_alarm(pg_url, fleet.root, car, "adas_1", type_=5, level=1, minutes_ago=30)
    abroad = add_alarm(pg_url, fleet.root, car, "a0", minutes_ago=20)
    _move(pg_url, abroad, 2.35, 48.85)  # Paris
    stored = add_alarm(pg_url, fleet.root, car, "a2", minutes_ago=10)
    _move(pg_url, stored, 116.4, 39.9, "北京市东城区某路1号")
    for entity in ("alarm", "myAlarm"):
        rows = _rows(client, fleet, entity, car.car_id, isParent="false")
        assert "北京" in (rows[beijing]["address"] or ""), (entity, rows[beijing])
        assert not rows[abroad]["address"]
        assert rows[stored]["address"] == "北京市东城区某路1号"
    safety_rows = _rows(client, fleet, "safetyAlarm", car.car_id)
    assert "北京" in (safety_rows[safety]["address"] or "")
    detail = ok(client.get(f"/api/common/alarm/{beijing}.json", headers=fleet.headers))
    assert "北京" in (detail["address"] or "")
