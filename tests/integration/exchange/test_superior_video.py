"""A superior's video requests open real streams (platform-spec §2 data exchange "playback"; JT/T 1078-2016
§6.2, §8): the regulator in a box, the link service (its own process) on the real Kafka and PostgreSQL, the
media server, and a simulated terminal that streams H.264 over JT/T 1078 from the address of its JT/T 808
session. The link service reports its authorisation codes (0x1701); a 0x9801 with one registers the stream
and puts 0x9101 on jt808.downlink.v1 naming the media server; once the terminal answered (the streams
correlate its 0x0001 into the command row) the superior gets 0x1801 RESULT 0 with the address to pull, pulls
FLV bytes there with the code and is refused with another; 0x9802 sends 0x9102 and ends the stream; a 0x9A01
playback is answered 0 once its 0x9201 was, and a 0x9A02 with the terminal's outcome of its 0x9202; a
cross-region platform's 0x1702 gets this platform's codes from the regulator (0x9702)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest

from exchange.link import authorize
from exchange.regulator.video import pull
from exchange.superior.accounts import Account
from fleet.settings import MediaServerSettings
from fleet.topics import CONSOLE_EVENTS, JT808_UPLINK
from fleet.video_streams import PullLocation, SuperiorPull
from gateway.video.platform import NullPlatform
from gateway.video.server import MediaServer
from protocols.jt808.messages.t9101_realtime_av_request import RealtimeAvRequest
from protocols.jt808.messages.t9201_playback_request import PlaybackRequest
from protocols.jt809 import messages as m
from tests.integration.api.test_commands_api import Downlinked
from tests.integration.exchange.test_link_service import LinkService, plates, produce_positions
from tests.integration.exchange.test_regulator_e2e import CENTRE, PASSWORD, USER, RegulatorThread
from tests.integration.streams.support import Producer, commit_group_at_end, insert_terminals, wait_for
from tests.support.media import forge, tiny_clip
from tests.unit.exchange.inferior import Inferior, until

pytestmark = pytest.mark.timeout(180)
SECRET = "superior-video-secret"
CROSS_REGION = 8002  # a second account of the regulator: a cross-region platform (JT/T 1078-2016 §8.1)


@pytest.fixture
def stage(pg_url: str, kafka_bootstrap: str, stack_env: dict[str, str], free_port: Any,
          tmp_path: Path) -> Iterator[dict[str, Any]]:
    terminals = insert_terminals(pg_url, 1, enterprise_name="superior-video")
    regulator = RegulatorThread(free_port(), "2011")
    regulator.call(regulator.regulator.start)
    media = MediaServer(MediaServerSettings(host="127.0.0.1", port=0, public_host="127.0.0.1"), SECRET.encode(),
                        NullPlatform())
    regulator.call(media.start)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("UPDATE superior_platform SET enabled = false")  # only this test's platform is linked
        platform_id = conn.execute(
            "INSERT INTO superior_platform (enterprise_id, name, host, port, user_id, password, centre_id, version, "
            "down_link_host, down_link_port, position_interval_s) VALUES (%s, 'regulator in a box', '127.0.0.1', "
            "%s, %s, %s, %s, '2011', '127.0.0.1', %s, 0) RETURNING id",
            (terminals[0].enterprise_id, regulator.regulator.port, USER, PASSWORD, CENTRE, free_port())
        ).fetchone()[0]  # type: ignore[index]
        # online, its JT/T 808 session on loopback: the media server admits its media from there only
        conn.execute("UPDATE device SET state = 3, session_address = '127.0.0.1' WHERE id = %s",
                     (terminals[0].device_id,))
    commit_group_at_end(kafka_bootstrap, f"fleet-exchange-{platform_id}", (JT808_UPLINK, CONSOLE_EVENTS))
    env = {**stack_env, "FLEET_EXCHANGE_RELOAD_S": "1", "FLEET_EXCHANGE_POLL_S": "0.5",
           "FLEET_EXCHANGE_RECONNECT_MIN_S": "0.2", "FLEET_EXCHANGE_RECONNECT_MAX_S": "1",
           "FLEET_EXCHANGE_HEARTBEAT_S": "5", "FLEET_MEDIA_SERVER_SECRET": SECRET,
           "FLEET_MEDIA_SERVER_PORT": str(media.port), "FLEET_MEDIA_SERVER_PUBLIC_HOST": "127.0.0.1",
           "FLEET_MEDIA_SERVER_INTERNAL_URL": f"http://127.0.0.1:{media.port}"}
    service = LinkService(env, tmp_path / "exchange.log")
    service.start()
    downlinked = Downlinked(kafka_bootstrap)
    try:
        wait_for(regulator.linked, 60, "main and sub link up at the regulator", service)
        yield {"regulator": regulator, "service": service, "terminal": terminals[0], "platform_id": platform_id,
               "media": media, "downlinked": downlinked, "plate": plates(pg_url, terminals)[terminals[0].phone]}
    finally:
        downlinked.consumer.close()
        service.stop()
        regulator.call(media.close)
        regulator.call(regulator.regulator.stop)
        regulator.loop.call_soon_threadsafe(regulator.loop.stop)
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute("UPDATE superior_platform SET enabled = false WHERE id = %s", (platform_id,))


def _command_of(pg_url: str, platform_id: int, data_type: int) -> tuple[int, int] | None:
    with psycopg.connect(pg_url) as conn:
        row = conn.execute("SELECT v.command_id, c.msg_id FROM exchange_video_request v JOIN command c "
                           "ON c.id = v.command_id WHERE v.platform_id = %s AND v.data_type = %s ORDER BY v.id DESC "
                           "LIMIT 1", (platform_id, data_type)).fetchone()
    return None if row is None else (int(row[0]), int(row[1]))


def _terminal_answers(pg_url: str, command_id: int, result: int) -> None:
    """What the streams write when the terminal's 0x0001 answers the command."""
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("UPDATE command SET state = 'answered', result = %s, answered_at = now() WHERE id = %s",
                     (result, command_id))


