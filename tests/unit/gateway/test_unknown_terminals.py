"""The record of refused registrations of unknown phones (gateway/unknown_terminals.py): one entry per
phone, bounded, written in the background; a failing write is counted, never raised."""

from __future__ import annotations

import asyncio

from gateway.counters import GatewayCounters
from gateway.unknown_terminals import INVALID_PHONE, UNKNOWN_PHONE, RefusedAttempt, UnknownTerminalLog
from protocols.jt808 import Registration


def record(log: UnknownTerminalLog, phone: str, msg_id: int = 0x0100, **kwargs: object) -> None:
    log.record(phone, msg_id, 4 if msg_id == 0x0100 else 1, peer="203.0.113.7:40000", gateway_id="gw-1",
               protocol_version="2013", **kwargs)  # type: ignore[arg-type]


def test_attempts_of_one_phone_add_up_and_keep_the_registration_fields() -> None:
    counters = GatewayCounters()
    log = UnknownTerminalLog(counters, buffer_max=10)
    record(log, "013912345678", registration=Registration(44, 300, "MAKER", "MODEL", "TID\x00\x00", 2, "粤B1"))
    record(log, "13912345678", 0x0102)  # the same terminal in its SIM form
    [attempt] = log.take()
    assert (attempt.phone, attempt.reason, attempt.attempts) == ("13912345678", UNKNOWN_PHONE, 2)
    assert (attempt.msg_id, attempt.result) == (0x0102, 1)
    assert (attempt.terminal_id, attempt.manufacturer_id, attempt.plate_number, attempt.plate_color) == \
        ("TID", "MAKER", "粤B1", 2)
    assert log.take() == [] and counters.unknown_refusals == 2


def test_a_header_phone_that_is_no_number_is_kept_as_sent_with_its_reason() -> None:
    log = UnknownTerminalLog(GatewayCounters(), buffer_max=10)
    record(log, "000000000000")
    record(log, "01391234567A")  # a BCD nibble that is no digit
    assert [(a.phone, a.reason) for a in log.take()] == [("000000000000", INVALID_PHONE),
                                                         ("01391234567A", INVALID_PHONE)]


def test_new_phones_past_the_bound_are_counted_not_kept() -> None:
    counters = GatewayCounters()
    log = UnknownTerminalLog(counters, buffer_max=3)
    for i in range(10):
        record(log, f"0139000000{i:02d}")
    record(log, "013900000001")  # a phone already waiting still counts its attempt
    assert len(log) == 3 and counters.unknown_refusals_dropped == 7
    assert [a.attempts for a in log.take()] == [1, 2, 1]


def test_a_failed_write_is_counted_and_the_gateway_goes_on() -> None:
    counters = GatewayCounters()
    log = UnknownTerminalLog(counters, buffer_max=10)
    written: list[list[RefusedAttempt]] = []

    async def failing(batch: list[RefusedAttempt]) -> None:
        raise OSError("database down")

    async def working(batch: list[RefusedAttempt]) -> None:
        written.append(batch)

    async def main() -> None:
        record(log, "013900000001")
        record(log, "013900000002")
        await log.flush(failing)
        record(log, "013900000003")
        await log.flush(working)

    asyncio.run(main())
    assert counters.unknown_refusals_write_failed == 2
    assert [[a.phone for a in batch] for batch in written] == [["13900000003"]]
