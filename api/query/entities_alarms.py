"""Alarms (platform-spec §2 lists) as declared entities: the alarm lists, the safety-alarm list, "my alarms" and the
confirm records (console-spec §3, platform-spec §2/§3/§7).

- ``alarm`` (``alarm_view``, migration 0018): every alarm of the scope, newest first; ``_id`` is an alias
  of ``id`` (the console filters ``_id.eq``); ``fleetName`` is the vehicle's group (车队), else the
  enterprise's name; ``desc`` is the catalogue's name in the caller's language with the level for
  ADAS/DSM ("一级 前向碰撞报警", "Level 1 Forward collision warning"), computed in SQL from
  ``fleet/alarm_catalog.py``. PATCH (state, opinion)
  is ``api/routes/alarms.py``; confirm and ignore are routes there too.
- ``safetyAlarm`` (``safety_alarm_view``, migration 0021): the same rows of types 5-8 (active safety).
- ``myAlarm``: the alarms of the scope, unhandled first, then newest first (the console asks with
  ``isParent=false``: "my" alarms are the caller's own enterprise's).
- ``alarmConfirmRecord``: one row per confirm or ignore, with the 8203 command it sent (``commandId``).
Paging: ``countable`` false by default, ``pageSize`` as sent (the console sends it only when above 0).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from functools import cache
from typing import Any

from api.query.grammar import EntityHooks, EntitySpec, FieldSpec
from fleet.alarm_catalog import (
    ALARMS,
    FENCE_KEY_PREFIXES,
    FENCE_KINDS,
    LEVELLED_KINDS,
    LEVELS,
    AlarmKind,
    describe,
    level_prefix,
)
from fleet.geo import InvalidCoordinates, reverse_geocode

F = FieldSpec
ALARM_STATES = (0, 1, 2, 3, 4)  # unhandled, processing, finished/ignored, no action, later
ALARM_TYPES = (1, 2, 3, 4, 5, 6, 7, 8, 9)  # fleet.alarm_catalog.AlarmKind (9: GB/T 32960 / GB 17691)
OPINION_MAX = 250  # console-spec §9: alarm remark max 250


def _literal(text: str) -> str:
    """A SQL string literal of catalogue text written in code (never request input)."""
    return "'" + text.replace("'", "''") + "'"


@cache
def desc_expression(language: str) -> str:
    """SQL of an alarm row's name in ``language`` as ``describe(key, level, language)`` answers it."""
    names = " ".join(f"WHEN {_literal(d.key)} THEN {_literal(describe(d.key, None, language))}"
                     for d in ALARMS.values())
    levelled = ", ".join(str(int(k)) for k in sorted(LEVELLED_KINDS))
    levels = " ".join(f"WHEN type IN ({levelled}) AND level = {level} THEN {_literal(level_prefix(level, language))}"
                      for level in LEVELS)
    # a fence alarm (type 4) has a key per fence: named by its kind, then its fence's name as the fence step
    # stored it (fleet.alarm_catalog.describe_alarm: "进区域报警 (东区车场)")
    kinds = " ".join(f"WHEN {_literal(f'{prefix}:{kind}')} THEN {_literal(describe(f'{prefix}:0:{kind}', None, language))}"
                     for prefix in FENCE_KEY_PREFIXES for kind in FENCE_KINDS)
    fence = (f"CASE split_part(key, ':', 1) || ':' || split_part(key, ':', 3) {kinds} ELSE key END"
             " || COALESCE(' (' || (details->>'fenceName') || ')', '')")
    expression = (f"CASE {levels} ELSE '' END || CASE WHEN type = {int(AlarmKind.FENCE)} THEN {fence}"
                  f" ELSE CASE key {names} ELSE key END END")
    assert "%" not in expression and "{" not in expression  # psycopg placeholders
    return expression


DESC_EXPRESSION = desc_expression("zh-CN")

# The safety dialog's "fleet name" (console-spec §2): the vehicle's group (车组/车队) as it is now, else the
# alarm's enterprise. ``car_id`` and ``enterprise_name`` are the alarm view's (car and car_group have
# neither column, so the unqualified names reach the outer row).
FLEET_NAME_EXPRESSION = (
    "COALESCE((SELECT fleet_group.name FROM car fleet_car"
    " JOIN car_group fleet_group ON fleet_group.id = fleet_car.group_id AND fleet_group.record_state = 1"
    " WHERE fleet_car.id = car_id), enterprise_name)"
)


