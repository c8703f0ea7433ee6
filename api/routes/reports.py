"""The report API (platform-spec §6, §7, §8). The report tables themselves are declared
entities (api/query/entities_reports.py: generic query / count / meta / export, ``report:query``); here
are the spec's calls that are not a plain list:

- ``POST /api/report/sum/car_year_report.json?select=`` sums of the year rows matching the body.
- ``GET /api/report/car/dayReport/query.json?carId&startDate&endDate[&select]``: one vehicle's day rows.
- ``POST|GET /api/report/car/dayReport/sum.json``: sums over the day rows of the range (POST: of the
  scope, grouped by ``group`` when given; GET: of one vehicle).
- ``POST /api/report/car/dayReport/page/sum.json``: those grouped sums paged (group default ``carId``;
  with ``days`` and ``activeDays`` of each group: 出车天数, and the plate of a vehicle group).
- ``POST /api/report/addAndSum/car_month_report.json?sum&group``: month rows summed per group plus the total.
- ``GET /api/report/car/carModel/sum.json``: vehicles and vehicles online now per car model.
- ``POST /api/report/count/device_day_report.json``, ``POST /api/report/distinctCount/device_month_report.json``
  and ``.../device_year_report.json`` (``distinct=deviceId|carId``): the alarm counter calls of §7, body
  conditions such as ``date.eq`` / ``month.eq`` / ``year.eq`` and ``{alarmType}.gt=0``.
- ``GET /api/report/kpi/enterprise.json?startDate&endDate``: the regulator KPIs (docs/kpi.md) per enterprise
  and in total over a range of days.

Scope (platform-spec §6): ``enterpriseId`` (inside the caller's tree, else 404; the caller's own when
absent) and its subtree unless ``isParent=false``; a ``carId`` must be a vehicle of the caller's tree (else 404).
Dates: ``startDate`` / ``endDate`` as yyyymmdd or YYYY-MM-DD, both included, at most 366 days apart.
Fallbacks (§8): counts are 0 when nothing matches, sums are null.
"""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal
from typing import Any

from flask import Blueprint, request
from psycopg import sql

from api.db import get_db
from api.errors import BadRequest, NotFound
from api.http import json_body, ok
from api.query.entities_reports import (
    CAR_DAY_REPORT,
    CAR_MONTH_REPORT,
    CAR_YEAR_REPORT,
    DEVICE_DAY_REPORT,
    DEVICE_MONTH_REPORT,
    DEVICE_YEAR_REPORT,
)
from api.query.grammar import Condition, EntitySpec, parse_conditions_only
from api.query.sqlgen import column, compile_where
from api.query.values import MAX_ID, parse_positive_int
from api.security import current_principal, report_scope, requires
from warehouse.queries.scope import Scope
from warehouse.reports import queries as q

bp = Blueprint("reports", __name__)

MAX_RANGE_DAYS = 366
KEY_FIELDS = frozenset({"carId", "deviceId", "driverId", "enterpriseId", "groupId", "date", "month", "year",
                        "mileageSource", "runtimeSource", "driverSource"})
GROUPS = frozenset({"carId", "plateNumber", "date", "month", "year", "enterpriseId", "groupId", "driverId",
                    "deviceId"})
_DAY = re.compile(r"^(\d{4})-?(\d{2})-?(\d{2})$")


def summable(entity: EntitySpec) -> list[str]:
    return [n for n, f in entity.fields.items() if f.type in ("int", "float") and n not in KEY_FIELDS]


def _names(raw: str | None, allowed: list[str] | frozenset[str], what: str, entity: EntitySpec) -> list[str]:
    if not raw:
        return []
    names = list(dict.fromkeys(raw.split(",")))
    bad = [n for n in names if n not in allowed or n not in entity.fields]
    if bad:
        raise BadRequest(f"不支持的{what} (unknown {what} field(s) for {entity.name}: {', '.join(bad)[:200]})")
    return names


def _day(name: str, raw: str | None, *, required: bool = True) -> int | None:
    if raw is None or raw == "":
        if required:
            raise BadRequest(f"缺少 {name} (give {name} as yyyymmdd or YYYY-MM-DD)")
        return None
    found = _DAY.match(raw)
    try:
        if found is None:
            raise ValueError(raw)
        day = date(int(found[1]), int(found[2]), int(found[3]))
    except ValueError:
        raise BadRequest(f"{name} 不是日期 ({name} must be yyyymmdd or YYYY-MM-DD, got {raw[:20]!r})") from None
    return day.year * 10000 + day.month * 100 + day.day


