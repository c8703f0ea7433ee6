"""History logs (platform-spec §2 logs) as read-only declared entities, listed, filtered, paged and exported
by the generic routes and the one list page:

- ``gpsLog``: a vehicle's fixes (``gps_log_view``, migration 0011); needs the vehicle and a time range
  (``Window``: gps is far too large to scan), oldest first (console-spec §3 "GPS record").
- ``onlineLog``: terminal online / offline transitions; ``accStateLog``: ACC on / off transitions
  (platform-spec §7, default order createTime descending). Both per vehicle or for the whole scope.
- ``tpmsLog``: a vehicle's tyre readings (``tpms_log_view``, migration 0055): one row per tyre of a fix
  with item 0x66 tyre events (pressure kPa, temperature °C, battery %, the event's type WORD and its
  names in the caller's language) or item 0x05 pressures (the byte as sent); needs the vehicle and a
  time range, oldest first, like the GPS log.
- ``parkLog`` / ``idlingLog``: computed (``EntitySpec.provider``): the vehicle's master terminal's
  fixes in the range through ``fleet.stops.detect_stops``; each row with its address
  (``fleet.geo.reverse_geocode``). A stop already going at the range's start begins there; one still
  going at its end ends at the last fix and is marked ``ongoing``.

Every row carries the vehicle's plate number. Tenant: the enterprise that recorded the row.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from psycopg import Connection

from api.query.grammar import EntitySpec, FieldSpec, Query, Window, window_of
from fleet.geo import reverse_geocode
from fleet.settings import ApiSettings
from fleet.stops import Stop, StopThresholds, detect_stops
from warehouse.queries import logs
from warehouse.queries.scope import Scope
from warehouse.queries.track_alarms import tpms_names_sql

F = FieldSpec
ON_OFF = (0, 1)


def history_max_days() -> int:
    return ApiSettings().history_max_days


GPS_LOG = EntitySpec(
    name="gpsLog",
    relation="gps_log_view",
    tenant_column="enterprise_id",
    permission="gpsLog",
    id_field="time",
    tiebreak=("time", "deviceId"),
    default_order="time",
    max_page_size=1000,
    window=Window("carId", "time", history_max_days),
    label="GPS日志",
    fields={
        "time": F("fix_at", "time", label="定位时间", exportable=True),
        "carId": F("car_id", "int", ref="carView", label="车辆"),
        "plateNumber": F("plate_number", label="车牌号", exportable=True),
        "deviceId": F("device_id", "int", label="终端编号"),
        "devicePhone": F("device_phone", label="终端手机号", exportable=True),
        "enterpriseId": F("enterprise_id", "int", label="企业"),
        "lng": F("lng", "float", label="经度", exportable=True),
        "lat": F("lat", "float", label="纬度", exportable=True),
        "speed": F("speed_kmh", "float", label="速度(km/h)", exportable=True),
        "direction": F("direction_deg", "int", label="方向", exportable=True),
        "altitude": F("altitude_m", "float", label="海拔(m)", exportable=True),
        "mileage": F("mileage_km", "float", label="里程(km)", exportable=True),
        "oilmass": F("fuel_l", "float", label="油量(L)", exportable=True),
        "acc": F("acc", "int", expression='"status_flags" & 1', enum=ON_OFF, label="ACC", exportable=True),
        "alarm": F("alarm_flags", "int", label="报警标志", exportable=True),
        "state": F("status_flags", "int", label="状态位", exportable=True),
        "receivedAt": F("received_at", "time", label="接收时间", exportable=True),
    },
)

# The items a tyre row comes from (migration 0055): 102 the 0x66 TPMS alarm events, 5 the 0x05 pressures.
TPMS_ITEMS = (5, 102)


def tpms_alarm_names(language: str) -> str:
    """SQL of a tyre row's alarm names in ``language`` (the set bits of its type WORD)."""
    return tpms_names_sql("alarm_type", language)


TPMS_LOG = EntitySpec(
    name="tpmsLog",
    relation="tpms_log_view",
    tenant_column="enterprise_id",
    permission="tpmsLog",
    id_field="time",
    tiebreak=("time", "deviceId", "item", "tyre"),
    default_order="time",
    max_page_size=1000,
    window=Window("carId", "time", history_max_days),
    label="胎压日志",
    fields={
        "time": F("fix_at", "time", label="定位时间", exportable=True),
        "carId": F("car_id", "int", ref="carView", label="车辆"),
        "plateNumber": F("plate_number", label="车牌号", exportable=True),
        "deviceId": F("device_id", "int", label="终端编号"),
        "devicePhone": F("device_phone", label="终端手机号", exportable=True),
        "enterpriseId": F("enterprise_id", "int", label="企业"),
        "item": F("item", "int", enum=TPMS_ITEMS, label="附加信息", exportable=True,
                  choices=((5, "0x05 胎压"), (102, "0x66 胎压监测"))),
        "tyre": F("tyre", "int", label="轮胎位置", exportable=True),
        "pressure": F("pressure_kpa", "int", label="胎压(kPa)", exportable=True),
        "pressureRaw": F("pressure_raw", "int", label="胎压(原始值)", exportable=True),
        "temperature": F("temperature_c", "int", label="胎温(°C)", exportable=True),
        "battery": F("battery_pct", "int", label="电池电量(%)", exportable=True),
        "alarmType": F("alarm_type", "int", label="报警类型字"),
        "alarmNames": F("alarm_names", expression=tpms_alarm_names("zh-CN"), localised=tpms_alarm_names,
                        filterable=False, sortable=False, label="报警类型", exportable=True),
        "lng": F("lng", "float", label="经度", exportable=True),
        "lat": F("lat", "float", label="纬度", exportable=True),
        "speed": F("speed_kmh", "float", label="速度(km/h)", exportable=True),
    },
)

