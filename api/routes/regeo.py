"""Reverse geocoding (console-spec §7 ``GET /api/regeo/geocode.json``): a WGS-84 point -> address.

Served by ``fleet.geo`` (offline to district level, refined by an online provider when one is
configured). Outside China the address is "", not an error; bad lng/lat is a 400.
"""

from __future__ import annotations

import math
from typing import Any

from flask import Blueprint, request

from api.errors import BadRequest
from api.http import ok
from api.security import requires
from api.services import geocoder
from fleet.geo import InvalidCoordinates

bp = Blueprint("regeo", __name__)

def _coordinate(name: str) -> float:
    raw = request.args.get(name)
    if raw is None or not raw.strip():
        raise BadRequest(f"缺少参数 {name} (missing parameter {name})", data={"field": name})
    try:
        value = float(raw)
    except ValueError:
        raise BadRequest(f"参数 {name} 必须是数字 ({name} must be a number: {raw[:40]!r})",
                         data={"field": name}) from None
    if not math.isfinite(value):
        raise BadRequest(f"参数 {name} 必须是有限数字 ({name} must be a finite number)", data={"field": name})
    return value


@bp.get("/api/regeo/geocode.json")
@requires("gps", "get")
def geocode() -> dict[str, Any]:
    """``{address, province, city, district, adcode}`` of ``lng``/``lat`` (WGS-84, as terminals report)."""
    lng, lat = _coordinate("lng"), _coordinate("lat")
    try:
        found = geocoder().reverse(lng, lat)
    except InvalidCoordinates as exc:
        raise BadRequest(str(exc), data={"field": exc.field}) from None
    return ok(found.as_dict())
