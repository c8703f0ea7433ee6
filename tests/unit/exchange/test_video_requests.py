"""A superior's JT/T 1078 video requests (exchange/link/video_requests.py), the authorisation codes
(exchange/link/authorize.py) and the shared stream pieces (fleet/video_streams.py): pure rules and bodies."""

from __future__ import annotations

import string
from datetime import UTC, date, datetime, timedelta

import pytest

from exchange.link import authorize
from exchange.link.video_requests import (
    FAILURE,
    LIVE_OF_AV,
    SUCCESS,
    WRONG_CODE,
    answer,
    immediate_result,
    outcome_result,
    video_address,
)
from fleet import video_streams as vs
from fleet.enums import DeviceState
from fleet.settings import ExchangeSettings, MediaServerSettings
from protocols.jt809 import messages as m

ONLINE = {"state": DeviceState.ONLINE}
OFFLINE = {"state": DeviceState.OFFLINE}
SECRET = b"media-secret"
SERVER = ("203.0.113.7", 7612)


@pytest.mark.parametrize(("data_type", "target", "code_ok", "expected"), [
    (0x9801, None, True, FAILURE),          # not exchanged
    (0x9801, OFFLINE, True, FAILURE),
    (0x9801, ONLINE, False, WRONG_CODE),     # a code this platform did not report
    (0x9801, ONLINE, True, None),            # to the media server and the terminal
    (0x9A01, OFFLINE, True, FAILURE),
    (0x9A01, ONLINE, False, WRONG_CODE),
    (0x9A01, ONLINE, True, None),
    (0x9802, None, False, SUCCESS),          # nothing streams to the superior
    (0x9802, OFFLINE, False, SUCCESS),
    (0x9802, ONLINE, False, None),           # 0x9102 close
    (0x9A02, OFFLINE, False, FAILURE),
    (0x9A02, ONLINE, False, None),           # 0x9202
])
def test_the_result_answered_at_once(data_type: int, target: dict[str, int] | None, code_ok: bool,
                                     expected: int | None) -> None:
    assert immediate_result(data_type, target, code_ok) == expected


def test_the_terminals_outcome_is_the_result() -> None:
    assert outcome_result("answered", 0) == SUCCESS
    assert outcome_result("answered", 2) == FAILURE
    assert outcome_result("timed_out", None) == outcome_result("failed", None) == FAILURE
    assert outcome_result("sent", None) is None


def test_a_successful_start_names_the_server_and_a_failure_none() -> None:
    msg_id, body = answer("京A12345", 2, 0x9801, SUCCESS, SERVER)
    assert msg_id == 0x1800 and body.data == m.RealVideoAnswer(0, "203.0.113.7", 7612)
    raw = body.encode("2019")
    assert m.RealVideo.decode(raw, "2019").data == m.RealVideoAnswer(0, "203.0.113.7", 7612)
    assert answer("京A12345", 2, 0x9A01, FAILURE, SERVER)[1].data == m.PlaybackAnswer(1, "", 0)
    assert answer("京A12345", 2, 0x9A01, SUCCESS, SERVER)[1].data == m.PlaybackAnswer(0, "203.0.113.7", 7612)
    assert answer("京A12345", 2, 0x9802, SUCCESS, SERVER) == (
        0x1800, m.RealVideo("京A12345", 2, 0x1802, m.RealVideoEndAnswer(0)))
    assert answer("京A12345", 2, 0x9A02, FAILURE, SERVER) == (
        0x1A00, m.Playback("京A12345", 2, 0x1A02, m.PlaybackControlAnswer(1)))


def test_the_answered_address_is_never_a_wildcard() -> None:
    media = MediaServerSettings(public_host="198.51.100.2", port=7612)
    assert video_address(ExchangeSettings(), media) == ("198.51.100.2", 7612)
    assert video_address(ExchangeSettings(video_host="203.0.113.7", video_port=17612), media) == SERVER[:1] + (17612,)
    with pytest.raises(ValueError, match="FLEET_EXCHANGE_VIDEO_HOST"):
        video_address(ExchangeSettings(), MediaServerSettings(public_host="0.0.0.0"))
    with pytest.raises(ValueError, match="FLEET_EXCHANGE_VIDEO_HOST"):
        ExchangeSettings(video_host="0.0.0.0")


def test_the_av_item_type_maps_to_the_0x9101_data_type_and_the_stream_kind() -> None:
    assert LIVE_OF_AV == {0: (0, "live"), 1: (3, "listen"), 2: (1, "live")}


