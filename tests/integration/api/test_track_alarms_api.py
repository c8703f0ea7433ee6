"""Active-safety and video alarms on the track (console-spec §3 "Track point"): a crafted
track whose fixes carry ADAS, DSM, TPMS, BSD and video items returns the point alarm fields at those
points, in the caller's language; thinning and the day summaries keep those points with their fields;
the exports carry the alarm text; the car's alarm rows of the range come with the track.

The track: the bulk loader's driving model, a fix every 10 s from 2026-07-20 20:00 to 07-22 02:00 UTC
(07-21 is a whole closed day: long reads take it from its summary), then items written into chosen
fixes' extras (decoded by the real codecs, so they have the stored shape). Nobody else uses July 2026.
"""

from __future__ import annotations

import csv
import io
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

import orjson
import pytest
from flask.testing import FlaskClient

from api.query.values import NAIVE_TIME_ZONE
from protocols.jt808.extras import decode_items, encode_items
from tests.integration.api.conftest import Demo
from tests.integration.api.test_track_api import Car, Login, _make_car, _ms
from warehouse.db import connect
from warehouse.history import HistoryVehicle, load_history

START = datetime(2026, 7, 20, 20, tzinfo=UTC)
END = datetime(2026, 7, 22, 2, tzinfo=UTC)
WHOLE_DAY = date(2026, 7, 21)
POINT_FIELDS = ["alarmInfo", "adasAlarm", "dsmAlarm", "tpmAlarm", "bsdAlarm", "videoAlarm", "gbAlarm"]
ALARM_NO = {"terminal_id": "T000001", "time": "2026-07-21T03:00:00+00:00", "seq": 1, "attachments": 2}
EN = {"X-Fleet-Language": "en-US"}
HK = {"X-Fleet-Language": "zh-HK"}


def _tail(at: datetime) -> dict[str, Any]:
    return {"speed_kmh": 40, "altitude_m": 20, "lat": 39.9, "lng": 116.4, "time": at.isoformat(), "vehicle_status": 1,
            "alarm_no": ALARM_NO}


def _items(at: datetime, kind: str) -> dict[str, Any]:
    """Extras of one fix with the item(s) of ``kind``, through the real encoders and decoders."""
    items: dict[str, Any] = {"video_alarm_flags": 0, "signal_strength": 20}  # a 1078 terminal sends 0x14 always
    if kind == "adas":
        items["adas_alarm"] = {"alarm_id": 1, "flag": 1, "type": 1, "level": 2, "front_speed_kmh": 50, "headway_s": 1.2,
                               "deviation_type": 0, "road_sign_type": 0, "road_sign_data": 0, **_tail(at)}
    elif kind == "dsm":
        items["dsm_alarm"] = {"alarm_id": 2, "flag": 0, "type": 2, "level": 1, "fatigue_degree": 0, **_tail(at)}
    elif kind == "tpms":
        items["tpms_alarm"] = {"alarm_id": 3, "flag": 0, **_tail(at), "events": [
            {"tyre": 1, "type": 0b100, "pressure_kpa": 180, "temperature_c": 40, "battery_pct": 90},
            {"tyre": 2, "type": 0b1000, "pressure_kpa": 250, "temperature_c": 95, "battery_pct": 90}]}
    elif kind == "bsd":
        items["bsd_alarm"] = {"alarm_id": 4, "flag": 0, "type": 2, **_tail(at)}
    elif kind == "video":
        items.update(video_alarm_flags=0b1, video_signal_lost_channels=0b10,
                     abnormal_driving={"behaviour_flags": 0, "fatigue_level": None})
    elif kind == "overspeed+adas":
        items["adas_alarm"] = {"alarm_id": 5, "flag": 0, "type": 2, "level": 0, "front_speed_kmh": 0, "headway_s": 0,
                               "deviation_type": 1, "road_sign_type": 0, "road_sign_data": 0, **_tail(at)}
    decoded, unknown = decode_items(encode_items({k: v for k, v in items.items() if k != "signal_strength"}, ()))
    assert not unknown
    return {**decoded, "signal_strength": 20}


