"""The analysts' Parquet lake (issue 10 §4; docs/reports.md §6): one folder per dataset, hive-partitioned
by local day (``day=YYYY-MM-DD``) or month (``month=YYYY-MM``), zstd-compressed, one file per partition.

``Lake(root).write(dataset, "day", "2026-10-15", frame)`` writes ``<root>/<dataset>/day=2026-10-15/
part-0.parquet`` atomically: to a temporary name in the same folder, then ``os.replace``, so a reader sees
the old file or the new one, never half of one, and a rerun replaces the partition. ``read`` and the
DuckDB views (``fleet sql``, notebooks/lake.py) read them back with the partition column typed.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import polars as pl

DATASETS_BY_DAY = ("gps", "alarm", "car_day_report", "device_day_report", "trip", "park", "driver_day_report",
                   "enterprise_day_report", "kpi_vehicle_day", "kpi_enterprise_day")
DATASETS_BY_MONTH = ("car_month_report", "device_month_report", "driver_month_report", "enterprise_month_report",
                     "kpi_enterprise_month")
PART_FILE = "part-0.parquet"


class Lake:
    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)

    def path(self, dataset: str, key: str, value: str) -> Path:
        return self.root / dataset / f"{key}={value}" / PART_FILE

    def write(self, dataset: str, key: str, value: str, frame: pl.DataFrame) -> Path:
        """Replace one partition with ``frame`` (an empty frame still writes its schema). Returns the path."""
        target = self.path(dataset, key, value)
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".part-", suffix=".tmp", dir=target.parent)
        os.close(fd)
        try:
            frame.write_parquet(tmp, compression="zstd")
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return target

    def read(self, dataset: str) -> pl.DataFrame:
        """Every partition of ``dataset`` (its partition column added), or an empty frame."""
        folder = self.root / dataset
        if not folder.is_dir() or not any(folder.glob(f"*/{PART_FILE}")):
            return pl.DataFrame()
        return pl.scan_parquet(str(folder / "*" / PART_FILE), hive_partitioning=True).collect()
