from datetime import UTC, datetime, timedelta

from simulator.outbox import Outbox, Position

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def _positions(outbox: Outbox, n: int, start: int = 0) -> list[Position]:
    created = [Position(T0 + timedelta(seconds=start + i), b"%d" % i) for i in range(n)]
    for p in created:
        outbox.add(p)
    return created


def test_acknowledged_position_leaves_the_outbox() -> None:
    outbox = Outbox(ack_timeout_s=10, batch_items=5)
    [p] = _positions(outbox, 1)
    assert outbox.next_live() == [p]
    outbox.mark_sent([p], seq=7, now=0.0)
    assert outbox.next_live() == []
    assert outbox.acknowledged(7) == [p]
    assert len(outbox) == 0
    assert (outbox.stats.sent, outbox.stats.acked, outbox.stats.resent) == (1, 1, 0)


def test_resends_position_not_acknowledged_within_timeout() -> None:
    outbox = Outbox(ack_timeout_s=10, batch_items=5)
    [p] = _positions(outbox, 1)
    outbox.mark_sent([p], seq=1, now=0.0)
    assert outbox.due_for_resend(5.0) == []
    assert outbox.due_for_resend(10.0) == [p]
    outbox.mark_sent([p], seq=2, now=10.0)
    assert outbox.stats.resent == 1 and outbox.stats.sent == 1
    assert outbox.acknowledged(1) == []  # the old serial no longer stands for it
    assert outbox.acknowledged(2) == [p]
    assert outbox.stats.acked == 1


def test_failure_result_puts_position_back_for_sending() -> None:
    outbox = Outbox(ack_timeout_s=10, batch_items=5)
    [p] = _positions(outbox, 1)
    outbox.mark_sent([p], seq=1, now=0.0)
    outbox.rejected(1)
    assert outbox.next_live() == [p]


def test_unacknowledged_positions_become_backlog_uploaded_in_batches_after_reconnect() -> None:
    outbox = Outbox(ack_timeout_s=10, batch_items=3)
    sent = _positions(outbox, 2)
    outbox.mark_sent(sent[:1], seq=1, now=0.0)
    outbox.disconnected()
    offline = _positions(outbox, 3, start=10)  # generated while disconnected: no connection yet
    for p in offline:
        p.backlog = True
    assert outbox.next_live() == []
    first = outbox.next_batch(now=1.0)
    assert first == sent + offline[:1]  # oldest first, batch_items at most
    outbox.mark_sent(first, seq=2, now=1.0, batch=True)
    assert outbox.next_batch(now=2.0) == []  # one batch in flight at a time
    assert outbox.acknowledged(2) == first
    second = outbox.next_batch(now=3.0)
    assert second == offline[1:]
    outbox.mark_sent(second, seq=3, now=3.0, batch=True)
    outbox.acknowledged(3)
    assert len(outbox) == 0 and not outbox.has_backlog
    assert outbox.stats.backlog_uploaded == 5
    assert outbox.stats.acked == 5
    assert outbox.stats.sent == 5  # each position counted once however often it went up


def test_batch_without_ack_is_sent_again_after_timeout() -> None:
    outbox = Outbox(ack_timeout_s=10, batch_items=3)
    items = _positions(outbox, 2)
    outbox.disconnected()
    batch = outbox.next_batch(0.0)
    outbox.mark_sent(batch, seq=5, now=0.0, batch=True)
    assert outbox.next_batch(9.0) == []
    again = outbox.next_batch(10.0)
    assert again == items
    outbox.mark_sent(again, seq=6, now=10.0, batch=True)
    assert outbox.acknowledged(5) == []
    assert outbox.acknowledged(6) == items


def test_live_positions_after_reconnect_are_not_backlog() -> None:
    outbox = Outbox(ack_timeout_s=10, batch_items=3)
    old = _positions(outbox, 1)
    outbox.disconnected()
    new = _positions(outbox, 1, start=5)
    assert outbox.next_live() == new
    assert outbox.next_batch(0.0) == old


def test_blind_area_store_is_bounded() -> None:
    outbox = Outbox(ack_timeout_s=10, batch_items=3, max_positions=4)
    _positions(outbox, 6)
    assert len(outbox) == 4 and outbox.dropped == 2
