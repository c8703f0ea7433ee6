"""The gateway drill's figure of the ingest benchmark (benchmarks/ingest_bench.py ``terminals_back``): which
terminals the killed gateway held, and how soon each was online again on any gateway, read from
``device_online_log`` as the streams store the gateways' session events. The scale-out drills are judged by it
(a dead gateway's terminals back through the balancer within 30 s)."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from benchmarks.ingest_bench import terminals_back
from warehouse.db import connect

KILL = datetime(2026, 5, 4, 10, 0, tzinfo=UTC)


def _sessions(pg_url: str, rows: list[tuple[int, float, int, str]]) -> None:
    """(device, seconds from the kill, state, gateway) rows of the online log."""
    with connect(pg_url) as conn:
        for device, offset_s, state, gateway in rows:
            conn.execute("INSERT INTO device_online_log (device_id, at, state, enterprise_id, reason, gateway_id)"
                         " VALUES (%s, %s, %s, 1, 'login', %s)",
                         (device, KILL + timedelta(seconds=offset_s), state, gateway))
        conn.commit()


def test_the_killed_gateways_terminals_are_counted_with_the_seconds_until_each_was_online_again(pg_url: str) -> None:
    base = random.randrange(10**9, 2 * 10**9)
    moved, restarted, never, on_other, went_offline = (base + n for n in range(5))
    _sessions(pg_url, [
        (moved, -100, 1, "gw-1"), (moved, 4, 1, "gw-2"), (moved, 30, 1, "gw-2"),  # its first login after counts
        (restarted, -90, 1, "gw-1"), (restarted, 12, 1, "gw-1"),  # back on the restarted gateway
        (never, -80, 1, "gw-1"),
        (on_other, -100, 1, "gw-2"), (on_other, 1, 1, "gw-2"),  # the other gateway's: not the killed one's
        (went_offline, -100, 1, "gw-1"), (went_offline, -50, 0, "gw-1"), (went_offline, 2, 1, "gw-2"),
    ])
    sent = [(device, KILL) for device in (moved, restarted, never, on_other, went_offline)]

    figures = terminals_back(pg_url, sent, KILL.timestamp(), "gw-1")

    assert figures["kill_gateway_terminals"] == 3  # moved, restarted, never: online on gw-1 when it died
    assert figures["kill_gateway_terminals_back"] == 2
    assert figures["kill_gateway_back_p50_s"] == 8.0  # 4 s and 12 s
    assert figures["kill_gateway_back_max_s"] == 12.0
    # the single topology's one gateway: every terminal online at the kill, whatever its gateway's name
    assert terminals_back(pg_url, sent, KILL.timestamp(), None)["kill_gateway_terminals"] == 4
