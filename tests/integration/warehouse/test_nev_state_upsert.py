"""The nev_state upsert (warehouse.queries.gb_states) on the real PostgreSQL: a batch's rows in one statement, each
value cast to its column (a reading with a fraction into an integer column rounded, an enum as its value, JSON
blocks kept whole), and a block replaced only by a newer reading of that block."""

from __future__ import annotations

import asyncio
import enum
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest
from psycopg import sql

from tests.integration.streams.support import insert_terminals
from warehouse.queries import gb_states

T0 = datetime(2026, 12, 7, 8, 0, tzinfo=UTC)


class Gear(enum.IntEnum):
    NEUTRAL = 0
    PARK = 15


def _row(terminal: Any, at: datetime, **blocks: dict[str, Any]) -> dict[str, Any]:
    row: dict[str, Any] = {"device_id": terminal.device_id, "car_id": terminal.car_id,
                           "enterprise_id": terminal.enterprise_id, "protocol": "gb32960", "frame_protocol": "2016",
                           "vin": f"LVIN{terminal.device_id:013d}", "collected_at": at, "received_at": at}
    for block, columns in blocks.items():
        row[f"{block}_at"] = at
        row.update(columns)
    return row


def _upsert(pg_url: str, rows: list[dict[str, Any]]) -> None:
    async def go() -> None:
        async with await psycopg.AsyncConnection.connect(pg_url, autocommit=True) as conn:
            await gb_states.upsert_states_async(conn, rows)

    asyncio.run(go())


def _state(pg_url: str, device_id: int, columns: str) -> tuple[Any, ...]:
    with psycopg.connect(pg_url) as conn:
        names = sql.SQL(", ").join(sql.Identifier(name.strip()) for name in columns.split(","))
        row = conn.execute(sql.SQL("SELECT {} FROM nev_state WHERE device_id = %s").format(names), (device_id,)).fetchone()
    assert row is not None
    return tuple(row)


def test_a_batch_is_stored_with_each_value_cast_to_its_column_and_a_block_moves_only_with_a_newer_reading(
        pg_url: str) -> None:
    first, second = insert_terminals(pg_url, 2, enterprise_name="nev-state-upsert")
    cells = [{"subsystem": 1, "voltage_v": 410.5, "cells": [3.301, 3.305, None]}]
    _upsert(pg_url, [
        _row(second, T0, vehicle={"soc_pct": 81, "gear": Gear.PARK, "mileage_km": 12345.6, "total_voltage_v": 402.1}),
        _row(first, T0, vehicle={"soc_pct": 55.6, "gear": Gear.NEUTRAL, "mileage_km": 99.9, "insulation_kohm": 5000},
             cells={"cell_voltages": cells}, obd={"calibration_id": "CAL-1", "mil": 1}),
    ])
    assert _state(pg_url, first.device_id, "soc_pct, gear, mileage_km, insulation_kohm, cell_voltages, "
                                            "calibration_id, mil, vehicle_at, collected_at, motors_at") == (
        56, 0, pytest.approx(99.9), 5000, cells, "CAL-1", 1, T0, T0, None)
    assert _state(pg_url, second.device_id, "soc_pct, gear, total_voltage_v") == (81, 15, pytest.approx(402.1))

    # a back-filled frame: older vehicle block (not applied), its new extremes block (applied), the head kept
    _upsert(pg_url, [_row(first, T0 - timedelta(minutes=5), vehicle={"soc_pct": 20},
                          extremes={"max_temp_c": 41, "max_temp_probe": 7})])
    assert _state(pg_url, first.device_id, "soc_pct, vehicle_at, max_temp_c, max_temp_probe, extremes_at, "
                                            "collected_at, cell_voltages") == (
        56, T0, 41, 7, T0 - timedelta(minutes=5), T0, cells)
    # a newer one moves the vehicle block and the head; a block it does not carry keeps its reading
    _upsert(pg_url, [_row(first, T0 + timedelta(seconds=30), vehicle={"soc_pct": 54})])
    assert _state(pg_url, first.device_id, "soc_pct, collected_at, cell_voltages, calibration_id") == (
        54, T0 + timedelta(seconds=30), cells, "CAL-1")


def test_a_2025_terminals_fuel_cell_stacks_and_supercapacitor_are_kept_each_with_its_own_time(pg_url: str) -> None:
    (terminal,) = insert_terminals(pg_url, 1, enterprise_name="nev-state-2025")
    stacks = [{"number": 1, "voltage_v": 312.4, "current_a": 101.5, "h2_inlet_pressure_kpa": 152.0,
               "air_inlet_pressure_kpa": 131.5, "air_inlet_temp_c": 38, "coolant_outlet_temps_c": [66, 67]}]
    capacitor = {"number": 1, "voltage_v": 380.2, "current_a": "invalid", "cell_voltages_v": [2.701, 2.699],
                 "probe_temps_c": [31]}
    _upsert(pg_url, [_row(terminal, T0, stacks={"fuel_cell_stacks": stacks}, supercap={"supercapacitor": capacitor},
                          alarms={"alarm_level": 2, "general_faults": [(23 << 8) | 2]})])
    assert _state(pg_url, terminal.device_id, "fuel_cell_stacks, stacks_at, supercapacitor, supercap_at, "
                                               "supercap_extremes_at, general_faults") == (
        stacks, T0, capacitor, T0, None, [(23 << 8) | 2])
    # an older frame's stacks are not applied; its extremes (a block never received) are
    _upsert(pg_url, [_row(terminal, T0 - timedelta(seconds=10), stacks={"fuel_cell_stacks": []},
                          supercap_extremes={"supercapacitor_extremes": {"max_temp_c": 33}})])
    assert _state(pg_url, terminal.device_id, "fuel_cell_stacks, supercapacitor_extremes") == (
        stacks, {"max_temp_c": 33})
