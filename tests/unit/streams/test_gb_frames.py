"""The GB steps' pure parts (streams.gb_frames, gb_charging, gb_alarms) on records built from real frames
(protocols.gb32960.encode_frame + to_json, as the GB gateway writes them): what a frame yields for the
position path, the state row, the alarm keys and the charging sessions."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
import pytest

from protocols.gb32960 import Protocol, Special, encode_frame
from protocols.gb32960.messages.emission import EngineDataStream, ObdInfo
from protocols.gb32960.messages.realtime import EmissionReport
from streams.gb_alarms import LEVELS, DeviceKeys, alarm_keys, plan
from streams.gb_charging import Mark, plan_sessions
from streams.gb_frames import GbFrame, parse_frame, parse_frames
from streams.gb_payloads import GbVehicle, frame_record, realtime
from streams.gb_uplinks import parse_gb, reading_rows, state_rows
from streams.messages import STATUS_ACC_ON, STATUS_POSITIONED, PayloadError
from streams.validation import QUALITY_FUTURE, UNPOSITIONED, Limits, validate_fix

LIMITS = Limits(max_future_s=300, max_speed_kmh=220)
V = GbVehicle("LNBSCU3H5JR000001", 7, 70, 3)
DIESEL = GbVehicle("LZZ1CLVB8JN000002", 8, 80, 3, protocol="gb17691")
T0 = datetime(2026, 12, 1, 2, 0, tzinfo=UTC)


def frame(at: datetime = T0, **kw: Any) -> GbFrame:
    parsed = parse_frame(orjson.dumps(realtime(V, at, received_at=at + timedelta(seconds=1), **kw)), LIMITS)
    assert isinstance(parsed, GbFrame)
    return parsed


def test_a_realtime_frame_gives_a_fix_with_vehicle_speed_mileage_and_acc_and_the_units_named() -> None:
    f = frame(lat=-33.86, lng=-151.2, speed_kmh=61.5, mileage_km=800.3, status=1)
    assert f.fix is not None
    assert (f.fix.lat, f.fix.lng, f.fix.speed_kmh, f.fix.mileage_km, f.fix.fix_at) == (-33.86, -151.2, 61.5, 800.3, T0)
    assert f.fix.status_flags == STATUS_POSITIONED | STATUS_ACC_ON and f.fix.direction_deg == 0
    assert (f.fix.device_id, f.fix.car_id, f.fix.enterprise_id) == (7, 70, 3)
    off = frame(status=2)
    assert off.fix is not None and off.fix.status_flags == STATUS_POSITIONED


def test_an_invalid_fix_gives_no_position_but_keeps_the_state() -> None:
    f = frame(fix_valid=False, soc_pct=12)
    assert f.fix is None and f.state["vehicle"]["soc_pct"] == 12 and "position" in f.state


def test_a_frame_without_a_valid_position_still_gives_the_states_its_acc_and_a_back_filled_one_nothing() -> None:
    off = frame(fix_valid=False, status=2, speed_kmh=0.0)
    assert off.fix is None and off.state_fix is not None  # nothing for the track, the ACC for the states
    assert (off.state_fix.acc_on, off.state_fix.positioned, off.state_fix.lat, off.state_fix.lng) == (False, False, 0, 0)
    assert validate_fix(off.state_fix, LIMITS) == UNPOSITIONED  # the 808 path's "no fix" report: never stored
    records = [orjson.dumps(realtime(V, T0, received_at=T0, fix_valid=False, status=1, speed_kmh=12.0)),
               orjson.dumps(realtime(V, T0 + timedelta(seconds=10), received_at=T0 + timedelta(seconds=10))),
               orjson.dumps(realtime(V, T0 - timedelta(hours=1), backfilled=True, received_at=T0, status=2))]
    _, plan = parse_gb(records, LIMITS, UTC)
    assert [len(fixes) for fixes in plan.fixes_by_event] == [0, 1, 1]
    states = plan.state_fixes_by_event
    assert [len(fixes) for fixes in states] == [1, 1, 0]  # a back-filled frame changes no state
    assert states[0][0].acc_on and not states[0][0].positioned and states[1][0].positioned


def test_the_state_of_a_96_cell_pack_to_the_cell_and_abnormal_readings_as_null() -> None:
    cells = tuple(3.3 if i != 17 else 3.9 for i in range(96))
    f = frame(cells=cells, probes=(20, 45, 21), insulation_kohm=Special.ABNORMAL, soc_pct=55, voltage_v=401.2, current_a=-88.8)
    vehicle, extremes = f.state["vehicle"], f.state["extremes"]
    assert (vehicle["soc_pct"], vehicle["total_voltage_v"], vehicle["total_current_a"]) == (55, 401.2, -88.8)
    assert vehicle["insulation_kohm"] is None  # 0xFFFE: abnormal, never a number
    assert (extremes["max_cell_voltage_v"], extremes["max_voltage_cell"], extremes["max_temp_c"],
            extremes["max_temp_probe"]) == (3.9, 18, 45, 2)
    packs = f.state["cells"]["cell_voltages"]
    assert len(packs[0]["cell_voltages_v"]) == 96 and packs[0]["cell_voltages_v"][17] == 3.9


def test_alarm_flags_and_fault_lists_become_the_track_points_alarm_object_and_held_keys() -> None:
    f = frame(alarm_level=2, alarm_flags=(1 << 11) | (1 << 18) | (1 << 25), storage_faults=(0xA1, 0xA2))
    assert f.fix is not None and f.alarm is not None
    # bit 25 is reserved in table 19: not an alarm of the object form
    assert f.fix.extras["gb_alarm"] == {"alarm": (1 << 11) | (1 << 18), "level": 2, "battery": [0xA1, 0xA2],
                                        "motor": [], "engine": [], "other": []}
    assert alarm_keys(f.alarm) == {"gb11": {}, "gb18": {}, "gbf_battery": {"codes": [0xA1, 0xA2]}}
    assert "gb_alarm" not in (frame().fix.extras if frame().fix else {})  # type: ignore[union-attr]
    assert LEVELS == {3: 1, 2: 2, 1: 3}


def test_bad_records_are_payload_errors_naming_the_fault_and_the_others_parse() -> None:
    good = realtime(V, T0)
    missing = dict(good)
    del missing["vin"]
    fast = realtime(V, T0, speed_kmh=400.0)
    out = parse_frames([b"[1", orjson.dumps(missing), orjson.dumps(fast), orjson.dumps(good)], LIMITS)
    assert [type(o).__name__ for o in out] == ["PayloadError", "PayloadError", "PayloadError", "GbFrame"]
    assert "missing field vin" in str(out[1]) and "speed 400 km/h" in str(out[2])
    frames, planned = parse_gb([b"[1", orjson.dumps(good)], LIMITS, UTC)
    assert planned.rejects == [(0, str(frames[0]))] and len(planned.fixes_by_event[1]) == 1


def test_a_fix_dated_far_ahead_of_its_receipt_is_flagged_not_refused() -> None:
    record = realtime(V, T0 + timedelta(hours=2), received_at=T0)
    f = parse_frame(orjson.dumps(record), LIMITS)
    assert isinstance(f, GbFrame) and f.fix is not None and f.fix.quality == QUALITY_FUTURE


def diesel(at: datetime, *, mil: int = 0, codes: tuple[int, ...] = (), nox: float = 310.5) -> dict[str, Any]:
    obd = ObdInfo(2, mil, 0x00FF, 0x000F, DIESEL.vin, "CAL0001", "CVN0001", bytes(36), codes)
    stream = EngineDataStream(72.0, 99.5, 40, 5, 1450.0, 18.5, nox, 22.5, 64.4, 500.0, 300.0, 280.0, 3.2, 85, 60.0,
                              0, 121.5, 31.2, 45678.9)
    frame = encode_frame(0x02, EmissionReport(at, 1, (obd, stream)), vin=DIESEL.vin, protocol=Protocol.GB17691)
    return frame_record(DIESEL, frame, protocol=Protocol.GB17691, received_at=at)


def test_a_gb17691_frame_gives_position_obd_and_after_treatment_state_and_mil_alarms() -> None:
    f = parse_frame(orjson.dumps(diesel(T0, mil=1, codes=(0x12345678,))), LIMITS)
    assert isinstance(f, GbFrame) and f.fix is not None and f.alarm is not None
    assert (f.fix.lat, f.fix.lng, f.fix.speed_kmh, f.fix.mileage_km) == (31.2, 121.5, 72.0, 45678.9)
    assert f.fix.acc_on  # the engine turns
    stream, obd = f.state["stream"], f.state["obd"]
    assert (stream["nox_upstream_ppm"], stream["reagent_level_pct"], stream["dpf_pressure_difference_kpa"]) == (
        310.5, 64.4, 3.2)
    assert (obd["mil"], obd["obd_protocol"], obd["obd_fault_codes"], obd["calibration_id"]) == (
        1, 2, [0x12345678], "CAL0001")
    assert alarm_keys(f.alarm) == {"obd_fault": {"codes": [0x12345678]}, "obd_mil": {}}
    assert f.fix.extras["gb_alarm"] == {"alarm": 0, "level": None, "obd": [0x12345678], "mil": 1}
    assert reading_rows([f])[0][7:] == (310.5, 22.5, 64.4)


def test_each_state_block_comes_from_the_newest_frame_that_carries_it() -> None:
    newer = frame(T0 + timedelta(seconds=10), soc_pct=60)
    older = frame(T0, soc_pct=61)
    partial = GbFrame(newer.uplink, 2, newer.received_at, T0 + timedelta(seconds=20),
                      state={"extremes": newer.state["extremes"]})
    (row,) = state_rows([partial, newer, older])
    assert row["collected_at"] == T0 + timedelta(seconds=20) and row["extremes_at"] == T0 + timedelta(seconds=20)
    assert row["vehicle_at"] == T0 + timedelta(seconds=10) and row["soc_pct"] == 60


def test_alarm_plan_raises_a_key_once_per_episode_ends_it_and_ignores_back_fill_and_replays() -> None:
    at = [T0 + timedelta(seconds=10 * i) for i in range(5)]
    frames: list[GbFrame | PayloadError] = [
        frame(at[0]), frame(at[1], alarm_level=3, alarm_flags=1 << 4), frame(at[2], alarm_level=3, alarm_flags=1 << 4),
        frame(at[3]), frame(at[0] - timedelta(minutes=5), backfilled=True, alarm_level=1, alarm_flags=1 << 2)]
    known: dict[int, DeviceKeys] = {}
    planned = plan(frames, known)
    assert [(e.key, e.start, e.level, e.kind) for e in planned.episodes] == [("gb4", at[1], 1, 9)]
    assert planned.ends == [(V.device_id, ["gb4"], at[3])]
    known.update(planned.states)
    again = plan(frames, known)
    assert again.episodes == [] and again.ends == []


def test_charging_session_soc_energy_place_and_a_replay_or_gap_invents_nothing() -> None:
    minute = timedelta(minutes=1)
    frames = [frame(T0, charging=3, soc_pct=20)]
    frames += [frame(T0 + i * minute, charging=2, soc_pct=20 + i, voltage_v=500.0, current_a=-60.0, lat=22.5,
                     lng=114.0) for i in range(1, 4)]
    frames += [frame(T0 + 20 * minute, charging=2, soc_pct=30, voltage_v=500.0, current_a=-60.0)]  # after a gap
    frames += [frame(T0 + 21 * minute, charging=4, soc_pct=31, current_a=0.0)]
    marks: dict[int, Mark] = {}
    (session,) = plan_sessions(frames, marks)
    # 30 kW held for two one-minute intervals, the 17-minute gap left out, then one more minute
    assert (session.start_at, session.end_at, session.soc_from, session.soc_to, session.charging_state) == (
        T0 + minute, T0 + 21 * minute, 21, 31, 2)
    assert session.energy_kwh == pytest.approx(3 * 30 / 60) and (session.lat, session.lng) == (22.5, 114.0)
    assert marks[V.device_id].open is None and plan_sessions(frames, marks) == []



class _Positions:
    """The positions processor's surface the GB steps use, recording what it was handed."""

    def __init__(self) -> None:
        self.limits, self.zone, self.fixes = LIMITS, UTC, 0

    async def assess(self, plan: Any) -> None:
        return None

    async def process_planned(self, events: Any, plan: Any) -> None:
        self.fixes += len(plan.fixes)