def test_authorisation_codes_are_64_letters_and_digits_per_platform_and_day() -> None:
    day = date(2026, 12, 3)
    home, cross = authorize.codes(SECRET, 1, day)
    assert len(home) == len(cross) == 64 and set(home + cross) <= set(string.ascii_letters + string.digits)
    assert home != cross and authorize.codes(SECRET, 2, day)[0] != home
    assert authorize.codes(SECRET, 1, day + timedelta(days=1))[0] != home
    assert authorize.codes(SECRET, 1, day) == (home, cross)  # a restart reports the same codes


def test_todays_and_yesterdays_codes_are_accepted_in_china_time() -> None:
    # 2026-12-03 17:00 UTC is 2026-12-04 01:00 in China: the day is the 4th
    now = datetime(2026, 12, 3, 17, 0, tzinfo=UTC)
    assert authorize.day_of(now) == date(2026, 12, 4)
    assert authorize.accepted(SECRET, 1, authorize.codes(SECRET, 1, date(2026, 12, 4))[1], now)
    assert authorize.accepted(SECRET, 1, authorize.codes(SECRET, 1, date(2026, 12, 3))[0], now)
    assert not authorize.accepted(SECRET, 1, authorize.codes(SECRET, 1, date(2026, 12, 2))[0], now)
    assert not authorize.accepted(SECRET, 2, authorize.codes(SECRET, 1, date(2026, 12, 4))[0], now)


def test_the_0x1701_report_round_trips() -> None:
    body = authorize.report(SECRET, 1, 80900077, date(2026, 12, 3))
    decoded = m.Authorize.decode(body.encode("2011"), "2011")
    assert decoded.data_type == 0x1701 and decoded.data.platform_id == "80900077"
    assert (decoded.data.authorize_code_1, decoded.data.authorize_code_2) == authorize.codes(SECRET, 1,
                                                                                              date(2026, 12, 3))


def test_the_pull_url_path_of_jtt1078_6_2_round_trips_and_refuses_anything_else() -> None:
    pull = vs.SuperiorPull("京A.12345", 2, 1, 0, "abcDEF123")
    path = vs.pull_path(pull)
    assert path == "/%E4%BA%ACA%2E12345.2.1.0.abcDEF123"
    from urllib.parse import unquote
    assert vs.parse_pull_path(unquote(path)) == pull
    located = vs.parse_pull_path("/京A12345.2.3.2.abc.20261203-120000-N39.900000-E116.400000")
    assert (located.plate, located.channel, located.av_flag, located.code) == ("京A12345", 3, 2, "abc")
    for bad in ("/live/1-2-live.flv", "/京A12345.2.1.3.abc", "/京A12345.2.1.0.ab-c", "/京A12345.2.1.0." + "a" * 65,
                "/healthz"):
        with pytest.raises(ValueError):
            vs.parse_pull_path(bad)


def test_a_registration_is_the_apis_with_the_superiors_pull_added() -> None:
    target = {"deviceId": 11, "carId": 21, "enterpriseId": 7, "plateNumber": "京A12345", "phone": "013912345678",
              "protocolVersion": None}
    plain = vs.registration(target, "11-1-live", "live", 1, 0, 1, "10.0.0.9", 5)
    assert plain == {"streamId": "11-1-live", "kind": "live", "sim": "13912345678", "channel": 1, "dataType": 0,
                     "streamType": 1, "enterpriseId": 7, "deviceId": 11, "carId": 21, "plateNumber": "京A12345",
                     "phone": "13912345678", "protocolVersion": "2013", "sourceAddress": "10.0.0.9", "userId": 5}
    pulled = vs.registration(target, "11-1-live", "live", 1, 0, 1, None, None,
                             vs.SuperiorPull("京A12345", 2, 1, 0, "abc"))
    assert pulled["superior"] == {"plate": "京A12345", "plateColour": 2, "channel": 1, "avFlag": 0, "code": "abc"}
    assert pulled["userId"] is None


def test_the_terminal_bodies() -> None:
    assert vs.realtime_body("1.2.3.4", 7612, 2, 0, 1).encode("2013").hex() == "07312e322e332e341dbc0000020001"
    assert vs.close_body(2).encode("2013") == bytes((2, 0, 0, 0))
    start = datetime(2026, 12, 1, tzinfo=UTC)
    playback = vs.playback_body("1.2.3.4", 7612, 2, 0, 1, 1, 0, 0, start, start + timedelta(minutes=10))
    assert (playback.channel, playback.storage, playback.start) == (2, 1, start)
    assert vs.playback_control_body(2, 1, 0, start).seek_to is None  # only a seek carries its time
    assert vs.playback_control_body(2, 5, 0, start).seek_to == start


