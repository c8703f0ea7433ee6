"""protocols/gb32960/values.py: a field list's converter (one function per list, each field's rule written out)
gives exactly what ``to_value`` gives field by field (the same number of the same type, the same abnormal /
invalid state), for every field list the codec's blocks declare and for scales the blocks do not use yet."""

from __future__ import annotations

import importlib
import pkgutil
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import protocols.gb32960.messages as messages
from protocols.gb32960.values import Field, Special, _layout, read_fields, to_value, write_fields, write_list


def _declared_field_lists() -> dict[str, tuple[Field, ...]]:
    found: dict[str, tuple[Field, ...]] = {}
    for info in pkgutil.iter_modules(messages.__path__):
        module = importlib.import_module(f"{messages.__name__}.{info.name}")
        for name, value in vars(module).items():
            candidates = [(name, value)] + [(f"{name}.FIELDS", getattr(value, "FIELDS", None))]
            for label, fields in candidates:
                if isinstance(fields, tuple) and fields and all(isinstance(f, Field) for f in fields):
                    found[f"{info.name}.{label}"] = fields
    return found


DECLARED = _declared_field_lists()
# scales and offsets beside the declared ones: a whole offset, a negative one, a scale that is no power of ten
# (to_value's rounding), a field without the abnormal / invalid states, each width
EXTRA = (Field("a", 1, 1, -40), Field("b", 2, 0.1, -1000), Field("c", 4, 0.001), Field("d", 2, 0.5, 3),
         Field("e", 2, 0.1, -0.05), Field("f", 1, special=False), Field("g", 4, 0.01, -20, special=False))


def test_the_blocks_declare_field_lists() -> None:
    assert len(DECLARED) >= 15  # the vehicle, motor, fuel cell, engine, position, extremes, OBD ... lists
    assert "blocks_2016.VehicleData.FIELDS" in DECLARED


def _raws(fields: tuple[Field, ...]) -> st.SearchStrategy[tuple[int, ...]]:
    def one(f: Field) -> st.SearchStrategy[int]:
        edges = st.sampled_from([0, 1, f.top - 2, f.top - 1, f.top])
        return st.one_of(edges, st.integers(0, f.top))
    return st.tuples(*(one(f) for f in fields))


def _same(got: list[Any], want: list[Any]) -> None:
    assert [type(v) for v in got] == [type(v) for v in want]
    assert got == want
    assert all(g is w for g, w in zip(got, want, strict=True) if isinstance(w, Special))


@pytest.mark.parametrize("name", sorted(DECLARED))
@settings(max_examples=60)
@given(data=st.data())
def test_a_declared_field_lists_converter_is_to_value_field_by_field(name: str, data: st.DataObject) -> None:
    fields = DECLARED[name]
    raws = data.draw(_raws(fields))
    layout, convert = _layout(fields)
    _same(convert(raws), [to_value(f, r) for f, r in zip(fields, raws, strict=True)])
    values, end = read_fields(fields, b"\x00" + layout.pack(*raws), 1, name)
    assert end == 1 + layout.size
    _same(values, [to_value(f, r) for f, r in zip(fields, raws, strict=True)])


@settings(max_examples=300)
@given(data=st.data())
def test_other_scales_offsets_and_widths_convert_as_to_value_does(data: st.DataObject) -> None:
    fields = tuple(data.draw(st.lists(st.sampled_from(EXTRA), min_size=1, max_size=6)))
    raws = data.draw(_raws(fields))
    _same(_layout(fields)[1](raws), [to_value(f, r) for f, r in zip(fields, raws, strict=True)])


LIST_FIELDS = (Field("cell_voltage_v", 2, 0.001), Field("temp_c", 1, offset=-40), Field("current_a", 2, 0.1, -3000),
               Field("count", 1, special=False)) + EXTRA


@settings(max_examples=300)
@given(data=st.data())
def test_a_list_packs_as_its_values_do_one_by_one_and_refuses_what_they_refuse(data: st.DataObject) -> None:
    field = data.draw(st.sampled_from(LIST_FIELDS))
    raws = data.draw(st.lists(_raws((field,)).map(lambda t: t[0]), max_size=40))
    values = [to_value(field, r) for r in raws]
    if data.draw(st.booleans()):  # a value no raw number of the field gives: out of range on either side
        low, high = to_value(field, 0), to_value(field, field.top - 2 if field.special else field.top)
        assert not isinstance(low, Special) and not isinstance(high, Special)
        values.insert(data.draw(st.integers(0, len(values))),
                      data.draw(st.sampled_from([low - field.scale, high + field.scale])))
    fields = (field,) * len(values)
    try:
        one_by_one = write_fields(fields, values)
    except ValueError as exc:
        with pytest.raises(ValueError, match=re.escape(str(exc))):
            write_list(field, tuple(values))
    else:
        assert write_list(field, tuple(values)) == one_by_one
