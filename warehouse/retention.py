"""Retention: whole daily partitions older than their setting are dropped (``gps`` with
``FLEET_DATABASE_GPS_RETENTION_DAYS``, ``message_log`` with ``FLEET_DATABASE_MESSAGE_LOG_RETENTION_DAYS``;
0 keeps everything). The rule is the settings-db screen's "expired" one (api/platform_info.py): a
partition whose whole UTC day is older than today minus the retention.

Run by ``fleet retention`` and every ``FLEET_DATABASE_RETENTION_INTERVAL_S`` by ``fleet up``'s supervisor.
"""

from __future__ import annotations

import logging
from datetime import UTC, date, datetime

import click

from warehouse.partitions import MESSAGE_LOG, PARENT, drop_expired_partitions

log = logging.getLogger(__name__)


def retention_days() -> dict[str, int]:
    """Table -> days kept, from the settings."""
    from fleet.settings import DatabaseSettings

    settings = DatabaseSettings()
    return {PARENT: settings.gps_retention_days, MESSAGE_LOG: settings.message_log_retention_days}


def run_retention(url: str, today: date | None = None, *, days: dict[str, int] | None = None,
                  dry_run: bool = False) -> dict[str, list[str]]:
    """Drops the expired partitions of each table; table -> the partitions dropped (or due, dry run)."""
    from warehouse.db import connect

    today = today or datetime.now(UTC).date()
    kept = retention_days() if days is None else days
    dropped: dict[str, list[str]] = {}
    with connect(url) as conn:
        for table, retention in kept.items():
            dropped[table] = drop_expired_partitions(conn, table, retention, today, dry_run=dry_run)
    return dropped


@click.command("retention")
@click.option("--dry-run", is_flag=True, help="list the partitions that would be dropped, drop nothing")
def retention_command(dry_run: bool) -> None:
    """Drop the daily gps and message_log partitions older than their retention settings."""
    from fleet.settings import database_url

    days = retention_days()
    dropped = run_retention(database_url(), days=days, dry_run=dry_run)
    verb = "would drop" if dry_run else "dropped"
    for table, names in dropped.items():
        keep = f"{days[table]} days" if days[table] else "everything (retention 0)"
        click.echo(f"{table}: keeps {keep}; {verb} {len(names)} partition(s)" + (f": {', '.join(names)}" if names else ""))