def test_a_superiors_live_request_streams_to_it_with_its_code_and_a_stop_ends_it(stage: dict[str, Any],
                                                                                  pg_url: str) -> None:
    regulator, service, media = stage["regulator"], stage["service"], stage["media"]
    plate, terminal, platform_id = stage["plate"], stage["terminal"], stage["platform_id"]

    def answers(data_type: int) -> list[dict[str, Any]]:
        return [a for a in regulator.status()["video_answers"] if a["data_type"] == data_type]

    codes = wait_for(lambda: regulator.status()["authorize_codes"].get(str(USER)), 30, "the 0x1701 report", service)
    assert len(codes["code_1"]) == 64 and codes["platform_id"] == str(CENTRE)
    regulator.call(regulator.regulator.send_video_request, plate, 2, m.RealVideoRequest(1, 0, codes["code_1"]),
                   user_id=USER)
    command_id, msg_id = wait_for(lambda: _command_of(pg_url, platform_id, 0x9801), 30, "the 0x9101 command", service)
    assert msg_id == 0x9101
    [(key, value)] = stage["downlinked"].read({str(command_id)}, polls=60)
    assert key == terminal.phone.lstrip("0") or key == terminal.phone
    body = RealtimeAvRequest.decode(bytes.fromhex(value["body_hex"]), "2013")
    assert (body.server_ip, body.tcp_port, body.channel, body.data_type) == ("127.0.0.1", media.port, 1, 0)
    assert answers(0x1801) == []  # no answer before the terminal's
    _terminal_answers(pg_url, command_id, 0)
    [answered] = wait_for(lambda: answers(0x1801), 30, "0x1801", service)
    assert (answered["result"], answered["server_ip"], answered["server_port"]) == (0, "127.0.0.1", media.port)

    streaming = asyncio.run_coroutine_threadsafe(
        forge(media.port, terminal.phone, 1, 12.0, clip=tiny_clip()), regulator.loop)
    wait_for(lambda: any(s.online for s in media.streams.values()), 20, "the terminal's media", service)
    pulled = regulator.call(regulator.regulator.pull_video, plate, 2, 1, 0, 1.5, user_id=USER)
    assert pulled["status"] == 200 and pulled["jt1078"] and pulled["bytes"] > 5_000  # table 18's packets
    refused = regulator.call(regulator.regulator.pull_video, plate, 2, 1, 0, 0.5, user_id=USER, code="0" * 64)
    assert (refused["status"], refused["bytes"]) == (403, 0)

    regulator.call(regulator.regulator.send_video_request, plate, 2, m.RealVideoEnd(1, 0), user_id=USER)
    close_id, close_msg = wait_for(lambda: _command_of(pg_url, platform_id, 0x9802), 30, "the 0x9102", service)
    assert close_msg == 0x9102
    [(_, close)] = stage["downlinked"].read({str(close_id)}, polls=60)
    assert bytes.fromhex(close["body_hex"])[:2] == bytes((1, 0))  # channel 1, close
    assert streaming.result(20).closed_by_server_after_s is not None  # the terminal's media connection ended
    after = regulator.call(pull, "127.0.0.1", media.port, SuperiorPull(plate, 2, 1, 0, codes["code_1"]), 0.5)
    assert after["status"] == 404
    _terminal_answers(pg_url, close_id, 0)
    [stopped] = wait_for(lambda: answers(0x1802), 30, "0x1802", service)
    assert stopped["result"] == 0


