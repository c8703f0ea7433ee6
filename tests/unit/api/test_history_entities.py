"""History entities (api/query/entities_logs.py): the window a read must name, and computed rows
filtered, sorted and paged by the same grammar as SQL rows (api/query/provided.py); no database."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from api.errors import BadRequest
from api.query.entities_logs import GPS_LOG
from api.query.grammar import (
    EntitySpec,
    FieldSpec,
    Query,
    Window,
    parse_conditions_only,
    parse_query,
    window_of,
)
from api.query.provided import provided_page
from warehouse.queries.scope import Scope

T0 = datetime(2026, 4, 10, 16, 0, tzinfo=UTC)
OWN = Scope(enterprise_id=3, enterprise_path="/1/3/")


def ranged(start: datetime, end: datetime, field: str = "time", **conditions: Any) -> dict[str, Any]:
    return {"carId": 5, **conditions, "rangeConditions": [{"fieldName": field, "start": start.isoformat(),
                                                           "end": end.isoformat()}]}


def test_a_history_read_names_the_vehicle_and_both_bounds() -> None:
    query = parse_query(GPS_LOG, {}, ranged(T0, T0 + timedelta(days=1)))
    assert window_of(query) == (5, T0, T0 + timedelta(days=1))
    for body in ({"rangeConditions": [{"fieldName": "time", "start": T0.isoformat(), "end": T0.isoformat()}]},
                 {"carId": 5, "rangeConditions": [{"fieldName": "time", "start": T0.isoformat()}]},
                 {"carId": 5}, {"carId.in": [5], "time.gte": T0.isoformat(), "time.lte": T0.isoformat()}):
        with pytest.raises(BadRequest, match=r"请选择车辆和时间范围 .*carId.*time"):
            parse_query(GPS_LOG, {}, body)
    with pytest.raises(BadRequest, match="请选择车辆和时间范围"):
        parse_conditions_only(GPS_LOG, {}, {"carId": 5})  # the count route too


def test_bounds_may_be_conditions_and_the_tightest_bounds_count() -> None:
    body = {"carId": 5, "time.gte": T0.isoformat(), "time.lt": (T0 + timedelta(days=40)).isoformat(),
            "rangeConditions": [{"fieldName": "time", "end": (T0 + timedelta(days=2)).isoformat()}]}
    assert window_of(parse_query(GPS_LOG, {}, body))[1:] == (T0, T0 + timedelta(days=2))


def test_the_range_limit_comes_from_the_window_and_names_its_days() -> None:
    assert parse_query(GPS_LOG, {}, ranged(T0, T0 + timedelta(days=31)))  # exactly the limit is fine
    with pytest.raises(BadRequest) as refused:
        parse_query(GPS_LOG, {}, ranged(T0, T0 + timedelta(days=31, milliseconds=1)))
    assert refused.value.message == "查询时间范围不能超过 31 天 (the time range may not exceed 31 days)"
    weekly = replace(GPS_LOG, window=Window("carId", "time", lambda: 7))
    with pytest.raises(BadRequest, match="不能超过 7 天"):
        parse_query(weekly, {}, ranged(T0, T0 + timedelta(days=8)))


ROWS = [
    {"startTime": T0 + timedelta(hours=h), "durationS": d, "carId": 5, "address": a, "ongoing": h == 3}
    for h, d, a in ((0, 900, "北京市东城区"), (1, 240, None), (2, 540, "北京市西城区"), (3, 200, "河北省廊坊市"))
]


def stops_entity(rows: list[dict[str, Any]]) -> EntitySpec:
    return EntitySpec(
        name="stops", relation="", tenant_column="", id_field="startTime", default_order="startTime",
        default_desc=True, window=Window("carId", "startTime", lambda: 31),
        provider=lambda conn, query, scope: [dict(r) for r in rows],
        fields={"startTime": FieldSpec("start_time", "time"), "durationS": FieldSpec("duration_s", "int"),
                "carId": FieldSpec("car_id", "int"), "address": FieldSpec("address"),
                "ongoing": FieldSpec("ongoing", "bool")},
    )


def page(params: dict[str, str], **conditions: Any) -> tuple[list[dict[str, Any]], int]:
    entity = stops_entity(ROWS)
    query: Query = parse_query(entity, params, ranged(T0, T0 + timedelta(days=1), "startTime", **conditions))
    return provided_page(None, query, OWN)


def test_provided_rows_take_the_entitys_default_order_and_pages() -> None:
    rows, total = page({"pageSize": "3"})
    assert total == 4 and [r["durationS"] for r in rows] == [200, 540, 240]
    rows, total = page({"pageSize": "3", "pageNo": "2"})
    assert total == 4 and [r["durationS"] for r in rows] == [900]
    rows, _ = page({"select": "durationS,address"})
    assert set(rows[0]) == {"durationS", "address"}


def test_provided_rows_are_filtered_by_the_grammar() -> None:
    assert [r["durationS"] for r in page({}, **{"durationS.gte": 500})[0]] == [540, 900]
    assert [r["durationS"] for r in page({}, **{"address.like": "北京"})[0]] == [540, 900]
    assert [r["durationS"] for r in page({}, **{"address.rlike": "河北"})[0]] == [200]
    assert [r["durationS"] for r in page({}, **{"address.exists": False})[0]] == [240]
    assert [r["durationS"] for r in page({}, **{"durationS.in": [240, 200]})[0]] == [200, 240]
    assert [r["durationS"] for r in page({}, ongoing=True)[0]] == [200]


def test_sorting_provided_rows_puts_nulls_last_ascending_and_first_descending() -> None:
    assert [r["address"] for r in page({"orderBy": "address"})[0]] == ["北京市东城区", "北京市西城区", "河北省廊坊市", None]
    assert [r["address"] for r in page({"orderBy": "address", "desc": "true"})[0]][0] is None
    assert [r["durationS"] for r in page({"orderBy": "durationS"})[0]] == [200, 240, 540, 900]


def test_a_callable_value_is_looked_up_only_for_the_rows_answered() -> None:
    looked_up: list[int] = []

    def address(n: int) -> Any:
        return lambda: looked_up.append(n) or f"地址{n}"

    rows = [{"startTime": T0 + timedelta(hours=n), "durationS": n, "carId": 5, "address": address(n)} for n in range(50)]
    query = parse_query(stops_entity(rows), {"pageSize": "2"}, ranged(T0, T0 + timedelta(days=3), "startTime"))
    page_rows, total = provided_page(None, query, OWN)
    assert total == 50 and [r["address"] for r in page_rows] == ["地址49", "地址48"]
    assert looked_up == [49, 48]