class _Live:
    def add_fixes(self, fixes: Any) -> None:
        return None


class _Database:
    """``transact`` that fails the nev_state write with a bug and runs the charging read empty."""

    def __init__(self) -> None:
        self.sessions: list[Any] = []

    async def transact(self, work: Any) -> Any:
        conn = self

        class _Cursor:
            async def fetchall(self) -> list[Any]:
                return []

        async def execute(statement: Any, params: Any = None) -> Any:
            if "INSERT INTO nev_" in str(statement):
                raise RuntimeError("a bug in the state write")
            return _Cursor()

        conn.execute = execute  # type: ignore[attr-defined]

        class _Cur:
            async def __aenter__(self) -> Any:
                return self

            async def __aexit__(self, *exc: Any) -> None:
                return None

            async def executemany(self, statement: Any, params: Any) -> None:
                if "INSERT INTO nev_" in statement.as_string(None):
                    raise RuntimeError("a bug in the state write")
                conn.sessions.extend(params)

        conn.cursor = lambda: _Cur()  # type: ignore[attr-defined]
        return await work(conn)


def test_a_bug_in_one_gb_step_dead_letters_its_records_for_that_step_and_the_others_still_run() -> None:
    import asyncio

    from fleet.topics import DEAD_LETTER, GB32960_UPLINK
    from streams.gb_uplinks import GbUplinksProcessor

    from .test_processors import events

    sent: list[tuple[str, dict[str, Any]]] = []

    async def send(topic: str, key: bytes | None, value: bytes) -> None:
        sent.append((topic, orjson.loads(value)))

    db = _Database()
    positions = _Positions()
    processor = GbUplinksProcessor(positions, _Live(), db, None, send)  # type: ignore[arg-type]
    records = [realtime(V, T0 + timedelta(seconds=10 * i), charging=1, current_a=-50.0) for i in range(3)]
    asyncio.run(processor.process(events(GB32960_UPLINK, *records)))
    letters = [r for t, r in sent if t == DEAD_LETTER]
    assert [r["agent"] for r in letters] == ["gb_state"] * 3
    assert all(r["error"].startswith("internal error: ") and "a bug in the state write" in r["error"] for r in letters)
    assert positions.fixes == 3 and len(db.sessions) == 1  # gb_positions and gb_charging took the batch
    assert processor.pipeline.failures["gb_state"] == 1