def test_a_superiors_playback_request_is_answered_0_once_the_terminal_took_its_0x9201(stage: dict[str, Any],
                                                                                        pg_url: str) -> None:
    regulator, service, media, plate = stage["regulator"], stage["service"], stage["media"], stage["plate"]
    codes = wait_for(lambda: regulator.status()["authorize_codes"].get(str(USER)), 30, "the 0x1701 report", service)
    start = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=1)
    regulator.call(regulator.regulator.send_video_request, plate, 2,
                   m.PlaybackRequest(2, 0, 1, 1, start, start + timedelta(minutes=10), codes["code_2"]), user_id=USER)
    command_id, msg_id = wait_for(lambda: _command_of(pg_url, stage["platform_id"], 0x9A01), 30, "the 0x9201",
                                  service)
    [(_, value)] = stage["downlinked"].read({str(command_id)}, polls=60)
    body = PlaybackRequest.decode(bytes.fromhex(value["body_hex"]), "2013")
    assert (msg_id, body.tcp_port, body.channel, body.storage, body.start, body.end) == (
        0x9201, media.port, 2, 1, start, start + timedelta(minutes=10))
    _terminal_answers(pg_url, command_id, 0)
    [answered] = wait_for(lambda: [a for a in regulator.status()["video_answers"] if a["data_type"] == 0x1A01], 30,
                          "0x1A01", service)
    assert (answered["result"], answered["server_port"]) == (0, media.port)
    assert f"{stage['terminal'].device_id}-2-playback" in media.streams

    # 0x9A02 names no channel: the vehicle's last playback's; the terminal refuses this pause: RESULT 1
    regulator.call(regulator.regulator.send_video_request, plate, 2, m.PlaybackControl(1, 0, None), user_id=USER)
    control_id, control_msg = wait_for(lambda: _command_of(pg_url, stage["platform_id"], 0x9A02), 30, "the 0x9202",
                                       service)
    [(_, control)] = stage["downlinked"].read({str(control_id)}, polls=60)
    assert (control_msg, bytes.fromhex(control["body_hex"])[:2]) == (0x9202, bytes((2, 1)))  # channel 2, pause
    _terminal_answers(pg_url, control_id, 1)
    [controlled] = wait_for(lambda: [a for a in regulator.status()["video_answers"] if a["data_type"] == 0x1A02], 30,
                            "0x1A02", service)
    assert controlled["result"] == 1


