"""The GB steps in the real worker (Kafka + PostgreSQL): gb32960.uplink.v1 records built from real frames
(protocols.gb32960.encode_frame, message = to_json(decode_frame(frame)), as the GB gateway writes them)
become gps / device_last rows, the nev_state row, chart readings, alarm episodes and charging sessions;
a back-filled frame never overwrites newer state, a replay adds nothing, a malformed record is
dead-lettered while the others are stored."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from fleet.topics import CONSOLE_EVENTS, DEAD_LETTER, DEVICE_SESSIONS, GB32960_UPLINK
from protocols.gb32960 import decode_frame
from protocols.gb32960.messages import VehicleData
from streams import payloads
from streams.gb_payloads import GbVehicle, pack_cells, realtime

from .support import Producer, TopicReader, Worker, insert_terminals, query, wait_for


def vehicle(pg_url: str) -> GbVehicle:
    t = insert_terminals(pg_url, 1, enterprise_name="gb-test")[0]
    vin = f"LGB{secrets.token_hex(7).upper()}"[:17]
    return GbVehicle(vin, t.device_id, t.car_id, t.enterprise_id)


def send(producer: Producer, v: GbVehicle, records: list[dict[str, Any] | bytes]) -> None:
    for record in records:
        producer.send(GB32960_UPLINK, v.vin, record)
    producer.flush()


def base_time() -> datetime:
    return datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=20)


def test_realtime_frames_of_a_96_cell_pack_give_the_exact_position_state_and_cell_extremes(
        worker: Worker, producer: Producer, pg_url: str) -> None:
    v = vehicle(pg_url)
    t0 = base_time()
    cells = list(pack_cells())
    cells[40], cells[77] = 3.612, 3.105  # cell 41 the highest, cell 78 the lowest
    send(producer, v, [
        realtime(v, t0, lat=31.230416, lng=121.473701, speed_kmh=35.0, soc_pct=77, voltage_v=352.1,
                 current_a=20.5, cells=tuple(cells)),
        realtime(v, t0 + timedelta(seconds=10), lat=31.231002, lng=121.474555, speed_kmh=48.7, mileage_km=12346.1,
                 soc_pct=76, voltage_v=351.8, current_a=-3.2, cells=tuple(cells), probes=(22, 39, 25, 21)),
    ])
    gps = wait_for(lambda: (rows := query(pg_url, "SELECT fix_at, lat, lng, speed_kmh, mileage_km, extras->>'gb_protocol'"
                                          " FROM gps WHERE device_id = %s ORDER BY fix_at", (v.device_id,)))
                   and len(rows) == 2 and rows, 60, "gps rows", worker)
    assert [(r[0], r[1], r[2], r[3]) for r in gps] == [
        (t0, 31.230416, 121.473701, 35.0), (t0 + timedelta(seconds=10), 31.231002, 121.474555, pytest.approx(48.7))]
    assert gps[1][4] == pytest.approx(12346.1) and gps[1][5] == "gb32960-2016"
    last = query(pg_url, "SELECT fix_at, lat, lng FROM device_last WHERE device_id = %s", (v.device_id,))
    assert last == [(t0 + timedelta(seconds=10), 31.231002, 121.474555)]
    state = wait_for(lambda: query(
        pg_url, "SELECT soc_pct, total_voltage_v, total_current_a, max_cell_voltage_v, max_voltage_subsystem,"
        " max_voltage_cell, min_cell_voltage_v, min_voltage_cell, max_temp_c, max_temp_probe, min_temp_c,"
        " min_temp_probe, jsonb_array_length(cell_voltages->0->'cell_voltages_v'), charging_state, insulation_kohm,"
        " collected_at, vin, car_id FROM nev_state WHERE device_id = %s AND collected_at = %s",
        (v.device_id, t0 + timedelta(seconds=10))), 60, "nev_state of the newest frame", worker)
    soc, volt, amp, vmax, vmax_sub, vmax_cell, vmin, vmin_cell, tmax, tmax_probe, tmin, tmin_probe, n, charging, \
        insulation, _, vin, car_id = state[0]
    assert (soc, charging, insulation, vin, car_id) == (76, 3, 5000, v.vin, v.car_id)
    assert (volt, amp) == (pytest.approx(351.8), pytest.approx(-3.2))
    assert (vmax, vmax_sub, vmax_cell, vmin, vmin_cell) == (pytest.approx(3.612), 1, 41, pytest.approx(3.105), 78)
    assert (tmax, tmax_probe, tmin, tmin_probe, n) == (39, 2, 21, 4, 96)
    readings = query(pg_url, "SELECT collected_at, soc_pct, total_voltage_v FROM nev_reading WHERE device_id = %s"
                     " ORDER BY collected_at", (v.device_id,))
    assert [(r[0], r[1]) for r in readings] == [(t0, 77), (t0 + timedelta(seconds=10), 76)]
    # every frame kept as received in the message log, under its protocol, with the device's phone
    logged = wait_for(lambda: (rows := query(
        pg_url, "SELECT m.protocol, m.msg_id, m.seq, m.raw_hex, m.decoded->>'name', m.phone = d.phone, m.direction"
        " FROM message_log m JOIN device d ON d.id = m.device_id WHERE m.device_id = %s ORDER BY m.seq",
        (v.device_id,))) and len(rows) == 2 and rows, 60, "the frames in the message log", worker)
    assert [row[:3] for row in logged] == [("gb32960", 0x02, int(t0.timestamp())),
                                          ("gb32960", 0x02, int((t0 + timedelta(seconds=10)).timestamp()))]
    assert all(row[4] == "Real-time data" and row[5] and row[6] == 0 for row in logged)
    assert decode_frame(bytes.fromhex(logged[1][3])).body.block(VehicleData).soc_pct == 76


def test_a_back_filled_frame_is_stored_in_the_track_but_never_overwrites_newer_state(
        worker: Worker, producer: Producer, pg_url: str) -> None:
    v = vehicle(pg_url)
    t0 = base_time()
    send(producer, v, [realtime(v, t0 + timedelta(seconds=60), soc_pct=70, voltage_v=360.0)])
    wait_for(lambda: query(pg_url, "SELECT 1 FROM nev_state WHERE device_id = %s", (v.device_id,)), 60,
             "the real-time state", worker)
    send(producer, v, [realtime(v, t0, backfilled=True, soc_pct=40, voltage_v=330.0, lat=30.5, lng=114.3)])
    wait_for(lambda: len(query(pg_url, "SELECT 1 FROM nev_reading WHERE device_id = %s", (v.device_id,))) == 2, 60,
             "the back-filled reading", worker)
    assert query(pg_url, "SELECT soc_pct, total_voltage_v, collected_at, lat FROM nev_state WHERE device_id = %s",
                 (v.device_id,)) == [(70, pytest.approx(360.0), t0 + timedelta(seconds=60), pytest.approx(39.916527))]
    assert query(pg_url, "SELECT fix_at, lat FROM gps WHERE device_id = %s ORDER BY fix_at", (v.device_id,)) == [
        (t0, 30.5), (t0 + timedelta(seconds=60), 39.916527)]
    assert query(pg_url, "SELECT fix_at FROM device_last WHERE device_id = %s", (v.device_id,)) == [
        (t0 + timedelta(seconds=60),)]


def test_the_vehicle_status_gives_acc_and_business_transitions_and_back_filled_frames_none(
        worker: Worker, producer: Producer, pg_url: str) -> None:
    terminal = insert_terminals(pg_url, 1, enterprise_name="gb-test")[0]
    v = GbVehicle(f"LGB{secrets.token_hex(7).upper()}"[:17], terminal.device_id, terminal.car_id, terminal.enterprise_id)
    t0 = base_time()
    # logged in: the GB gateway's session event, as for any terminal
    producer.send(DEVICE_SESSIONS, terminal.phone, payloads.session(terminal, online=True, at=t0 - timedelta(minutes=6),
                                                                     connection_id="gb-1"))
    send(producer, v, [
        realtime(v, t0 - timedelta(minutes=5), backfilled=True, status=2, speed_kmh=0.0),  # old: no transition
        realtime(v, t0, status=1, speed_kmh=32.0),
        realtime(v, t0 + timedelta(seconds=10), status=1, speed_kmh=36.5),
        realtime(v, t0 + timedelta(seconds=20), status=2, speed_kmh=0.0),
        realtime(v, t0 + timedelta(seconds=30), status=1, speed_kmh=0.0, fix_valid=False),  # started, no fix
    ])

    def acc() -> list[tuple[Any, ...]]:
        return query(pg_url, "SELECT create_time, state FROM acc_state_log WHERE device_id = %s ORDER BY create_time",
                     (v.device_id,))

    wait_for(lambda: len(acc()) == 3, 60, "ACC on, off and on", worker)
    assert acc() == [(t0, 1), (t0 + timedelta(seconds=20), 0), (t0 + timedelta(seconds=30), 1)]
    assert query(pg_url, "SELECT acc FROM device WHERE id = %s", (v.device_id,)) == [(1,)]
    assert query(pg_url, "SELECT count(*) FROM gps WHERE device_id = %s", (v.device_id,)) == [(4,)]  # no fix: no row
    # the business state by the 808 rules (platform-spec §4): driving from the first moving real-time frame with
    # ACC on, engine off with the vehicle switched off; before them and without a fix, online without a position
    # (no signal)
    biz = query(pg_url, "SELECT create_time, state FROM biz_state_log WHERE device_id = %s ORDER BY create_time",
                (v.device_id,))
    assert biz == [(t0 - timedelta(minutes=6), 4), (t0, 1), (t0 + timedelta(seconds=20), 3),
                   (t0 + timedelta(seconds=30), 4)]


def test_an_alarm_raises_one_episode_with_the_mapped_level_pushed_once_and_ended(
        worker: Worker, producer: Producer, pg_url: str, kafka_bootstrap: str) -> None:
    v = vehicle(pg_url)
    t0 = base_time()
    pushes = TopicReader(kafka_bootstrap, CONSOLE_EVENTS)
    insulation = 1 << 11
    frames = [realtime(v, t0),
              realtime(v, t0 + timedelta(seconds=10), alarm_level=3, alarm_flags=insulation, storage_faults=(0x1234,)),
              realtime(v, t0 + timedelta(seconds=20), alarm_level=3, alarm_flags=insulation, storage_faults=(0x1234,)),
              realtime(v, t0 + timedelta(seconds=30), alarm_level=3, alarm_flags=insulation),
              realtime(v, t0 + timedelta(seconds=40))]
    try:
        send(producer, v, frames)

        def rows() -> list[tuple[Any, ...]]:
            return query(pg_url, "SELECT key, type, level, start_time, end_time, details->'codes', backlog FROM alarm"
                         " WHERE device_id = %s ORDER BY key", (v.device_id,))

        wait_for(lambda: (r := rows()) and all(row[4] is not None for row in r) and len(r) == 2, 60,
                 "both episodes ended", worker)
        assert rows() == [
            ("gb11", 9, 1, t0 + timedelta(seconds=10), t0 + timedelta(seconds=40), None, False),
            ("gbf_battery", 9, 1, t0 + timedelta(seconds=10), t0 + timedelta(seconds=30), [0x1234], False)]
        found = pushes.read_until(lambda rs: len(mine(rs, v)) >= 2, 30)
        assert sorted(p["data"]["key"] for p in mine(found, v)) == ["gb11", "gbf_battery"]
        assert {p["data"]["desc"] for p in mine(found, v)} == {"绝缘报警", "可充电储能装置故障"}
        alarm = query(pg_url, "SELECT extras->'gb_alarm' FROM gps WHERE device_id = %s AND fix_at = %s",
                      (v.device_id, t0 + timedelta(seconds=10)))
        assert alarm == [({"alarm": insulation, "level": 3, "battery": [0x1234], "motor": [], "engine": [],
                           "other": []},)]
        send(producer, v, frames)  # replayed: nothing new, nothing pushed again
        send(producer, v, [realtime(v, t0 + timedelta(seconds=50), alarm_level=1, alarm_flags=1 << 4)])
        wait_for(lambda: len(rows()) == 3, 60, "the SOC-low episode after the replay", worker)
        assert [r[:3] for r in rows()] == [("gb11", 9, 1), ("gb4", 9, 3), ("gbf_battery", 9, 1)]
        later = pushes.read_until(lambda rs: any(p["data"]["key"] == "gb4" for p in mine(rs, v)), 30)
        assert [p["data"]["key"] for p in mine(later, v)] == ["gb4"]
    finally:
        pushes.close()


def mine(records: list[dict[str, Any]], v: GbVehicle) -> list[dict[str, Any]]:
    return [r["push"] for r in records if r.get("kind") == "push" and r["push"]["type"] == 2
            and r["push"]["data"].get("deviceId") == v.device_id]


def test_a_charging_episode_gives_one_session_with_soc_energy_and_place_and_a_replay_changes_nothing(
        worker: Worker, producer: Producer, pg_url: str) -> None:
    v = vehicle(pg_url)
    t0 = base_time()
    minute = timedelta(seconds=60)
    charging = [realtime(v, t0 + i * minute, charging=1, soc_pct=50 + i, voltage_v=400.0, current_a=-100.0,
                         speed_kmh=0.0, lat=22.543096, lng=114.057865) for i in range(1, 5)]
    frames = [realtime(v, t0, charging=3, soc_pct=50), *charging,
              realtime(v, t0 + 5 * minute, charging=4, soc_pct=55, current_a=0.0)]
    send(producer, v, frames)

    def sessions() -> list[tuple[Any, ...]]:
        return query(pg_url, "SELECT start_at, end_at, soc_from, soc_to, energy_kwh, lat, lng, charging_state"
                     " FROM charging_session WHERE device_id = %s", (v.device_id,))

    wait_for(lambda: (s := sessions()) and s[0][1] is not None, 60, "the ended session", worker)
    # 40 kW (400 V x 100 A) held over four one-minute intervals: 4 x 40 / 60 kWh
    expected = [(t0 + minute, t0 + 5 * minute, 51, 55, pytest.approx(160 / 60), 22.543096, 114.057865, 1)]
    assert sessions() == expected
    log = query(pg_url, "SELECT soc_from, soc_to, duration_s, plate_number IS NOT NULL FROM charging_session_view"
                " WHERE device_id = %s", (v.device_id,))
    assert log == [(51, 55, 240, True)]
    send(producer, v, frames)  # replayed after it ended
    send(producer, v, [realtime(v, t0 + 6 * minute, charging=3, soc_pct=55, voltage_v=401.0)])
    wait_for(lambda: query(pg_url, "SELECT 1 FROM nev_state WHERE device_id = %s AND total_voltage_v > 400.5",
                           (v.device_id,)), 60, "the frame after the replay", worker)
    assert sessions() == expected


def test_a_malformed_record_is_dead_lettered_and_the_others_are_stored(
        worker: Worker, producer: Producer, pg_url: str, kafka_bootstrap: str) -> None:
    v = vehicle(pg_url)
    t0 = base_time()
    letters = TopicReader(kafka_bootstrap, DEAD_LETTER)
    missing = realtime(v, t0 + timedelta(seconds=5))
    del missing["device_id"]
    out_of_range = realtime(v, t0 + timedelta(seconds=6), speed_kmh=6000.0)
    unknown = realtime(GbVehicle(v.vin, 2**40, None, v.enterprise_id), t0 + timedelta(seconds=7))  # no such device
    try:
        send(producer, v, [realtime(v, t0), b"{not json", missing, out_of_range, unknown,
                           realtime(v, t0 + timedelta(seconds=10), soc_pct=66)])
        wait_for(lambda: query(pg_url, "SELECT 1 FROM nev_state WHERE device_id = %s AND soc_pct = 66",
                               (v.device_id,)), 60, "the frame after the bad ones", worker)
        assert query(pg_url, "SELECT fix_at FROM gps WHERE device_id = %s ORDER BY fix_at", (v.device_id,)) == [
            (t0,), (t0 + timedelta(seconds=10),)]
        found = letters.read_until(lambda rs: len(of_topic(rs)) >= 6, 30)
        reasons = sorted((r["agent"], r["error"]) for r in of_topic(found))
        # the unknown device: its fix and its state refused by the database, its transitions by the states' lookup,
        # for those steps only (replayable)
        assert [agent for agent, _ in reasons] == ["gb_positions"] * 4 + ["gb_state", "gb_transitions"]
        assert sum("refused" in e for _, e in reasons) == 2
        assert any(agent == "gb_transitions" and "unknown device" in e for agent, e in reasons)
        assert query(pg_url, "SELECT count(*) FROM nev_reading WHERE device_id = %s", (v.device_id,)) == [(2,)]
        assert any("not JSON" in e for _, e in reasons)
        assert any("missing field device_id" in e for _, e in reasons)
        assert any("speed 6000 km/h" in e for _, e in reasons)
    finally:
        letters.close()


def of_topic(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in records if r.get("source_topic") == GB32960_UPLINK]
