"""The platform administrator's two read-only settings screens (platform-spec §2 settings):

- ``db``: the database's health (``database_report``): PostgreSQL version, TimescaleDB or native
  partitions, size, connections against ``max_connections``, the biggest tables, every daily
  ``gps`` partition, and which of them the retention setting (``FLEET_DATABASE_GPS_RETENTION_DAYS``)
  says are due to be dropped (``warehouse.retention`` drops exactly those: ``fleet retention`` and
  ``fleet up``'s supervisor). Nothing here drops anything; the one action creates today's and
  tomorrow's partitions now (``warehouse.partitions``).
- ``sourceCodeLog``: the running version (``version_log``): package version, git commit (setting,
  else read from the repository's ``.git``), the migrations applied with their dates (yoyo's
  table), and the release notes of ``CHANGELOG.md``.
"""

from __future__ import annotations

import functools
import importlib.metadata
import re
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from psycopg import Connection

from fleet.settings import REPO_ROOT
from warehouse.partitions import ensure_gps_partitions
from warehouse.queries import database_health, monitor

CHANGELOG = REPO_ROOT / "CHANGELOG.md"
BIGGEST_TABLES = 15
_HEADING = re.compile(r"^##\s+(?P<title>.+?)\s*(?:\((?P<date>\d{4}-\d{2}-\d{2})\))?\s*$")
_SHA = re.compile(r"^[0-9a-f]{40}$")


def database_report(conn: Connection[Any], retention_days: int, today: date) -> dict[str, Any]:
    """The db screen's data. A partition whose whole day is older than the retention is ``expired``
    (``retention.expired*`` sum them); retention 0 keeps everything."""
    head = monitor.database(conn, BIGGEST_TABLES)
    partitions = database_health.gps_partitions(conn)
    cutoff = today - timedelta(days=retention_days) if retention_days else None
    for p in partitions:
        p["expired"] = bool(cutoff and p["day"] is not None and p["day"] < cutoff)
    expired = [p for p in partitions if p["expired"]]
    return {
        **database_health.server(conn),
        "name": head["name"],
        "sizeBytes": head["sizeBytes"],
        "tables": head["tables"],
        "partitions": partitions,
        "retention": {
            "days": retention_days,
            "cutoff": cutoff,
            "expiredPartitions": len(expired),
            "expiredBytes": sum(p["sizeBytes"] for p in expired),
            "expiredRows": sum(p["estimatedRows"] for p in expired),
        },
    }


def create_partitions_now(conn: Connection[Any], today: date) -> list[str]:
    """Today's and tomorrow's gps partitions, created when missing; the names created."""
    return ensure_gps_partitions(conn, today, days_ahead=1)


def utc_today() -> date:
    return datetime.now(UTC).date()


# --- version log -------------------------------------------------------------------------------


def package_version() -> str:
    try:
        return importlib.metadata.version("fleetwatch")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def git_commit(repo: Path) -> str | None:
    """The commit HEAD names in ``repo``'s ``.git`` (a directory, or a worktree's ``gitdir:`` file),
    through a loose ref or ``packed-refs``; None when there is no repository or it cannot be read."""
    try:
        git = repo / ".git"
        if git.is_file():
            git = (repo / git.read_text(encoding="utf-8").removeprefix("gitdir:").strip()).resolve()
        head = (git / "HEAD").read_text(encoding="utf-8").strip()
        if _SHA.match(head):
            return head
        ref = head.removeprefix("ref:").strip()
        common = git
        if (git / "commondir").is_file():
            common = (git / (git / "commondir").read_text(encoding="utf-8").strip()).resolve()
        for base in (git, common):
            loose = base / ref
            if loose.is_file():
                value = loose.read_text(encoding="utf-8").strip()
                return value if _SHA.match(value) else None
        packed = common / "packed-refs"
        if packed.is_file():
            for line in packed.read_text(encoding="utf-8").splitlines():
                sha, _, name = line.partition(" ")
                if name == ref and _SHA.match(sha):
                    return sha
    except (OSError, UnicodeDecodeError):
        return None
    return None


@functools.lru_cache(maxsize=4)
def _build_commit(repo: Path) -> str | None:
    return git_commit(repo)  # read once per process: the code does not change under a running server


def parse_changelog(text: str) -> list[dict[str, Any]]:
    """``## title (YYYY-MM-DD)`` sections with their ``- item`` lines, in file order."""
    releases: list[dict[str, Any]] = []
    for line in text.splitlines():
        heading = _HEADING.match(line)
        if heading:
            releases.append({"title": heading["title"], "date": heading["date"], "items": []})
        elif releases and line.startswith(("- ", "* ")):
            releases[-1]["items"].append(line[2:].strip())
    return releases


def migrations_applied(conn: Connection[Any]) -> list[dict[str, Any]]:
    """Yoyo's record of the applied migrations, oldest first (empty when the table is missing)."""
    return database_health.applied_migrations(conn)


def version_log(conn: Connection[Any], build_commit: str = "", changelog: Path = CHANGELOG) -> dict[str, Any]:
    try:
        notes = parse_changelog(changelog.read_text(encoding="utf-8"))
    except OSError:
        notes = []
    return {
        "version": package_version(),
        "commit": build_commit or _build_commit(REPO_ROOT),
        "migrations": migrations_applied(conn),
        "releases": notes,
    }