# (kind, fix time, alarm bits): in the whole day (summaries) and in the partial days (gps); at 10 s
# past a minute, so no summary bucket keeps them for their time alone.
MARKED = [
    ("adas", datetime(2026, 7, 21, 3, 0, 10, tzinfo=UTC), 0),
    ("dsm", datetime(2026, 7, 21, 9, 30, 20, tzinfo=UTC), 0),
    ("tpms", datetime(2026, 7, 21, 15, 45, 30, tzinfo=UTC), 0),  # Beijing night: inside the overnight park
    ("bsd", datetime(2026, 7, 21, 16, 5, 40, tzinfo=UTC), 0),
    ("video", datetime(2026, 7, 21, 18, 0, 50, tzinfo=UTC), 0),
    ("overspeed+adas", datetime(2026, 7, 20, 21, 10, 10, tzinfo=UTC), 2),
    ("adas", datetime(2026, 7, 22, 1, 20, 20, tzinfo=UTC), 0),
]
ZH = {
    "adas": "二级 前向碰撞报警", "dsm": "一级 接打电话报警", "tpms": "胎压过低报警,胎温过高报警", "bsd": "左侧后方接近报警",
    "video": "视频信号丢失报警", "overspeed+adas": "超速报警,车道偏离报警",
}
EN_TEXT = {
    "adas": "Level 2 Forward collision warning", "dsm": "Level 1 Phone call",
    "tpms": "Tyre pressure too low,Tyre temperature too high", "bsd": "Left rear approach", "video": "Video signal lost",
    "overspeed+adas": "Overspeed alarm,Lane departure warning",
}


@dataclass(frozen=True)
class SafetyCar(Car):
    item_times: dict[int, str]  # epoch ms -> kind
    alarm_ids: dict[str, int]


def _insert_alarm(conn: Any, car: Car, enterprise_id: int, key: str, kind: int, level: int | None, at: datetime,
                  end: datetime | None) -> int:
    row = conn.execute(
        "INSERT INTO alarm (enterprise_id, device_id, car_id, plate_number, phone, type, key, level, start_time, end_time,"
        " lat, lng, speed) VALUES (%s, %s, %s, %s, '018800000000', %s, %s, %s, %s, %s, 39.95, 116.45, 42) RETURNING id",
        (enterprise_id, car.device_id, car.car_id, car.plate, kind, key, level, at, end)).fetchone()
    return int(row[0])


@pytest.fixture(scope="module")
def safety_car(pg_url: str, demo: Demo) -> SafetyCar:
    enterprise = demo.enterprises["a"]
    car = _make_car(pg_url, enterprise)
    with connect(pg_url) as conn:
        load_history(conn, [HistoryVehicle(car.device_id, car.car_id, enterprise)], START, END, 10, seed=21)
        for kind, at, bits in MARKED:
            updated = conn.execute("UPDATE gps SET extras = %s::jsonb, alarm_flags = %s WHERE device_id = %s AND fix_at = %s",
                                   (orjson.dumps(_items(at, kind)).decode(), bits, car.device_id, at)).rowcount
            assert updated == 1, at
        # every other fix: a 1078 terminal's 0x14 = 0, which is no alarm
        conn.execute("UPDATE gps SET extras = '{\"video_alarm_flags\": 0, \"signal_strength\": 20}'::jsonb"
                     " WHERE device_id = %s AND extras = '{}'::jsonb", (car.device_id,))
        ids = {
            "adas": _insert_alarm(conn, car, enterprise, "adas_1", 5, 2, MARKED[0][1], MARKED[0][1]),
            "platform": _insert_alarm(conn, car, enterprise, "p_overspeed", 3, None,
                                      datetime(2026, 7, 21, 6, 0, tzinfo=UTC), datetime(2026, 7, 21, 6, 5, tzinfo=UTC)),
            "open": _insert_alarm(conn, car, enterprise, "a0", 1, None, datetime(2026, 7, 22, 1, 0, tzinfo=UTC), None),
            "before": _insert_alarm(conn, car, enterprise, "a1", 1, None, START - timedelta(minutes=5), START),
        }
        conn.commit()
    return SafetyCar(car.car_id, car.device_id, car.plate, {_ms(at): kind for kind, at, _bits in MARKED}, ids)


def _track(client: FlaskClient, headers: dict[str, str], car_id: int, fmt: str = "json", start: datetime = START,
           end: datetime = END, **params: Any) -> Any:
    reply = client.get(f"/api/gps/car/{car_id}/track.{fmt}", headers=headers,
                       query_string={"start": _ms(start), "end": _ms(end), **params})
    assert reply.status_code == 200, reply.data[:300]
    return reply.json["data"] if fmt == "json" else reply  # type: ignore[index]


def _points(data: dict[str, Any]) -> dict[int, dict[str, Any]]:
    return {row[0]: dict(zip(data["fields"], row, strict=True)) for row in data["rows"]}


def _summary(pg_url: str, device_id: int, day: date) -> tuple[Any, ...] | None:
    with connect(pg_url) as conn:
        return conn.execute("SELECT points, alarm_items, computed_at FROM track_day WHERE device_id = %s AND day = %s",
                            (device_id, day)).fetchone()


