"""The GB gateway's record of inferior platforms' links (gateway/gb/inferior_links.py, migration 0062): what one
flush writes per platform (online since the first login, offline when the last session closes, counts as
increments, the last error), the frame log bounded, and a failed write's rows coming back for the next one."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from gateway.gb.inferior_links import WRONG_PASSWORD, InferiorLinks

T0 = datetime(2026, 12, 4, 3, 0, tzinfo=UTC)


@dataclass
class Conn:
    peer: str | None = "203.0.113.5:40000"
    relay_frames: int = 0
    relay_last_rx: float | None = None
    relay_vins: set[str] = field(default_factory=set)

    def relay(self, vin: str, at_loop: float) -> None:
        self.relay_frames += 1
        self.relay_last_rx = at_loop
        self.relay_vins.add(vin)


def test_a_session_is_online_with_its_counts_then_offline_when_it_closes() -> None:
    links, conn = InferiorLinks("gb-1"), Conn()
    links.logged_in(7, conn, T0)
    conn.relay("VIN1", 100.0)
    conn.relay("VIN2", 101.0)
    conn.relay("VIN1", 102.0)
    rows, _ = links.take(T0 + timedelta(seconds=10), 105.0)
    assert rows == [{"platform_id": 7, "gateway_id": "gb-1", "state": "online", "since": T0,
                     "peer": "203.0.113.5:40000", "last_frame_at": T0 + timedelta(seconds=7), "logins": 1,
                     "frames": 3, "refused": 0, "vehicles": 2, "last_error": None, "last_error_at": None}]
    # nothing new: the online row is still written (its liveness), with zero increments
    rows, _ = links.take(T0 + timedelta(seconds=15), 110.0)
    assert [(r["state"], r["logins"], r["frames"], r["vehicles"]) for r in rows] == [("online", 0, 0, 2)]
    conn.relay("VIN3", 111.0)
    links.closed(conn, T0 + timedelta(seconds=20), 115.0)
    rows, _ = links.take(T0 + timedelta(seconds=25), 120.0)
    assert [(r["state"], r["since"], r["frames"], r["vehicles"]) for r in rows] == [
        ("offline", T0 + timedelta(seconds=20), 1, 3)]
    assert links.take(T0 + timedelta(seconds=30), 125.0) == ([], [])  # written: nothing more to say


def test_two_sessions_of_one_platform_keep_it_online_until_both_end() -> None:
    links, first, second = InferiorLinks("gb-1"), Conn(), Conn(peer="198.51.100.2:1")
    links.logged_in(7, first, T0)
    links.logged_in(7, second, T0 + timedelta(seconds=1))
    links.closed(first, T0 + timedelta(seconds=2), 0.0)
    rows, _ = links.take(T0 + timedelta(seconds=3), 0.0)
    assert [(r["state"], r["since"], r["logins"]) for r in rows] == [("online", T0, 2)]
    links.closed(second, T0 + timedelta(seconds=4), 0.0)
    rows, _ = links.take(T0 + timedelta(seconds=5), 0.0)
    assert [(r["state"], r["since"]) for r in rows] == [("offline", T0 + timedelta(seconds=4))]


def test_a_refused_login_is_the_last_error_and_leaves_the_state_to_the_row() -> None:
    links = InferiorLinks("gb-1")
    links.refused(9, WRONG_PASSWORD, T0)
    rows, _ = links.take(T0, 0.0)
    assert [(r["state"], r["since"], r["refused"], r["last_error"], r["last_error_at"]) for r in rows] == [
        (None, None, 1, WRONG_PASSWORD, T0)]


def test_a_platforms_refused_logins_are_logged_once_per_interval_and_all_counted() -> None:
    links = InferiorLinks("gb-1")
    logged = []
    for _ in range(5):  # a password guesser
        links.refused(9, WRONG_PASSWORD, T0)
        logged.append(links.log_refusal(9))
    assert logged == [True, False, False, False, False] and links.log_refusal(10)
    rows, _ = links.take(T0, 0.0)
    assert [(r["platform_id"], r["refused"]) for r in rows] == [(9, 5)]
    assert links.log_refusal(9)  # the next interval logs its first again


def test_the_frame_log_is_bounded_and_a_failed_write_comes_back() -> None:
    links, conn = InferiorLinks("gb-1", max_messages=2), Conn()
    links.logged_in(7, conn, T0)
    for n in range(3):
        links.message(7, "up", 5, {"n": n}, "", T0)
    assert links.dropped_messages == 1
    conn.relay("VIN1", 1.0)
    rows, messages = links.take(T0, 1.0)
    assert [m["decoded"] for m in messages] == [{"n": 0}, {"n": 1}]
    links.restore(rows, messages)  # the database was down
    conn.relay("VIN1", 2.0)
    rows, messages = links.take(T0 + timedelta(seconds=5), 2.0)
    assert [(r["logins"], r["frames"], r["state"]) for r in rows] == [(1, 2, "online")]
    assert len(messages) == 2


def test_logins_with_an_unknown_username_add_up_per_username_and_address_bounded() -> None:
    links = InferiorLinks("gb-1", max_unknown=2)
    links.unknown_login("probe", "198.51.100.1:40001", T0)
    links.unknown_login("probe", "198.51.100.1:40002", T0 + timedelta(seconds=5))  # another port: the same host
    links.unknown_login("ad\x00min", "198.51.100.1:40003", T0 + timedelta(seconds=6))
    links.unknown_login("third", "198.51.100.9:1", T0)  # a third key waits for no write: counted, not kept
    rows = links.take_unknown()
    assert rows == [
        {"gateway_id": "gb-1", "username": "probe", "address": "198.51.100.1", "first_at": T0,
         "last_at": T0 + timedelta(seconds=5), "attempts": 2},
        {"gateway_id": "gb-1", "username": "ad?min", "address": "198.51.100.1", "first_at": T0 + timedelta(seconds=6),
         "last_at": T0 + timedelta(seconds=6), "attempts": 1}]
    assert links.dropped_unknown == 1
    assert links.take_unknown() == []  # increments: taken once
    # a failed write's attempts come back and add to the next ones
    links.unknown_login("probe", "198.51.100.1:40009", T0 + timedelta(seconds=9))
    links.restore_unknown(rows)
    again = {r["username"]: r for r in links.take_unknown()}
    assert (again["probe"]["attempts"], again["probe"]["first_at"], again["probe"]["last_at"]) == (
        3, T0, T0 + timedelta(seconds=9))
    assert again["ad?min"]["attempts"] == 1


def test_a_received_username_is_shown_bounded_and_printable() -> None:
    links = InferiorLinks("gb-1")
    links.unknown_login("x" * 500 + "\n", None, T0)
    [row] = links.take_unknown()
    assert row["username"] == "x" * 32 and row["address"] == "unknown"
