"""Implausible fixes through the real pipeline (Kafka -> streams worker -> PostgreSQL): stored flagged, counted
for the qualification KPI on the day they arrived, never moving device_last."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from fleet.topics import JT808_UPLINK
from gateway.payloads import TerminalIdentity, uplink_value
from protocols.jt808 import decode_frame, to_json
from streams import payloads

from .support import Producer, Worker, insert_terminals, query, wait_for

# A 0x0200 whose BCD time is 20 12 01 14 42 02: the terminal wrote the century where the year belongs.
CENTURY_AS_YEAR = "7E0200001C013395279527000500000000000000030260F55C06F015BC00320190005A201201144202207E"


def _flags(pg_url: str, device_id: int) -> list[tuple[datetime, int]]:
    return query(pg_url, "SELECT fix_at, quality FROM gps WHERE device_id = %s ORDER BY fix_at", (device_id,))


def _counts(pg_url: str, device_id: int) -> dict[str, int]:
    rows = query(pg_url, "SELECT reason_class, n FROM gps_reject_day WHERE device_id = %s AND day = %s",
                 (device_id, datetime.now(ZoneInfo("Asia/Shanghai")).date()))
    return dict(rows)


def test_fix_dated_2020_and_a_teleport_are_stored_flagged_counted_and_leave_device_last(
        worker: Worker, producer: Producer, pg_url: str) -> None:
    term = insert_terminals(pg_url, 1)[0]
    now = datetime.now(UTC).replace(microsecond=0)
    t0 = now - timedelta(minutes=2)
    beijing = {"lat": 39.9087, "lng": 116.3975}
    producer.send(JT808_UPLINK, term.phone, payloads.location_report(term, fix_at=t0, received_at=t0, **beijing))
    frame = decode_frame(bytes.fromhex(CENTURY_AS_YEAR))
    identity = TerminalIdentity(term.phone, term.device_id, term.car_id, term.enterprise_id)
    producer.send(JT808_UPLINK, term.phone, uplink_value(
        identity, msg_id=0x0200, seq=5, protocol_version="2013", raw_hex=CENTURY_AS_YEAR, message=to_json(frame),
        connection_id="c1", gateway_id="g1", received_at=now.isoformat()))
    shanghai = t0 + timedelta(seconds=10)  # 1,067 km in ten seconds
    producer.send(JT808_UPLINK, term.phone, payloads.location_report(
        term, fix_at=shanghai, received_at=shanghai, lat=31.2304, lng=121.4737, seq=6))
    after = t0 + timedelta(seconds=20)
    producer.send(JT808_UPLINK, term.phone, payloads.location_report(
        term, fix_at=after, received_at=after, lat=39.9088, lng=116.3976, seq=7))
    producer.flush()

    wait_for(lambda: len(_flags(pg_url, term.device_id)) >= 4, 30, "4 gps rows", worker)
    assert _flags(pg_url, term.device_id) == [
        (datetime(2020, 12, 1, 6, 42, 2, tzinfo=UTC), 1),  # past: stored, not dropped
        (t0, 0), (shanghai, 4), (after, 0)]  # the teleport flagged, the fixes around it not
    assert wait_for(lambda: _counts(pg_url, term.device_id), 10, "counts", worker) == {"past": 1, "teleport": 1}
    last = query(pg_url, "SELECT fix_at, lat FROM device_last WHERE device_id = %s", (term.device_id,))
    assert last == [(after, 39.9088)]

    # a teleport as the newest fix never becomes the live position
    jump = t0 + timedelta(seconds=30)
    producer.send(JT808_UPLINK, term.phone, payloads.location_report(
        term, fix_at=jump, received_at=jump, lat=31.2304, lng=121.4737, seq=8))
    producer.flush()
    wait_for(lambda: len(_flags(pg_url, term.device_id)) >= 5, 30, "the fifth row", worker)
    assert _flags(pg_url, term.device_id)[-1] == (jump, 4)
    assert query(pg_url, "SELECT fix_at, lat FROM device_last WHERE device_id = %s", (term.device_id,)) == last