def test_every_point_carries_the_alarm_fields_of_its_items(client: FlaskClient, login: Login, safety_car: SafetyCar) -> None:
    data = _track(client, login("admin_a"), safety_car.car_id, maxPoints=0)
    assert data["fields"][11:] == POINT_FIELDS and data["thinned"] is False
    points = _points(data)
    for at, kind in safety_car.item_times.items():
        p = points[at]
        assert p["alarmInfo"] == ZH[kind], kind
        assert (p["adasAlarm"] is not None) == kind.endswith("adas") and (p["dsmAlarm"] is not None) == (kind == "dsm")
        assert (p["tpmAlarm"] is not None) == (kind == "tpms") and (p["bsdAlarm"] is not None) == (kind == "bsd")
        assert (p["videoAlarm"] is not None) == (kind == "video")
    first_adas = points[_ms(MARKED[0][1])]["adasAlarm"]
    assert first_adas["type"] == 1 and first_adas["level"] == 2 and first_adas["alarm_no"]["attachments"] == 2
    # platform-spec §3: tpmAlarm{alarmList[{type}]}, each tyre event with its type WORD and units
    tpm = points[_ms(MARKED[2][1])]["tpmAlarm"]
    assert tpm["alarmList"] == [
        {"tyre": 1, "type": 0b100, "pressure_kpa": 180, "temperature_c": 40, "battery_pct": 90},
        {"tyre": 2, "type": 0b1000, "pressure_kpa": 250, "temperature_c": 95, "battery_pct": 90}]
    assert "events" not in tpm and tpm["alarm_id"] == 3
    # platform-spec §3: videoAlarm is the 0x14 bitmask (bit 0 video signal lost)
    assert points[_ms(MARKED[4][1])]["videoAlarm"] == 0b1
    # Every other point: bit alarms named (the model's overspeed), no item fields; 0x14 = 0 is no alarm.
    others = [p for at, p in points.items() if at not in safety_car.item_times]
    assert all(p[f] is None for p in others for f in POINT_FIELDS[1:])
    assert all((p["alarmInfo"] is None) == (p["alarmType"] == 0) for p in others)
    assert {p["alarmInfo"] for p in others if p["alarmType"] == 2} == {"超速报警"}


def test_alarm_texts_follow_the_callers_language(client: FlaskClient, login: Login, safety_car: SafetyCar) -> None:
    english = _points(_track(client, {**login("admin_a"), **EN}, safety_car.car_id, maxPoints=0))
    hongkong = _points(_track(client, {**login("admin_a"), **HK}, safety_car.car_id, maxPoints=0))
    for at, kind in safety_car.item_times.items():
        assert english[at]["alarmInfo"] == EN_TEXT[kind]
    assert hongkong[_ms(MARKED[0][1])]["alarmInfo"] == "二級 前向碰撞報警"
    assert hongkong[_ms(MARKED[3][1])]["alarmInfo"] == "左側後方接近報警"


def test_thinning_over_gps_keeps_the_active_safety_points_with_their_fields(
    client: FlaskClient, login: Login, safety_car: SafetyCar
) -> None:
    # One hour at 10 s with maxPoints 200: buckets narrower than the summaries' resolution, so thinned from gps.
    start, end = datetime(2026, 7, 21, 2, 30, tzinfo=UTC), datetime(2026, 7, 21, 3, 30, tzinfo=UTC)
    headers = login("admin_a")
    every = _points(_track(client, headers, safety_car.car_id, start=start, end=end, maxPoints=0))
    thinned = _track(client, headers, safety_car.car_id, start=start, end=end, maxPoints=200)
    assert thinned["thinned"] is True and thinned["total"] == 360
    points = _points(thinned)
    adas = _ms(MARKED[0][1])
    assert adas in points and points[adas] == every[adas] and points[adas]["adasAlarm"] is not None
    assert {at for at, p in every.items() if p["alarmInfo"]} <= set(points)


def test_a_long_read_from_day_summaries_keeps_them_and_names_them_like_gps(
    client: FlaskClient, login: Login, safety_car: SafetyCar, pg_url: str
) -> None:
    headers = {**login("admin_a"), **EN}
    every = _points(_track(client, headers, safety_car.car_id, maxPoints=0))
    data = _track(client, headers, safety_car.car_id, maxPoints=300)
    stored = _summary(pg_url, safety_car.device_id, WHOLE_DAY)
    assert stored is not None and stored[0] == 8640  # the whole day came from its summary
    assert sorted(stored[1]) == sorted(str(_ms(at)) for _kind, at, _bits in MARKED[:5])  # the whole day's items
    assert data["thinned"] is True and data["total"] == len(every)
    points = _points(data)
    for at in safety_car.item_times:
        assert points[at] == every[at], at  # kept, field for field as the read of every fix
    assert {at for at, p in every.items() if p["alarmInfo"]} <= set(points)
    # the stops of every fix (the park with a TPMS report inside is still one stop)
    assert data["stops"] == _track(client, headers, safety_car.car_id, maxPoints=0)["stops"] and data["stops"]


