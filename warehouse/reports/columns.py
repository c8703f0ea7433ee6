"""The alarm counter columns of the device report tables: one integer column per alarm key.

The spec's calls filter on dynamically named counters (``{alarmType}.gt=0``, platform-spec §7), so each key
of the catalogue is a column named as the key (``a1``, ``adas_1``, ``p_overspeed``). A new key in the
catalogue needs a migration adding its column to ``device_day_report`` and ``device_month_report``:
``python -m warehouse.reports.columns`` prints the column list; ``tests/integration/warehouse/
test_report_tables.py`` fails until the tables and the catalogue agree.
"""

from __future__ import annotations

from fleet.alarm_catalog import ALARMS

ALARM_COUNTERS: tuple[str, ...] = tuple(ALARMS)


def counter_ddl(indent: str = "    ") -> str:
    """``<key> integer NOT NULL DEFAULT 0,`` per key, one per line (for a migration)."""
    return "\n".join(f"{indent}{key} integer NOT NULL DEFAULT 0," for key in ALARM_COUNTERS)


if __name__ == "__main__":
    print(counter_ddl())
