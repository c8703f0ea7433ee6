"""``fleet deadletters replay``: what it selects and how it refuses bad arguments (Kafka: the worker test)."""

from __future__ import annotations

from datetime import UTC, datetime

from click.testing import CliRunner

from fleet.cli import main as fleet_cli
from fleet.topics import DEVICE_SESSIONS, JT808_UPLINK
from streams.replay import parse_time, selected


def test_replays_only_the_steps_dead_letters_of_uplinks() -> None:
    record = {"agent": "alarms", "source_topic": JT808_UPLINK, "value": "{}"}
    assert selected(record, "alarms")
    assert not selected(record, "states")
    assert not selected({**record, "source_topic": DEVICE_SESSIONS}, "alarms")
    assert not selected({"agent": "alarms", "source_topic": JT808_UPLINK}, "alarms")


def test_since_without_an_offset_is_utc() -> None:
    assert parse_time("2026-12-01T08:00:00") == datetime(2026, 12, 1, 8, tzinfo=UTC)
    assert parse_time("2026-12-01T16:00:00+08:00") == datetime(2026, 12, 1, 8, tzinfo=UTC)


def test_rejects_an_unknown_step_and_a_bad_time_with_a_usage_error() -> None:
    unknown = CliRunner().invoke(fleet_cli, ["deadletters", "replay", "--step", "nope", "--since", "2026-12-01"])
    assert unknown.exit_code == 2 and "'nope' is not one of" in unknown.output
    bad = CliRunner().invoke(fleet_cli, ["deadletters", "replay", "--step", "alarms", "--since", "yesterday"])
    assert bad.exit_code == 2 and "not an ISO 8601 time: 'yesterday'" in bad.output
    live = CliRunner().invoke(fleet_cli, ["deadletters", "replay", "--step", "live", "--since", "2026-12-01"])
    assert live.exit_code == 2  # a view never dead-letters
