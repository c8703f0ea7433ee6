"""SQL of the superior's JT/T 1078 video requests over JT/T 809 (migrations 0051, 0059;
exchange/link/video_requests.py). Named parameters only."""

from __future__ import annotations

from typing import Any

from psycopg import Connection
from psycopg.rows import dict_row

_STORE = """
INSERT INTO exchange_video_request (platform_id, data_type, source_sn, plate, plate_colour, car_id, channel_id,
                                    av_item_type, stream_type, mem_type, start_at, end_at, control_type, command_id,
                                    stream_id)
VALUES (%(platform_id)s, %(data_type)s, %(source_sn)s, %(plate)s, %(plate_colour)s, %(car_id)s, %(channel_id)s,
        %(av_item_type)s, %(stream_type)s, %(mem_type)s, %(start_at)s, %(end_at)s, %(control_type)s,
        %(command_id)s, %(stream_id)s)
RETURNING id"""


def store_video_request(conn: Connection[Any], row: dict[str, Any]) -> int:
    """``row``: the request's columns; ``command_id`` and ``stream_id`` default to NULL (answered at once)."""
    found = conn.execute(_STORE, {"command_id": None, "stream_id": None, **row}).fetchone()
    assert found is not None
    return int(found[0])


def mark_video_answered(conn: Connection[Any], request_id: int, result: int) -> None:
    conn.execute("UPDATE exchange_video_request SET result = %(result)s, answered_at = now() WHERE id = %(id)s",
                 {"id": request_id, "result": result})


_VIDEOS_DONE = """
SELECT v.id, v.data_type, v.plate, v.plate_colour, v.stream_id, m.state, m.result
FROM exchange_video_request v JOIN command m ON m.id = v.command_id
WHERE v.platform_id = %(p)s AND v.answered_at IS NULL AND m.state IN ('answered', 'timed_out', 'failed')
ORDER BY v.id"""


def videos_to_answer(conn: Connection[Any], platform_id: int) -> list[dict[str, Any]]:
    """The platform's unanswered video requests whose terminal command has an outcome."""
    return conn.cursor(row_factory=dict_row).execute(_VIDEOS_DONE, {"p": platform_id}).fetchall()


_LAST_PLAYBACK = """
SELECT channel_id FROM exchange_video_request
WHERE platform_id = %(p)s AND plate = %(plate)s AND plate_colour = %(colour)s AND data_type = 39425  -- 0x9A01
  AND channel_id IS NOT NULL
ORDER BY id DESC LIMIT 1"""


def last_playback_channel(conn: Connection[Any], platform_id: int, plate: str, colour: int) -> int | None:
    """The channel of the platform's latest 0x9A01 for that vehicle (what a 0x9A02, which names none, controls)."""
    row = conn.execute(_LAST_PLAYBACK, {"p": platform_id, "plate": plate, "colour": colour}).fetchone()
    return None if row is None else int(row[0])
