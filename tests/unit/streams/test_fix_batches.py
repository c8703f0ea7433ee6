from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta

from streams import fix_batches, payloads
from streams.messages import Fix, parse_fix, parse_uplink
from streams.payloads import Terminal
from warehouse.queries import position_sink

from .conftest import T0


def fix(device_id: int, seconds: float, **kwargs) -> Fix:
    terminal = Terminal(f"0138{device_id:08d}", device_id, 100 + device_id, 3)
    uplink = parse_uplink(json.dumps(payloads.location_report(
        terminal, fix_at=T0 + timedelta(seconds=seconds), received_at=T0, **kwargs)))
    return parse_fix(uplink, uplink.body)


def test_unique_fixes_drops_repeats_of_device_and_fix_time_keeping_order() -> None:
    fixes = [fix(1, 0), fix(2, 0), fix(1, 0, speed_kmh=9.0), fix(1, 1)]
    assert [(f.device_id, f.fix_at, f.speed_kmh) for f in fix_batches.unique_fixes(fixes)] == [
        (1, T0, 0.0), (2, T0, 0.0), (1, T0 + timedelta(seconds=1), 0.0)]


def test_newest_per_device_so_one_upsert_touches_each_row_once() -> None:
    newest = fix_batches.newest_per_device([fix(1, 5), fix(1, 9), fix(2, 3), fix(1, 7)])
    assert sorted((f.device_id, (f.fix_at - T0).seconds) for f in newest) == [(1, 9), (2, 3)]


def test_days_touched_are_utc_days() -> None:
    late = datetime(2026, 5, 1, 23, 59, tzinfo=UTC)
    fixes = [fix(1, (late - T0).total_seconds()), fix(1, (late - T0).total_seconds() + 120)]
    assert fix_batches.days_touched(fixes) == {date(2026, 5, 1), date(2026, 5, 2)}


def test_column_arrays_align_with_the_column_list() -> None:
    f = fix(7, 0, speed_kmh=12.5, mileage_km=1234.5, alarm_flags=4, direction_deg=90)
    arrays = position_sink.column_arrays([f, fix(8, 1)])
    assert len(arrays) == len(position_sink.COLUMNS) == 16
    row = dict(zip(position_sink.COLUMNS, (column[0] for column in arrays), strict=True))
    assert row["device_id"] == 7 and row["car_id"] == 107 and row["enterprise_id"] == 3
    assert row["fix_at"] == T0 and row["speed_kmh"] == 12.5 and row["mileage_km"] == 1234.5
    assert row["alarm_flags"] == 4 and row["direction_deg"] == 90 and row["status_flags"] == 3
    assert json.loads(row["extras"]) == {"mileage_km": 1234.5}
    assert all(len(column) == 2 for column in arrays)


def test_statements_are_idempotent_by_construction() -> None:
    assert "ON CONFLICT (device_id, fix_at) DO NOTHING" in position_sink.INSERT_GPS
    assert "WHERE device_last.fix_at < EXCLUDED.fix_at" in position_sink.UPSERT_DEVICE_LAST
    assert position_sink.INSERT_GPS.count("%s") == len(position_sink.COLUMNS)


def test_closed_days_name_the_summaries_a_late_fix_makes_stale() -> None:
    today = date(2026, 5, 3)
    assert fix_batches.closed_days([fix(1, 3600 * 24 * 2), fix(2, 3600 * 24 * 2 + 5)], today) == []  # all of today
    late = fix_batches.closed_days([fix(1, 0), fix(1, 60), fix(2, 3600 * 20), fix(3, 3600 * 24 * 2)], today)
    assert sorted(zip(*late, strict=True)) == [(1, date(2026, 5, 1)), (2, date(2026, 5, 2))]
    assert late[1].literal().startswith("{2026-05-0")


def test_dirty_report_days_are_local_days_before_today_s_local_midnight() -> None:
    from zoneinfo import ZoneInfo

    shanghai = ZoneInfo("Asia/Shanghai")
    midnight = datetime(2026, 5, 2, 0, 0, tzinfo=shanghai)  # = 2026-05-01 16:00 UTC
    # T0 = 2026-05-01 08:00 UTC = 16:00 local on the 1st; +9 h = 01:00 local on the 2nd (today)
    assert fix_batches.dirty_report_days([fix(1, 9 * 3600)], midnight, shanghai) == []
    marks = fix_batches.dirty_report_days([fix(1, 0), fix(2, 60), fix(3, -9 * 3600)], midnight, shanghai)
    assert list(zip(*marks, strict=True)) == [(date(2026, 5, 1), 3)]  # one local day of enterprise 3, once


def test_reject_counts_are_column_arrays() -> None:
    arrays = position_sink.reject_count_arrays({(date(2026, 5, 1), 7, "speed", 3): 2, (date(2026, 5, 1), 8, "future", 3): 1})
    assert [a.literal() for a in arrays] == ['{2026-05-01,2026-05-01}', '{7,8}', '{"speed","future"}', '{3,3}',
                                             '{2,1}']


def test_binary_copy_rows_hold_every_column_in_postgresql_binary_format() -> None:
    import struct

    import orjson
    import psycopg
    import pytest

    from .test_processors import parse_binary_copy

    f = fix(7, 1.5, speed_kmh=12.5, mileage_km=1234.5, alarm_flags=4, direction_deg=90)
    bare = fix(8, 0)  # no car mileage/fuel: NULLs
    bare = Fix(**{**{name: getattr(bare, name) for name in Fix.__slots__}, "car_id": None})
    rows = parse_binary_copy(position_sink.copy_data([f, bare]))
    assert len(rows) == 2 and all(len(row) == len(position_sink.COLUMNS) for row in rows)
    row = dict(zip(position_sink.COLUMNS, rows[0], strict=True))
    epoch = datetime(2000, 1, 1, tzinfo=UTC)
    assert struct.unpack(">q", row["device_id"]) == (7,)
    assert epoch + timedelta(microseconds=struct.unpack(">q", row["fix_at"])[0]) == T0 + timedelta(seconds=1.5)
    assert struct.unpack(">q", row["car_id"]) == (107,) and struct.unpack(">q", row["enterprise_id"]) == (3,)
    assert struct.unpack(">d", row["lng"]) == (f.lng,) and struct.unpack(">d", row["lat"]) == (f.lat,)
    assert struct.unpack(">f", row["speed_kmh"]) == (12.5,) and struct.unpack(">h", row["direction_deg"]) == (90,)
    assert struct.unpack(">d", row["mileage_km"]) == (1234.5,) and row["fuel_l"] is None
    assert struct.unpack(">q", row["alarm_flags"]) == (4,)
    assert row["extras"][:1] == b"\x01" and orjson.loads(row["extras"][1:]) == {"mileage_km": 1234.5}
    assert epoch + timedelta(microseconds=struct.unpack(">q", row["received_at"])[0]) == T0
    assert rows[1][2] is None and rows[1][9] is None  # car_id, mileage_km
    wild = Fix(**{**{name: getattr(f, name) for name in Fix.__slots__}, "direction_deg": 70000})
    with pytest.raises(psycopg.DataError):  # what the INSERT refused (smallint), refused before sending
        position_sink.copy_data([wild])