def test_a_cross_region_platform_asking_the_regulator_gets_the_codes_this_platform_reported(
        stage: dict[str, Any], kafka_bootstrap: str) -> None:
    """JT/T 1078-2016 §8.1: the link service reports its codes (0x1701) and forwards the terminal's position; a
    cross-region platform's 0x1702 for that vehicle is answered on its sub link by 0x9702 with those codes,
    which this platform's media server accepts."""
    regulator, service, plate, platform_id = stage["regulator"], stage["service"], stage["plate"], stage["platform_id"]
    wait_for(lambda: regulator.status()["authorize_codes"].get(str(USER)), 30, "the 0x1701 report", service)
    producer = Producer(kafka_bootstrap)
    produce_positions(producer, [stage["terminal"]], datetime.now(UTC) - timedelta(seconds=5), 1)
    wait_for(lambda: (plate, 2) in regulator.regulator.vehicle_sources, 30, "the forwarded position", service)

    regulator.regulator.accounts[CROSS_REGION] = Account(CROSS_REGION, "cross", 7002, "2011")
    cross = Inferior(CROSS_REGION, "cross", 7002)

    async def ask() -> m.AuthorizeDown:
        await cross.connect(regulator.regulator.port)
        await until(lambda: regulator.regulator.links[CROSS_REGION].sub.state == "up")
        cross.send(m.Authorize.MSG_ID, m.Authorize(plate, 2, m.AuthorizeRequest.DATA_TYPE, m.AuthorizeRequest()))
        return await cross.expect_sub(m.AuthorizeDown, timeout=10)

    try:
        answer = regulator.call(ask)
    finally:
        regulator.call(cross.close)
    assert (answer.plate, answer.plate_colour, answer.data_type) == (plate, 2, 0x9702)
    home, cross_code = authorize.codes(SECRET.encode(), platform_id, authorize.day_of(datetime.now(UTC)))
    assert answer.data == m.AuthorizeRequestAnswer(home, cross_code)
    assert authorize.accepted(SECRET.encode(), platform_id, answer.data.authorize_code_2, datetime.now(UTC))


def test_a_cross_region_request_is_pulled_only_with_the_position_it_carried(stage: dict[str, Any],
                                                                              pg_url: str) -> None:
    """JT/T 1078-2016 §6.2 table 35: a 0x9801 with GNSS_DATA registers that position; the media server refuses a
    pull that names no location or another audio/video flag, and admits the one naming the request's."""
    regulator, service, media = stage["regulator"], stage["service"], stage["media"]
    plate, terminal, platform_id = stage["plate"], stage["terminal"], stage["platform_id"]
    codes = wait_for(lambda: regulator.status()["authorize_codes"].get(str(USER)), 30, "the 0x1701 report", service)
    fix_at = datetime.now(UTC).replace(microsecond=0) - timedelta(seconds=20)
    gnss = m.Gnss2011(fix_at, 116_400_000, 39_900_000)
    regulator.call(regulator.regulator.send_video_request, plate, 2,
                   m.RealVideoRequest(1, 2, codes["code_2"], gnss.encode().hex()), user_id=USER)
    command_id, _ = wait_for(lambda: _command_of(pg_url, platform_id, 0x9801), 30, "the 0x9101 command", service)
    _terminal_answers(pg_url, command_id, 0)
    wait_for(lambda: [a for a in regulator.status()["video_answers"] if a["data_type"] == 0x1801], 30, "0x1801",
             service)
    streaming = asyncio.run_coroutine_threadsafe(
        forge(media.port, terminal.phone, 1, 8.0, clip=tiny_clip()), regulator.loop)
    wait_for(lambda: any(s.online for s in media.streams.values()), 20, "the terminal's media", service)
    here = PullLocation(fix_at, 39_900_000, 116_400_000)

    def pulled(av_flag: int, location: PullLocation | None, seconds: float) -> dict[str, Any]:
        request = SuperiorPull(plate, 2, 1, av_flag, codes["code_2"], location)
        return regulator.call(pull, "127.0.0.1", media.port, request, seconds)  # type: ignore[no-any-return]

    assert pulled(2, None, 0.5)["status"] == 403
    assert pulled(0, here, 0.5)["status"] == 403
    right = pulled(2, here, 1.5)
    assert right["status"] == 200 and right["jt1078"] and right["bytes"] > 0
    streaming.result(20)
