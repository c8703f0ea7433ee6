"""The Parquet lake read by column name (warehouse/lake.py): a report table that gained a column (a new alarm key's
counter, warehouse/reports/columns.py) keeps its older partitions without it; polars and DuckDB both read the
whole dataset with the new column, null where a partition predates it, instead of failing or dropping it."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import polars as pl

from warehouse.lake import Lake, duckdb_connect


def test_a_dataset_whose_newer_partitions_have_more_columns_reads_whole_in_polars_and_duckdb(tmp_path: Path) -> None:
    lake = Lake(tmp_path)
    lake.write("device_day_report", "day", "2026-11-30", pl.DataFrame({"device_id": [1], "gb18": [2]}))
    lake.write("device_day_report", "day", "2026-12-01", pl.DataFrame({"device_id": [1], "gb18": [0], "gb23": [1]}))
    frame = lake.read("device_day_report").sort("day")
    assert frame.select("day", "gb18", "gb23").rows() == [(date(2026, 11, 30), 2, None), (date(2026, 12, 1), 0, 1)]
    with duckdb_connect(tmp_path) as con:
        rows = con.execute("SELECT day, gb18, gb23 FROM device_day_report ORDER BY day").fetchall()
    assert rows == [(date(2026, 11, 30), 2, None), (date(2026, 12, 1), 0, 1)]
