"""The analysts' Parquet lake (docs/reports.md §6): one folder per dataset, hive-partitioned
by local day (``day=YYYY-MM-DD``) or month (``month=YYYY-MM``), zstd-compressed, one file per partition.

``Lake(root).write(dataset, "day", "2026-10-15", frame)`` writes ``<root>/<dataset>/day=2026-10-15/
part-0.parquet`` atomically: to a temporary name in the same folder, then ``os.replace``, so a reader sees
the old file or the new one, never half of one, and a rerun replaces the partition. ``read`` and the
DuckDB views (``duckdb_connect``: ``fleet sql``, notebooks/lake.py) read them back with the partition column
typed.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import click
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
        return scan(folder).collect()


def scan(folder: Path) -> pl.LazyFrame:
    """The partitions of one dataset folder, by column name: a table that gained columns since (a new alarm key's
    counter, warehouse/reports/columns.py) leaves its older partitions without them, which read as null; left to
    the first file's schema, polars refuses the newer files' extra columns and DuckDB drops them."""
    schema: dict[str, Any] = {}
    for part in sorted(folder.glob(f"*/{PART_FILE}")):
        for name, dtype in pl.read_parquet_schema(part).items():
            schema.setdefault(name, dtype)
    return pl.scan_parquet(str(folder / "*" / PART_FILE), hive_partitioning=True, schema=schema,
                           missing_columns="insert")


def duckdb_connect(root: Path | str, database: str = ":memory:") -> Any:
    """DuckDB with one view per dataset of the lake (``gps``, ``car_day_report``, ...), the partition column
    (``day`` date / ``month`` text) included. Extension auto-install and auto-load are off, so a query that
    would need one fails at once instead of trying the network (docs/reports.md §9)."""
    import duckdb

    con = duckdb.connect(database)
    con.execute("SET autoinstall_known_extensions = false")
    con.execute("SET autoload_known_extensions = false")
    base = Path(root)
    for folder in sorted(base.glob("*")) if base.is_dir() else []:
        if folder.is_dir() and any(folder.glob(f"*/{PART_FILE}")):
            pattern = str(folder / "*" / PART_FILE).replace("'", "''")
            name = folder.name.replace('"', '""')  # the lake's own folder names, quoted anyway
            # by name: a table that gained columns (a new alarm key's counter) leaves older partitions without
            # them, which read as NULL instead of failing the whole view
            con.execute(f"CREATE VIEW \"{name}\" AS SELECT * FROM read_parquet('{pattern}', "  # noqa: S608
                        "hive_partitioning = true, union_by_name = true)")
    return con


@click.command("sql")
@click.argument("query")
@click.option("--lake", "lake_dir", default=None, help="lake folder (default FLEET_REPORT_LAKE_DIR)")
@click.option("--csv", "as_csv", is_flag=True, help="print CSV instead of a table")
@click.option("--max-rows", default=100, show_default=True, help="rows printed as a table")
def sql_command(query: str, lake_dir: str | None, as_csv: bool, max_rows: int) -> None:
    """Run a DuckDB query over the Parquet lake: one view per dataset (gps, alarm, car_day_report, trip, park,
    device_day_report, kpi_enterprise_day, car_month_report, ...), e.g.
    fleet sql "SELECT day, sum(mileage_km) FROM car_day_report GROUP BY day ORDER BY day"."""
    import csv
    import sys

    from tabulate import tabulate

    from fleet.settings import report_lake_dir

    root = Path(lake_dir) if lake_dir else report_lake_dir()
    con = duckdb_connect(root)
    try:
        cur = con.execute(query)
    except Exception as exc:  # DuckDB's own error classes: one line for the user, exit 2
        raise click.ClickException(f"{type(exc).__name__}: {exc}") from None
    names = [d[0] for d in cur.description or []]
    rows = cur.fetchall()
    if as_csv:
        writer = csv.writer(sys.stdout)
        writer.writerow(names)
        writer.writerows(rows)
        return
    click.echo(tabulate(rows[:max_rows], headers=names, tablefmt="simple"))
    if len(rows) > max_rows:
        click.echo(f"... {len(rows) - max_rows} more rows (--max-rows, or --csv for all)")
