"""The alarm API (console-spec §5/§7, platform-spec §6/§7). Lists and counts of ``alarm``,
``safetyAlarm``, ``myAlarm`` and ``alarmConfirmRecord`` are the generic routes (api/query/entities_alarms.py);
here is what is not a plain list:

- ``POST /api/common/alarm/{id}/confirm.json`` ``{state 1-4, opinion <= 250}``: the handling with the caller
  as confirmer, a confirm record, then 0x8203 ``{messageSeq, alarmType}`` through the one command path
  (``api/command_send.send``) when the alarm's key is a confirmable terminal bit (platform-spec §9) and the
  terminal is online. ``data = {alarm, commandId | null}``, message "保存成功！".
- ``POST /api/common/alarm/{id}/ignore.json`` ``{opinion?}``: state 2, opinion "告警已忽略" when none.
- ``PATCH /api/common/alarm/{id}.json``: the framework update of state and opinion (audited).
- ``POST /api/report/distinctCount/device_alarm.json`` and ``POST /api/report/sum/device_alarm.json``:
  ``enterpriseId`` (inside the caller's tree, else 404; the caller's own when absent), its subsidiaries too
  unless ``isParent=false`` (``subtree_requested``).
- ``POST /api/query/notice.json``: the unhandled alarms as notices of bizType 6 and a superior platform's
  messages and warning tips (JT/T 809 0x9302 / 0x9402, notice_view) of bizType 5 (the bell's list).
- ``GET /api/dashboard/alarmCounts.json?range=today|week|month`` (days start at midnight UTC+8).
- ``GET /api/dashboard/alarmBoard.json?range=today|week|month[&enterpriseId]``: the alarm dashboard's levels,
  handled / unhandled, trend per hour (today) or day, top vehicles and enterprises of the range.
The caller's notification settings (``/api/alarm/notify/settings.json``) are api/routes/alarm_notify.py.
Another enterprise's alarm answers 404 like a missing one.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from typing import Any

from flask import Blueprint, current_app, request

from api import platform_params
from api.command_send import send
from api.db import get_db
from api.errors import ApiError, BadRequest, NotFound, request_language
from api.http import json_body, json_object, ok
from api.notices import NOTICE, current_notices
from api.query import records
from api.query.entities_alarms import ALARM, ALARM_UPDATE, OPINION_MAX
from api.query.grammar import Condition, Query, parse_query
from api.query.runner import fetch_by_id, run_page
from api.query.values import coerce
from api.security import authenticated, current_principal, report_scope, request_scope, requires
from fleet.alarm_catalog import ALARMS, AlarmKind, alarm_def, describe
from fleet.enums import DeviceState
from fleet.settings import ApiSettings
from protocols.china_time import CHINA_TZ, local_midnight
from warehouse.queries import alarms as q
from warehouse.queries import commands as command_queries
from warehouse.queries import fleet_figures
from warehouse.queries import notices as notice_queries

log = logging.getLogger(__name__)
bp = Blueprint("alarms", __name__)

SAVED = "保存成功！"
IGNORED_OPINION = "告警已忽略"
HANDLING_STATES = (1, 2, 3, 4)
RANGES = ("today", "week", "month")

# --- confirm / ignore / update ----------------------------------------------------------------------


def _opinion(body: dict[str, Any]) -> str | None:
    opinion = body.get("opinion")
    if opinion is None or opinion == "":
        return None
    if not isinstance(opinion, str):
        raise BadRequest("处理意见必须是文本 (opinion must be text)", data={"field": "opinion"})
    if len(opinion) > OPINION_MAX:
        raise BadRequest(f"处理意见不能超过{OPINION_MAX}个字符 (opinion may not exceed {OPINION_MAX} characters)",
                         data={"field": "opinion"})
    return opinion


def confirm_mask(alarm: dict[str, Any]) -> int:
    """The 0x0200 bit 0x8203 confirms for this alarm: its own, when its key is a confirmable terminal bit
    (platform-spec §9, console-spec §7 "if the alarm key requires it"), else 0. Other bits held in the
    report that raised it are not this alarm's: each is an alarm of its own, confirmed when it is handled
    (a DSM alarm raised while the emergency button is held must not release the button)."""
    found = alarm_def(str(alarm["key"]))
    if found is None or found.kind != AlarmKind.TERMINAL or not found.confirmable:
        return 0
    return 1 << int(found.key[1:])


def _handle(alarm_id: int, state: int, opinion: str | None, *, confirm: bool) -> dict[str, Any]:
    principal = current_principal()
    scope = request_scope()
    now = datetime.now(UTC)
    with get_db().connection() as conn:
        with conn.transaction():
            alarm = q.lock_alarm(conn, scope, alarm_id)
            if alarm is None:
                raise NotFound(f"报警 {alarm_id} 不存在 (alarm {alarm_id} does not exist)")
            mask = confirm_mask(alarm) if confirm else 0
            record_id = q.handle(conn, alarm, state=state, opinion=opinion, now=now, user_id=principal.user_id,
                                 user_name=principal.user_name, alarm_type=mask,
                                 alarm_desc=describe(alarm["key"], alarm["level"]))
        target = command_queries.device(conn, scope, alarm["device_id"]) if mask else None
    command_id = None
    if target is not None and target["state"] == DeviceState.ONLINE:
        try:
            command_id = send(target, "8203", {"messageSeq": alarm["message_seq"] or 0, "alarmType": mask})["id"]
        except ApiError as exc:  # the handling stands; the terminal keeps its bit until confirmed again
            log.warning("alarm %s: 8203 not sent: %s", alarm_id, exc)
    with get_db().connection() as conn:
        if command_id is not None:
            q.set_record_command(conn, record_id, command_id)
        row = fetch_by_id(conn, ALARM, alarm_id, scope)
    return {"code": 0, "message": SAVED, "data": {"alarm": row, "commandId": command_id}}


def _existing(alarm_id: int) -> dict[str, Any]:
    with get_db().connection() as conn:
        row = fetch_by_id(conn, ALARM, alarm_id, request_scope())
    if row is None:
        raise NotFound(f"报警 {alarm_id} 不存在 (alarm {alarm_id} does not exist)")
    return row


@bp.post("/api/common/alarm/<int:alarm_id>/confirm.json")
@requires("alarm", "update")
def confirm(alarm_id: int) -> dict[str, Any]:
    body = json_object()
    _existing(alarm_id)  # another enterprise's alarm is a 404 whatever the body
    state = body.get("state")
    if isinstance(state, bool) or state not in HANDLING_STATES:
        raise BadRequest("处理状态必须是 1-4 (state must be 1 processing, 2 finished, 3 no action or 4 later)",
                         data={"field": "state"})
    return _handle(alarm_id, int(state), _opinion(body), confirm=True)


@bp.post("/api/common/alarm/<int:alarm_id>/ignore.json")
@requires("alarm", "update")
def ignore(alarm_id: int) -> dict[str, Any]:
    _existing(alarm_id)
    return _handle(alarm_id, 2, _opinion(json_object()) or IGNORED_OPINION, confirm=False)


@bp.patch("/api/common/alarm/<int:alarm_id>.json")
@requires("alarm", "update")
def update(alarm_id: int) -> dict[str, Any]:
    """state and opinion through the framework (checked, audited); other fields are refused."""
    scope = request_scope()
    with get_db().connection() as conn:
        records.update(conn, ALARM_UPDATE, current_principal(), scope, alarm_id, json_body())
        return ok(fetch_by_id(conn, ALARM, alarm_id, scope))


@bp.get("/api/common/alarm/<int:alarm_id>.json")
@requires("alarm", "get")
def detail(alarm_id: int) -> dict[str, Any]:
    return ok(_existing(alarm_id))


# --- reports (platform-spec §6/§7) -------------------------------------------------------------------


def _report_conditions(*, allow_exists: bool) -> tuple[datetime | None, datetime | None, list[str]]:
    """(since, until, alarm keys) of a report body: startTime.gte/gt/lt/lte and ``<key>.exists=true``."""
    body = json_object()
    items = [(k, v) for k, v in body.items() if k != "conditions"]
    nested = body.get("conditions")
    if nested is not None:
        if not isinstance(nested, dict):
            raise BadRequest("conditions 必须是 JSON 对象 ('conditions' must be a JSON object of field.op keys)")
        items.extend(nested.items())
    since = until = None
    keys: list[str] = []
    for name, value in items:
        field, _, op = name.rpartition(".")
        if field == "startTime" and op in ("gte", "gt", "lt", "lte"):
            moment = coerce(name, "time", value)
            if moment is None:
                raise BadRequest(f"'{name}' 需要一个值 ('{name}' needs a value, got null)")
            if op in ("gte", "gt"):
                since = moment if since is None else max(since, moment)
            else:
                until = moment if until is None else min(until, moment)
        elif allow_exists and op == "exists" and field in ALARMS:
            if value is not True:
                raise BadRequest(f"'{name}' 只接受 true ('{name}' only accepts true)")
            keys.append(field)
        else:
            raise BadRequest(f"不支持的条件 (unknown condition for device_alarm: {name[:80]})")
    return since, until, keys


@bp.post("/api/report/distinctCount/device_alarm.json")
@requires("alarm", "query")
def distinct_count() -> dict[str, Any]:
    """How many devices (``distinct=deviceId``) or cars (``carId``) raised alarms matching the body."""
    distinct = request.args.get("distinct") or "deviceId"
    columns = {"deviceId": "device_id", "carId": "car_id"}
    if distinct not in columns:
        raise BadRequest(f"distinct 只能是 deviceId 或 carId (distinct must be deviceId or carId, got {distinct[:40]!r})")
    scope = report_scope()
    since, until, keys = _report_conditions(allow_exists=True)
    with get_db().connection() as conn:
        return ok(q.distinct_count(conn, scope, columns[distinct], since=since, until=until, keys=keys))


@bp.post("/api/report/sum/device_alarm.json")
@requires("alarm", "query")
def sum_by_key() -> dict[str, Any]:
    """{key: alarms} for each alarm key of ``select``; without it, every catalogue key and any other key
    (a fence's) that has alarms. A key without alarms answers 0, never null or a missing key (platform-spec §8:
    alarm counts fall back to 0)."""
    raw = request.args.get("select") or ""
    keys = list(dict.fromkeys(raw.split(","))) if raw else []
    unknown = [k for k in keys if k not in ALARMS]
    if unknown:
        raise BadRequest(f"未知的报警类型 (unknown alarm key(s): {', '.join(map(repr, unknown))[:200]})")
    scope = report_scope()
    since, until, _ = _report_conditions(allow_exists=False)
    with get_db().connection() as conn:
        counts = q.counts_by_key(conn, scope, since=since, until=until, keys=keys or None)
    return ok({k: counts.get(k, 0) for k in keys or ALARMS} | ({} if keys else counts))


# --- notices (console-spec §7; the entity and its rules: api/notices.py) ------------------------------


def _api_settings() -> ApiSettings:
    settings: ApiSettings = current_app.config["FLEET_API_SETTINGS"]
    return settings


@bp.post("/api/query/notice.json")
@authenticated
def notices() -> dict[str, Any]:
    """The bell's open notices of the caller's scope, all six kinds it may read (api/notices.py), as
    ``{id, bizType, bizId, title, content, kind, read, daysLeft, createTime, ...}``, newest first; ``countable``,
    ``pageNo``, ``pageSize``, ``select``, ``orderBy``, ``desc`` as in lists."""
    parsed = parse_query(NOTICE, request.args, json_body())
    with get_db().connection() as conn:
        # the expiry windows are run-time parameters (api/platform_params.py): read per request
        query = current_notices(parsed, current_principal(), platform_params.effective(conn, _api_settings()))
        return ok(run_page(conn, query, request_scope()))


@bp.post("/api/notice/<int:notice_id>/read.json")
@authenticated
def notice_read(notice_id: int) -> dict[str, Any]:
    """Marks an announcement (bizType 5) of the caller's as read (again: no change): ``{id, read: 1}``; 404 for
    one the caller is not in the audience of, like a missing one."""
    query = Query(entity=NOTICE, select=("id",), page_size=1, conditions=(
        Condition("id", "eq", notice_id), Condition("kind", "eq", "announcement")))
    scope = request_scope()
    with get_db().connection() as conn:
        if not run_page(conn, query, scope)["list"]:
            raise NotFound(f"公告 {notice_id} 不存在 (announcement {notice_id} not found)")
        notice_queries.mark_read(conn, notice_id, current_principal().user_id)
    return ok({"id": notice_id, "read": 1})


# --- dashboard (console-spec §1) ------------------------------------------------------------------------


def range_start(name: str, now: datetime) -> datetime:
    """Start of today / this week (Monday) / this month in UTC+8."""
    midnight = local_midnight(now)
    if name == "week":
        return midnight - timedelta(days=midnight.weekday())
    if name == "month":
        return midnight.replace(day=1)
    return midnight


@bp.get("/api/dashboard/alarmCounts.json")
@requires("alarm", "query")
def alarm_counts() -> dict[str, Any]:
    """{alarmingVehicles, unhandled, activeSafety, byType: [{key, desc, count}]}: vehicles with an alarm,
    active-safety alarms and alarms per type since the start of the range (``today`` when absent), most
    frequent first; ``unhandled`` is the fleet figure (every alarm nobody handled yet, whatever its day:
    the bell's number, warehouse/queries/fleet_figures.py)."""
    since = range_start(_range_name(), datetime.now(CHINA_TZ))
    with get_db().connection() as conn:
        counts = q.dashboard_counts(conn, request_scope(), since.date())
        counts["unhandled"] = fleet_figures.unhandled(conn, request_scope())
    by_type = sorted(counts.pop("byKey").items(), key=lambda item: (-item[1], item[0]))
    language = request_language()
    return ok({**counts, "byType": [{"key": k, "desc": describe(k, None, language), "count": c}
                                    for k, c in by_type]})


def _range_name() -> str:
    name = request.args.get("range", "today")  # absent: today; present, it must be one of the three (even empty)
    if name not in RANGES:
        raise BadRequest(f"range 只能是 today、week 或 month (range must be today, week or month, got {name[:20]!r})")
    return name


def _trend(rows: list[tuple[datetime, int]], since: datetime, now: datetime, by_hour: bool) -> list[dict[str, Any]]:
    """Every hour (today) or day (week, month) from ``since`` to ``now`` (UTC+8), with 0 where none."""
    counts = {bucket: n for bucket, n in rows}
    step = timedelta(hours=1) if by_hour else timedelta(days=1)
    at, end = since.replace(tzinfo=None), now.replace(tzinfo=None)
    buckets = []
    while at <= end:
        buckets.append({"at": at.strftime("%Y-%m-%d %H:00" if by_hour else "%Y-%m-%d"), "count": counts.get(at, 0)})
        at += step
    return buckets


@bp.get("/api/dashboard/alarmBoard.json")
@requires("alarm", "query")
def alarm_board() -> dict[str, Any]:
    """The alarm dashboard (platform-spec §2 dashboard alarm, console-spec §1) since the start of the range:
    {total, unhandled, handled, byLevel: [{level, count}], trend: [{at, count}] per hour today else per day
    (UTC+8), topVehicles: [{carId, plateNumber, count, unhandled}], topEnterprises: [{enterpriseId,
    enterpriseName, count, unhandled}]}. Scope as the reports': ``enterpriseId`` inside the caller's tree
    (else 404) and its subsidiaries unless ``isParent=false``. ``total`` is the sum of alarmCounts' byType."""
    name = _range_name()
    now = datetime.now(CHINA_TZ)
    since = range_start(name, now)
    by_hour = name == "today"
    scope = report_scope()
    with get_db().connection() as conn:
        board = q.dashboard_board(conn, scope, since, by_hour=by_hour)
    levels = sorted(board.pop("byLevel").items(), key=lambda item: (item[0] is None, item[0] or 0))
    return ok({**board, "byLevel": [{"level": level, "count": n} for level, n in levels],
               "trend": _trend(board["trend"], since, now, by_hour)})


def semantic_paths() -> list[str]:
    """Documented paths where a schema-valid request may still be a 400: report conditions and keys, notice
    fields and alarm keys of the settings are checked against the catalogue, hours against each other (the
    contract fuzzer knows them)."""
    return ["/api/report/distinctCount/device_alarm.json", "/api/report/sum/device_alarm.json",
            "/api/query/notice.json", "/api/alarm/notify/settings.json",
            # the effective rules' alarmRule (a JSON object) filters with exists only
            "/api/common/query/alarmLevelUserSettingRuleView.json",
            # an enterpriseId outside the caller's tree is a 404, as the reports'
            "/api/dashboard/alarmBoard.json"]