def _range(args: Any, *, required: bool = True) -> tuple[int | None, int | None]:
    first, last = _day("startDate", args.get("startDate"), required=required), _day(
        "endDate", args.get("endDate"), required=required)
    if first is not None and last is not None:
        span = (_as_date(last) - _as_date(first)).days
        if span < 0:
            raise BadRequest("startDate 晚于 endDate (startDate must not be after endDate)")
        if span >= MAX_RANGE_DAYS:
            raise BadRequest(f"查询时间范围不能超过 {MAX_RANGE_DAYS} 天 (the range may not exceed {MAX_RANGE_DAYS} days)")
    return first, last


def _as_date(key: int) -> date:
    return date(key // 10000, key // 100 % 100, key % 100)


def _body() -> Any:
    body = json_body()
    if body is not None and not isinstance(body, dict):
        raise BadRequest("请求体必须是查询条件的 JSON 对象 (request body must be a JSON object of conditions)")
    return body


def _where(entity: EntitySpec, scope: Scope, body: Any, extra: tuple[Condition, ...] = ()) -> tuple[sql.Composed, list[Any]]:
    query = parse_conditions_only(entity, {}, body)
    query = query.__class__(**{**query.__dict__, "conditions": (*query.conditions, *extra)})
    return compile_where(query, scope)


def _date_conditions(first: int | None, last: int | None) -> tuple[Condition, ...]:
    out: list[Condition] = []
    if first is not None:
        out.append(Condition("date", "gte", first))
    if last is not None:
        out.append(Condition("date", "lte", last))
    return tuple(out)


def _car_scope(car_id: int) -> Scope:
    """The caller's tree, after checking the vehicle is in it (404 otherwise)."""
    principal = current_principal()
    scope = Scope(principal.enterprise_id, principal.enterprise_path, subtree=True)
    with get_db().connection() as conn:
        found = q.car_in_scope(conn, scope, car_id)
    if not found:
        raise NotFound(f"车辆 {car_id} 不存在 (vehicle {car_id} does not exist)")
    return scope


def _columns(entity: EntitySpec, names: list[str]) -> dict[str, sql.Composable]:
    return {n: column(entity, n) for n in names}


def _clean(row: dict[str, Any]) -> dict[str, Any]:
    """Decimal sums (PostgreSQL's sum of bigint) as JSON numbers: integers stay integers."""
    return {k: (int(v) if v == v.to_integral_value() else float(v)) if isinstance(v, Decimal) else v
            for k, v in row.items()}


# --- year sums ---------------------------------------------------------------------------------------


@bp.post("/api/report/sum/car_year_report.json")
@requires("report", "query")
def car_year_sum() -> dict[str, Any]:
    """{field: sum} of ``select`` (default every summable field) over the scope's year rows matching the body
    (e.g. ``year.eq``); null sums when nothing matches."""
    names = _names(request.args.get("select"), summable(CAR_YEAR_REPORT), "select", CAR_YEAR_REPORT) or summable(
        CAR_YEAR_REPORT)
    where, params = _where(CAR_YEAR_REPORT, report_scope(), _body())
    with get_db().connection() as conn:
        rows = q.sums(conn, CAR_YEAR_REPORT.relation, _columns(CAR_YEAR_REPORT, names), where, params)
    return ok(_clean(rows[0]))


# --- day reports of one vehicle -------------------------------------------------------------------------


def _car_id() -> int:
    return parse_positive_int("carId", request.args.get("carId") or None, 0, MAX_ID) or _missing("carId")


def _missing(name: str) -> int:
    raise BadRequest(f"缺少 {name} ({name} is required)")


@bp.get("/api/report/car/dayReport/query.json")
@requires("report", "query")
def car_day_query() -> dict[str, Any]:
    """The vehicle's day rows in the range, oldest first (``select``: the carDayReport fields to give)."""
    car_id = _car_id()
    first, last = _range(request.args)
    listable = list(CAR_DAY_REPORT.listable)
    names = _names(request.args.get("select"), listable, "select", CAR_DAY_REPORT) or listable
    scope = _car_scope(car_id)
    where, params = _where(CAR_DAY_REPORT, scope, None, (Condition("carId", "eq", car_id),
                                                        *_date_conditions(first, last)))
    with get_db().connection() as conn:
        return ok(q.rows(conn, "car_day_report", _columns(CAR_DAY_REPORT, names), where, params, "date"))


@bp.get("/api/report/car/dayReport/sum.json")
@requires("report", "query")
def car_day_sum_one() -> dict[str, Any]:
    """{field: sum} over the vehicle's day rows in the range (null sums when it has none)."""
    car_id = _car_id()
    first, last = _range(request.args)
    names = _names(request.args.get("select"), summable(CAR_DAY_REPORT), "select", CAR_DAY_REPORT) or summable(
        CAR_DAY_REPORT)
    where, params = _where(CAR_DAY_REPORT, _car_scope(car_id), None,
                           (Condition("carId", "eq", car_id), *_date_conditions(first, last)))
    with get_db().connection() as conn:
        return ok(_clean(q.sums(conn, "car_day_report", _columns(CAR_DAY_REPORT, names), where, params)[0]))


def _grouped(entity: EntitySpec, names: list[str], group: list[str]) -> tuple[dict[str, sql.Composable],
                                                                              dict[str, sql.Composable]]:
    sums = _columns(entity, names)
    keys = {g: column(entity, g) for g in group if g != "plateNumber"}
    if entity is CAR_DAY_REPORT and group:
        sums = {**sums, "days": sql.SQL("1"), "activeDays": sql.SQL("(active)::int")}
    if "plateNumber" in group or ("carId" in group and "plateNumber" in entity.fields):
        # a vehicle's plate is the same in its rows; as a key it would split a renamed vehicle
        sums = {**sums, "plateNumber": sql.SQL("NULL")}
    return sums, keys


def _plates(conn: Any, rows: list[dict[str, Any]]) -> None:
    ids = [r["carId"] for r in rows if r.get("carId") is not None]
    if not ids or "plateNumber" not in rows[0]:
        return
    plates = q.plate_numbers(conn, ids)
    for r in rows:
        r["plateNumber"] = None if r.get("carId") is None else plates.get(r["carId"])


def _sum_rows(conn: Any, entity: EntitySpec, sums: dict[str, sql.Composable], keys: dict[str, sql.Composable],
              where: sql.Composed, params: list[Any], *, limit: int | None = None, offset: int = 0) -> list[dict[str, Any]]:
    real = {k: v for k, v in sums.items() if k != "plateNumber"}
    rows = q.sums(conn, entity.relation, real, where, params, keys, limit=limit, offset=offset)
    if "plateNumber" in sums:
        for r in rows:
            r["plateNumber"] = None
        _plates(conn, rows)
    return [_clean(r) for r in rows]


@bp.post("/api/report/car/dayReport/sum.json")
@requires("report", "query")
def car_day_sum() -> dict[str, Any]:
    """Sums over the scope's day rows in the range (and the body's conditions): one object, or a list of
    ``group`` rows (comma list of carId, date, enterpriseId, groupId, driverId, deviceId, plateNumber)."""
    first, last = _range(request.args)
    names = _names(request.args.get("select"), summable(CAR_DAY_REPORT), "select", CAR_DAY_REPORT) or summable(
        CAR_DAY_REPORT)
    group = _names(request.args.get("group"), GROUPS, "group", CAR_DAY_REPORT)
    where, params = _where(CAR_DAY_REPORT, report_scope(), _body(), _date_conditions(first, last))
    sums, keys = _grouped(CAR_DAY_REPORT, names, group)
    with get_db().connection() as conn:
        if not keys:
            return ok(_clean(q.sums(conn, "car_day_report", _columns(CAR_DAY_REPORT, names), where, params)[0]))
        return ok(_sum_rows(conn, CAR_DAY_REPORT, sums, keys, where, params))


@bp.post("/api/report/car/dayReport/page/sum.json")
@requires("report", "query")
def car_day_page_sum() -> dict[str, Any]:
    """The grouped sums of ``dayReport/sum`` paged: ``{list, pageNo, pageSize, total}`` (group default carId)."""
    first, last = _range(request.args)
    names = _names(request.args.get("select"), summable(CAR_DAY_REPORT), "select", CAR_DAY_REPORT) or summable(
        CAR_DAY_REPORT)
    group = _names(request.args.get("group"), GROUPS, "group", CAR_DAY_REPORT) or ["carId"]
    page_no = parse_positive_int("pageNo", request.args.get("pageNo"), 1)
    page_size = parse_positive_int("pageSize", request.args.get("pageSize"), 10)
    if page_size > CAR_DAY_REPORT.max_page_size:
        raise BadRequest(f"每页条数 {page_size} 超过上限 {CAR_DAY_REPORT.max_page_size} "
                         f"(pageSize {page_size} exceeds the maximum {CAR_DAY_REPORT.max_page_size})")
    where, params = _where(CAR_DAY_REPORT, report_scope(), _body(), _date_conditions(first, last))
    sums, keys = _grouped(CAR_DAY_REPORT, names, group)
    with get_db().connection() as conn:
        if not keys:  # grouped by the plate alone: by vehicle
            keys = {"carId": column(CAR_DAY_REPORT, "carId")}
        rows = _sum_rows(conn, CAR_DAY_REPORT, sums, keys, where, params, limit=page_size,
                         offset=(page_no - 1) * page_size)
        total = q.group_count(conn, "car_day_report", sql.SQL(", ").join(keys.values()), where, params)
    return ok({"list": rows, "pageNo": page_no, "pageSize": page_size, "total": total})


@bp.post("/api/report/addAndSum/car_month_report.json")
@requires("report", "query")
def car_month_add_and_sum() -> dict[str, Any]:
    """``{list: [group values + sums], sum: {sums of all}}`` of the scope's month rows matching the body
    (e.g. ``month.gte`` / ``month.lte``); ``sum`` names the fields (default every summable one), ``group``
    the grouping (default none: an empty list)."""
    names = _names(request.args.get("sum"), summable(CAR_MONTH_REPORT), "sum", CAR_MONTH_REPORT) or summable(
        CAR_MONTH_REPORT)
    group = _names(request.args.get("group"), GROUPS, "group", CAR_MONTH_REPORT)
    where, params = _where(CAR_MONTH_REPORT, report_scope(), _body())
    sums, keys = _grouped(CAR_MONTH_REPORT, names, group)
    with get_db().connection() as conn:
        total = _clean(q.sums(conn, "car_month_report", _columns(CAR_MONTH_REPORT, names), where, params)[0])
        rows = _sum_rows(conn, CAR_MONTH_REPORT, sums, keys, where, params) if keys else []
    return ok({"list": rows, "sum": total})


@bp.get("/api/report/car/carModel/sum.json")
@requires("report", "query")
def car_model_sum() -> dict[str, Any]:
    """[{carModelId, carModelName, vehicles, online}] of the scope's live vehicles (no model: null id)."""
    scope = report_scope()
    with get_db().connection() as conn:
        return ok(q.car_model_sums(conn, scope))


# --- alarm counters (platform-spec §7) -------------------------------------------------------------------


@bp.post("/api/report/count/device_day_report.json")
@requires("report", "query")
def device_day_count() -> dict[str, Any]:
    """Rows of device_day_report matching the body (e.g. ``date.eq`` and ``{alarmType}.gt=0``); 0 when none."""
    where, params = _where(DEVICE_DAY_REPORT, report_scope(), _body())
    with get_db().connection() as conn:
        return ok(q.count(conn, "device_day_report", where, params))


def _distinct(entity: EntitySpec) -> dict[str, Any]:
    distinct = request.args.get("distinct") or "deviceId"
    if distinct not in ("deviceId", "carId"):
        raise BadRequest(f"distinct 只能是 deviceId 或 carId (distinct must be deviceId or carId, got {distinct[:40]!r})")
    where, params = _where(entity, report_scope(), _body())
    with get_db().connection() as conn:
        return ok(q.count(conn, entity.relation, where, params, column(entity, distinct)))


@bp.post("/api/report/distinctCount/device_month_report.json")
@requires("report", "query")
def device_month_distinct() -> dict[str, Any]:
    """Distinct terminals (``distinct=deviceId``, default) or vehicles (``carId``) of the month rows matching
    the body (``month.eq``, ``{alarmType}.gt=0``)."""
    return _distinct(DEVICE_MONTH_REPORT)


@bp.post("/api/report/distinctCount/device_year_report.json")
@requires("report", "query")
def device_year_distinct() -> dict[str, Any]:
    """As the month call, over the year rows (``year.eq``)."""
    return _distinct(DEVICE_YEAR_REPORT)


# --- KPI --------------------------------------------------------------------------------------------------


@bp.get("/api/report/kpi/enterprise.json")
@requires("report", "query")
def kpi_enterprise() -> dict[str, Any]:
    """``{summary, list}``: the regulator KPI counts and ratios of the scope over the range, in total and per
    enterprise (docs/kpi.md)."""
    first, last = _range(request.args)
    assert first is not None and last is not None
    scope = report_scope()
    with get_db().connection() as conn:
        return ok(q.kpi_period(conn, scope, first, last))


def semantic_paths() -> list[str]:
    """Documented paths where a schema-valid request may still be a 400: date ranges (order, length),
    field names checked against the report entities, body conditions in the list grammar."""
    return ["/api/report/sum/car_year_report.json", "/api/report/car/dayReport/query.json",
            "/api/report/car/dayReport/sum.json", "/api/report/car/dayReport/page/sum.json",
            "/api/report/addAndSum/car_month_report.json", "/api/report/count/device_day_report.json",
            "/api/report/distinctCount/device_month_report.json",
            "/api/report/distinctCount/device_year_report.json", "/api/report/kpi/enterprise.json"]