# The deadline a superior platform's urging (JT/T 809 0x9401 督办, exchange/link) put on the alarm, if any
# (migration 0047's view has no ``id`` column, so ``id`` is the alarm row's).
URGING_DEADLINE_EXPRESSION = ("(SELECT urging_deadline FROM exchange_urging_deadline "
                              "WHERE urged_alarm_id = id)")


def _alarm_fields(*, writable: bool) -> dict[str, FieldSpec]:
    return {
        "id": F("id", "int", label="编号", exportable=True),
        "_id": F("id", "int", listable=False, label="编号"),
        "enterpriseId": F("enterprise_id", "int", label="企业"),
        "enterpriseName": F("enterprise_name", label="企业名称", exportable=True),
        "fleetName": F("fleet_name", expression=FLEET_NAME_EXPRESSION, filterable=False, sortable=False,
                       label="车队", exportable=True),
        "deviceId": F("device_id", "int", label="终端"),
        "carId": F("car_id", "int", label="车辆"),
        "plateNumber": F("plate_number", label="车牌号", exportable=True),
        "phone": F("phone", label="终端手机号", exportable=True),
        "driverId": F("driver_id", "int", label="司机"),
        "driverName": F("driver_name", label="司机", exportable=True),
        "type": F("type", "int", enum=ALARM_TYPES, label="报警类型", exportable=True),
        "key": F("key", label="报警标识"),
        "level": F("level", "int", label="报警级别", exportable=True),
        "desc": F("desc", expression=DESC_EXPRESSION, localised=desc_expression, label="报警描述", exportable=True),
        "startTime": F("start_time", "time", label="开始时间", exportable=True),
        "endTime": F("end_time", "time", label="结束时间", exportable=True),
        "lat": F("lat", "float", label="纬度", exportable=True),
        "lng": F("lng", "float", label="经度", exportable=True),
        "speed": F("speed", "float", label="速度(km/h)", exportable=True),
        "altitude": F("altitude", "float", label="高程(m)"),
        "address": F("address", label="地址", exportable=True),
        "alarmFlags": F("alarm_flags", "int", label="报警标志"),
        "messageSeq": F("message_seq", "int", label="流水号"),
        "warnUuid": F("warn_uuid", label="报警编号"),
        "attachmentCount": F("attachment_count", "int", label="附件数"),
        "atted": F("atted", "bool", label="有附件"),
        "state": F("state", "int", enum=ALARM_STATES, update=writable, label="处理状态", exportable=True),
        "opinion": F("opinion", max_length=OPINION_MAX, update=writable, filterable=False, sortable=False,
                     label="处理意见", exportable=True),
        "confirmTime": F("confirm_time", "time", label="处理时间", exportable=True),
        "confirmUserId": F("confirm_user_id", "int", label="处理人编号"),
        "confirmName": F("confirm_name", label="处理人", exportable=True),
        "urgingDeadline": F("urging_deadline", "time", expression=URGING_DEADLINE_EXPRESSION, filterable=False,
                            sortable=False, label="督办期限"),
        "backlog": F("backlog", "bool", label="补传"),
        "createTime": F("created_at", "time", label="创建时间"),
    }


