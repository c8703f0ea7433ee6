"""Alarms on a track (console-spec §3 "Track point", §4 alarm point style): what a point says about its
alarms, computed by PostgreSQL in the statement that reads the points, and the car's alarm rows of a
range as markers.

A fix is an **alarm point** when it has 0x0200 alarm bits, an active-safety item (0x64-0x67, extras
``adas_alarm``, ``dsm_alarm``, ``tpms_alarm``, ``bsd_alarm``; whatever its flag) or a video alarm (item 0x14
non-zero). Thinning and the day summaries keep every alarm point, as they keep bit alarms.

The seven point fields (``POINT_FIELDS``, after the eleven of contract B):

- ``alarmInfo``: the names of the point's alarms in the caller's language (``api.errors.request_language``:
  X-Fleet-Language, else Accept-Language, else zh-CN), joined with ",": the bits a0..a31, the 0x14 bits
  v0..v31, ADAS and DSM with their level ("一级 前向碰撞报警", as ``fleet.alarm_catalog.describe``), TPMS
  (each set bit of the events' type words, bit 0, the timed report, included), BSD; null without alarm.
  A type the catalogue does not know reads as its key (``adas_9``), as ``describe`` answers.
- ``adasAlarm``, ``dsmAlarm``, ``bsdAlarm``: the decoded item as stored (the codec's keys,
  protocols/jt808/extras/), or null.
- ``tpmAlarm``: the 0x66 item in the spec's shape ``{alarmList: [{type, ...}]}`` (platform-spec §3 "Alarm
  data"): its tyre events under ``alarmList`` (each ``{tyre, type, pressure_kpa, temperature_c,
  battery_pct}``, ``type`` the event's type WORD), the item's other keys as stored; or null.
- ``videoAlarm``: the 0x14 video alarm bitmask (platform-spec §3 "videoAlarm bitmask", 32 bits) when
  non-zero, else null.
- ``gbAlarm``: a GB fix's alarm object as stored (below), else null: the popup lists its fault codes.

A GB/T 32960 / GB 17691 fix (streams/gb_frames.py) with alarms carries the track point's alarm object
(platform-spec §3 "an object of battery, motor, engine and other fault lists") in extras ``gb_alarm``:
``{alarm: the general flags, level, battery, motor, engine, other}`` (17691: ``obd``, ``mil``); it makes the
fix an alarm point, and ``alarmInfo`` names its flags (``gb0``..``gb27``: the flags are stored masked to their
edition's bits) and its non-empty fault lists.

One definition in SQL, no Python twin: the expressions are built over any two column expressions, so
the same text reads ``gps`` rows (``point_tail_sql``: the end of a row's JSON text) and the day
summaries' kept alarm fixes (``point_sql`` in ``fields_of_kept``, over their flags and stored items). The names are SQL literals from the catalogue
(code, never request input): one statement text per language. A fix without alarm costs a compare and
five key look-ups in its jsonb (``has_alarm_sql``); only alarm points evaluate the names and items.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any

import orjson
from psycopg import Connection, sql

from fleet.alarm_catalog import (
    ALARMS,
    GB_ALARM_ITEM,
    GB_FAULT_KEYS,
    LEVELLED_KINDS,
    LEVELS,
    SAFETY_ITEMS,
    VIDEO_FLAGS_ITEM,
    VIDEO_ITEMS,
    AlarmKind,
    describe,
    level_prefix,
)
from protocols.gb32960.messages.blocks_2025 import GENERAL_BITS_2025

POINT_FIELDS = ("alarmInfo", "adasAlarm", "dsmAlarm", "tpmAlarm", "bsdAlarm", "videoAlarm", "gbAlarm")
# The point field of each active-safety item (the spec says tpmAlarm for the 0x66 tyre item).
_ITEM_FIELDS = {"adas_alarm": "adasAlarm", "dsm_alarm": "dsmAlarm", "tpms_alarm": "tpmAlarm", "bsd_alarm": "bsdAlarm"}
assert list(_ITEM_FIELDS) == list(SAFETY_ITEMS) and list(_ITEM_FIELDS.values()) == list(POINT_FIELDS[1:5])
ITEM_KEYS = (*SAFETY_ITEMS, *VIDEO_ITEMS, GB_ALARM_ITEM)  # what a day summary keeps of a fix's extras
MAX_ALARMS = 1000  # alarm rows (markers) per track reply; more: ``alarmsTruncated``
_JOIN = ","


def _literal(text: str) -> str:
    """A SQL string literal of catalogue text written in code (never request input)."""
    if "%" in text or "{" in text or "}" in text:  # psycopg placeholders, sql.SQL format fields
        raise ValueError(f"catalogue text unusable in SQL: {text!r}")
    return "'" + text.replace("'", "''") + "'"


def _array(values: Sequence[str]) -> str:
    return "ARRAY[" + ", ".join(_literal(v) for v in values) + "]::text[]"


def _bits(value: str, prefix: str, count: int, lang: str) -> str:
    """Names of the set bits of ``value`` (a bigint expression, evaluated once per bit) joined."""
    names = ", ".join(f"CASE WHEN ({value} >> {bit}) & 1 = 1 THEN {_literal(describe(f'{prefix}{bit}', None, lang))} END"
                      for bit in range(count))
    return f"concat_ws({_literal(_JOIN)}, {names})"


def _number(json_value: str) -> str:
    """A jsonb number as bigint; NULL for anything else (never a cast error on odd input)."""
    return f"CASE WHEN jsonb_typeof({json_value}) = 'number' THEN ({json_value} #>> '{{}}')::numeric::bigint END"


def _has_video(extras: str) -> str:
    """0x14 present and not 0 (the codec writes an integer; anything else odd names nothing)."""
    return f"coalesce({extras}->>{_literal(VIDEO_FLAGS_ITEM)} <> '0', false)"


def _has_items(extras: str) -> str:
    # four ``?`` cost half of one ``?|``, which unpacks its array on every row (measured)
    safety = " OR ".join(f"{extras} ? {_literal(name)}" for name in (*SAFETY_ITEMS, GB_ALARM_ITEM))
    return f"(coalesce({safety}, false) OR {_has_video(extras)})"


def has_alarm_sql(flags: str, extras: str) -> str:
    """Whether the fix is an alarm point (see the module docstring), a boolean never NULL."""
    return f"({flags} <> 0 OR {_has_items(extras)})"


def _typed(item: str, prefix: str, kind: AlarmKind, lang: str) -> str:
    """The name of an ADAS / DSM / BSD item's type, with the level for ADAS and DSM."""
    kind_type = f"({item}->>'type')"
    whens = " ".join(f"WHEN {_literal(key[len(prefix) + 1:])} THEN {_literal(describe(key, None, lang))}"
                     for key, d in ALARMS.items() if d.kind == kind)
    name = f"CASE {kind_type} {whens} END"
    if kind in LEVELLED_KINDS:
        levels = " ".join(f"WHEN {_literal(str(level))} THEN {_literal(level_prefix(level, lang))}" for level in LEVELS)
        name = f"(CASE {item}->>'level' {levels} ELSE '' END || {name})"
    return (f"CASE WHEN jsonb_typeof({item}) = 'object' THEN coalesce({name}, {_literal(prefix + '_')} || {kind_type}) END")