def test_the_public_2025_sample_keeps_its_state_and_its_position_flagged_invalid_gives_no_fix() -> None:
    from tests.unit.protocols.gb32960_vectors import VECTORS

    frame = bytes.fromhex("".join(VECTORS["RT-2025-SAMPLE"]))
    record = frame_record(V, frame, received_at=datetime(2025, 8, 27, 9, 53, 38, tzinfo=UTC))
    f = parse_frame(orjson.dumps(record), LIMITS)
    assert isinstance(f, GbFrame) and f.uplink.frame_protocol == "gb32960-2025"
    # status 1: bit 0 set, "no valid fix" as the codec reads the block; the coordinates stay in the state
    assert f.fix is None and f.state["position"] == {"lat": 22.545, "lng": 113.945}
    vehicle = f.state["vehicle"]
    assert (vehicle["soc_pct"], vehicle["speed_kmh"], vehicle["mileage_km"], vehicle["charging_state"]) == (
        66, 11.1, 67894.7, 1)
    assert f.alarm is not None and f.alarm.faults["motor"] == [111, 222, 333]
    # the edition's fuel-cell stacks and supercapacitor blocks are kept with the state, as decoded
    (stack,) = f.state["stacks"]["fuel_cell_stacks"]
    assert (stack["voltage_v"], stack["h2_inlet_pressure_kpa"], stack["coolant_outlet_temps_c"]) == (1.1, 1.1, [])
    capacitor = f.state["supercap"]["supercapacitor"]
    assert capacitor["current_a"] == "invalid" and capacitor["cell_voltages_v"] == ["invalid"]
    assert "type" not in capacitor and "info_type" not in capacitor
    assert f.state["supercap_extremes"]["supercapacitor_extremes"]["max_temp_c"] == 33
    assert f.state["alarms"]["general_faults"] == [99]


