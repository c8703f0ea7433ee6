"""Fences, label points and fence bindings (platform-spec §2 settings fence / labelPoint, §9) as declared entities.

- ``fence`` (table ``fence``, read through ``fence_view``, migrations 0040/0041): geometry in WGS-84 by shape
  (fleet/geofence/geometry.py), checked on every write by compiling it with fleet.geofence: a self-intersecting
  polygon, a radius or width not positive, a route without segments, a coordinate outside China, a shape the
  fence type or business type does not take are 400s naming ``geometry`` (or the field at fault).
  ``attributes`` is the array of attribute numbers (platform-spec §9: 1, 2, 3, 4, 5, 8, 14, 15), kept as a bit
  set. Deleting a fence removes it and its bindings (the terminal sync sends the delete from fence_sync).
- ``labelPoint``: a point or an area (label point type 1-6 by shape), business type 1-6 (platform-spec §9).
- ``fenceBinding`` (read only, ``fence_binding_view``): which vehicles a fence watches; bind / unbind / import
  are api/routes/fences.py.
Every route of the three checks the ``fence`` permission code (platform-spec §6 "fence (platform fence)").
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import time
from typing import Any

from api.errors import BadRequest
from api.query.grammar import EntityHooks, EntitySpec, FieldSpec
from fleet.geo import district_parts
from fleet.geofence import InvalidGeometry
from fleet.geofence.geometry import check_geometry

F = FieldSpec
PERMISSION = "fence"
FENCE_TYPES = (1, 2, 3, 4)  # stay-in-place, fence alarm, overspeed, route fence
BUSINESS_TYPES = (1, 2)  # platform, terminal
ATTRIBUTES = (1, 2, 3, 4, 5, 8, 14, 15)
# A terminal's area messages: 0x8600 circle, 0x8602 rectangle, 0x8604 polygon (one ring), 0x8606 route.
TERMINAL_SHAPES = ("circle", "rectangle", "polygon", "route")
AREA_SHAPES = ("circle", "rectangle", "polygon", "district")
# Label point types (platform-spec §9): 1 point, 2 circle, 3 rectangle, 4 polygon, 5 route, 6 district.
LABEL_POINT_SHAPES = {1: "point", 2: "circle", 3: "rectangle", 4: "polygon", 5: "route", 6: "district"}
HH_MM = r"(?:[01][0-9]|2[0-3]):[0-5][0-9]"


def geometry_problem(shape: str, geometry: Any) -> str | None:
    """The bilingual message of a geometry that cannot be this shape, else None."""
    try:
        check_geometry(shape, geometry, district_parts)
    except InvalidGeometry as exc:
        return f"围栏几何不合法 (field 'geometry': {str(exc)[:300]})"
    return None


def _bad(field: str, message: str) -> BadRequest:
    return BadRequest(message, data={"field": field})


def _attribute_list(value: Any) -> str | None:
    if not isinstance(value, list) or any(isinstance(v, bool) or v not in ATTRIBUTES for v in value):
        return f"围栏属性不合法 (attributes are a list of the numbers {', '.join(map(str, ATTRIBUTES))})"
    return None


def _not_null(values: dict[str, Any]) -> dict[str, Any]:
    """A remark sent as null is stored empty (the column is NOT NULL DEFAULT '')."""
    return {**values, "remark": ""} if "remark" in values and values["remark"] is None else values


def _clock(value: Any) -> time | None:
    return None if value is None else time.fromisoformat(value) if isinstance(value, str) else value


class FenceHooks(EntityHooks):
    cross_field_rules = True

    def before_write(self, conn: Any, who: Any, action: str, values: dict[str, Any],
                     before: Mapping[str, Any] | None) -> dict[str, Any]:
        values = _not_null(dict(values))
        if "attributes" in values:  # attribute n -> bit n
            values["attributes"] = sum(1 << n for n in set(values["attributes"] or []))
        for name in ("dailyStart", "dailyEnd"):
            if name in values:
                values[name] = _clock(values[name])
        old = dict(before or {})
        merged = {
            "fence_type": values.get("fenceType", old.get("fence_type")),
            "business_type": values.get("businessType", old.get("business_type")),
            "shape": values.get("shape", old.get("shape")),
            "geometry": values.get("geometry", old.get("geometry")),
            "start_time": values.get("startTime", old.get("start_time")),
            "end_time": values.get("endTime", old.get("end_time")),
            "daily_start": values.get("dailyStart", old.get("daily_start")),
            "daily_end": values.get("dailyEnd", old.get("daily_end")),
            "speed_limit": values.get("speedLimit", old.get("speed_limit")),
            "stay_limit": values.get("stayLimit", old.get("stay_limit")),
        }
        self._check(merged)
        return values

    @staticmethod
    def _check(fence: Mapping[str, Any]) -> None:
        shape, fence_type = fence["shape"], fence["fence_type"]
        if (fence_type == 4) != (shape == "route"):
            raise _bad("shape", "围栏形状与围栏类型不符 (field 'shape': a route fence (type 4) is a route, and a route "
                                "is a route fence)")
        if fence["business_type"] == 2 and shape not in TERMINAL_SHAPES:
            raise _bad("shape", "终端围栏只能是圆形、矩形、多边形或路线 (field 'shape': a terminal fence is a circle, "
                                "rectangle, polygon or route: JT/T 808 0x8600-0x8606)")
        problem = geometry_problem(shape, fence["geometry"])
        if problem:
            raise _bad("geometry", problem)
        if fence["business_type"] == 2 and shape == "polygon" and len(fence["geometry"]["rings"]) > 1:
            raise _bad("geometry", "终端围栏的多边形不能有洞 (field 'geometry': JT/T 808 0x8604 carries one ring, "
                                   "no holes)")
        for start, end, field in (("start_time", "end_time", "startTime"), ("daily_start", "daily_end", "dailyStart")):
            if (fence[start] is None) != (fence[end] is None):
                raise _bad(field, f"起止时间须同时填写 (field '{field}': give both ends of the time window or none)")
        if fence["start_time"] is not None and fence["start_time"] >= fence["end_time"]:
            raise _bad("endTime", "结束时间须晚于开始时间 (field 'endTime': the end must be after the start)")
        if fence_type == 3 and fence["speed_limit"] is None:
            raise _bad("speedLimit", "超速围栏须设置限速 (field 'speedLimit': an overspeed fence needs a speed limit)")
        if fence_type == 1 and fence["stay_limit"] is None:
            raise _bad("stayLimit", "停留围栏须设置停留时长 (field 'stayLimit': a stay-in-place fence needs a stay "
                                    "limit in seconds)")


CIRCLE_EXAMPLE = {"center": [116.397, 39.909], "radius": 500}

FENCE = EntitySpec(
    name="fence",
    relation="fence_view",
    table="fence",
    tenant_column="enterprise_id",
    permission=PERMISSION,
    label="电子围栏",
    hooks=FenceHooks(),
    default_order="id",
    default_desc=True,
    fields={
        "id": F("id", "int", label="编号"),
        "enterpriseId": F("enterprise_id", "int", create=True, label="企业"),
        # view columns (an expression: never written nor locked on the table)
        "enterpriseName": F("enterprise_name", expression="enterprise_name", label="企业名称", exportable=True),
        "name": F("name", required=True, max_length=64, unique=True, create=True, update=True, label="名称",
                  exportable=True),
        "fenceType": F("fence_type", "int", required=True, enum=FENCE_TYPES, create=True, update=True,
                       label="围栏类型", exportable=True),
        "businessType": F("business_type", "int", required=True, enum=BUSINESS_TYPES, create=True, update=True,
                          label="业务类型", exportable=True),
        "shape": F("shape", required=True, enum=AREA_SHAPES + ("route",), create=True, update=True,
                   label="形状", exportable=True),
        "geometry": F("geometry", "json", required=True, create=True, update=True, example=CIRCLE_EXAMPLE,
                      label="几何"),
        "attributes": F("attributes", "json", create=True, update=True, check=_attribute_list, example=[3, 5],
                        label="围栏属性"),
        "startTime": F("start_time", "time", create=True, update=True, example="2030-01-01T00:00:00+00:00",
                       label="开始时间", exportable=True),
        "endTime": F("end_time", "time", create=True, update=True, example="2030-12-31T10:00:00+00:00",
                     label="结束时间", exportable=True),
        "dailyStart": F("daily_start", pattern=HH_MM, create=True, update=True, example="07:00",
                        label="每日开始", exportable=True),
        "dailyEnd": F("daily_end", pattern=HH_MM, create=True, update=True, example="18:00",
                      label="每日结束", exportable=True),
        "speedLimit": F("speed_limit", "float", minimum=1, maximum=300, create=True, update=True,
                        label="限速(km/h)", exportable=True),
        "overspeedDuration": F("overspeed_duration", "int", minimum=0, maximum=3600, create=True, update=True,
                               label="超速持续时间(秒)", exportable=True),
        "nightSpeedLimit": F("night_speed_limit", "float", minimum=1, maximum=300, create=True, update=True,
                             label="夜间限速(km/h)", exportable=True),
        "stayLimit": F("stay_limit", "int", minimum=1, maximum=7 * 86400, create=True, update=True,
                       label="停留时长(秒)", exportable=True),
        "remark": F("remark", max_length=255, create=True, update=True, filterable=False, sortable=False,
                    label="备注", exportable=True),
        "bindCount": F("bind_count", "int", expression="bind_count", label="绑定车辆数", exportable=True),
        "createdAt": F("created_at", "time", label="创建时间", exportable=True),
        "updatedAt": F("updated_at", "time", label="更新时间"),
    },
)


class LabelPointHooks(EntityHooks):
    cross_field_rules = True

    def before_write(self, conn: Any, who: Any, action: str, values: dict[str, Any],
                     before: Mapping[str, Any] | None) -> dict[str, Any]:
        values = _not_null(values)
        old = dict(before or {})
        point_type = int(values.get("pointType", old.get("point_type")) or 0)
        problem = geometry_problem(LABEL_POINT_SHAPES.get(point_type, ""), values.get("geometry", old.get("geometry")))
        if problem:
            raise _bad("geometry", problem)
        return values


LABEL_POINT = EntitySpec(
    name="labelPoint",
    relation="label_point",
    table="label_point",
    tenant_column="enterprise_id",
    permission=PERMISSION,
    label="标注点",
    hooks=LabelPointHooks(),
    default_order="id",
    default_desc=True,
    fields={
        "id": F("id", "int", label="编号"),
        "enterpriseId": F("enterprise_id", "int", create=True, label="企业"),
        "name": F("name", required=True, max_length=64, unique=True, create=True, update=True, label="名称",
                  exportable=True),
        "pointType": F("point_type", "int", required=True, enum=tuple(LABEL_POINT_SHAPES), create=True, update=True,
                       label="标注点类型", exportable=True),
        "businessType": F("business_type", "int", required=True, enum=(1, 2, 3, 4, 5, 6), create=True, update=True,
                          label="业务类型", exportable=True),
        "geometry": F("geometry", "json", required=True, create=True, update=True,
                      example={"point": [116.397, 39.909]}, label="几何"),
        "remark": F("remark", max_length=255, create=True, update=True, filterable=False, sortable=False,
                    label="备注", exportable=True),
        "createdAt": F("created_at", "time", label="创建时间", exportable=True),
        "updatedAt": F("updated_at", "time", label="更新时间"),
    },
)

FENCE_BINDING = EntitySpec(
    name="fenceBinding",
    relation="fence_binding_view",
    tenant_column="enterprise_id",
    permission=PERMISSION,
    label="围栏绑定",
    id_field="carId",
    tiebreak=("fenceId", "carId"),
    default_order="createdAt",
    default_desc=True,
    fields={
        "fenceId": F("fence_id", "int", label="围栏编号", exportable=True),
        "fenceName": F("fence_name", label="围栏名称", exportable=True),
        "businessType": F("business_type", "int", label="业务类型"),
        "carId": F("car_id", "int", label="车辆编号"),
        "plateNumber": F("plate_number", label="车牌号", exportable=True),
        "enterpriseId": F("enterprise_id", "int", label="企业"),
        "createdAt": F("created_at", "time", label="绑定时间", exportable=True),
    },
)

FENCE_WRITABLE = (FENCE, LABEL_POINT)
FENCE_READ_ONLY = (FENCE_BINDING,)
