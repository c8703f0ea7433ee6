"""The generic query grammar: whitelist, operators, ranges, paging, scope; no database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from psycopg import sql

from api.errors import BadRequest
from api.query.entities import CAR_VIEW, DEVICE, GPS
from api.query.grammar import Condition, RangeCondition, parse_conditions_only, parse_query
from api.query.sqlgen import compile_count, compile_select
from warehouse.queries.scope import Scope

OWN = Scope(enterprise_id=3, enterprise_path="/1/3/")
SUBTREE = Scope(enterprise_id=1, enterprise_path="/1/", subtree=True)


def render(statement: sql.Composable) -> str:
    return statement.as_string(None)


def test_bare_field_means_eq_and_values_are_coerced_to_the_field_type() -> None:
    query = parse_query(DEVICE, {}, {"carId": "7", "deviceSn.rlike": "SIM"})
    assert query.conditions == (Condition("carId", "eq", 7), Condition("deviceSn", "rlike", "SIM"))


def test_conditions_may_be_nested_under_conditions_key() -> None:
    query = parse_query(DEVICE, {}, {"conditions": {"state.in": [2, 3]}})
    assert query.conditions == (Condition("state", "in", [2, 3]),)


@pytest.mark.parametrize(
    ("key", "value", "fragment", "bound"),
    [
        ("carId.eq", 5, '"car_id" = %s', 5),
        ("carId.ne", 5, '"car_id" <> %s', 5),
        ("carId.gt", 5, '"car_id" > %s', 5),
        ("carId.gte", 5, '"car_id" >= %s', 5),
        ("carId.lt", 5, '"car_id" < %s', 5),
        ("carId.lte", 5, '"car_id" <= %s', 5),
        ("carId.in", [1, 2], '"car_id" = ANY(%s)', [1, 2]),
        ("carId.nin", "1,2", '("car_id" IS NULL OR NOT ("car_id" = ANY(%s)))', [1, 2]),
        ("deviceName.like", "50%", '"device_name" ILIKE %s', "%50\\%%"),
        ("deviceSn.rlike", "SIM_", '"device_sn" LIKE %s', "SIM\\_%"),
    ],
)
def test_each_operator_compiles_to_a_bound_parameter(key: str, value: object, fragment: str, bound: object) -> None:
    statement, params = compile_select(parse_query(DEVICE, {}, {key: value}), OWN)
    assert fragment in render(statement)
    assert params[1] == bound  # params[0] is the tenant id


def test_exists_and_null_equality_compile_to_is_null_checks() -> None:
    statement, params = compile_count(
        parse_conditions_only(DEVICE, {}, {"onlineTime.exists": True, "carId.exists": "false", "deviceName": None}), OWN
    )
    text = render(statement)
    assert '"online_time" IS NOT NULL' in text
    assert '"car_id" IS NULL' in text
    assert '"device_name" IS NULL' in text
    assert params == [3]


def test_values_never_appear_in_the_sql_text() -> None:
    hostile = "x'; DROP TABLE device; --"
    statement, params = compile_select(parse_query(DEVICE, {}, {"deviceName.like": hostile}), OWN)
    assert "DROP" not in render(statement)
    assert any(hostile.replace("_", "\\_") in str(p) for p in params)


def test_unknown_field_is_rejected_naming_it() -> None:
    with pytest.raises(BadRequest, match="unknown field.*authCode"):
        parse_query(DEVICE, {}, {"authCode.eq": "secret"})


def test_unknown_operator_is_rejected_naming_it() -> None:
    with pytest.raises(BadRequest, match="unknown operator 'regex'"):
        parse_query(DEVICE, {}, {"deviceSn.regex": "^S"})


def test_unknown_select_field_is_rejected_naming_it() -> None:
    with pytest.raises(BadRequest, match="password"):
        parse_query(CAR_VIEW, {"select": "carId,password"}, None)


def test_unknown_sort_key_is_rejected_naming_it() -> None:
    with pytest.raises(BadRequest, match="sort key.*nope"):
        parse_query(CAR_VIEW, {"orderBy": "lastOnlineTime,nope"}, None)


def test_bad_value_is_rejected_naming_the_field() -> None:
    with pytest.raises(BadRequest, match="'carId' expects an integer"):
        parse_query(DEVICE, {}, {"carId.eq": "seven"})


def test_like_on_a_number_field_is_rejected() -> None:
    with pytest.raises(BadRequest, match="text fields only"):
        parse_query(DEVICE, {}, {"carId.like": "1"})


def test_body_must_be_an_object() -> None:
    with pytest.raises(BadRequest, match="JSON object"):
        parse_query(DEVICE, {}, [1, 2])


def test_sort_keys_and_direction_are_applied_with_a_stable_tiebreak() -> None:
    query = parse_query(CAR_VIEW, {"orderBy": "lastOnlineTime", "desc": "true"}, None)
    text = render(compile_select(query, OWN)[0])
    assert 'ORDER BY "last_online_time" DESC, "car_id" DESC' in text


def test_gps_track_defaults_to_time_ascending() -> None:
    query = parse_query(GPS, {}, {"deviceId": 1})
    assert query.order_by == ("time",) and query.desc is False
    assert 'ORDER BY "fix_at" ASC, "device_id" ASC' in render(compile_select(query, OWN)[0])


def test_paging_defaults_and_offset() -> None:
    query = parse_query(CAR_VIEW, {"pageNo": "3", "pageSize": "20"}, None)
    _, params = compile_select(query, OWN)
    assert params[-2:] == [20, 40]
    assert parse_query(CAR_VIEW, {}, None).page_size == 10


def test_page_size_above_the_entity_cap_is_rejected() -> None:
    with pytest.raises(BadRequest, match="maximum 1000"):
        parse_query(CAR_VIEW, {"pageSize": "1001"}, None)
    assert parse_query(GPS, {"pageSize": "10000"}, None).page_size == 10000


@pytest.mark.parametrize("raw", ["0", "-1", "ten"])
def test_page_numbers_must_be_positive_integers(raw: str) -> None:
    with pytest.raises(BadRequest, match="pageNo"):
        parse_query(CAR_VIEW, {"pageNo": raw}, None)


def test_countable_and_is_parent_flags() -> None:
    query = parse_query(CAR_VIEW, {"countable": "true", "isParent": "1"}, None)
    assert query.countable and query.is_parent
    with pytest.raises(BadRequest, match="isParent"):
        parse_query(CAR_VIEW, {"isParent": "maybe"}, None)


@pytest.mark.parametrize(("params", "subtree"), [({}, True), ({"isParent": ""}, True), ({"isParent": "true"}, True),
                                                 ({"isParent": "1"}, True), ({"isParent": "false"}, False),
                                                 ({"isParent": "0"}, False)])
def test_a_parent_acts_on_its_subtree_unless_the_request_asks_for_its_own_enterprise(
    params: dict[str, str], subtree: bool
) -> None:
    assert parse_query(CAR_VIEW, params, None).is_parent is subtree
    assert parse_conditions_only(CAR_VIEW, params, None).is_parent is subtree


def test_own_scope_is_an_exact_enterprise_match() -> None:
    statement, params = compile_count(parse_conditions_only(CAR_VIEW, {}, None), OWN)
    assert render(statement).endswith('WHERE "enterprise_id" = %s')
    assert params == [3]


def test_parent_scope_is_a_path_prefix_match() -> None:
    statement, params = compile_count(parse_conditions_only(CAR_VIEW, {}, None), SUBTREE)
    assert "path LIKE %s" in render(statement)
    assert params == ["/1/%"]
    assert SUBTREE.contains_path("/1/3/") and not OWN.contains_path("/1/")


def test_range_conditions_bounds_and_types() -> None:
    query = parse_query(
        GPS,
        {},
        {
            "rangeConditions": [
                {"fieldName": "time", "start": "2026-01-01T00:00:00Z", "end": 1767229200000, "type": "closedOpen"},
                {"fieldName": "speed", "gt": 10},
            ]
        },
    )
    start = datetime(2026, 1, 1, tzinfo=UTC)
    assert query.ranges[0] == RangeCondition("time", start, True, datetime(2026, 1, 1, 1, tzinfo=UTC), False)
    assert query.ranges[1] == RangeCondition("speed", 10.0, False, None, True)
    text = render(compile_select(query, OWN)[0])
    assert '"fix_at" >= %s AND "fix_at" < %s AND "speed_kmh" > %s' in text


def test_naive_times_are_china_standard_time() -> None:
    query = parse_query(GPS, {}, {"time.gte": "2026-01-01 08:00:00"})
    assert query.conditions[0].value == datetime(2026, 1, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("item", "message"),
    [
        ({"fieldName": "secret", "start": 1}, "unknown field for gps: secret"),
        ({"fieldName": "speed"}, "at least one bound"),
        ({"fieldName": "speed", "start": 1, "type": "weird"}, "unknown range type"),
        ({"fieldName": "speed", "from": 1}, "unknown key"),
        ("speed", "must be an object"),
    ],
)
def test_bad_range_conditions_are_rejected_with_a_clear_message(item: object, message: str) -> None:
    with pytest.raises(BadRequest, match=message):
        parse_query(GPS, {}, {"rangeConditions": [item]})


def test_derived_acc_field_uses_the_declared_expression() -> None:
    query = parse_query(GPS, {"select": "time,acc"}, {"acc": 1})
    text = render(compile_select(query, OWN)[0])
    assert '("status_flags" & 1) AS "acc"' in text


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ({"carId.eq": 2**63}, "'carId' expects an integer"),
        ({"carId.eq": "9" * 19}, "'carId' expects an integer"),
        ({"carId.in": "1,,2"}, "'carId' expects an integer"),
        ({"carId.eq": True}, "'carId' expects an integer"),
        ({"plateNumber.eq": 2**64}, "'plateNumber' expects a string"),
        ({"plateNumber.eq": "x" * 1001}, "at most 1000 characters"),
        ({"createTime.gt": 253402300800000}, "'createTime' expects a time"),
        ({"createTime.gt": "99999999999999999999"}, "'createTime' expects a time"),
        ({"createTime.in": "2026-01-01,2026-01-02"}, "expects a list of at most"),
        ({"hasVideo.exists": 1}, "hasVideo.exists"),
        ({"rangeConditions": [{"fieldName": "carId", "start": 1, "gte": "x"}]}, "rangeConditions[0].gte"),
        ({"rangeConditions": [{"fieldName": "carId", "start": 1, "type": ""}]}, "unknown range type"),
        ({"rangeConditions": {}}, "must be a list"),
    ],
)
def test_values_the_database_cannot_hold_are_rejected_before_sql(body: dict[str, object], fragment: str) -> None:
    with pytest.raises(BadRequest) as caught:
        parse_query(CAR_VIEW, {}, body)
    assert fragment in caught.value.message


@pytest.mark.parametrize(
    ("params", "name"),
    [
        ({"pageNo": "2147483648"}, "pageNo"),
        ({"pageNo": "9223372036854775807"}, "pageNo"),
        ({"pageNo": "٣"}, "pageNo"),
        ({"pageNo": ""}, "pageNo"),
        ({"pageSize": " 5"}, "pageSize"),
        ({"select": "carId,"}, "''"),
        ({"select": "carId, vin"}, "' vin'"),
        ({"desc": "True"}, "desc"),
        ({"countable": "yes"}, "countable"),
        ({"isParent": "yes"}, "isParent"),
    ],
)
def test_query_parameters_take_exactly_the_documented_forms(params: dict[str, str], name: str) -> None:
    with pytest.raises(BadRequest) as caught:
        parse_query(CAR_VIEW, params, None)
    assert name in caught.value.message


def test_largest_page_keeps_the_offset_inside_bigint() -> None:
    query = parse_query(GPS, {"pageNo": "2147483647", "pageSize": "10000"}, None)
    assert query.offset < 2**63


def test_times_with_offsets_beyond_postgresql_are_sent_in_utc() -> None:
    query = parse_query(GPS, {}, {"time.gte": "2026-01-01T23:30:00+23:30", "time.lt": "0001-01-01T00:00:00+01:00"})
    assert [c.value.utcoffset() for c in query.conditions] == [timedelta(0), timedelta(0)]
    assert query.conditions[0].value == datetime(2026, 1, 1, tzinfo=UTC)
    assert query.conditions[1].value == datetime.min.replace(tzinfo=UTC)  # clamped to the year 1


def test_comma_text_and_text_numbers_are_accepted_where_documented() -> None:
    query = parse_query(CAR_VIEW, {"select": "carId,vin,carId"}, {"carId.in": "1,-2", "plateNumber.nin": "a,b",
                                                                  "vin.eq": 7, "carId": "12"})
    assert query.select == ("carId", "vin")
    assert [c.value for c in query.conditions] == [[1, -2], ["a", "b"], "7", 12]


def test_a_key_both_at_the_top_and_nested_is_checked_and_applied_twice() -> None:
    with pytest.raises(BadRequest, match="'createTime' expects a time"):
        parse_query(CAR_VIEW, {}, {"createTime.in": [1e300], "conditions": {"createTime.in": [0]}})
    query = parse_query(CAR_VIEW, {}, {"carId.gt": 1, "conditions": {"carId.gt": 5}})
    assert query.conditions == (Condition("carId", "gt", 1), Condition("carId", "gt", 5))
