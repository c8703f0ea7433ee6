"""The vehicle detail page's one read (platform-spec §2 detail pages): ``GET /api/car/{carId}/detail.json``.

The car (another enterprise's answers 404), its devices with their SIM cards, its driver, the current
state of the shown device (``deviceId`` when it is one of the car's, else the master): online from the
device state, business state and ACC; its last position with the address; today's mileage (the fleet
figure of the car since midnight UTC+8: sane odometer deltas, warehouse/queries/fleet_figures.py, so an
odometer jump never reads as thousands of km) and today's alarm points (positions with alarm bits; alarm records
are the alarm API's); photos: its terminals' latest (``device_upload_file``, ``source: terminal``, with
``objectKey`` / ``fileStoreType``), then its driver's (``source: driver``).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from flask import Blueprint, request

from api.db import get_db
from api.errors import NotFound
from api.http import ok
from api.positions import position_reply
from api.query.values import MAX_ID, parse_positive_int
from api.security import request_scope, requires
from api.services import geocoder, v_max_kmh
from fleet.enums import DeviceState
from fleet.geo import NO_ADDRESS
from fleet.media_store import content_type
from protocols.china_time import local_midnight
from warehouse.queries import car_detail, fleet_figures, media

bp = Blueprint("car_detail", __name__)

ALARM_POINTS = 50  # today's alarm points listed (the count covers all of them)
PHOTOS = 6


def _bits(alarm: int) -> list[int]:
    return [bit for bit in range(32) if (alarm >> bit) & 1]


def _device(row: dict[str, Any]) -> dict[str, Any]:
    sim_keys = {"simId": "id", "simIccid": "iccid", "simMsisdn": "msisdn", "simOperator": "operator",
                "simExpireDate": "expireDate"}
    device = {k: v for k, v in row.items() if k not in sim_keys}
    device["online"] = 1 if row["state"] == DeviceState.ONLINE else 0
    device["sim"] = None if row["simId"] is None else {name: row[key] for key, name in sim_keys.items()}
    return device


def _position(row: dict[str, Any] | None) -> dict[str, Any] | None:
    if row is None:
        return None
    reply = position_reply(row)
    found = geocoder().reverse(float(row["lng"]), float(row["lat"])) if row["lng"] is not None else NO_ADDRESS
    return {key: reply[key] for key in ("time", "lng", "lat", "speed", "direction", "altitude", "mileage",
                                        "oilmass", "alarmType", "state", "acc")} | {"address": found.as_dict()}


@bp.get("/api/car/<int:car_id>/detail.json")
@requires("car", "get")
def car_detail_read(car_id: int) -> dict[str, Any]:
    raw_device = request.args.get("deviceId")
    wanted = None if raw_device in (None, "") else parse_positive_int("deviceId", raw_device, 0, MAX_ID)
    since = local_midnight()
    with get_db().connection() as conn:
        car = car_detail.car(conn, request_scope(), car_id)
        if car is None:
            raise NotFound(f"car {car_id} 不存在 (does not exist)")
        devices = [_device(row) for row in car_detail.devices(conn, car_id, car["masterDeviceId"])]
        by_id = {device["id"]: device for device in devices}
        if wanted is not None and wanted not in by_id:
            raise NotFound(f"device {wanted} 不是该车辆的终端 (is not a device of this car)")
        master = by_id.get(car["masterDeviceId"])
        shown = by_id.get(wanted) if wanted is not None else master
        today: dict[str, Any] = {"since": since, "mileageKm": None, "points": 0, "alarmCount": 0, "alarms": []}
        position = None
        if shown is not None:
            position = _position(car_detail.last_position(conn, shown["id"]))
            today |= car_detail.day_points(conn, shown["id"], since)
            if car["masterDeviceId"] is not None:  # the car's figure is its master device's
                today["mileageKm"] = fleet_figures.device_mileage(conn, int(car["masterDeviceId"]), since,
                                                                  datetime.now(UTC), v_max_kmh())
            count, alarms = car_detail.alarm_points(conn, shown["id"], since, ALARM_POINTS)
            today |= {"alarmCount": count, "alarms": [a | {"bits": _bits(int(a["alarmType"]))} for a in alarms]}
        photo_ids = [car["driverPhotoId"]] if car["driverPhotoId"] is not None else []
        # the terminals' latest photos (device_upload_file, bytes at /file{objectKey}), then the driver's
        photos = [p | {"source": "terminal", "contentType": content_type(p["objectKey"])}
                  for p in media.latest_photos(conn, car_id, PHOTOS)]
        photos += [p | {"source": "driver"} for p in car_detail.photos(conn, photo_ids, PHOTOS)][:PHOTOS - len(photos)]
    driver_keys = ("driverId", "driverName", "driverPhone", "driverLicenseNo", "driverLicenseClass", "driverPhotoId")
    driver = None if car["driverId"] is None else {
        key[len("driver"):][0].lower() + key[len("driver") + 1:]: car[key] for key in driver_keys}
    return ok({
        "car": {k: v for k, v in car.items() if k not in driver_keys},
        "driver": driver,
        "devices": devices,
        "deviceId": shown["id"] if shown else None,
        "protocol": master["protocol"] if master else None,  # the page variant follows the master (platform-spec §2)
        "state": None if shown is None else {
            "online": shown["online"], "deviceState": shown["state"], "bizState": shown["bizState"], "acc": shown["acc"]},
        "position": position,
        "today": today,
        "photos": photos,
    })
