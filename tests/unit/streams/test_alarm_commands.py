"""Whether a new active-safety alarm's terminal is asked for its evidence (0x9208): it is connected when
its row says online, or when the batch that raised the alarm holds an uplink of it received within
HEARD_WITHIN_S and its row records no going offline since (the row's "online" comes from the sessions
agent, which may not have run yet for a terminal that reports an alarm right after it logs in)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from fleet.enums import DeviceState
from streams.alarm_commands import HEARD_WITHIN_S, reachable

NOW = datetime(2026, 5, 1, 8, 0, 0, tzinfo=UTC)


def device(state: DeviceState, offline_at: datetime | None = None) -> dict[str, Any]:
    return {"state": int(state), "offlineTime": offline_at}


@pytest.mark.parametrize(("target", "heard_at", "expected"), [
    (device(DeviceState.ONLINE), None, True),
    (device(DeviceState.UNREGISTERED), NOW - timedelta(seconds=1), True),  # logged in; "online" not stored yet
    (device(DeviceState.OFFLINE, NOW - timedelta(hours=2)), NOW - timedelta(seconds=1), True),  # reconnected
    (device(DeviceState.OFFLINE, NOW - timedelta(hours=2)), NOW - timedelta(seconds=HEARD_WITHIN_S), True),
    (device(DeviceState.OFFLINE, NOW - timedelta(hours=2)), NOW - timedelta(seconds=HEARD_WITHIN_S + 1), False),
    (device(DeviceState.OFFLINE, NOW - timedelta(seconds=1)), NOW - timedelta(seconds=2), False),  # gone since
    (device(DeviceState.OFFLINE), None, False),  # not in this batch: the row decides
    (device(DeviceState.DISABLED), NOW - timedelta(seconds=1), False),
])
def test_a_terminal_heard_from_just_now_is_connected_until_its_row_says_it_left(
        target: dict[str, Any], heard_at: datetime | None, expected: bool) -> None:
    assert reachable(target, heard_at, NOW) is expected
