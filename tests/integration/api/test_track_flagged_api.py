"""The track leaves out fixes the positions step flagged implausible (gps.quality) and says how many.

A vehicle of its own in enterprise A with a day of its own (no other test writes 2026-05-14): 30 fixes every
10 s, a teleport (quality 4) among them and a fix whose time is implausible (quality 1) inside the range.
"""

from __future__ import annotations

import csv
import io
from datetime import UTC, date, datetime, timedelta

import pytest
from flask.testing import FlaskClient

from tests.integration.api.conftest import Demo
from tests.integration.api.test_track_api import Car, Login, _make_car
from warehouse.db import connect
from warehouse.partitions import ensure_gps_partitions

START = datetime(2026, 5, 14, 3, 0, tzinfo=UTC)
END = START + timedelta(hours=1)


@pytest.fixture(scope="module")
def flagged_car(pg_url: str, demo: Demo) -> Car:
    enterprise = demo.enterprises["a"]
    car = _make_car(pg_url, enterprise)
    rows = [(START + timedelta(seconds=10 * i), 116.0 + 0.001 * i, 39.9, 36.0, 0) for i in range(30)]
    rows.append((START + timedelta(seconds=155), 121.47, 31.23, 36.0, 4))  # a jump to Shanghai: teleport
    rows.append((START + timedelta(seconds=305), 116.2, 39.9, 36.0, 1))   # its terminal's clock was years off
    with connect(pg_url) as conn:
        ensure_gps_partitions(conn, date(2026, 5, 14), 1)
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO gps (device_id, fix_at, car_id, enterprise_id, lng, lat, speed_kmh, status_flags, quality)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, 3, %s)",
                [(car.device_id, at, car.car_id, enterprise, lng, lat, speed, quality)
                 for at, lng, lat, speed, quality in rows])
        conn.commit()
    return car


def _query(**extra: object) -> dict[str, object]:
    return {"start": int(START.timestamp() * 1000), "end": int(END.timestamp() * 1000), **extra}


@pytest.mark.parametrize("max_points", [0, 10])
def test_track_leaves_out_flagged_fixes_and_counts_them(
        client: FlaskClient, login: Login, flagged_car: Car, max_points: int) -> None:
    reply = client.get(f"/api/gps/car/{flagged_car.car_id}/track.json", headers=login("admin_a"),
                       query_string=_query(maxPoints=max_points))
    assert reply.status_code == 200, reply.json
    data = reply.json["data"]  # type: ignore[index]
    assert (data["total"], data["flagged"]) == (30, 2)
    lngs = [row[1] for row in data["rows"]]
    assert 121.47 not in lngs and 116.2 not in lngs
    if max_points == 0:
        assert len(lngs) == 30


def test_track_export_leaves_out_flagged_fixes(client: FlaskClient, login: Login, flagged_car: Car) -> None:
    reply = client.get(f"/api/gps/car/{flagged_car.car_id}/track.csv", headers=login("admin_a"),
                       query_string=_query())
    assert reply.status_code == 200
    lines = list(csv.reader(io.StringIO(reply.get_data(as_text=True).lstrip("\ufeff"))))
    assert len(lines) == 1 + 30 and all(line[1] != "121.47" for line in lines[1:])


def test_flagged_count_of_another_enterprises_car_is_404(client: FlaskClient, login: Login, flagged_car: Car) -> None:
    reply = client.get(f"/api/gps/car/{flagged_car.car_id}/track.json", headers=login("admin_b"),
                       query_string=_query())
    assert reply.status_code == 404
