"""The report API's reads beyond the generic list (api/routes/reports.py), scoped like every read
(``warehouse.queries.scope``): live per-enterprise counts, sums / grouped sums / distinct counts over the
report tables. Column names come from the API's entity whitelists, never from a request.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from psycopg import Connection, sql
from psycopg.rows import dict_row, tuple_row

from fleet.enums import DeviceState
from warehouse.queries.scope import Scope


def _rows(conn: Connection[Any], query: sql.Composed, params: Sequence[Any]) -> list[dict[str, Any]]:
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(query, params)
        return cur.fetchall()


def sums(conn: Connection[Any], relation: str, columns: dict[str, sql.Composable], where: sql.Composable,
         params: Sequence[Any], group: dict[str, sql.Composable] | None = None, *, limit: int | None = None,
         offset: int = 0) -> list[dict[str, Any]]:
    """``SELECT <group...>, sum(<col>) AS <name>... FROM relation WHERE ... GROUP BY <group>`` (one row without
    a group; sums over no row are null). ``columns`` / ``group``: API name -> SQL of a whitelisted column."""
    group = group or {}
    selected: list[sql.Composable] = [sql.SQL("{} AS {}").format(expr, sql.Identifier(name)) for name, expr in group.items()]
    selected += [sql.SQL("sum({}) AS {}").format(expr, sql.Identifier(name)) for name, expr in columns.items()]
    if not selected:
        selected = [sql.SQL("count(*) AS rows")]
    query = sql.SQL("SELECT {} FROM {}").format(sql.SQL(", ").join(selected), sql.Identifier(relation)) + where
    args = list(params)
    if group:
        keys = sql.SQL(", ").join(group.values())
        query += sql.SQL(" GROUP BY ") + keys + sql.SQL(" ORDER BY ") + keys
        if limit is not None:
            query += sql.SQL(" LIMIT %s OFFSET %s")
            args += [limit, offset]
    return _rows(conn, query, args)


def rows(conn: Connection[Any], relation: str, columns: dict[str, sql.Composable], where: sql.Composable,
         params: Sequence[Any], order_by: str) -> list[dict[str, Any]]:
    """``SELECT <col> AS <name>... FROM relation WHERE ... ORDER BY order_by``; ``columns``: API name -> SQL of
    a whitelisted column; ``order_by`` a column name of the relation."""
    selected = sql.SQL(", ").join(sql.SQL("{} AS {}").format(expr, sql.Identifier(name)) for name, expr in columns.items())
    query = (sql.SQL("SELECT {} FROM {}").format(selected, sql.Identifier(relation)) + where
             + sql.SQL(" ORDER BY {}").format(sql.Identifier(order_by)))
    return _rows(conn, query, params)


def car_in_scope(conn: Connection[Any], scope: Scope, car_id: int) -> bool:
    """Whether the live vehicle ``car_id`` is in ``scope`` (a report of one vehicle is a 404 otherwise)."""
    where, params = scope.clause(sql.Identifier("enterprise_id"))
    query = sql.SQL("SELECT 1 FROM car WHERE id = %s AND record_state = 1 AND ") + where
    return conn.execute(query, [car_id, *params]).fetchone() is not None


def plate_numbers(conn: Connection[Any], car_ids: list[int]) -> dict[int, str]:
    """car id -> plate number (deleted vehicles included: their old report rows keep their plate)."""
    with conn.cursor(row_factory=tuple_row) as cur:
        found = cur.execute("SELECT id, plate_number FROM car WHERE id = ANY(%s)", (car_ids,)).fetchall()
    return {int(car_id): plate for car_id, plate in found}


def group_count(conn: Connection[Any], relation: str, group: sql.Composable, where: sql.Composable,
                params: Sequence[Any]) -> int:
    """How many groups ``sums`` would answer (for ``total``)."""
    query = sql.SQL("SELECT count(*) FROM (SELECT 1 FROM {}").format(sql.Identifier(relation)) + where + sql.SQL(
        " GROUP BY ") + group + sql.SQL(") g")
    row = conn.execute(query, params).fetchone()
    return int(row[0]) if row else 0


def count(conn: Connection[Any], relation: str, where: sql.Composable, params: Sequence[Any],
          distinct: sql.Composable | None = None) -> int:
    what = sql.SQL("count(DISTINCT {})").format(distinct) if distinct is not None else sql.SQL("count(*)")
    row = conn.execute(sql.SQL("SELECT {} FROM {}").format(what, sql.Identifier(relation)) + where, params).fetchone()
    return int(row[0]) if row else 0


def car_model_sums(conn: Connection[Any], scope: Scope) -> list[dict[str, Any]]:
    """Per car model of the scope's live vehicles: vehicles and how many are online now (platform-spec §7)."""
    where, params = scope.clause(sql.Identifier("c", "enterprise_id"))
    query = sql.SQL("""
        SELECT c.car_model_id AS "carModelId", m.name AS "carModelName", count(*)::int AS vehicles,
               count(*) FILTER (WHERE d.state = %s)::int AS online
          FROM car c LEFT JOIN car_model m ON m.id = c.car_model_id LEFT JOIN device d ON d.id = c.master_device_id
         WHERE c.state = 1 AND c.record_state = 1 AND """) + where + sql.SQL(
        " GROUP BY c.car_model_id, m.name ORDER BY c.car_model_id NULLS LAST")
    return _rows(conn, query, [int(DeviceState.ONLINE), *params])