def test_a_summary_made_before_alarm_items_were_kept_is_made_again(
    client: FlaskClient, login: Login, safety_car: SafetyCar, pg_url: str
) -> None:
    headers = login("admin_a")
    _track(client, headers, safety_car.car_id, maxPoints=300)
    with connect(pg_url) as conn:  # as migration 0023 leaves a summary written before it
        conn.execute("UPDATE track_day SET alarm_items = NULL, times = '{}' WHERE device_id = %s AND day = %s",
                     (safety_car.device_id, WHOLE_DAY))
        conn.commit()
    points = _points(_track(client, headers, safety_car.car_id, maxPoints=300))
    assert _ms(MARKED[1][1]) in points and points[_ms(MARKED[1][1])]["dsmAlarm"] is not None
    stored = _summary(pg_url, safety_car.device_id, WHOLE_DAY)
    assert stored is not None and len(stored[1]) == 5


def test_the_track_brings_the_cars_alarm_rows_of_the_range_with_their_names(
    client: FlaskClient, login: Login, safety_car: SafetyCar
) -> None:
    data = _track(client, login("admin_a"), safety_car.car_id, maxPoints=300)
    alarms = data["alarms"]
    assert [a["id"] for a in alarms] == [safety_car.alarm_ids[k] for k in ("adas", "platform", "open")]  # start order
    assert data["alarmsTruncated"] is False
    adas, platform, held = alarms
    assert adas == {"id": safety_car.alarm_ids["adas"], "key": "adas_1", "type": 5, "level": 2, "name": "二级 前向碰撞报警",
                    "start": _ms(MARKED[0][1]), "end": _ms(MARKED[0][1]), "lng": 116.45, "lat": 39.95, "speed": 42.0,
                    "state": 0, "atted": False}
    assert platform["name"] == "平台超速报警" and platform["end"] - platform["start"] == 300_000
    assert held["name"] == "紧急报警" and held["end"] is None
    english = _track(client, {**login("admin_a"), **EN}, safety_car.car_id, maxPoints=0)["alarms"]
    assert [a["name"] for a in english] == ["Level 2 Forward collision warning", "Platform overspeed alarm", "Emergency alarm"]


def test_another_enterprise_gets_404_for_the_track_and_its_alarms(
    client: FlaskClient, login: Login, safety_car: SafetyCar
) -> None:
    for fmt in ("json", "csv", "kml"):
        reply = client.get(f"/api/gps/car/{safety_car.car_id}/track.{fmt}", headers=login("admin_b"),
                           query_string={"start": _ms(START), "end": _ms(END), "isParent": "true"})
        assert reply.status_code == 404, fmt


def test_csv_export_has_the_alarm_text_quoted(client: FlaskClient, login: Login, safety_car: SafetyCar) -> None:
    end = START + timedelta(hours=2)
    reply = _track(client, login("admin_a"), safety_car.car_id, "csv", end=end)
    rows = list(csv.reader(io.StringIO(reply.get_data(as_text=True).lstrip("\ufeff"))))
    assert rows[0][-1] == "alarmInfo" and all(len(row) == 12 for row in rows)
    local = MARKED[5][1].astimezone(NAIVE_TIME_ZONE).isoformat()
    marked = next(row for row in rows if row[0] == local)
    assert marked[-1] == ZH["overspeed+adas"] and marked[9] == "2"
    assert all(row[-1] == "" for row in rows[1:] if row[9] == "0" and row[0] != local)


@pytest.mark.parametrize("fmt", ["gpx", "kml"])
def test_gpx_and_kml_carry_the_alarm_text(client: FlaskClient, login: Login, safety_car: SafetyCar, fmt: str) -> None:
    start, end = datetime(2026, 7, 21, 2, 55, tzinfo=UTC), datetime(2026, 7, 21, 3, 5, tzinfo=UTC)
    reply = _track(client, {**login("admin_a"), **EN}, safety_car.car_id, fmt, start=start, end=end)
    root = ET.fromstring(reply.get_data())
    texts = [el.text for el in root.iter() if el.tag.endswith("}desc" if fmt == "gpx" else "}name")]
    assert EN_TEXT["adas"] in texts
    if fmt == "kml":  # the track, then a Placemark where an alarm text starts, at its time
        kml = "{http://www.opengis.net/kml/2.2}"
        marks = {p.findtext(f"{kml}name"): p.findtext(f".//{kml}when") for p in root.iter(f"{kml}Placemark")}
        assert marks[EN_TEXT["adas"]] == "2026-07-21T03:00:10Z"
