"""The ingest benchmark's fault drills (benchmarks/ingest_bench.py ``--kill``, benchmarks/stomp_watch.py):
which components a run may kill, and how the browsers' gap after an API kill is read from their timelines."""

from __future__ import annotations

import argparse

import pytest

from benchmarks.ingest_bench import kill_list, parse_args
from benchmarks.stomp_watch import Session, StompWatch, backoff_s


def test_kill_takes_one_or_several_components_each_once() -> None:
    assert kill_list("api") == ["api"]
    assert kill_list("broker,worker") == ["broker", "worker"]
    for bad in ("host", "broker,broker", "broker,", ""):
        with pytest.raises(argparse.ArgumentTypeError):
            kill_list(bad)


def test_an_api_kill_needs_the_cluster_and_every_kill_the_load_generator() -> None:
    assert parse_args(["--source", "loadgen", "--topology", "cluster", "--kill", "api,worker"]).kill == ["api", "worker"]
    for argv in (["--source", "loadgen", "--kill", "api"], ["--source", "direct", "--kill", "worker"]):
        with pytest.raises(SystemExit):
            parse_args(argv)


def test_the_gap_runs_from_the_kill_to_the_first_live_position_of_the_sessions_that_lost_their_socket() -> None:
    watch = StompWatch("127.0.0.1", 1, "admin", "x", 1, clients=0)
    on_dead = Session("a", messages=[99.0, 104.5, 105.0], dropped=[100.2], connected=[90.0, 101.5], resynced=[101.9])
    later = Session("b", messages=[99.5, 108.0], dropped=[100.1], connected=[90.0, 103.0], resynced=[103.4])
    untouched = Session("c", messages=[99.0, 100.5, 101.0], connected=[90.0])
    watch.sessions = [on_dead, later, untouched]
    assert watch.gaps(100.0) == {
        "stomp_sessions": 3, "stomp_sessions_on_killed_api": 2,
        "stomp_kill_to_drop_max_s": 0.2, "stomp_kill_to_reconnect_max_s": 3.0,
        "stomp_kill_to_resync_max_s": 3.4, "stomp_kill_to_first_live_position_max_s": 8.0}
    never_back = Session("d", messages=[99.0], dropped=[100.3], connected=[90.0])
    watch.sessions = [never_back]
    assert watch.gaps(100.0)["stomp_kill_to_first_live_position_max_s"] == float("inf")


def test_sessions_reconnect_with_the_consoles_backoff() -> None:
    for attempt, base in ((0, 1.0), (1, 2.0), (3, 8.0), (10, 30.0)):
        assert all(base * 0.8 <= backoff_s(attempt) <= base * 1.2 for _ in range(50))
