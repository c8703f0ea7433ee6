"""The driver detail page's one read (platform-spec §2 detail pages: driver): ``GET /api/driver/{id}/detail.json``.

The driver (another enterprise's, a deleted or a missing one answers the same 404) with its enterprise and
photo id; ``licence``: the driving licence's expiry, days left in UTC+8 and ``noticeDays``, the window of
the bell's licence notices (the run-time parameter ``noticeLicenceDays``, api/platform_params.py), so the page warns exactly when the
bell does; ``card``: the latest IC card sign-in matched to the driver (0x0702: qualification certificate,
issuing authority, validity), null when none; ``vehicles``: the cars driven recently (IC card sign-ins,
then the car the driver is bound to); ``alarms``: counts since midnight / the 1st of the month (UTC+8)
and the latest alarms attributed to the driver (``alarm.driver_id``); ``grades``: the driver's driving-behaviour
scores of the latest ``RECENT_GRADES`` report days they drove (platform-spec §2 drivingGradeRule).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app

from api import platform_params
from api.db import get_db
from api.errors import NotFound
from api.http import ok
from api.security import request_scope, requires
from fleet.settings import ApiSettings
from protocols.china_time import local_midnight
from warehouse.queries import driver_detail

bp = Blueprint("driver_detail", __name__)

RECENT_VEHICLES = 10
RECENT_ALARMS = 20
RECENT_GRADES = 14


@bp.get("/api/driver/<int:driver_id>/detail.json")
@requires("driver", "get")
def driver_detail_read(driver_id: int) -> dict[str, Any]:
    settings: ApiSettings = current_app.config["FLEET_API_SETTINGS"]
    today = local_midnight()
    month = today.replace(day=1)
    with get_db().connection() as conn:
        driver = driver_detail.driver(conn, request_scope(), driver_id)
        if driver is None:
            raise NotFound(f"driver {driver_id} 不存在 (does not exist)")
        card = driver_detail.latest_card(conn, driver_id)
        vehicles = driver_detail.recent_vehicles(conn, driver_id, RECENT_VEHICLES)
        counts = driver_detail.alarm_counts(conn, driver_id, today, month)
        alarms = driver_detail.recent_alarms(conn, driver_id, RECENT_ALARMS)
        grades = driver_detail.recent_grades(conn, driver_id, RECENT_GRADES)
        # the bell's window is a run-time parameter (api/platform_params.py): the page warns as the bell does
        settings = platform_params.effective(conn, settings)
    licence = {"expire": driver.pop("licenceExpire"), "daysLeft": driver.pop("licenceDaysLeft"),
               "noticeDays": settings.notice_licence_days}
    return ok({"driver": driver, "licence": licence, "card": card, "vehicles": vehicles,
               "alarms": {"since": {"today": today, "month": month}, **counts, "latest": alarms}, "grades": grades})
