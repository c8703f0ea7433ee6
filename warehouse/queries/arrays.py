"""Lists sent as one PostgreSQL array literal each (text), for statements that take one array per column
(``unnest(%s::bigint[], ...)``): a batch of any size is one parameter per column, no SQL assembled from data.

The literals are built with ``str.join``: psycopg's generic list dumper adapts element by element in
Python (it was ~14% of the streams worker's CPU, docs/performance.md). The statement casts the text
(``%s::bigint[]``). Importing this module registers the dumper with psycopg's global adapters.
"""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg.adapt import Dumper


class SqlArray(list[Any]):
    """A list sent as a PostgreSQL array literal (text); the SQL casts it (``%s::bigint[]``)."""

    __slots__ = ()

    def literal(self) -> str:
        raise NotImplementedError


class IntArray(SqlArray):
    __slots__ = ()

    def literal(self) -> str:
        if None in self:
            return "{" + ",".join("NULL" if v is None else str(int(v)) for v in self) + "}"
        return "{" + ",".join(map(str, map(int, self))) + "}"


class FloatArray(SqlArray):
    """repr() is the shortest text that reads back as the same double (what psycopg sends too)."""

    __slots__ = ()

    def literal(self) -> str:
        if None in self:
            return "{" + ",".join("NULL" if v is None else repr(float(v)) for v in self) + "}"
        return "{" + ",".join(map(repr, map(float, self))) + "}"


class TimeArray(SqlArray):
    """Aware datetimes as ISO 8601 with their offset (no character needs quoting in an array)."""

    __slots__ = ()

    def literal(self) -> str:
        return "{" + ",".join("NULL" if v is None else v.isoformat() for v in self) + "}"


class TextArray(SqlArray):
    __slots__ = ()

    def literal(self) -> str:
        return "{" + ",".join("NULL" if v is None else
                              '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"' for v in self) + "}"


class DateArray(SqlArray):
    __slots__ = ()

    def literal(self) -> str:
        return "{" + ",".join(v.isoformat() for v in self) + "}"


class BoolArray(SqlArray):
    __slots__ = ()

    def literal(self) -> str:
        return "{" + ",".join("t" if v else "f" for v in self) + "}"


class _SqlArrayDumper(Dumper):
    def dump(self, obj: SqlArray) -> bytes:
        return obj.literal().encode()


psycopg.adapters.register_dumper(SqlArray, _SqlArrayDumper)
