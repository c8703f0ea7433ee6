"""A regulator that goes away abruptly while positions flow (the way SIGTERM or a crash does: it stops reading, then
its sockets are reset with what the link service wrote still unread in them) gets, once it is back, every
position the link service consumed: what was written just before the loss is sent again as 0x1203 back-fill
(at-least-once, JT/T 809 §5.3.3.2.3; the superior de-duplicates by vehicle and fix time), in fix order per
vehicle, with the repeats bounded by the resend window. The regulator in a box on its own event loop and the
link service as its own process, over the real Kafka and PostgreSQL (the ``scene`` of test_regulator_e2e)."""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from typing import Any

from exchange.regulator.tally import Tally
from fleet.topics import JT808_UPLINK
from streams.payloads import Terminal, location_report
from tests.integration.exchange.test_link_service import plates
from tests.integration.exchange.test_regulator_e2e import RegulatorThread, scene  # noqa: F401  (the fixture)
from tests.integration.streams.support import Producer, wait_for

ROUNDS_PER_S = 25  # one position per terminal a round: 75 positions/s over the scene's 3 terminals
STALL_S = 1.0  # the regulator reads nothing this long before its sockets are reset


class Receipts:
    """Every position the regulator counts, in receipt order: (0x1202 or 0x1203, plate, fix second)."""

    def __init__(self, tally: Tally) -> None:
        self.rows: list[tuple[int, str, int]] = []
        real_time, backfill = tally.real_time, tally.backfill

        def on_real_time(plate: str, colour: int, fix_at: datetime | None, received_at: datetime | None = None) -> None:
            self.rows.append((0x1202, plate, int(fix_at.timestamp()) if fix_at else -1))
            real_time(plate, colour, fix_at, received_at)

        def on_backfill(plate: str, colour: int, fixes: list[datetime | None]) -> None:
            self.rows += [(0x1203, plate, int(f.timestamp()) if f else -1) for f in fixes]
            backfill(plate, colour, fixes)

        tally.real_time = on_real_time  # type: ignore[method-assign]
        tally.backfill = on_backfill  # type: ignore[method-assign]

    def distinct(self) -> set[tuple[str, int]]:
        return {(plate, fix) for _, plate, fix in list(self.rows)}


class Flow(threading.Thread):
    """Terminals' positions produced to ``jt808.uplink.v1`` at ROUNDS_PER_S rounds a second until stopped; the
    fixes a second apart per vehicle from just before now (real-time, 0x1202, while the link is up)."""

    def __init__(self, bootstrap: str, terminals: list[Terminal]) -> None:
        super().__init__(daemon=True)
        self.bootstrap, self.terminals = bootstrap, terminals
        self.sent: list[tuple[str, int]] = []  # (phone, fix second)
        self.stop_event = threading.Event()

    def run(self) -> None:
        producer = Producer(self.bootstrap)
        start = datetime.now(UTC).replace(microsecond=0) - timedelta(seconds=2)
        i = 0
        while not self.stop_event.is_set():
            at = start + timedelta(seconds=i)
            for t in self.terminals:
                producer.send(JT808_UPLINK, t.phone, location_report(t, fix_at=at, lat=39.9 + i * 1e-5, lng=116.4))
                self.sent.append((t.phone, int(at.timestamp())))
            i += 1
            time.sleep(1 / ROUNDS_PER_S)
        producer.flush()
        producer.close()


def _stall_then_reset(regulator: RegulatorThread) -> None:
    """On the regulator's loop: read nothing for STALL_S (the link service keeps writing into its sockets),
    then reset them (nothing more read) and stop; the status server's shutdown and the orderly close did
    the stall in the benchmark's SIGTERM."""
    time.sleep(STALL_S)
    regulator.regulator.abort()


def test_an_abrupt_regulator_stop_loses_no_position_the_link_service_had_sent(
        scene: Any, kafka_bootstrap: str, pg_url: str) -> None:  # noqa: F811
    regulator, service, terminals, _ = scene
    plate_of = plates(pg_url, terminals)
    receipts = Receipts(regulator.regulator.tally)
    flow = Flow(kafka_bootstrap, terminals)
    flow.start()
    try:
        wait_for(lambda: len(receipts.rows) >= 3 * ROUNDS_PER_S * 3, 60, "3 s of positions at the regulator", service)
        regulator.call(_stall_then_reset, regulator)
        regulator.call(regulator.regulator.stop)
        time.sleep(2)  # away: the link service consumes nothing while both links are down
        regulator.call(regulator.regulator.start)
        wait_for(regulator.linked, 30, "the links up again", service)
        time.sleep(2)
    finally:
        flow.stop_event.set()
        flow.join(30)
    expected = {(plate_of[phone], fix) for phone, fix in flow.sent}

    def arrived() -> bool:
        return expected <= receipts.distinct()

    try:
        wait_for(arrived, 60, f"all {len(expected)} positions at the regulator", service)
    except AssertionError:
        missing = sorted(expected - receipts.distinct(), key=lambda p: (p[0], p[1]))
        raise AssertionError(f"{len(missing)} of {len(expected)} positions never reached the regulator, "
                             f"e.g. {missing[:5]}") from None
    first: dict[str, list[int]] = defaultdict(list)  # per plate, the fix seconds in the order they first arrived
    seen: set[tuple[str, int]] = set()
    for _, plate, fix in receipts.rows:
        if (plate, fix) in expected and (plate, fix) not in seen:
            seen.add((plate, fix))
            first[plate].append(fix)
    for plate, fixes in first.items():
        assert fixes == sorted(fixes), f"{plate}: positions first arrived out of fix order"
    repeats = len([r for r in receipts.rows if (r[1], r[2]) in expected]) - len(expected)
    # sent again: at most what the link service wrote in its resend window (5 s at this rate, plus the stall)
    assert repeats <= 3 * ROUNDS_PER_S * (5 + STALL_S + 2), f"{repeats} positions arrived more than once"
