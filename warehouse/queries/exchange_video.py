"""SQL of the superior's JT/T 1078 video requests over JT/T 809 (migration 0051, exchange/link/video_requests.py).
Named parameters only."""

from __future__ import annotations

from typing import Any

from psycopg import Connection

_STORE = """
INSERT INTO exchange_video_request (platform_id, data_type, source_sn, plate, plate_colour, car_id, channel_id,
                                    av_item_type, stream_type, mem_type, start_at, end_at, control_type)
VALUES (%(platform_id)s, %(data_type)s, %(source_sn)s, %(plate)s, %(plate_colour)s, %(car_id)s, %(channel_id)s,
        %(av_item_type)s, %(stream_type)s, %(mem_type)s, %(start_at)s, %(end_at)s, %(control_type)s)
RETURNING id"""


def store_video_request(conn: Connection[Any], row: dict[str, Any]) -> int:
    found = conn.execute(_STORE, row).fetchone()
    assert found is not None
    return int(found[0])


def mark_video_answered(conn: Connection[Any], request_id: int, result: int) -> None:
    conn.execute("UPDATE exchange_video_request SET result = %(result)s, answered_at = now() WHERE id = %(id)s",
                 {"id": request_id, "result": result})