@pytest.mark.parametrize("system", [1, 2, 3])
def test_a_2025_position_is_kept_in_wgs84_whatever_system_it_came_in(system: int) -> None:
    from GeoToolCN import wgs84_to_gcj02

    from protocols.gb32960.messages import Position2025, RealtimeReport, VehicleData2025

    lng, lat = 114.057868, 22.543099  # WGS-84
    sent_lng, sent_lat = wgs84_to_gcj02(lng, lat) if system == 2 else (lng, lat)  # GCJ-02 is ~300 m off here
    vehicle = VehicleData2025(status=1, charging=3, run_mode=1, speed_kmh=30.0, mileage_km=321.5,
                              total_voltage_v=401.2, total_current_a=12.3, soc_pct=60, dcdc=1, gear=0x0F,
                              insulation_kohm=6000)
    report = RealtimeReport(T0, (vehicle, Position2025(0, system, round(sent_lng, 6), round(sent_lat, 6))))
    frame_bytes = encode_frame(0x02, report, vin=V.vin, protocol=Protocol.GB32960_2025)
    f = parse_frame(orjson.dumps(frame_record(V, frame_bytes, received_at=T0 + timedelta(seconds=1))), LIMITS)
    assert isinstance(f, GbFrame) and f.fix is not None
    # GCJ-02 converted back (GeoToolCN's inverse: within ~2 m); WGS-84 and another system (CGCS2000) as they came
    assert f.fix.lng == pytest.approx(lng, abs=2e-5) and f.fix.lat == pytest.approx(lat, abs=2e-5)
    assert f.state["position"] == {"lat": f.fix.lat, "lng": f.fix.lng}  # the detail page's position, the same