def _tpms(item: str, lang: str) -> str:
    """Names of the set bits of the tyre events' type words (or the item's type when it has no events)."""
    events = f"CASE WHEN jsonb_typeof({item}->'events') = 'array' THEN {item}->'events' ELSE '[]'::jsonb END"
    word = (f"coalesce(nullif((SELECT bit_or({_number('ev->' + _literal('type'))}) FROM jsonb_array_elements({events}) ev), 0),"  # noqa: S608 - code's own SQL
            f" {_number(item + '->' + _literal('type'))}, 0)")
    return (f"CASE WHEN jsonb_typeof({item}) = 'object' THEN"  # noqa: S608 - code's own SQL
            f" (SELECT nullif({_bits('w.word', 'tpms_', 16, lang)}, '') FROM (SELECT {word} AS word) w) END")


def tpms_names_sql(word: str, lang: str) -> str:
    """Names of the set bits of a tyre event's type WORD (``word``, an integer expression), bit 0 (the timed
    report) included, joined with ","; NULL when none is set: the TPMS log's alarm column."""
    return f"nullif({_bits(word, 'tpms_', 16, lang)}, '')"


def _video_names(extras: str, lang: str) -> str:
    word = _number(f"{extras}->{_literal(VIDEO_FLAGS_ITEM)}")
    return (f"CASE WHEN {_has_video(extras)} THEN"  # noqa: S608 - code's own SQL
            f" (SELECT nullif({_bits('w.word', 'v', 32, lang)}, '') FROM (SELECT {word} AS word) w) END")


def _gb_names(extras: str, lang: str) -> str:
    """Names of a GB fix's alarm object: its general flags, then each non-empty fault list (and the MIL)."""
    item = f"{extras}->{_literal(GB_ALARM_ITEM)}"
    word = _number(f"{item}->'alarm'")
    lists = ", ".join(
        f"CASE WHEN jsonb_typeof({item}->{_literal(name)}) = 'array' AND jsonb_array_length({item}->{_literal(name)}) > 0"
        f" THEN {_literal(describe(key, None, lang))} END" for name, key in GB_FAULT_KEYS.items() if name != "mil")
    mil = f"CASE WHEN {item}->>'mil' = '1' THEN {_literal(describe(GB_FAULT_KEYS['mil'], None, lang))} END"
    return (f"CASE WHEN jsonb_typeof({item}) = 'object' THEN nullif(concat_ws({_literal(_JOIN)},"  # noqa: S608 - code's own SQL
            f" (SELECT nullif({_bits('w.word', 'gb', GENERAL_BITS_2025, lang)}, '') FROM (SELECT {word} AS word) w), {lists}, {mil}),"
            f" '') END")


