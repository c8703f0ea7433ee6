"""The generic query grammar (design brief §5): parse request -> ``Query`` -> parameterised SQL.

Pure: no Flask, no database. ``grammar`` validates against an entity's whitelist, ``sqlgen``
composes SQL only from whitelisted identifiers (values are always bound parameters), ``entities``
declares what each entity exposes.
"""

from api.query.grammar import Condition, EntitySpec, FieldSpec, Query, RangeCondition, parse_query
from api.query.sqlgen import compile_count, compile_select

__all__ = [
    "Condition",
    "EntitySpec",
    "FieldSpec",
    "Query",
    "RangeCondition",
    "compile_count",
    "compile_select",
    "parse_query",
]
