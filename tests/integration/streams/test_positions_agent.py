from __future__ import annotations

from datetime import UTC, datetime, timedelta

from fleet.topics import DEAD_LETTER, JT808_UPLINK
from streams import payloads

from .support import Producer, TopicReader, Worker, insert_terminals, query, wait_for


def now_s() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


def test_positions_land_in_gps_and_device_last_once(worker: Worker, producer: Producer, pg_url: str) -> None:
    term = insert_terminals(pg_url, 1)[0]
    t0 = now_s() - timedelta(minutes=1)
    for i in range(5):
        producer.send(JT808_UPLINK, term.phone, payloads.location_report(term, fix_at=t0 + timedelta(seconds=i),
                                                                        speed_kmh=10.0 + i, seq=i))
    items = [payloads.location_body(fix_at=t0 - timedelta(minutes=10, seconds=i)) for i in range(3)]
    producer.send(JT808_UPLINK, term.phone, payloads.location_batch(term, items))
    for i in range(5):  # the terminal resends: no duplicate rows
        producer.send(JT808_UPLINK, term.phone, payloads.location_report(term, fix_at=t0 + timedelta(seconds=i),
                                                                        speed_kmh=10.0 + i, seq=i))
    producer.flush()
    count = "SELECT count(*), count(DISTINCT fix_at) FROM gps WHERE device_id = %s"
    wait_for(lambda: query(pg_url, count, (term.device_id,))[0][0] >= 8, 30, "8 gps rows", worker)
    rows = query(pg_url, "SELECT fix_at, speed_kmh, car_id, enterprise_id FROM gps WHERE device_id = %s"
                         " ORDER BY fix_at DESC LIMIT 1", (term.device_id,))
    assert rows == [(t0 + timedelta(seconds=4), 14.0, term.car_id, term.enterprise_id)]
    last = wait_for(lambda: query(pg_url, "SELECT fix_at, speed_kmh FROM device_last WHERE device_id = %s",
                                  (term.device_id,)), 10, "device_last", worker)
    assert last == [(t0 + timedelta(seconds=4), 14.0)]  # the older 0x0704 backlog did not replace it
    assert query(pg_url, count, (term.device_id,)) == [(8, 8)]


def test_invalid_uplink_is_dead_lettered_and_the_next_one_still_lands(
        worker: Worker, producer: Producer, pg_url: str, kafka_bootstrap: str) -> None:
    term = insert_terminals(pg_url, 1)[0]
    reader = TopicReader(kafka_bootstrap, DEAD_LETTER)
    try:
        t0 = now_s()
        producer.send(JT808_UPLINK, term.phone, b"{not json")
        producer.send(JT808_UPLINK, term.phone, payloads.location_report(term, fix_at=t0, speed_kmh=400.0))
        producer.send(JT808_UPLINK, term.phone, payloads.location_report(term, fix_at=t0 + timedelta(seconds=1)))
        producer.flush()
        wait_for(lambda: query(pg_url, "SELECT count(*) FROM gps WHERE device_id = %s", (term.device_id,))[0][0],
                 30, "the valid row", worker)
        letters = reader.read_until(lambda rs: len([r for r in rs if term.phone in r["value"]
                                                    or r["value"] == "{not json"]) >= 2)
    finally:
        reader.close()
    mine = [r for r in letters if r["agent"] == "positions" and (term.phone in r["value"] or r["value"] == "{not json")]
    assert {r["error"].split(":")[0] for r in mine} >= {"not JSON", "speed 400 km/h outside 0..250"}
    assert all(r["source_topic"] == JT808_UPLINK and isinstance(r["offset"], int) for r in mine)
    assert query(pg_url, "SELECT fix_at FROM gps WHERE device_id = %s", (term.device_id,)) == [
        (t0 + timedelta(seconds=1),)]
