"""Count what the regulator received against the database (issue section 5: "counts forwarded
positions against the database"): for the given vehicles and fix-time window, the positions stored in
``gps`` are what an inferior platform forwarding every position must have delivered.

The result per vehicle and in total: ``expected`` (stored fixes), ``received`` (distinct fixes that
arrived, real-time or back-filled), ``missing`` (stored, never arrived), ``unexpected`` (arrived, not
stored) and ``duplicates`` (arrivals of a fix the regulator already had, over the whole run). Fix times
compare as whole UTC seconds, the resolution JT/T 809 carries.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from psycopg import Connection

from exchange.regulator.tally import Tally
from warehouse.queries.positions import fix_seconds_by_plate


def reconcile(conn: Connection[Any], tally: Tally, since: datetime, until: datetime,
              plates: Sequence[str]) -> dict[str, Any]:
    """Raises ValueError for a naive or empty window (a silent empty reconciliation would read as
    "nothing missing")."""
    if since.tzinfo is None or until.tzinfo is None:
        raise ValueError("reconcile needs timezone-aware since / until")
    if until <= since:
        raise ValueError("reconcile needs until after since")
    stored = fix_seconds_by_plate(conn, plates, since, until)
    low, high = since.timestamp(), until.timestamp()
    keys = set(stored) | {key for key in tally.vehicles if key[0] in set(plates)}
    vehicles: list[dict[str, Any]] = []
    for plate, colour in sorted(keys):
        expected = stored.get((plate, colour), set())
        tallied = tally.vehicles.get((plate, colour))
        got = {s for s in tallied.fixes if low <= s < high} if tallied is not None else set()
        missing = expected - got
        vehicles.append({"plate": plate, "colour": colour, "expected": len(expected), "received": len(got),
                         "missing": len(missing), "unexpected": len(got - expected),
                         "duplicates": tallied.duplicates if tallied is not None else 0,
                         "first_missing": datetime.fromtimestamp(min(missing), UTC).isoformat() if missing else None})
    totals = {k: sum(v[k] for v in vehicles) for k in ("expected", "received", "missing", "unexpected", "duplicates")}
    return {**totals, "vehicles": vehicles}
