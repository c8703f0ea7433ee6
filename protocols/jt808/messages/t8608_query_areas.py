"""0x8608 query areas or routes (JT/T 808-2019 only): query type BYTE (1 circle, 2 rectangle,
3 polygon, 4 route), count DWORD, then that many ids DWORD; count 0 asks for every area of that type.
The terminal answers with 0x0608. Encoding under a 2011/2013 header is a ValueError (those terminals
do not know the message); a body that arrives under one is still decoded."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from protocols.jt808.errors import BodyError
from protocols.jt808.fields import check_version
from protocols.jt808.messages._areas import QUERY_TYPES, Cursor, put
from protocols.jt808.registry import register_body


def read_query_type(cur: Cursor) -> int:
    query_type = cur.uint(1, "query type")
    if query_type not in QUERY_TYPES:
        raise BodyError(f"{cur.what} query type at byte 0: {query_type}, expected 1 circle, 2 rectangle, "
                        "3 polygon or 4 route")
    return query_type


def check_2019(version: str, what: str, query_type: int) -> None:
    if check_version(version) != "2019":
        raise ValueError(f"{what} exists only in JT/T 808-2019, not under a {version} header")
    if query_type not in QUERY_TYPES:
        raise ValueError(f"{what} query type {query_type}: expected 1-4")


@register_body
@dataclass(frozen=True)
class QueryAreas:
    MSG_ID: ClassVar[int] = 0x8608
    query_type: int  # _areas.QUERY_CIRCLE ... QUERY_ROUTE
    ids: tuple[int, ...] = ()  # empty: all of that type

    @classmethod
    def decode(cls, body: bytes, version: str) -> QueryAreas:
        cur = Cursor(body, "0x8608")
        query_type = read_query_type(cur)
        count = cur.uint(4, "count")
        cur.check_count(count, 4, "ids")
        ids = tuple(cur.uint(4, f"id {i}") for i in range(count))
        cur.finish()
        return cls(query_type, ids)

    def encode(self, version: str) -> bytes:
        check_2019(version, "0x8608", self.query_type)
        return (bytes((self.query_type,)) + put(len(self.ids), 4, "count", "0x8608")
                + b"".join(put(i, 4, "id", "0x8608") for i in self.ids))
