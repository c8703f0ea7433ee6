"""The message log's frames re-read with today's codec, and ``fleet redecode``.

``decode_raw(raw_hex)``: a stored frame (or the concatenated frames of a sub-packaged message) ->
``protocols.jt808.to_json`` of it, as the gateway forwards it (the ``decoded`` column), or
``{"error": ...}``. ``redecode(conn, since, until, msg_id, dry_run)`` re-decodes the stored rows of a
time range (server-side cursor, updates in batches) and rewrites ``decoded`` where it changed. Rows
with ``raw_truncated`` (0x0801: the media bytes are in the media store) are not re-decoded, nor the frames of
GB terminals (``protocol`` other than jt808, migration 0071: this is the JT/T 808 codec).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import click
import orjson
from psycopg import Connection

log = logging.getLogger(__name__)

UPDATE_BATCH = 500
EXAMPLES = 5

SELECT_RANGE = """
SELECT device_id, time, direction, msg_id, seq, phone, raw_hex, decoded
FROM message_log
WHERE time >= %(since)s AND time < %(until)s AND NOT raw_truncated AND protocol = 'jt808'
  AND (%(msg_id)s::int IS NULL OR msg_id = %(msg_id)s::int)
"""

UPDATE_DECODED = """
UPDATE message_log SET decoded = %s::jsonb
WHERE device_id = %s AND time = %s AND direction = %s AND msg_id = %s AND seq = %s
"""


def split_frames(data: bytes) -> list[bytes]:
    """Concatenated frames (each 7e ... 7e; inside a frame 7e is escaped) -> the frames."""
    frames, start = [], None
    for i, byte in enumerate(data):
        if byte != 0x7E:
            continue
        if start is None:
            start = i
        else:
            frames.append(data[start:i + 1])
            start = None
    return frames


def decode_raw(raw_hex: str) -> dict[str, Any]:
    """Today's codec over a stored frame (several: a sub-packaged message, merged)."""
    from protocols.jt808 import JT808Error, decode_frame, merge_subpackages, to_json

    try:
        frames = split_frames(bytes.fromhex(raw_hex))
    except ValueError:
        return {"error": "not hex"}
    if not frames:
        return {"error": "FramingError: no frame"}
    try:
        messages = [decode_frame(frame) for frame in frames]
        return to_json(messages[0] if len(messages) == 1 else merge_subpackages(messages))
    except JT808Error as exc:
        return {"error": f"{type(exc).__name__}: {exc}"}


# jsonb refuses the NUL character; a terminal's padded text may hold it. An escaped backslash before
# "u0000" (an even run of backslashes) is text, not a NUL, and is left alone.
_NUL = re.compile(rb"(?<!\\)((?:\\\\)*)\\u0000")


def json_text(value: Any) -> str:
    """``value`` as JSON text jsonb accepts (NUL characters become U+FFFD)."""
    data = orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)
    if b"\\u0000" in data:
        data = _NUL.sub(rb"\1\\ufffd", data)
    return data.decode()


def json_ready(value: Any) -> Any:
    """``value`` as jsonb gives it back (the comparison of a fresh decode with a stored one)."""
    return orjson.loads(json_text(value))


def changed_paths(old: Any, new: Any, prefix: str = "") -> list[str]:
    """Where two JSON values differ (dotted keys; a list or scalar differs as a whole)."""
    if isinstance(old, dict) and isinstance(new, dict):
        paths: list[str] = []
        for key in sorted(set(old) | set(new), key=str):
            if old.get(key) != new.get(key):
                paths.extend(changed_paths(old.get(key), new.get(key), f"{prefix}{key}."))
        return paths
    return [prefix.rstrip(".") or "(whole)"] if old != new else []


@dataclass
class RedecodeResult:
    read: int = 0
    changed: int = 0
    examples: list[dict[str, Any]] = field(default_factory=list)


def redecode(conn: Connection[Any], since: datetime, until: datetime, msg_id: int | None = None, *,
             dry_run: bool = False, decode: Callable[[str], dict[str, Any]] = decode_raw) -> RedecodeResult:
    """Re-decodes the rows of [since, until) (of one message id); writes ``decoded`` where it changed
    (not with ``dry_run``), committing per batch. The connection must not be in autocommit mode."""
    result = RedecodeResult()
    pending: list[tuple[str, int, datetime, int, int, int]] = []

    def flush() -> None:
        if pending and not dry_run:
            with conn.cursor() as writer:
                writer.executemany(UPDATE_DECODED, pending)
        pending.clear()

    with conn.cursor(name="redecode") as cur:  # server-side: the range may hold millions of frames
        cur.itersize = UPDATE_BATCH
        cur.execute(SELECT_RANGE, {"since": since, "until": until, "msg_id": msg_id})
        for device_id, time, direction, mid, seq, phone, raw_hex, stored in cur:
            result.read += 1
            fresh = json_ready(decode(raw_hex))
            if fresh == stored:
                continue
            result.changed += 1
            if len(result.examples) < EXAMPLES:
                result.examples.append({"time": time, "phone": phone, "direction": direction, "msgId": mid,
                                        "seq": seq, "changed": changed_paths(stored, fresh)[:8]})
            pending.append((orjson.dumps(fresh).decode(), device_id, time, direction, mid, seq))
            if len(pending) >= UPDATE_BATCH:
                flush()
    flush()
    if dry_run:
        conn.rollback()
    else:
        conn.commit()
    return result


def _msg_id(text: str | None) -> int | None:
    if text is None:
        return None
    try:
        return int(text, 16) if text.lower().startswith("0x") else int(text)
    except ValueError:
        raise click.BadParameter(f"not a message id: {text!r} (e.g. 0x0200 or 512)") from None


def _when(text: str | None, name: str) -> datetime | None:
    if text is None:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise click.BadParameter(f"{name}: not an ISO 8601 time: {text!r}") from None
    if moment.tzinfo is None:
        from datetime import UTC

        moment = moment.replace(tzinfo=UTC)
    return moment


@click.command("redecode")
@click.option("--since", required=True, help="ISO 8601 time (UTC when no offset is given)")
@click.option("--until", default=None, help="ISO 8601 time, exclusive (default: now)")
@click.option("--msg-id", default=None, help="only this message id (0x0200 or 512)")
@click.option("--dry-run", is_flag=True, help="count and show what would change, write nothing")
def redecode_command(since: str, until: str | None, msg_id: str | None, dry_run: bool) -> None:
    """Re-decode the message log's stored frames with today's codec; rewrite what changed."""
    from datetime import UTC

    from fleet.settings import apply_protocol_variant, database_url
    from warehouse.db import connect

    apply_protocol_variant()
    start = _when(since, "--since")
    assert start is not None
    end = _when(until, "--until") or datetime.now(UTC)
    mid = _msg_id(msg_id)
    with connect(database_url()) as conn:
        result = redecode(conn, start, end, mid, dry_run=dry_run)
    verb = "would change" if dry_run else "changed"
    click.echo(f"read {result.read} frame(s), {verb} {result.changed}")
    for ex in result.examples:
        arrow = "down" if ex["direction"] else "up"
        click.echo(f"  {ex['time'].isoformat()} {ex['phone']} {arrow} 0x{ex['msgId']:04X} seq {ex['seq']}: "
                   f"{', '.join(ex['changed'])}")
