"""fleetwatch as a JT/T 809 superior platform, end to end in one ``python -m exchange.link`` process against the real
Kafka and PostgreSQL: its own link service (fleetwatch as the inferior, a superior_platform row) logs in to its
own superior server (an inferior_platform row with the same credentials); the superior opens the sub link back;
a simulated terminal's positions are forwarded and stored as exchange vehicles and positions with their exact
values; an operator's inspection goes down, is answered on the inferior side and its answer comes back with its
latency; the authorisation codes it reports (0x1701) are kept on its row; a wrong password is refused with 0x1002
result 4."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest

from fleet.settings import REPO_ROOT
from fleet.topics import CONSOLE_EVENTS, JT808_UPLINK
from protocols.jt809 import decode_frame, encode_frame
from protocols.jt809 import messages as m
from streams.payloads import Terminal, location_report
from tests.integration.streams.support import Producer, commit_group_at_end, insert_terminals, wait_for
from tests.support.processes import ServiceProcess

USER, PASSWORD, CENTRE = 80900777, "pw777", 80900777


class ExchangeProcess(ServiceProcess):
    def __init__(self, env: dict[str, str], log_file: Path) -> None:
        self.env, self.log_file = env, log_file

    def start(self) -> None:
        with open(self.log_file, "ab") as log:
            self.proc = subprocess.Popen([sys.executable, "-m", "exchange.link"], cwd=REPO_ROOT, env=self.env,
                                         stdout=log, stderr=subprocess.STDOUT)


@pytest.fixture(scope="module")
def stack(pg_url: str, kafka_bootstrap: str, stack_env: dict[str, str], free_port: Any,
          tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """One exchange process for the module (its start and both links coming up are most of a test's time); each
    test works on its own requests and vehicles, so none depends on another's."""
    terminals = insert_terminals(pg_url, 2, enterprise_name="superior-test")
    superior_port = free_port()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("UPDATE superior_platform SET enabled = false")  # only this test's platforms are linked
        conn.execute("UPDATE inferior_platform SET enabled = false")
        conn.execute("DELETE FROM inferior_platform WHERE user_id = %s", (USER,))
        conn.execute("UPDATE car SET plate_color = 2 WHERE id = %s", (terminals[0].car_id,))
        enterprise = terminals[0].enterprise_id
        platform_id = conn.execute(
            "INSERT INTO superior_platform (enterprise_id, name, host, port, user_id, password, centre_id, version, "
            "down_link_host, down_link_port, position_interval_s) VALUES (%s, 'ourselves', '127.0.0.1', %s, %s, "
            "%s, %s, '2019', '127.0.0.1', %s, 0) RETURNING id",
            (enterprise, superior_port, USER, PASSWORD, CENTRE, free_port())).fetchone()[0]  # type: ignore[index]
        inferior_id = conn.execute(
            "INSERT INTO inferior_platform (enterprise_id, name, user_id, password, centre_id, version) "
            "VALUES (%s, 'ourselves', %s, %s, %s, '2019') RETURNING id",
            (enterprise, USER, PASSWORD, CENTRE)).fetchone()[0]  # type: ignore[index]
    commit_group_at_end(kafka_bootstrap, f"fleet-exchange-{platform_id}", (JT808_UPLINK, CONSOLE_EVENTS))
    env = {**stack_env, "FLEET_EXCHANGE_RELOAD_S": "1", "FLEET_EXCHANGE_POLL_S": "0.3",
           "FLEET_EXCHANGE_RECONNECT_MIN_S": "0.2", "FLEET_EXCHANGE_RECONNECT_MAX_S": "1",
           "FLEET_EXCHANGE_HEARTBEAT_S": "5", "FLEET_EXCHANGE_SUPERIOR_HOST": "127.0.0.1",
           "FLEET_EXCHANGE_SUPERIOR_PORT": str(superior_port)}
    service = ExchangeProcess(env, tmp_path_factory.mktemp("superior") / "exchange.log")
    service.start()
    try:
        wait_for(lambda: _states(pg_url, inferior_id) == {"main": "up", "sub": "up"}, 60,
                 "both links of the inferior platform up", service)
        yield {"terminals": terminals, "inferior_id": inferior_id, "platform_id": platform_id,
               "port": superior_port, "service": service, "enterprise": enterprise}
    finally:
        service.stop()
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute("UPDATE superior_platform SET enabled = false WHERE id = %s", (platform_id,))
            conn.execute("UPDATE inferior_platform SET enabled = false WHERE id = %s", (inferior_id,))


def _states(pg_url: str, inferior_id: int) -> dict[str, str]:
    with psycopg.connect(pg_url) as conn:
        rows = conn.execute("SELECT link, state FROM inferior_link_state WHERE inferior_platform_id = %s",
                            (inferior_id,)).fetchall()
    return dict(rows)


def _rows(pg_url: str, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    with psycopg.connect(pg_url) as conn:
        return conn.execute(sql, args).fetchall()


def test_forwarded_positions_become_exchange_vehicles_and_positions(stack: dict[str, Any], kafka_bootstrap: str,
                                                                     pg_url: str) -> None:
    terminals: list[Terminal] = stack["terminals"]
    producer = Producer(kafka_bootstrap)
    start = datetime.now(UTC).replace(microsecond=0)
    for i in range(3):
        producer.send(JT808_UPLINK, terminals[0].phone, location_report(
            terminals[0], fix_at=start + timedelta(seconds=i), lat=39.912345 + i * 0.001, lng=116.391234,
            speed_kmh=42.5, direction_deg=90 + i))
    producer.flush()
    plate = _rows(pg_url, "SELECT plate_number FROM car WHERE id = %s", terminals[0].car_id)[0][0]
    query = ("SELECT p.fix_at, p.lat, p.lng, p.speed_kmh, p.direction_deg, p.backfilled FROM exchange_position p "
             "JOIN exchange_vehicle v ON v.id = p.vehicle_id WHERE v.inferior_platform_id = %s AND v.plate = %s "
             "AND v.plate_colour = 2 ORDER BY p.fix_at")
    rows = wait_for(lambda: (found := _rows(pg_url, query, stack["inferior_id"], plate)) and len(found) == 3 and found,
                    60, "three exchange positions", stack["service"])
    assert [r[0] for r in rows] == [start + timedelta(seconds=i) for i in range(3)]
    assert [round(r[1], 6) for r in rows] == [39.912345, 39.913345, 39.914345]
    assert {round(r[2], 6) for r in rows} == {116.391234}
    assert {r[3] for r in rows} == {42.5}
    assert [r[4] for r in rows] == [90, 91, 92]
    assert not any(r[5] for r in rows)  # real-time (0x1202)
    vehicle = _rows(pg_url, "SELECT enterprise_id, registered_at IS NOT NULL, terminal_id, last_fix_at, "
                    "round(last_lat::numeric, 6) FROM exchange_vehicle WHERE inferior_platform_id = %s AND plate = %s",
                    stack["inferior_id"], plate)
    assert len(vehicle) == 1
    enterprise, registered, _terminal_id, last_fix, last_lat = vehicle[0]
    assert enterprise == stack["enterprise"] and registered
    assert last_fix == start + timedelta(seconds=2) and float(last_lat) == 39.914345
    logged = _rows(pg_url, "SELECT direction, msg_id, raw_hex FROM exchange_message WHERE inferior_platform_id = %s "
                   "AND platform_kind = 'inferior'", stack["inferior_id"])
    assert ("up", m.LoginRequest.MSG_ID, "") in logged  # the login is logged, its frame (password) is not
    assert any(d == "down" and msg == m.LoginResponse.MSG_ID for d, msg, _ in logged)
    assert not any(msg == m.VehicleDynamic.MSG_ID and d == "up" and PASSWORD.encode().hex() in h
                   for d, msg, h in logged)


def test_an_inspection_sent_by_an_operator_is_answered_with_its_latency(stack: dict[str, Any], pg_url: str) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        request_id = conn.execute(
            "INSERT INTO inferior_request (inferior_platform_id, enterprise_id, kind, object_type, object_id, "
            "content, answer_minutes) VALUES (%s, %s, 'inspection', 1, '', '值班人员请应答', 5) RETURNING id",
            (stack["inferior_id"], stack["enterprise"])).fetchone()[0]  # type: ignore[index]
    inspection = wait_for(lambda: _rows(
        pg_url, "SELECT id, question, info_id, object_id FROM exchange_inspection WHERE platform_id = %s "
        "AND state = 'open'", stack["platform_id"]), 30, "the inspection on the inferior side", stack["service"])
    inspection_id, question, info_id, object_id = inspection[0]
    assert (question, info_id, object_id) == ("值班人员请应答", request_id, str(CENTRE))
    with psycopg.connect(pg_url, autocommit=True) as conn:  # what POST /api/exchange/inspection/{id}/answer does
        conn.execute("UPDATE exchange_inspection SET state = 'answered', answer = '在岗', answered_at = now() "
                     "WHERE id = %s", (inspection_id,))
    answered = wait_for(lambda: _rows(
        pg_url, "SELECT state, answer, latency_ms, sent_at < answered_at FROM inferior_request WHERE id = %s "
        "AND state = 'answered'", request_id), 30, "the answer back at the superior", stack["service"])
    state, answer, latency_ms, ordered = answered[0]
    assert (state, answer, ordered) == ("answered", "在岗", True)
    assert 0 <= latency_ms < 30_000


def test_a_login_with_a_wrong_password_is_refused_with_result_4(stack: dict[str, Any]) -> None:
    frame = encode_frame(m.LoginRequest.MSG_ID, m.LoginRequest(USER, "wrong", "127.0.0.1", 7000, CENTRE),
                         sn=1, centre_id=CENTRE, version="2019")
    with socket.create_connection(("127.0.0.1", stack["port"]), timeout=5) as sock:
        sock.sendall(frame)
        data = b""
        while not data.endswith(b"\x5d"):
            chunk = sock.recv(4096)
            assert chunk, "the server closed without a 0x1002"
            data += chunk
        answer = decode_frame(data, version="2019")
        assert isinstance(answer.body, m.LoginResponse)
        assert answer.body.result == m.LoginResult.PASSWORD_WRONG
        assert sock.recv(4096) == b""  # and the link is closed


def test_a_request_past_its_deadline_expires_unsent_and_a_late_answer_matches_nothing(stack: dict[str, Any],
                                                                                      pg_url: str) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        # queued two minutes ago with one minute to answer (its platform was down): never sent
        stale = conn.execute(
            "INSERT INTO inferior_request (inferior_platform_id, enterprise_id, kind, object_type, object_id, "
            "content, answer_minutes, created_at, deadline) VALUES (%s, %s, 'inspection', 1, '', '过期查岗', 1, "
            "now() - interval '2 minutes', now() - interval '1 minute') RETURNING id",
            (stack["inferior_id"], stack["enterprise"])).fetchone()[0]  # type: ignore[index]
        late = conn.execute(
            "INSERT INTO inferior_request (inferior_platform_id, enterprise_id, kind, object_type, object_id, "
            "content, answer_minutes, deadline) VALUES (%s, %s, 'inspection', 1, '', '迟到的应答', 5, "
            "now() + interval '5 minutes') RETURNING id",
            (stack["inferior_id"], stack["enterprise"])).fetchone()[0]  # type: ignore[index]
    wait_for(lambda: _rows(pg_url, "SELECT 1 FROM inferior_request WHERE id = %s AND state = 'expired'", stale), 30,
             "the stale request expired", stack["service"])
    inspection = wait_for(lambda: _rows(
        pg_url, "SELECT id, info_id FROM exchange_inspection WHERE platform_id = %s AND question = '迟到的应答'",
        stack["platform_id"]), 30, "the live request on the inferior side", stack["service"])
    sent_at, deadline = _rows(pg_url, "SELECT sent_at, deadline FROM inferior_request WHERE id = %s", late)[0]
    assert timedelta(minutes=4, seconds=59) < deadline - sent_at <= timedelta(minutes=5)  # counted from sending
    with psycopg.connect(pg_url, autocommit=True) as conn:  # its time runs out before the inferior answers
        conn.execute("UPDATE inferior_request SET deadline = now() WHERE id = %s", (late,))
        assert conn.execute("SELECT state FROM inferior_request_view WHERE id = %s", (late,)).fetchone() == ("expired",)
        conn.execute("UPDATE exchange_inspection SET state = 'answered', answer = '太晚', answered_at = now() "
                     "WHERE id = %s", (inspection[0][0],))
    wait_for(lambda: _rows(pg_url, "SELECT 1 FROM exchange_message WHERE platform_id = %s AND msg_id = %s AND "
                           "direction = 'up' AND data_type = %s", stack["platform_id"], m.PlatformExchange.MSG_ID,
                           m.InspectionAnswer.DATA_TYPE), 30, "the late 0x1301 sent", stack["service"])
    wait_for(lambda: _rows(pg_url, "SELECT 1 FROM exchange_message WHERE inferior_platform_id = %s AND msg_id = %s "
                           "AND data_type = %s", stack["inferior_id"], m.PlatformExchange.MSG_ID,
                           m.InspectionAnswer.DATA_TYPE), 30, "the late 0x1301 received", stack["service"])
    states = dict(_rows(pg_url, "SELECT id, state FROM inferior_request_view WHERE id IN (%s, %s)", stale, late))
    assert states == {stale: "expired", late: "expired"}
    assert _rows(pg_url, "SELECT answer, sent_at FROM inferior_request WHERE id = %s", stale) == [(None, None)]
    assert _rows(pg_url, "SELECT answer FROM inferior_request WHERE id = %s", late) == [(None,)]
    assert not _rows(pg_url, "SELECT 1 FROM exchange_inspection WHERE platform_id = %s AND question = '过期查岗'",
                     stack["platform_id"])


def test_both_sides_frames_are_logged_and_the_reported_codes_kept(stack: dict[str, Any], pg_url: str) -> None:
    """Each side's frames in the message logs with their platform kind; the 0x1701 sent after the login (JT/T
    1078-2016 §8.1, migration 0065): the superior keeps the platform id and the two codes on the inferior platform's
    row, the ones the frame carried (one stack for both: starting the exchange process is most of a test's time)."""
    query = ("SELECT platform_kind, platform_name, enterprise_id FROM exchange_upstream_view "
             "WHERE msg_id = %s AND (platform_id = %s OR inferior_platform_id = %s)")
    up = wait_for(lambda: (rows := set(_rows(pg_url, query, m.LoginRequest.MSG_ID, stack["platform_id"],
                                             stack["inferior_id"]))) and len(rows) == 2 and rows, 30,
                  "the login logged on both sides", stack["service"])
    # one process, both roles: its 0x1001 sent as the inferior, received as the superior
    assert up == {("superior", "ourselves", stack["enterprise"]), ("inferior", "ourselves", stack["enterprise"])}
    down = set(_rows(pg_url, "SELECT platform_kind FROM exchange_downstream_view WHERE msg_id = %s AND "
                     "(platform_id = %s OR inferior_platform_id = %s)", m.LoginResponse.MSG_ID,
                     stack["platform_id"], stack["inferior_id"]))
    assert down == {("superior",), ("inferior",)}

    row = wait_for(lambda: (found := _rows(pg_url, "SELECT authorize_platform_code, authorize_code_1, authorize_code_2,"
                                                   " authorize_reported_at FROM inferior_platform WHERE id = %s",
                                           stack["inferior_id"])) and found[0][3] is not None and found[0], 30,
                   "the 0x1701 codes on the inferior platform's row", stack["service"])
    platform_code, home, cross, reported_at = row
    assert platform_code == str(CENTRE)
    assert len(home) == len(cross) == 64 and home != cross and int(home, 16) >= 0
    assert reported_at > datetime.now(UTC) - timedelta(minutes=5)
    received = wait_for(lambda: _rows(pg_url, "SELECT decoded FROM exchange_message WHERE inferior_platform_id = %s"
                                              " AND msg_id = %s AND direction = 'up' ORDER BY time DESC LIMIT 1",
                                      stack["inferior_id"], m.Authorize.MSG_ID), 30, "the 0x1701 in the frame log",
                        stack["service"])
    assert home in str(received[0][0]) and cross in str(received[0][0])  # the frame's codes are the ones kept


def test_an_operators_video_request_goes_down_with_the_platforms_code_and_its_refusal_comes_back(
        stack: dict[str, Any], pg_url: str) -> None:
    """0x9801 from the superior service (exchange/superior/video.py) carries the code the platform reported by 0x1701;
    the inferior (here without a media server: it cannot start a stream) answers 0x1801 RESULT 1, and the request
    reads failed with it. The playing half, through a media server and a terminal, is in
    tests/e2e/test_exchange_video_pull_browser.py."""
    from warehouse.queries import exchange_inferior as q

    plate = _rows(pg_url, "SELECT plate_number FROM car WHERE id = %s", stack["terminals"][1].car_id)[0][0]
    code = wait_for(lambda: _rows(pg_url, "SELECT authorize_code_1 FROM inferior_platform WHERE id = %s",
                                  stack["inferior_id"])[0][0], 30, "the 0x1701 codes", stack["service"])
    with psycopg.connect(pg_url, autocommit=True) as conn:
        vehicle = q.vehicle_id(conn, stack["inferior_id"], stack["enterprise"], plate, 1)
        request = q.queue_video(conn, {"platform_id": stack["inferior_id"], "enterprise_id": stack["enterprise"],
                                       "vehicle_id": vehicle, "channel": 2, "av_type": 0, "created_by": None,
                                       "wait_s": 30})
    state = wait_for(lambda: (row := _rows(pg_url, "SELECT state, result, link FROM exchange_video_pull WHERE id = %s",
                                           request)[0]) and row[0] == "failed" and row, 30, "the 0x1801 answer",
                     stack["service"])
    assert state == ("failed", 1, "sub")
    sent = wait_for(lambda: _rows(pg_url, "SELECT decoded FROM exchange_message WHERE inferior_platform_id = %s AND "
                                          "direction = 'down' AND data_type = %s ORDER BY time DESC LIMIT 1",
                                  stack["inferior_id"], m.RealVideoRequest.DATA_TYPE), 15, "0x9801 logged",
                    stack["service"])
    assert sent[0][0]["plate"] == plate and sent[0][0]["data"] == {
        "channel_id": 2, "av_item_type": 0, "authorize_code": code, "gnss_hex": None}


def test_an_operators_playback_request_goes_down_as_0x9a01_with_its_period(stack: dict[str, Any], pg_url: str) -> None:
    """A recording's request (0x9A01, JT/T 1078-2016 §8.5) carries the period, stream and storage type asked for
    and the platform's code; the inferior, unable to start it here, answers 0x1A01 RESULT 1 into that request."""
    from warehouse.queries import exchange_inferior as q

    plate = _rows(pg_url, "SELECT plate_number FROM car WHERE id = %s", stack["terminals"][1].car_id)[0][0]
    code = wait_for(lambda: _rows(pg_url, "SELECT authorize_code_1 FROM inferior_platform WHERE id = %s",
                                  stack["inferior_id"])[0][0], 30, "the 0x1701 codes", stack["service"])
    start = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=20)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        vehicle = q.vehicle_id(conn, stack["inferior_id"], stack["enterprise"], plate, 1)
        request = q.queue_video(conn, {"platform_id": stack["inferior_id"], "enterprise_id": stack["enterprise"],
                                       "vehicle_id": vehicle, "kind": "playback", "channel": 4, "av_type": 2,
                                       "start": start, "end": start + timedelta(minutes=5), "stream_type": 2,
                                       "mem_type": 1, "created_by": None, "wait_s": 30})
    state = wait_for(lambda: (row := _rows(pg_url, "SELECT state, result FROM exchange_video_pull WHERE id = %s",
                                           request)[0]) and row[0] == "failed" and row, 30, "the 0x1A01 answer",
                     stack["service"])
    assert state == ("failed", 1)
    sent = wait_for(lambda: _rows(pg_url, "SELECT decoded FROM exchange_message WHERE inferior_platform_id = %s AND "
                                          "direction = 'down' AND data_type = %s ORDER BY time DESC LIMIT 1",
                                  stack["inferior_id"], m.PlaybackRequest.DATA_TYPE), 15, "0x9A01 logged",
                    stack["service"])
    data = sent[0][0]["data"]
    assert (data["channel_id"], data["av_item_type"], data["stream_type"], data["mem_type"], data["authorize_code"]) \
        == (4, 2, 2, 1, code)
    assert datetime.fromisoformat(data["start"]) == start and datetime.fromisoformat(data["end"]) == start + timedelta(minutes=5)