def _alarm_info(flags: str, extras: str, lang: str) -> str:
    parts = [f"CASE WHEN {flags} <> 0 THEN nullif({_bits(f'({flags} & 4294967295)', 'a', 32, lang)}, '') END",
             _video_names(extras, lang), _gb_names(extras, lang)]
    for name, (prefix, kind) in SAFETY_ITEMS.items():
        item = f"{extras}->{_literal(name)}"
        parts.append(_tpms(item, lang) if kind == AlarmKind.TPMS else _typed(item, prefix, kind, lang))
    return (f"CASE WHEN {has_alarm_sql(flags, extras)} THEN"
            f" nullif(concat_ws({_literal(_JOIN)}, {', '.join(parts)}), '') END")


def _video_alarm(extras: str) -> str:
    """The 0x14 bitmask (a bigint) when non-zero (platform-spec §3: videoAlarm is a bitmask)."""
    return f"CASE WHEN {_has_video(extras)} THEN {_number(f'{extras}->{_literal(VIDEO_FLAGS_ITEM)}')} END"


def _tpm_alarm(item: str) -> str:
    """The 0x66 item as ``{alarmList: [events], ...its other keys}`` (platform-spec §3 tpmAlarm{alarmList[{type}]})."""
    events = f"CASE WHEN jsonb_typeof({item}->'events') = 'array' THEN {item}->'events' ELSE '[]'::jsonb END"
    return (f"CASE WHEN jsonb_typeof({item}) = 'object' THEN (({item}) - 'events'::text)"
            f" || jsonb_build_object('alarmList', {events}) END")


def _item_field(extras: str, name: str) -> str:
    item = f"{extras}->{_literal(name)}"
    return _tpm_alarm(item) if SAFETY_ITEMS[name][1] == AlarmKind.TPMS else item


@cache
def point_sql(lang: str, flags: str = "g.alarm_flags", extras: str = "g.extras", *, split: bool = False) -> Any:
    """The seven POINT_FIELDS expressions over the ``flags`` (bigint) and ``extras`` (jsonb) expressions,
    names in ``lang`` (zh-CN, zh-HK, en-US): comma-separated text, or a tuple with ``split``."""
    fields = (_alarm_info(flags, extras, lang), *(_item_field(extras, name) for name in SAFETY_ITEMS),
              _video_alarm(extras), f"{extras}->{_literal(GB_ALARM_ITEM)}")
    return fields if split else ", ".join(fields)


@cache
def point_tail_sql(lang: str, flags: str = "g.alarm_flags", extras: str = "g.extras") -> str:
    """A text expression: the seven POINT_FIELDS as JSON, each after a comma, to end a row's JSON text;
    seven constant nulls for a fix without alarm (its only cost: the alarm test)."""
    info, *items = point_sql(lang, flags, extras, split=True)
    parts = " || ',' || ".join([f"coalesce(to_json({info})::text, 'null')",
                                *(f"coalesce(({value})::text, 'null')" for value in items)])
    return (f"CASE WHEN {has_alarm_sql(flags, extras)} THEN ',' || {parts}"
            f" ELSE {_literal(',null' * len(POINT_FIELDS))} END")


def alarm_info_sql(lang: str, flags: str = "alarm_flags", extras: str = "extras") -> str:
    """Only ``alarmInfo`` (the exports)."""
    return _alarm_info(flags, extras, lang)


def items_sql(extras: str) -> str:
    """The part of a fix's extras the point fields read (ITEM_KEYS present), NULL unless an alarm item
    is there: what a day summary keeps of an alarm fix so ``fields_of_kept`` answers as over gps."""
    return (f"CASE WHEN {_has_items(extras)} THEN (SELECT jsonb_object_agg(x.k, x.v) FROM jsonb_each({extras}) AS x(k, v)"  # noqa: S608 - code's own SQL
            f" WHERE x.k = ANY({_array(ITEM_KEYS)})) END")