def test_a_2025_frames_thermal_event_and_hydrogen_leak_are_alarms_and_its_reserved_bits_are_not() -> None:
    from protocols.gb32960.messages import Alarms2025, Position2025, RealtimeReport, VehicleData2025

    flags = (1 << 11) | (1 << 23) | (1 << 24) | (1 << 30)  # insulation; thermal event; hydrogen leak; reserved
    vehicle = VehicleData2025(status=1, charging=3, run_mode=1, speed_kmh=30.0, mileage_km=321.5,
                              total_voltage_v=401.2, total_current_a=12.3, soc_pct=60, dcdc=1, gear=0x0F,
                              insulation_kohm=6000)
    report = RealtimeReport(T0, (vehicle, Position2025(0, 1, 114.057868, 22.543099),
                                 Alarms2025(3, flags, (), (), (), (), ())))
    frame_bytes = encode_frame(0x02, report, vin=V.vin, protocol=Protocol.GB32960_2025)
    f = parse_frame(orjson.dumps(frame_record(V, frame_bytes, received_at=T0 + timedelta(seconds=1))), LIMITS)
    assert isinstance(f, GbFrame) and f.fix is not None and f.alarm is not None
    kept = (1 << 11) | (1 << 23) | (1 << 24)
    assert f.fix.extras["gb_alarm"]["alarm"] == kept and f.alarm.level == 3
    assert set(alarm_keys(f.alarm)) == {"gb11", "gb23", "gb24"}
    assert f.state["alarms"]["alarm_flags"] == kept  # the detail page names what the alarm rows name


def test_a_2025_general_fault_list_gives_each_listed_alarm_its_own_level() -> None:
    from protocols.gb32960.messages import Alarms2025, Position2025, RealtimeReport

    # insulation (bit 11) at level 1 and the thermal event (bit 23) at level 3 in the general fault list (an
    # entry: the alarm's number, then its level); the high SOC (bit 7) is not listed: the frame's level, 3.
    # An entry of a number beyond the flags (40) and one of a flag not set (bit 2) raise nothing.
    flags = (1 << 7) | (1 << 11) | (1 << 23)
    listed = ((11 << 8) | 1, (23 << 8) | 3, (40 << 8) | 2, (2 << 8) | 2)
    report = RealtimeReport(T0, (Position2025(0, 1, 114.057868, 22.543099),
                                 Alarms2025(3, flags, (), (), (), (), listed)))
    frame_bytes = encode_frame(0x02, report, vin=V.vin, protocol=Protocol.GB32960_2025)
    f = parse_frame(orjson.dumps(frame_record(V, frame_bytes, received_at=T0 + timedelta(seconds=1))), LIMITS)
    assert isinstance(f, GbFrame) and f.alarm is not None
    planned = plan([f], {})
    got = {e.key: (e.level, e.details["gbLevel"]) for e in planned.episodes}
    assert got == {"gb7": (LEVELS[3], 3), "gb11": (LEVELS[1], 1), "gb23": (LEVELS[3], 3)}
    # the detail page reads each alarm's level from the state: the list is kept as sent, with the alarms block
    assert f.state["alarms"]["general_faults"] == list(listed)
    assert f.state["alarms"]["alarm_flags"] == flags
