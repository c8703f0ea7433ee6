"""SQL of the GB/T 32960 / GB 17691 steps (streams/gb_uplinks.py): the latest vehicle state ``nev_state``, the
chart readings ``nev_reading`` and the charging sessions ``charging_session`` (migration 0049). The alarm rows
go through warehouse/queries/alarms.py, the positions through position_sink.py.

``STATE_BLOCKS`` is the declaration of ``nev_state``'s readings: per block of the standard, its columns and
the decoded field each is read from (streams.gb_frames reads the frames with it; the upsert is built from it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson
from psycopg import AsyncConnection, sql
from psycopg.types.json import Jsonb

# block -> {column: decoded field of the block} ("" = the whole block as jsonb)
STATE_BLOCKS: dict[str, dict[str, str]] = {
    "vehicle": {"vehicle_status": "status", "charging_state": "charging", "run_mode": "run_mode",
                "speed_kmh": "speed_kmh", "mileage_km": "mileage_km", "total_voltage_v": "total_voltage_v",
                "total_current_a": "total_current_a", "soc_pct": "soc_pct", "dcdc_state": "dcdc", "gear": "gear",
                "insulation_kohm": "insulation_kohm"},
    "motors": {"motors": "motors"},
    "fuel_cell": {"fuel_cell": ""},
    "engine": {"engine": ""},
    "position": {"lat": "lat", "lng": "lng"},
    "extremes": {name: name for name in (
        "max_cell_voltage_v", "max_voltage_subsystem", "max_voltage_cell", "min_cell_voltage_v",
        "min_voltage_subsystem", "min_voltage_cell", "max_temp_c", "max_temp_subsystem", "max_temp_probe",
        "min_temp_c", "min_temp_subsystem", "min_temp_probe")},
    "alarms": {"alarm_level": "max_level", "alarm_flags": "flags", "storage_faults": "storage_faults",
               "motor_faults": "motor_faults", "engine_faults": "engine_faults", "other_faults": "other_faults",
               "general_faults": "general_faults"},
    "cells": {"cell_voltages": "packs"},
    "temps": {"probe_temperatures": "packs"},
    "stacks": {"fuel_cell_stacks": "stacks"},  # GB/T 32960.3-2025 0x30, 0x31, 0x32 (migration 0070)
    "supercap": {"supercapacitor": ""},
    "supercap_extremes": {"supercapacitor_extremes": ""},
    "obd": {"obd_protocol": "obd_protocol", "mil": "mil", "diagnosis_supported": "diagnosis_supported",
            "diagnosis_ready": "diagnosis_ready", "calibration_id": "calibration_id", "cvn": "cvn",
            "obd_fault_codes": "fault_codes"},
    "stream": {name: name for name in (
        "engine_speed_rpm", "engine_torque_pct", "friction_torque_pct", "fuel_flow_l_per_h", "nox_upstream_ppm",
        "nox_downstream_ppm", "reagent_level_pct", "intake_air_flow_kg_per_h", "scr_inlet_temp_c",
        "scr_outlet_temp_c", "dpf_pressure_difference_kpa", "coolant_temp_c", "tank_level_pct",
        "atmospheric_pressure_kpa")},
}
JSON_COLUMNS = frozenset(("motors", "fuel_cell", "engine", "storage_faults", "motor_faults", "engine_faults",
                          "other_faults", "general_faults", "fuel_cell_stacks", "supercapacitor",
                          "supercapacitor_extremes", "cell_voltages", "probe_temperatures", "obd_fault_codes"))
TEXT_COLUMNS = frozenset(("calibration_id", "cvn"))
HEAD_COLUMNS = ("device_id", "car_id", "enterprise_id", "protocol", "frame_protocol", "vin", "collected_at",
                "received_at")
STATE_COLUMNS: tuple[str, ...] = (*HEAD_COLUMNS, *(
    column for block, columns in STATE_BLOCKS.items() for column in (f"{block}_at", *columns)))


def _column_kind(column: str) -> str:
    """The type a row's JSON value is read as: the upsert's assignment then casts it to the column's own type
    (numeric to smallint, integer, real, ...: a reading sent with a fraction is rounded, as a bound float was)."""
    if column in JSON_COLUMNS:
        return "jsonb"
    if column in TEXT_COLUMNS or column in ("protocol", "frame_protocol", "vin"):
        return "text"
    if column.endswith("_at"):
        return "timestamptz"
    return "numeric"


def _upsert_state() -> sql.Composed:
    """One statement for a batch's rows, given as one JSON array (``jsonb_to_recordset``): a block's columns move
    only with a newer reading of that block (migration 0049); the head columns with a newer frame. A row per
    device (ON CONFLICT updates a row once per statement)."""
    newer = "EXCLUDED.{at} IS NOT NULL AND (s.{at} IS NULL OR EXCLUDED.{at} > s.{at})"
    sets = [sql.SQL("{c} = CASE WHEN EXCLUDED.collected_at > s.collected_at THEN EXCLUDED.{c} ELSE s.{c} END")
            .format(c=sql.Identifier(c)) for c in HEAD_COLUMNS[1:] if c != "collected_at"]
    sets.append(sql.Composed([sql.SQL("collected_at = greatest(s.collected_at, EXCLUDED.collected_at)")]))
    for block, columns in STATE_BLOCKS.items():
        at = sql.Identifier(f"{block}_at")
        for column in columns:
            sets.append(sql.SQL("{c} = CASE WHEN " + newer + " THEN EXCLUDED.{c} ELSE s.{c} END")
                        .format(c=sql.Identifier(column), at=at))
        sets.append(sql.SQL("{at} = greatest(s.{at}, EXCLUDED.{at})").format(at=at))
    cols = sql.SQL(", ").join(map(sql.Identifier, STATE_COLUMNS))
    kinds = sql.SQL(", ").join(sql.SQL("{} " + _column_kind(c)).format(sql.Identifier(c)) for c in STATE_COLUMNS)
    return sql.SQL("INSERT INTO nev_state AS s ({cols}) SELECT {cols} FROM jsonb_to_recordset(%s::jsonb) AS r({kinds})"
                   " ORDER BY device_id ON CONFLICT (device_id) DO UPDATE SET {sets}"
                   ).format(cols=cols, kinds=kinds, sets=sql.SQL(", ").join(sets))


_UPSERT_STATE = _upsert_state()


def states_json(rows: Sequence[dict[str, Any]]) -> bytes:
    """The upsert's one parameter: the rows as a JSON array (orjson: datetimes as ISO 8601 with their offset,
    enums as their values). The statement takes them in device order (its ORDER BY), so two workers never lock
    the same rows in different orders."""
    return orjson.dumps(rows)


async def upsert_states_async(conn: AsyncConnection[Any], rows: Sequence[dict[str, Any]]) -> None:
    """One row per device ({column: value} of ``STATE_COLUMNS``; a block's columns with its ``<block>_at``,
    missing blocks absent or None): each block kept only where newer than the stored one. One statement: the
    rows were an ``executemany`` of ~80 parameters each, a fifth of the GB worker's CPU at 5,000 frames a second
    with the JSON columns dumped by the standard library (docs/performance.md, "GB/T 32960 end to end")."""
    if not rows:
        return
    await conn.execute(_UPSERT_STATE, (Jsonb(states_json(rows), dumps=_as_is),))


def _as_is(data: bytes) -> bytes:
    return data


READING_COLUMNS = ("device_id", "collected_at", "car_id", "enterprise_id", "soc_pct", "total_voltage_v",
                   "total_current_a", "nox_upstream_ppm", "nox_downstream_ppm", "reagent_level_pct")
_INSERT_READINGS = sql.SQL(
    "INSERT INTO nev_reading ({cols}) SELECT * FROM unnest("
    "%s::bigint[], %s::timestamptz[], %s::bigint[], %s::bigint[], %s::smallint[], %s::real[], %s::real[],"
    " %s::real[], %s::real[], %s::real[]) ON CONFLICT (device_id, collected_at) DO NOTHING"
).format(cols=sql.SQL(", ").join(map(sql.Identifier, READING_COLUMNS)))


async def insert_readings_async(conn: AsyncConnection[Any], rows: Sequence[Sequence[Any]]) -> None:
    """Chart readings, tuples in ``READING_COLUMNS`` order; a (device, collection time) stored already is
    left as it is (a replay inserts nothing). One statement."""
    if not rows:
        return
    columns = [list(column) for column in zip(*rows, strict=True)]
    await conn.execute(_INSERT_READINGS, columns)


async def charging_marks_async(conn: AsyncConnection[Any], device_ids: Sequence[int]) -> list[tuple[Any, ...]]:
    """Per device: (device_id, the newest vehicle-block time applied to nev_state, the newest charging
    session's start_at, end_at, soc_from, soc_to, energy_kwh, lat, lng, last_at, last_power_kw, charging_state)
    (session columns None without a session)."""
    cur = await conn.execute(
        "SELECT d.id, n.vehicle_at, c.start_at, c.end_at, c.soc_from, c.soc_to, c.energy_kwh, c.lat, c.lng,"
        " c.last_at, c.last_power_kw, c.charging_state"
        " FROM unnest(%s::bigint[]) AS d(id)"
        " LEFT JOIN nev_state n ON n.device_id = d.id"
        " LEFT JOIN LATERAL (SELECT * FROM charging_session s WHERE s.device_id = d.id"
        "   ORDER BY s.start_at DESC LIMIT 1) c ON true", (list(device_ids),))
    return list(await cur.fetchall())


SESSION_COLUMNS = ("device_id", "start_at", "car_id", "enterprise_id", "vin", "charging_state", "end_at",
                   "soc_from", "soc_to", "energy_kwh", "lat", "lng", "last_at", "last_power_kw")
_UPSERT_SESSION = sql.SQL(
    "INSERT INTO charging_session AS s ({cols}) VALUES ({params}) ON CONFLICT (device_id, start_at) DO UPDATE SET"
    " end_at = EXCLUDED.end_at, soc_to = EXCLUDED.soc_to, energy_kwh = EXCLUDED.energy_kwh,"
    " lat = coalesce(s.lat, EXCLUDED.lat), lng = coalesce(s.lng, EXCLUDED.lng), last_at = EXCLUDED.last_at,"
    " last_power_kw = EXCLUDED.last_power_kw WHERE s.last_at < EXCLUDED.last_at"
).format(cols=sql.SQL(", ").join(map(sql.Identifier, SESSION_COLUMNS)),
         params=sql.SQL(", ").join(sql.Placeholder() * len(SESSION_COLUMNS)))


async def upsert_sessions_async(conn: AsyncConnection[Any], rows: Sequence[tuple[Any, ...]]) -> None:
    """Charging sessions, tuples in ``SESSION_COLUMNS`` order: a new one inserted, a known one moved on only by
    a newer ``last_at`` (a replay changes nothing)."""
    if rows:
        async with conn.cursor() as cur:
            params: list[tuple[Any, ...]] = sorted(rows, key=lambda r: (r[0], r[1]))
            await cur.executemany(_UPSERT_SESSION, params)