class _AddressHooks(EntityHooks):
    """An alarm without a stored address gets the one of its point when listed or read (the product's reverse
    geocoder, fleet.geo: offline districts behind an LRU cache, microseconds a point), so no alarm list shows
    an empty address column; a point outside China or without coordinates stays empty."""

    def after_list(self, conn: Any, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [self.after_read(conn, row) for row in rows]

    def after_read(self, conn: Any, record: dict[str, Any]) -> dict[str, Any]:
        if "address" not in record or record["address"] or record.get("lng") is None or record.get("lat") is None:
            return record
        try:
            found = reverse_geocode(float(record["lng"]), float(record["lat"])).address
        except (InvalidCoordinates, ValueError):
            return record
        return {**record, "address": found or None}


def _alarm_entity(name: str, relation: str, label: str, **extra: object) -> EntitySpec:
    options: dict[str, object] = {"default_order": "startTime", "default_desc": True,
                                  "tiebreak": ("startTime", "id"), "hooks": _AddressHooks(), **extra}
    return EntitySpec(
        name=name, relation=relation, tenant_column="enterprise_id", permission="alarm", id_field="id",
        max_page_size=1000, label=label, fields=_alarm_fields(writable=name == "alarm"),
        **options,  # type: ignore[arg-type]
    )


ALARM = _alarm_entity("alarm", "alarm_view", "报警")


class _HandlingHooks(EntityHooks):
    """A PATCH that sets the state records the caller as the confirmer (like confirm)."""

    def before_write(self, conn: Any, who: Any, action: str, values: dict[str, Any],
                     before: Mapping[str, Any] | None) -> dict[str, Any]:
        if "state" in values:
            values = {**values, "confirmTime": datetime.now(UTC), "confirmUserId": who.user_id,
                      "confirmName": who.user_name}
        return values


# PATCH /api/common/alarm/{id}.json (api/routes/alarms.py): the written table's own columns only.
ALARM_UPDATE = EntitySpec(
    name="alarm", relation="alarm", table="alarm", tenant_column="enterprise_id", permission="alarm",
    hooks=_HandlingHooks(), label="报警",
    fields={name: spec for name, spec in _alarm_fields(writable=True).items()
            if name in ("id", "enterpriseId", "state", "opinion", "confirmTime", "confirmUserId", "confirmName")},
)
SAFETY_ALARM = _alarm_entity("safetyAlarm", "safety_alarm_view", "主动安全报警")
MY_ALARM = EntitySpec(
    name="myAlarm", relation="alarm_view", tenant_column="enterprise_id", permission="alarm", id_field="id",
    default_order="unhandled", default_desc=True, tiebreak=("startTime", "id"), max_page_size=1000,
    label="我的报警", hooks=_AddressHooks(),
    fields={**_alarm_fields(writable=False),
            "unhandled": F("unhandled", "int", expression="(state = 0)::int", label="未处理")},
)

ALARM_CONFIRM_RECORD = EntitySpec(
    name="alarmConfirmRecord",
    relation="alarm_confirm_record",
    tenant_column="enterprise_id",
    permission="alarm",
    id_field="id",
    tiebreak=("confirmTime", "id"),
    default_order="confirmTime",
    default_desc=True,
    max_page_size=1000,
    label="报警确认记录",
    fields={
        "id": F("id", "int", label="编号", exportable=True),
        "alarmId": F("alarm_id", "int", label="报警编号", exportable=True),
        "messageSeq": F("message_seq", "int", label="流水号", exportable=True),
        "deviceId": F("device_id", "int", label="终端"),
        "plateNumber": F("plate_number", label="车牌号", exportable=True),
        "enterpriseId": F("enterprise_id", "int", label="企业"),
        "alarmType": F("alarm_type", "int", label="确认报警位", exportable=True),
        "alarmDesc": F("alarm_desc", label="报警描述", exportable=True),
        "state": F("state", "int", enum=ALARM_STATES, label="处理状态", exportable=True),
        "opinion": F("opinion", filterable=False, sortable=False, label="处理意见", exportable=True),
        "confirmTime": F("confirm_time", "time", label="处理时间", exportable=True),
        "confirmUserId": F("confirm_user_id", "int", label="处理人编号"),
        "confirmName": F("confirm_name", label="处理人", exportable=True),
        "commandId": F("command_id", "int", label="指令编号"),
    },
)

# inOutAlarm (platform-spec §2 lists and reports): area / route in-out alarms of the terminal (bits 20/21, its
# 0x0200 items 0x11-0x13: keys tfence:<area id>:<kind>) and of the platform's fences (keys fence:<id>:<kind>),
# with the fence (in_out_alarm_view, migration 0041), named like every alarm row (desc_expression).
IN_OUT_ALARM = EntitySpec(
    name="inOutAlarm", relation="in_out_alarm_view", tenant_column="enterprise_id", permission="alarm",
    id_field="id", default_order="startTime", default_desc=True, tiebreak=("startTime", "id"), max_page_size=1000,
    label="进出区域报警", hooks=_AddressHooks(),
    fields={**_alarm_fields(writable=False),
            "desc": F("desc", expression=DESC_EXPRESSION, localised=desc_expression, label="报警描述",
                      exportable=True),
            "fenceId": F("fence_id", "int", label="围栏编号", exportable=True),
            "fenceName": F("fence_name", label="围栏名称", exportable=True),
            "source": F("source", enum=("platform", "terminal"), label="来源", exportable=True),
            "kind": F("kind", label="类别")},
)

ALARM_ENTITIES = (ALARM, SAFETY_ALARM, MY_ALARM, ALARM_CONFIRM_RECORD, IN_OUT_ALARM)
