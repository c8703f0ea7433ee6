"""Platform parameters an administrator changes at run time (platform-spec §2 settings "param").

Each parameter here is an ``ApiSettings`` key whose value the API reads on every request it governs: the
configured value (environment) is its default, and a value an administrator set is stored in
``platform_param`` (migration 0057) and wins from the next request on, in every process, without a restart.
Only such keys belong here: what a process reads once at start (ports, database URL, pool sizes, timeouts of
the servers) and every secret (tile and map keys, signing keys) never do, so an answer never carries one.

Failure modes: ``validate`` raises BadRequest naming the parameter, its type and its range.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from psycopg import Connection

from api.errors import BadRequest
from fleet.settings import ApiSettings
from warehouse.queries import platform_params as queries

# The console map's base layers (console-spec §9); what mapConfig offers and mapDefaultBaseLayer may name.
BASE_LAYERS = ("blank", "osm", "tianditu", "amap", "arcgis", "bing", "baidu", "google")


@dataclass(frozen=True)
class Param:
    """One run-time parameter: ``name`` on the wire, ``key`` in ``ApiSettings``; ``record_id`` its audit
    row's record id (stable: never reuse one)."""

    name: str
    key: str
    record_id: int
    kind: str  # int | float | choice
    unit: str | None = None  # the console names it: day | degree
    minimum: float | None = None
    maximum: float | None = None
    options: tuple[str, ...] = ()


PARAMS: tuple[Param, ...] = (
    # the bell's expiry windows (api/notices.py, the driver detail page)
    Param("noticeInsuranceDays", "notice_insurance_days", 1, "int", "day", 0, 3650),
    Param("noticeInspectionDays", "notice_inspection_days", 2, "int", "day", 0, 3650),
    Param("noticeLicenceDays", "notice_licence_days", 3, "int", "day", 0, 3650),
    # the licence overview warns this many days before the licence ends (GET /api/license/detail.json)
    Param("licenceWarningDays", "licence_warning_days", 4, "int", "day", 0, 3650),
    # the console map's starting view (GET /api/system/mapConfig.json)
    Param("mapCenterLng", "map_center_lng", 5, "float", "degree", -180, 180),
    Param("mapCenterLat", "map_center_lat", 6, "float", "degree", -90, 90),
    Param("mapDefaultBaseLayer", "map_default_base_layer", 7, "choice", options=BASE_LAYERS),
)
BY_NAME = {param.name: param for param in PARAMS}
NAMES = tuple(BY_NAME)


def effective(conn: Connection[Any], settings: ApiSettings) -> ApiSettings:
    """``settings`` with the values an administrator set (a stored value no longer valid, e.g. after an
    option was removed, is ignored: the configured one applies)."""
    return _applied(settings, queries.overrides(conn, NAMES))


def _applied(settings: ApiSettings, stored: dict[str, dict[str, Any]]) -> ApiSettings:
    update: dict[str, Any] = {}
    for name, row in stored.items():
        try:
            update[BY_NAME[name].key] = validate(BY_NAME[name], row["value"])
        except BadRequest:
            continue
    return settings.model_copy(update=update) if update else settings


def validate(param: Param, value: Any) -> Any:
    """``value`` as the parameter's type; BadRequest naming the parameter and what it accepts."""
    field = {"field": param.name}
    if param.kind == "choice":
        if not isinstance(value, str) or value not in param.options:
            raise BadRequest(f"参数 {param.name} 只能是 {', '.join(param.options)} "
                             f"(parameter {param.name} must be one of {', '.join(param.options)})", data=field)
        return value
    is_number = isinstance(value, int | float) and not isinstance(value, bool)
    if param.kind == "int" and not (is_number and float(value).is_integer()):
        raise BadRequest(f"参数 {param.name} 必须是整数 (parameter {param.name} must be an integer)", data=field)
    if param.kind == "float" and not (is_number and math.isfinite(value)):
        raise BadRequest(f"参数 {param.name} 必须是数字 (parameter {param.name} must be a number)", data=field)
    assert param.minimum is not None and param.maximum is not None
    if not param.minimum <= value <= param.maximum:
        low, high = _shown(param, param.minimum), _shown(param, param.maximum)
        raise BadRequest(f"参数 {param.name} 必须在 {low} 到 {high} 之间 "
                         f"(parameter {param.name} must be between {low} and {high})", data=field)
    return int(value) if param.kind == "int" else float(value)


def _shown(param: Param, bound: float) -> int | float:
    return int(bound) if param.kind == "int" else bound


def listing(conn: Connection[Any], configured: ApiSettings) -> list[dict[str, Any]]:
    """Every parameter with its current value, its default (the configured value), type, unit, range or
    options, and who set it when (null while it has its default)."""
    stored = queries.overrides(conn, NAMES)
    current = _applied(configured, stored)
    rows = []
    for param in PARAMS:
        row = stored.get(param.name)
        rows.append({
            "name": param.name, "id": param.record_id, "type": param.kind, "unit": param.unit,
            "value": getattr(current, param.key), "default": getattr(configured, param.key),
            "min": None if param.minimum is None else _shown(param, param.minimum),
            "max": None if param.maximum is None else _shown(param, param.maximum),
            "options": list(param.options) or None,
            "updatedBy": row["updatedBy"] if row else None, "updatedAt": row["updatedAt"] if row else None,
        })
    return rows