KPI_PERIOD = """
WITH cars AS (
    SELECT c.id AS car_id, c.enterprise_id, EXISTS (SELECT 1 FROM device_last l WHERE l.device_id = c.master_device_id)
           AS joined
      FROM car c WHERE c.record_state = 1 AND {scope}),
days AS (
    SELECT car_id, bool_or(online) AS online, sum(drift_points) AS drift_points, sum(qualified_points) AS qualified,
           sum(rejected_points) AS rejected, sum(total_km) AS total_km, sum(complete_km) AS complete_km,
           sum(online_s) AS online_s, sum(offline_s) AS offline_s, sum(overspeed_alarms) AS overspeed,
           sum(fatigue_s) AS fatigue_s
      FROM kpi_vehicle_day WHERE date BETWEEN %s AND %s GROUP BY car_id)
SELECT c.enterprise_id AS "enterpriseId", e.short_name AS "enterpriseName", count(*)::int AS vehicles,
       count(*) FILTER (WHERE c.joined)::int AS "joinedVehicles",
       count(*) FILTER (WHERE d.online)::int AS "onlineVehicles",
       count(*) FILTER (WHERE d.online AND d.drift_points > 0)::int AS "driftVehicles",
       coalesce(sum(d.drift_points), 0)::bigint AS "driftPoints",
       coalesce(sum(d.qualified), 0)::bigint AS "qualifiedPoints",
       coalesce(sum(d.qualified + d.rejected), 0)::bigint AS "totalPoints",
       coalesce(sum(d.total_km), 0)::float8 AS "totalKm", coalesce(sum(d.complete_km), 0)::float8 AS "completeKm",
       coalesce(sum(d.online_s), 0)::bigint AS "onlineS",
       coalesce(sum(d.offline_s) FILTER (WHERE c.joined), 0)::bigint AS "offlineS",
       coalesce(sum(d.overspeed), 0)::bigint AS "overspeedAlarms", coalesce(sum(d.fatigue_s), 0)::bigint AS "fatigueS"
  FROM cars c JOIN enterprise e ON e.id = c.enterprise_id LEFT JOIN days d ON d.car_id = c.car_id
 GROUP BY c.enterprise_id, e.short_name ORDER BY c.enterprise_id"""

RATIOS = (("joinRate", "joinedVehicles", "vehicles"), ("onlineRate", "onlineVehicles", "joinedVehicles"),
          ("completenessRate", "completeKm", "totalKm"), ("qualificationRate", "qualifiedPoints", "totalPoints"),
          ("driftRate", "driftVehicles", "onlineVehicles"), ("avgOverspeed", "overspeedAlarms", "onlineVehicles"),
          ("avgFatigueS", "fatigueS", "onlineVehicles"), ("avgOfflineS", "offlineS", "joinedVehicles"))


def with_ratios(row: dict[str, Any]) -> dict[str, Any]:
    """The KPI ratios of a row of counts (docs/kpi.md); null where the denominator is 0."""
    out = dict(row)
    for name, num, den in RATIOS:
        out[name] = float(row[num]) / float(row[den]) if row[den] else None
    out["connectivityRate"] = None  # the JT/T 809 link to the superior platform (data exchange)
    return out


def kpi_period(conn: Connection[Any], scope: Scope, first: int, last: int) -> dict[str, Any]:
    """KPIs of the scope's vehicles over days ``first..last`` (yyyymmdd): per enterprise and in total, each
    from numerators and denominators (a vehicle online on any day of the period counts once)."""
    where, params = scope.clause(sql.Identifier("c", "enterprise_id"))
    query = sql.SQL(KPI_PERIOD).format(scope=where)
    rows = _rows(conn, query, [*params, first, last])
    keys = [k for k in (rows[0] if rows else {}) if k not in ("enterpriseId", "enterpriseName")]
    total = {k: sum(r[k] for r in rows) for k in keys} if rows else {
        k: 0 for k in ("vehicles", "joinedVehicles", "onlineVehicles", "driftVehicles", "driftPoints", "qualifiedPoints",
                       "totalPoints", "totalKm", "completeKm", "onlineS", "offlineS", "overspeedAlarms", "fatigueS")}
    return {"summary": with_ratios(total), "list": [with_ratios(r) for r in rows]}