ONLINE_LOG = EntitySpec(
    name="onlineLog",
    relation="online_log_view",
    tenant_column="enterprise_id",
    permission="onlineLog",
    id_field="time",
    tiebreak=("time", "deviceId", "state"),
    default_order="time",
    default_desc=True,
    label="上下线日志",
    fields={
        "time": F("at", "time", label="时间", exportable=True),
        "carId": F("car_id", "int", ref="carView", label="车辆"),
        "plateNumber": F("plate_number", label="车牌号", exportable=True),
        "deviceId": F("device_id", "int", label="终端编号"),
        "devicePhone": F("device_phone", label="终端手机号", exportable=True),
        "enterpriseId": F("enterprise_id", "int", label="企业"),
        "state": F("state", "int", enum=ON_OFF, label="状态", exportable=True),
        "reason": F("reason", label="原因", exportable=True),
    },
)

ACC_STATE_LOG = EntitySpec(
    name="accStateLog",
    relation="acc_state_log_view",
    tenant_column="enterprise_id",
    permission="accStateLog",
    id_field="createTime",
    tiebreak=("createTime", "deviceId"),
    default_order="createTime",
    default_desc=True,
    label="ACC状态日志",
    fields={
        "createTime": F("create_time", "time", label="时间", exportable=True),
        "carId": F("car_id", "int", ref="carView", label="车辆"),
        "plateNumber": F("plate_number", label="车牌号", exportable=True),
        "deviceId": F("device_id", "int", label="终端编号"),
        "devicePhone": F("device_phone", label="终端手机号", exportable=True),
        "enterpriseId": F("enterprise_id", "int", label="企业"),
        "state": F("state", "int", enum=ON_OFF, label="ACC状态", exportable=True),
        "lng": F("lng", "float", label="经度", exportable=True),
        "lat": F("lat", "float", label="纬度", exportable=True),
    },
)


def _address(stop: Stop) -> Callable[[], str | None]:
    """The stop's address, looked up only for the rows a page or an export answers."""
    def lookup() -> str | None:
        if stop.lng is None or stop.lat is None:
            return None
        try:
            return reverse_geocode(stop.lng, stop.lat).address or None
        except ValueError:  # coordinates outside the earth's ranges (a terminal's garbage fix)
            return None

    return lookup


def _stops_of(kind: str) -> Any:
    def rows(conn: Connection[Any], query: Query, scope: Scope) -> list[dict[str, Any]]:
        car_id, start, end = window_of(query)
        thresholds = StopThresholds.from_settings()
        track = logs.master_track(conn, scope, car_id, start, end, thresholds)
        if track is None:
            return []
        found = detect_stops(track.times_ms, track.speeds_kmh, track.acc_on, track.lngs, track.lats,
                             thresholds=thresholds)
        return [{
            "startTime": datetime.fromtimestamp(s.start_ms / 1000, UTC),
            "endTime": datetime.fromtimestamp(s.end_ms / 1000, UTC),
            "durationS": round(s.duration_s), "carId": track.car_id, "plateNumber": track.plate_number,
            "deviceId": track.device_id, "lng": s.lng, "lat": s.lat, "address": _address(s), "ongoing": s.ongoing,
        } for s in found if s.kind == kind]

    return rows


def _stop_log(name: str, kind: str, label: str) -> EntitySpec:
    return EntitySpec(
        name=name,
        relation="",
        tenant_column="",
        permission=name,
        id_field="startTime",
        default_order="startTime",
        default_desc=True,
        window=Window("carId", "startTime", history_max_days),
        provider=_stops_of(kind),
        label=label,
        fields={
            "startTime": F("start_time", "time", label="开始时间", exportable=True),
            "endTime": F("end_time", "time", label="结束时间", exportable=True),
            "durationS": F("duration_s", "int", label="时长(秒)", exportable=True),
            "carId": F("car_id", "int", ref="carView", label="车辆"),
            "plateNumber": F("plate_number", label="车牌号", exportable=True),
            "deviceId": F("device_id", "int", label="终端编号"),
            "lng": F("lng", "float", label="经度", exportable=True),
            "lat": F("lat", "float", label="纬度", exportable=True),
            "address": F("address", filterable=False, sortable=False, label="地址", exportable=True),
            "ongoing": F("ongoing", "bool", label="进行中", exportable=True),
        },
    )


PARK_LOG = _stop_log("parkLog", "park", "停车日志")
IDLING_LOG = _stop_log("idlingLog", "idle", "怠速日志")

LOG_ENTITIES = (GPS_LOG, TPMS_LOG, ONLINE_LOG, ACC_STATE_LOG, PARK_LOG, IDLING_LOG)