def fields_of_kept(conn: Connection[Any], lang: str, flags: Sequence[int], items: Sequence[dict[str, Any] | None]) -> list[list[Any]]:
    """The POINT_FIELDS of fixes given by their alarm flags and kept items (a day summary's), as over
    gps: three active-safety items and the GB alarm object are the kept items themselves; ``alarmInfo``,
    ``tpmAlarm`` and ``videoAlarm`` come from the same SQL, in one statement for the distinct (flags, items) among the fixes (a month
    of a vehicle often has thousands of fixes with the same overspeed bit and no item)."""
    if not flags:
        return []
    keys = [(f, orjson.dumps(i, option=orjson.OPT_SORT_KEYS) if i else b"{}") for f, i in zip(flags, items, strict=True)]
    distinct = list(dict.fromkeys(keys))
    pairs = b"[" + b",".join(b"[%d,%s]" % key for key in distinct) + b"]"
    info, *safety, video, _gb = point_sql(lang, "g.alarm_flags", "g.extras", split=True)
    tpm = safety[list(_ITEM_FIELDS.values()).index("tpmAlarm")]
    # OFFSET 0: the two columns once per element, not in each of the places the expressions read them
    query = sql.SQL(
        "SELECT coalesce(json_agg(json_build_array({info}, {tpm}, {video}) ORDER BY g.o), '[]')::text"
        " FROM (SELECT (p->>0)::bigint AS alarm_flags, p->1 AS extras, o"
        " FROM jsonb_array_elements(%s::jsonb) WITH ORDINALITY AS x(p, o) OFFSET 0) g").format(
        info=sql.SQL(info), tpm=sql.SQL(tpm), video=sql.SQL(video))
    row = conn.execute(query, [pairs.decode()]).fetchone()
    found: list[list[Any]] = orjson.loads(row[0]) if row else []
    by_key = dict(zip(distinct, found, strict=True))
    out = []
    for key, item in zip(keys, items, strict=True):
        named, tpm_alarm, video_alarm = by_key[key]
        kept = item or {}
        out.append([named, *(tpm_alarm if field == "tpmAlarm" else kept.get(name) for name, field in _ITEM_FIELDS.items()),
                    video_alarm, kept.get(GB_ALARM_ITEM)])
    return out


@cache
def _alarm_name_sql(lang: str) -> str:
    """The alarm row's name as ``describe(key, level, lang)`` answers it."""
    names = " ".join(f"WHEN {_literal(key)} THEN {_literal(describe(key, None, lang))}" for key in ALARMS)
    levelled = ", ".join(_literal(key) for key, d in ALARMS.items() if d.kind in LEVELLED_KINDS)
    levels = " ".join(f"WHEN {level} THEN {_literal(level_prefix(level, lang))}" for level in LEVELS)
    return (f"CASE WHEN a.key IN ({levelled}) THEN CASE a.level {levels} ELSE '' END ELSE '' END"
            f" || CASE a.key {names} ELSE a.key END")


@dataclass(frozen=True)
class TrackAlarms:
    json: str  # JSON array text of ALARM objects
    truncated: bool


# epoch ms as in positions._EPOCH_MS (float8 arithmetic, exact for milliseconds)
_ALARMS = """
SELECT coalesce(json_agg(json_build_object(
         'id', a.id, 'key', a.key, 'type', a.type, 'level', a.level, 'name', {name},
         'start', round(date_part('epoch', a.start_time) * 1000)::bigint,
         'end', round(date_part('epoch', a.end_time) * 1000)::bigint,
         'lng', a.lng, 'lat', a.lat, 'speed', a.speed, 'state', a.state, 'atted', a.atted)
       ORDER BY a.start_time, a.id) FILTER (WHERE a.rn <= %(limit)s), '[]')::text,
       count(*) > %(limit)s
FROM (SELECT a.*, row_number() OVER (ORDER BY a.start_time, a.id) AS rn FROM alarm a
      WHERE a.car_id = %(car)s AND a.device_id = %(device)s AND a.start_time >= %(start)s AND a.start_time < %(end)s
      ORDER BY a.start_time, a.id LIMIT %(limit)s + 1) a"""


def track_alarms(conn: Connection[Any], car_id: int, device_id: int, start: datetime, end: datetime, lang: str,
                 limit: int = MAX_ALARMS) -> TrackAlarms:
    """The alarm rows (episodes and events, platform alarms included) of the car's ``device_id`` that
    start in [start, end), oldest first, at most ``limit``: {id, key, type, level, name (in ``lang``),
    start, end (epoch ms; end null while an episode lasts), lng, lat, speed, state, atted}. Read by the
    (car_id, start_time) index."""
    query = sql.SQL(_ALARMS).format(name=sql.SQL(_alarm_name_sql(lang)))
    row = conn.execute(query, {"car": car_id, "device": device_id, "start": start, "end": end, "limit": limit}).fetchone()
    return TrackAlarms("[]", False) if row is None else TrackAlarms(str(row[0]), bool(row[1]))
