"""Validation of written values from a field declaration, and what the declaration hides from queries."""

from __future__ import annotations

from typing import Any

import pytest

from api.errors import BadRequest
from api.query.contract import write_body_schema
from api.query.entities import CAR_MODEL, WRITABLE
from api.query.grammar import EntitySpec, FieldSpec, parse_query
from api.query.records import check_value, parse_body

LEVEL = FieldSpec("level", "int", create=True, update=True, minimum=1, maximum=5)
COLOUR = FieldSpec("colour", "str", create=True, enum=("red", "blue"))
CODE = FieldSpec("code", "str", create=True, required=True, pattern=r"[A-Z]{2}[0-9]{2}", max_length=4)


@pytest.mark.parametrize(("spec", "value"), [
    (LEVEL, 0), (LEVEL, 6), (LEVEL, "3"), (LEVEL, True), (LEVEL, 2.5),
    (COLOUR, "green"), (COLOUR, 1),
    (CODE, None), (CODE, ""), (CODE, "AB1"), (CODE, "AB12\n"), (CODE, "ab12"),
])
def test_a_refused_value_names_the_field(spec: FieldSpec, value: Any) -> None:
    with pytest.raises(BadRequest, match=f"'{spec.column}'"):
        check_value(spec.column, spec, value)


@pytest.mark.parametrize(("spec", "value"), [(LEVEL, 1), (LEVEL, 5), (LEVEL, 3.0), (LEVEL, None), (COLOUR, "blue"), (CODE, "AB12")])
def test_an_accepted_value_is_kept(spec: FieldSpec, value: Any) -> None:
    assert check_value(spec.column, spec, value) == value


def test_a_body_takes_only_the_fields_writable_on_that_operation() -> None:
    with pytest.raises(BadRequest, match="bogus"):
        parse_body(CAR_MODEL, {"name": "n", "code": "c", "bogus": 1}, creating=True)
    with pytest.raises(BadRequest, match="createTime"):
        parse_body(CAR_MODEL, {"createTime": "2026-01-01T00:00:00Z"}, creating=False)
    with pytest.raises(BadRequest, match="enterpriseId"):
        parse_body(CAR_MODEL, {"enterpriseId": 3}, creating=False)
    with pytest.raises(BadRequest, match="code"):
        parse_body(CAR_MODEL, {"name": "n"}, creating=True)
    assert parse_body(CAR_MODEL, None, creating=False) == {}


@pytest.mark.parametrize("entity", list(WRITABLE.values()), ids=list(WRITABLE))
def test_the_documented_bodies_follow_the_declaration(entity: EntitySpec) -> None:
    create, update = write_body_schema(entity, creating=True), write_body_schema(entity, creating=False)
    assert set(create["properties"]) == {n for n, f in entity.fields.items() if f.create}
    assert set(create["required"]) == {n for n, f in entity.fields.items() if f.create and f.required}
    assert set(update["properties"]) == {n for n, f in entity.fields.items() if f.update}
    assert create["additionalProperties"] is False and update["additionalProperties"] is False


def test_fields_not_filterable_or_not_listable_are_refused_in_queries() -> None:
    with pytest.raises(BadRequest, match="remark"):
        parse_query(CAR_MODEL, {}, {"remark.like": "x"})
    hidden = EntitySpec("t", "t", {"id": FieldSpec("id", "int"), "secret": FieldSpec("s", listable=False)}, "e")
    with pytest.raises(BadRequest, match="secret"):
        parse_query(hidden, {"select": "id,secret"}, None)
    assert parse_query(hidden, {}, None).select == ("id",)


def _even(value: Any) -> str | None:
    return None if value % 2 == 0 else "必须是偶数"


EVEN = FieldSpec("even", "int", create=True, check=_even)


def test_a_field_rule_beyond_the_declarative_ones_answers_its_own_message_with_the_field() -> None:
    assert check_value("even", EVEN, 4) == 4
    with pytest.raises(BadRequest) as refused:
        check_value("even", EVEN, 3)
    assert refused.value.message == "必须是偶数 (field 'even')"
    assert refused.value.data == {"field": "even"}


def test_every_refused_value_tells_the_console_which_field() -> None:
    with pytest.raises(BadRequest) as refused:
        check_value("level", LEVEL, 9)
    assert refused.value.data == {"field": "level"}


def test_secret_and_virtual_fields_are_never_readable() -> None:
    secret = FieldSpec("password_hash", secret=True, create=True)
    virtual = FieldSpec("", virtual=True, create=True, exportable=True)
    for spec in (secret, virtual):
        assert not (spec.listable or spec.filterable or spec.sortable or spec.exportable)
    entity = EntitySpec(name="t", relation="t", tenant_column="enterprise_id",
                        fields={"id": FieldSpec("id", "int"), "password": secret, "roles": virtual})
    assert entity.listable == ("id",)
    with pytest.raises(BadRequest, match="password"):
        parse_query(entity, {"select": "password"}, None)
    with pytest.raises(BadRequest, match="password"):
        parse_query(entity, {}, {"password.like": "a"})
    assert check_value("roles", virtual, [1, 2]) == [1, 2]  # shaped by the hooks, not coerced


def test_the_console_reads_the_declaration_it_builds_forms_from() -> None:
    from api.query.records import meta

    described = {f["name"]: f for f in meta(CAR_MODEL)["fields"]}
    assert described["code"]["required"] and described["code"]["unique"] and described["code"]["create"]
    assert described["code"]["pattern"] == CAR_MODEL.fields["code"].pattern
    assert described["createTime"]["create"] is False and described["createTime"]["type"] == "time"
