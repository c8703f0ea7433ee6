"""The notebooks' one helper: DuckDB and polars over the Parquet lake that Dagster writes.

``connect()`` -> a DuckDB connection with one view per dataset (gps, alarm, car_day_report, trip, park,
device_day_report, driver_day_report, enterprise_day_report, kpi_vehicle_day, kpi_enterprise_day and the
month tables), the partition column ``day`` (date) or ``month`` (text) included; ``query(sql)`` -> a polars
frame; ``scan(dataset)`` -> a polars LazyFrame of one dataset; ``alarm_name(key)`` -> the alarm's name. The lake is ``FLEET_REPORT_LAKE_DIR``
(default ``var/lake``). No network extension is ever loaded (auto-install and auto-load are off).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import matplotlib
import polars as pl

from warehouse.lake import PART_FILE, duckdb_connect
from warehouse.lake import scan as lake_scan

matplotlib.use("Agg")  # the notebooks draw off screen; lake.show puts each figure in the cell's output
# Chart text is in the product's language (zh-CN): a CJK font first (Debian's fonts-noto-cjk, installed by
# scripts/install.sh), DejaVu for the rest; the minus sign drawn as a hyphen, which every font has.
matplotlib.rcParams["font.sans-serif"] = ["Noto Sans CJK SC", "WenQuanYi Zen Hei", "DejaVu Sans"]
matplotlib.rcParams["axes.unicode_minus"] = False
# A rendered page is read, not scrolled in a kernel: a table shows every row up to 200 (a group's subsidiaries,
# a day's vehicles), where polars would cut it at 10 with an ellipsis and hide enterprises from the reader.
pl.Config.set_tbl_rows(200)

REPO = Path(__file__).resolve().parent.parent


def lake_dir() -> Path:
    configured = os.environ.get("FLEET_REPORT_LAKE_DIR")
    if configured:
        return Path(configured)
    var = os.environ.get("FLEET_STACK_VAR_DIR")
    return (Path(var) if var else REPO / "var") / "lake"


_CON: Any = None


def connect() -> Any:
    global _CON
    if _CON is None:
        _CON = duckdb_connect(lake_dir())
    return _CON


def query(sql: str) -> pl.DataFrame:
    """A DuckDB query over the lake's views, as a polars frame (through Arrow: DuckDB 2.0 has no ``.pl()``)."""
    frame = pl.from_arrow(connect().execute(sql).to_arrow_table())
    assert isinstance(frame, pl.DataFrame)
    return frame


def scan(dataset: str) -> pl.LazyFrame:
    return lake_scan(lake_dir() / dataset)


def datasets() -> list[str]:
    return sorted(p.name for p in lake_dir().glob("*") if any(p.glob(f"*/{PART_FILE}")))


def alarm_name(key: str | None) -> str:
    """An alarm key's name as the console shows it (zh-CN; fleet.alarm_catalog), the key itself when unknown."""
    from fleet.alarm_catalog import describe

    return describe(key) if key else "未知报警"


def show(fig: Any) -> None:
    """Put a matplotlib figure (drawn off screen by the Agg backend) into the cell's output as a PNG, then
    free it: the notebooks work the same in Jupyter and under nbclient in the tests."""
    import io

    import matplotlib.pyplot as plt
    from IPython.display import Image, display

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=80)
    plt.close(fig)
    display(Image(buffer.getvalue()))
