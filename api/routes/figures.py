"""``GET /api/fleet/figures.json``: the fleet's figures at one moment, the same numbers every screen shows
(warehouse/queries/fleet_figures.py holds their one definition): the dashboard and the cockpits read
this, the map's counts, the bell, the alarm counters and a vehicle's detail use the same queries.

``data = {total, online, offline, running, parking, flameout, noSignal, alarming, todayMileageKm,
topToday: [{carId, plateNumber, km}], todayAlarms, unhandled, since, at}``: ``since`` is local midnight
(UTC+8), ``at`` the moment of the figures (epoch milliseconds). ``type`` (1-3, platform-spec §9): only
the cars of that energy type (the new-energy cockpit); the alarm figures are null then (they are the
enterprise's). Needs ``car:query``; ``todayAlarms`` and ``unhandled`` are null for a caller without
``alarm:query``. Scope: the caller's enterprise and its subsidiaries (``isParent=false``:
the enterprise only).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from flask import Blueprint, current_app, request

from api.db import get_db
from api.http import ok
from api.query.values import parse_positive_int
from api.security import current_principal, request_scope, requires
from api.services import v_max_kmh
from protocols.china_time import local_midnight
from warehouse.queries import fleet_figures

bp = Blueprint("figures", __name__)

TODAY_MILEAGE_KEY = "fleet.today_mileage"
CAR_TYPES = 3  # platform-spec §9 energy types: 1 fuel, 2 new-energy, 3 hybrid
TOP_TODAY = 10


def today_mileage() -> fleet_figures.TodayMileage:
    """The process's one ``TodayMileage`` (every caller and scope shares its incremental sums)."""
    found = current_app.extensions.get(TODAY_MILEAGE_KEY)
    if found is None:
        found = current_app.extensions.setdefault(TODAY_MILEAGE_KEY, fleet_figures.TodayMileage(v_max_kmh()))
    return found


@bp.get("/api/fleet/figures.json")
@requires("car", "query")
def fleet_figures_read() -> dict[str, Any]:
    now = datetime.now(UTC)
    since = local_midnight(now)
    raw_type = request.args.get("type")
    car_type = None if raw_type is None else parse_positive_int("type", raw_type, 0, CAR_TYPES)
    alarms = current_principal().may("alarm", "query")
    with get_db().connection() as conn:
        km = today_mileage().by_device(conn, since, now)
        figures = fleet_figures.figures(conn, request_scope(), since, km, alarms=alarms, car_type=car_type,
                                        top=TOP_TODAY)
    return ok({**figures, "since": since, "at": int(now.timestamp() * 1000)})
