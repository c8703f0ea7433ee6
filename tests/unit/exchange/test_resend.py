"""The resend window (exchange.link.resend): which records a link loss sends again, which offsets are committed."""

from __future__ import annotations

from exchange.link.resend import SentWindow

P0, P1 = "uplink-0", "uplink-1"
FRAME = 100  # bytes per record's frame in these tests


def handled(window: SentWindow[str], tp: str, offsets: range, start_s: float, total: int) -> int:
    """Records handled one every 0.1 s from ``start_s``; returns the links' byte count after them."""
    for i, offset in enumerate(offsets):
        total += FRAME
        window.add(tp, offset, start_s + i / 10, total)
    return total


def test_a_loss_reads_again_from_the_first_record_written_within_the_window_before_it() -> None:
    window: SentWindow[str] = SentWindow(seconds=2.0, bytes=0)
    total = handled(window, P0, range(100, 150), 10.0, 0)  # written from 10.0 s to 14.9 s
    assert window.rewind(15.0, total) == {P0: 130}  # 13.0 s and later
    assert [window.is_resend(P0, o) for o in (130, 149, 150)] == [True, True, False]  # read again: back-fill


def test_at_least_the_last_bytes_written_are_read_again_however_old() -> None:
    window: SentWindow[str] = SentWindow(seconds=1.0, bytes=20 * FRAME)
    total = handled(window, P0, range(0, 50), 0.0, 0)  # the last one written at 4.9 s
    assert window.rewind(60.0, total) == {P0: 30}  # a minute later: nothing by time, the last 20 frames by bytes


def test_every_partition_rewinds_to_its_own_first_doubtful_record_and_to_the_batch_not_handled_yet() -> None:
    window: SentWindow[str] = SentWindow(seconds=1.0, bytes=0)
    total = handled(window, P0, range(0, 20), 0.0, 0)  # 0.0-1.9 s
    total = handled(window, P1, range(500, 505), 2.0, total)  # 2.0-2.4 s
    seek = window.rewind(2.5, total, unhandled={P1: 505, "uplink-2": 7})
    assert seek == {P0: 15, P1: 500, "uplink-2": 7}
    assert not window.is_resend("uplink-2", 7)  # never sent: not a back-fill


def test_offsets_are_committed_only_past_the_window() -> None:
    window: SentWindow[str] = SentWindow(seconds=2.0, bytes=0)
    total = handled(window, P0, range(0, 30), 0.0, 0)  # 0.0-2.9 s
    assert window.settle(3.0, total) == {P0: 10}  # 1.0 s and later may still be lost
    assert window.settle(10.0, total) == {P0: 30}  # all behind the window: up to the last one handled


def test_records_read_again_leave_the_window_until_handled_again_and_a_second_loss_keeps_them() -> None:
    window: SentWindow[str] = SentWindow(seconds=2.0, bytes=0)
    total = handled(window, P0, range(0, 30), 0.0, 0)
    assert window.rewind(3.0, total) == {P0: 10}
    assert window.settle(3.0, total) == {P0: 10}  # nothing committed past what is read again
    total = handled(window, P0, range(10, 15), 4.0, total)  # the first 5 sent again, then another loss
    assert window.rewind(4.5, total) == {P0: 10}
    assert all(window.is_resend(P0, o) for o in range(10, 30)) and not window.is_resend(P0, 30)


def test_nothing_doubtful_and_nothing_pending_rewinds_nothing() -> None:
    window: SentWindow[str] = SentWindow(seconds=1.0, bytes=0)
    total = handled(window, P0, range(0, 5), 0.0, 0)
    assert window.rewind(100.0, total) == {}


def test_a_partition_read_again_from_an_earlier_offset_replaces_what_the_window_held_from_there() -> None:
    window: SentWindow[str] = SentWindow(seconds=2.0, bytes=0)
    total = handled(window, P0, range(0, 10), 0.0, 0)
    total = handled(window, P0, range(5, 8), 1.0, total)  # a rebalance resumed from the committed offset 5
    assert window.settle(2.95, total) == {P0: 5}  # 5-7 handled again at 1.0-1.2 s, still in the window
    assert window.settle(10.0, total) == {P0: 8}
