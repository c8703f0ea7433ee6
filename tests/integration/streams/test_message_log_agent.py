"""Every uplink kept: frames through Kafka and the streams worker into message_log, once."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from fleet.topics import JT808_UPLINK
from protocols.jt808 import LocationReport, encode_frame
from streams.payloads import frame_uplink

from .support import Producer, Worker, insert_terminals, query, wait_for


def test_every_uplink_lands_in_message_log_once_even_when_redelivered(worker: Worker, producer: Producer,
                                                                      pg_url: str) -> None:
    term = insert_terminals(pg_url, 1, enterprise_name="message-log")[0]
    t0 = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=1)
    report = LocationReport(alarm_flags=0, status_flags=3, lat=39.9, lng=116.4, altitude_m=50, speed_kmh=36.0,
                            direction_deg=90, fix_at=t0)
    frames = [encode_frame(0x0200, report, phone=term.phone, seq=1),
              encode_frame(0x0002, b"", phone=term.phone, seq=2)]
    records = [frame_uplink(term, f, received_at=t0 + timedelta(seconds=i)) for i, f in enumerate(frames)]
    for _ in range(2):  # the gateway's retry / a replay after a crash: the same records again
        for record in records:
            producer.send(JT808_UPLINK, term.phone, record)
    last = encode_frame(0x0002, b"", phone=term.phone, seq=3)  # same key, same partition: processed after them
    producer.send(JT808_UPLINK, term.phone, frame_uplink(term, last, received_at=t0 + timedelta(seconds=5)))
    producer.flush()
    sql = ("SELECT msg_id, seq, direction, raw_hex, decoded -> 'header' ->> 'msg_id', car_id, enterprise_id"
           " FROM message_log WHERE device_id = %s ORDER BY time")
    wait_for(lambda: query(pg_url, "SELECT 1 FROM message_log WHERE device_id = %s AND seq = 3", (term.device_id,)),
             30, "the last frame", worker)
    assert query(pg_url, sql, (term.device_id,)) == [
        (0x0200, 1, 0, frames[0].hex(), "512", term.car_id, term.enterprise_id),
        (0x0002, 2, 0, frames[1].hex(), "2", term.car_id, term.enterprise_id),
        (0x0002, 3, 0, last.hex(), "2", term.car_id, term.enterprise_id)]
    assert query(pg_url, "SELECT count(*) FROM gps WHERE device_id = %s", (term.device_id,)) == [(1,)]