# JT/T 1078-2016 §6.2 table 35: the location identification of a cross-region pull
AT = datetime(2026, 12, 3, 4, 0, 0, tzinfo=UTC)  # 12:00:00 China time
HERE = vs.PullLocation(AT, 39_900_000, 116_400_000)


def test_a_location_identification_reads_in_china_time_with_its_hemispheres_and_round_trips() -> None:
    assert HERE.text() == "20261203-120000-N39.900000-E116.400000"
    assert vs.parse_location("20261203-120000-N39.9-E116.4") == HERE
    south_west = vs.parse_location("20261203-120000-S3.050000-W60.000001")
    assert (south_west.lat_e6, south_west.lng_e6) == (-3_050_000, -60_000_001)
    assert vs.parse_location(south_west.text()) == south_west
    located = vs.SuperiorPull("京A12345", 2, 3, 2, "abc", HERE)
    from urllib.parse import unquote
    assert vs.parse_pull_path(unquote(vs.pull_path(located))) == located
    for bad in ("20261203-120000-N99.000000-E116.400000", "20261303-120000-N39.9-E116.4", "20261203-1200-N39-E116"):
        with pytest.raises(ValueError):
            vs.parse_location(bad)


def test_the_gnss_data_of_a_request_is_the_location_its_pull_must_name() -> None:
    gnss = m.Gnss2011(AT, 116_400_000, 39_900_000, state=vs.SOUTH).encode().hex()
    assert vs.location_of_gnss(gnss) == vs.PullLocation(AT, -39_900_000, 116_400_000)
    with pytest.raises(ValueError):
        vs.location_of_gnss("00" * 36)  # day 0 of month 0
    registered = vs.registration({"deviceId": 11, "carId": 21, "enterpriseId": 7, "plateNumber": "京A12345",
                                  "phone": "13912345678", "protocolVersion": "2013"}, "11-1-live", "live", 1, 0, 1,
                                 None, None, vs.SuperiorPull("京A12345", 2, 1, 0, "abc", HERE))
    assert registered["superior"]["location"] == {"at": AT.isoformat(), "latE6": 39_900_000, "lngE6": 116_400_000}


@pytest.mark.parametrize(("granted", "pulled", "now", "why"), [
    (vs.SuperiorPull("P", 2, 1, 0, "c"), vs.SuperiorPull("P", 2, 1, 0, "c"), AT, None),
    (vs.SuperiorPull("P", 2, 1, 0, "c"), vs.SuperiorPull("P", 2, 1, 2, "c"), AT, "audio/video flag 2, the request"),
    (vs.SuperiorPull("P", 2, 1, 3, "c"), vs.SuperiorPull("P", 2, 1, 2, "c"), AT, None),
    (vs.SuperiorPull("P", 2, 1, 3, "c"), vs.SuperiorPull("P", 2, 1, 1, "c"), AT, "audio/video flag 1"),
    (vs.SuperiorPull("P", 2, 1, 0, "c", HERE), vs.SuperiorPull("P", 2, 1, 0, "c"), AT, "location identification req"),
    (vs.SuperiorPull("P", 2, 1, 0, "c", HERE),
     vs.SuperiorPull("P", 2, 1, 0, "c", vs.PullLocation(AT, 39_900_001, 116_400_000)), AT, "location identification does not"),
    (vs.SuperiorPull("P", 2, 1, 0, "c", HERE), vs.SuperiorPull("P", 2, 1, 0, "c", HERE),
     AT + timedelta(minutes=5), None),
    (vs.SuperiorPull("P", 2, 1, 0, "c", HERE), vs.SuperiorPull("P", 2, 1, 0, "c", HERE),
     AT + timedelta(minutes=5, seconds=1), "location identification more"),
    (vs.SuperiorPull("P", 2, 1, 0, "c"), vs.SuperiorPull("P", 2, 1, 0, "c", HERE),
     AT - timedelta(minutes=6), "location identification more"),  # a home-region pull may name one: checked as well
])
def test_a_pull_must_match_the_flag_and_position_its_request_registered(
        granted: vs.SuperiorPull, pulled: vs.SuperiorPull, now: datetime, why: str | None) -> None:
    got = vs.refusal(granted, pulled, now)
    assert got is None if why is None else (got is not None and got.startswith(why))
