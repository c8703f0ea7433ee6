"""Track replay in Chromium: a vehicle of its own with the last hour of positions
(written straight into gps, one fix every 10 s, with a parking stop and an alarm), opened from a link
`/dashboard/trace?carId=&start=&end=`; play, pause (the marker stays), a faster speed, resume, and the
marker ends on the last point. A second run checks the page's texts in English and that a range past
the server's limit shows the server's message. A third sees an active-safety alarm on the track (a fix
with ADAS and DSM items and alarm bits, and its alarm row): its marker named with its time, and the
point's popup and table row with the alarm text cut at 35 characters plus "…" (console-spec §2)."""

from __future__ import annotations

import json
import math
import re
import secrets
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import OPEN_OPTIONS, sign_in
from tests.e2e.test_console import screenshot, switch_language, text
from warehouse.db import connect
from warehouse.partitions import ensure_gps_partitions

POINTS = 360  # the last hour, every 10 s
SAFETY_POINT = 100  # alarm bits 1-3, an ADAS and a DSM item: a 40-character alarm text
SAFETY_BITS = 0b1110
SAFETY_TEXT = "超速报警,疲劳驾驶报警,危险驾驶行为报警,二级 前向碰撞报警,一级 接打电话报警"


def _safety_extras(at: datetime) -> dict[str, Any]:
    """A forward collision (level 2) and a phone call (level 1), as the codecs decode them."""
    from protocols.jt808.extras import decode_items, encode_items

    tail = {"speed_kmh": 40, "altitude_m": 50, "lat": 39.9, "lng": 116.3, "time": at.isoformat(), "vehicle_status": 1,
            "alarm_no": {"terminal_id": "R000001", "time": at.isoformat(), "seq": 0, "attachments": 0}}
    decoded, _unknown = decode_items(encode_items({
        "adas_alarm": {"alarm_id": 1, "flag": 0, "type": 1, "level": 2, "front_speed_kmh": 50, "headway_s": 1.0,
                       "deviation_type": 0, "road_sign_type": 0, "road_sign_data": 0, **tail},
        "dsm_alarm": {"alarm_id": 2, "flag": 0, "type": 2, "level": 1, "fatigue_degree": 0, **tail},
    }, ()))
    return decoded


class Track:
    def __init__(self, car_id: int, plate: str, start_ms: int, end_ms: int, points: list[tuple[float, float]],
                 safety_alarm_id: int = 0, times_ms: list[int] | None = None) -> None:
        self.car_id = car_id
        self.plate = plate
        self.start_ms = start_ms
        self.end_ms = end_ms
        self.points = points
        self.safety_alarm_id = safety_alarm_id
        self.times_ms = times_ms or []

    @property
    def url(self) -> str:
        return f"/dashboard/trace?carId={self.car_id}&start={self.start_ms}&end={self.end_ms}"


@pytest.fixture(scope="module")
def hour_track(console_stack: ConsoleStack) -> Track:
    """A car and terminal of the parent enterprise (no simulator behind it) with 360 fixes ending a
    minute ago: driving along a curve, parked with ACC off for 5 minutes, one alarm point, and one
    active-safety point with its alarm row."""
    tag = secrets.randbelow(10**8)
    plate = f"京R{tag % 10**5:05d}"
    now = datetime.now(UTC).replace(microsecond=0)
    first = now - timedelta(seconds=60 + 10 * (POINTS - 1))
    parent = console_stack.of("parent")[0]
    points: list[tuple[float, float]] = []
    rows = []
    with connect(console_stack.db_url) as conn:
        enterprise_id = conn.execute("SELECT enterprise_id FROM car WHERE id = %s", (parent.car_id,)).fetchone()[0]  # type: ignore[index]
        ensure_gps_partitions(conn, (first - timedelta(days=1)).date(), 3)
        device = conn.execute(
            "INSERT INTO device (enterprise_id, phone, device_sn, state, biz_state) VALUES (%s, %s, %s, 2, 0) RETURNING id",
            (enterprise_id, f"0188{tag:08d}", f"R{tag:08d}")).fetchone()[0]  # type: ignore[index]
        car = conn.execute(
            "INSERT INTO car (enterprise_id, plate_number, vin, master_device_id) VALUES (%s, %s, %s, %s) RETURNING id",
            (enterprise_id, plate, f"VINR{tag:013d}", device)).fetchone()[0]  # type: ignore[index]
        conn.execute("UPDATE device SET car_id = %s WHERE id = %s", (car, device))
        lng, lat = 116.30, 39.90
        for i in range(POINTS):
            parked = 150 <= i < 180  # 5 minutes
            speed = 0.0 if parked else 36.0 + 10 * math.sin(i / 20)
            heading = (i * 1.5) % 360
            if not parked:
                lng += 0.0008 * math.sin(math.radians(heading))
                lat += 0.0008 * math.cos(math.radians(heading))
            lng, lat = round(lng, 6), round(lat, 6)
            points.append((lng, lat))
            at = first + timedelta(seconds=10 * i)
            alarm = 2 if i == 250 else SAFETY_BITS if i == SAFETY_POINT else 0
            status = 2 if parked else 3  # bit 0: ACC
            extras = _safety_extras(at) if i == SAFETY_POINT else {"video_alarm_flags": 0}
            rows.append((device, at, car, enterprise_id, lng, lat, speed, heading, 1000 + i * 0.1, alarm, status,
                         json.dumps(extras)))
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO gps (device_id, fix_at, car_id, enterprise_id, lng, lat, altitude_m, speed_kmh,"
                " direction_deg, mileage_km, fuel_l, alarm_flags, status_flags, extras)"
                " VALUES (%s, %s, %s, %s, %s, %s, 50, %s, %s, %s, 40, %s, %s, %s::jsonb)", rows)
        safety_at = first + timedelta(seconds=10 * SAFETY_POINT)
        alarm_id = conn.execute(  # the alarm step's row of the ADAS event (at the fix's place)
            "INSERT INTO alarm (enterprise_id, device_id, car_id, plate_number, phone, type, key, level, start_time,"
            " end_time, lat, lng, speed) VALUES (%s, %s, %s, %s, %s, 5, 'adas_1', 2, %s, %s, %s, %s, 40) RETURNING id",
            (enterprise_id, device, car, plate, f"0188{tag:08d}", safety_at, safety_at, points[SAFETY_POINT][1],
             points[SAFETY_POINT][0])).fetchone()[0]  # type: ignore[index]
        conn.commit()
    start_ms = int((now - timedelta(hours=1, minutes=2)).timestamp() * 1000)
    times = [int((first + timedelta(seconds=10 * i)).timestamp() * 1000) for i in range(POINTS)]
    return Track(int(car), plate, start_ms, int(now.timestamp() * 1000), points, int(alarm_id), times)


def _open(page: Any, track: Track) -> Any:
    sign_in(page, "admin", path=track.url)
    replay = page.get_by_test_id("replay-page")
    replay.wait_for()
    # the track is drawn: its start and end points are on the map
    page.get_by_test_id(f"replay-start-{track.car_id}").wait_for()
    page.get_by_test_id(f"replay-end-{track.car_id}").wait_for()
    return replay


def _marker_index(page: Any, track: Track) -> int:
    return int(page.get_by_test_id(f"replay-marker-{track.car_id}").get_attribute("data-index"))


def _wait_index(page: Any, track: Track, at_least: int) -> None:
    page.wait_for_function(
        "([id, n]) => { const m = document.querySelector(`[data-testid='replay-marker-${id}']`);"
        " return !!m && Number(m.dataset.index) >= n; }", arg=[track.car_id, at_least], timeout=20_000)


def test_replays_the_last_hour_pause_keeps_the_marker_and_it_ends_on_the_last_point(
    page: Any, console_stack: ConsoleStack, hour_track: Track
) -> None:
    _open(page, hour_track)
    controls = page.get_by_test_id("replay-controls")
    assert controls.get_attribute("data-status") == "stopped"
    assert page.get_by_test_id("replay-play").inner_text().strip() == text("zh-CN", "replay", "controls.play")
    # direction arrows every 50 px along the drawn line (the whole track is in view after the fit)
    # (read once the fit has settled: the fit's zoom redraws the line, then its arrows)
    measure = ("(id) => [document.querySelector(`path.fw-replay-line-${id}`).getTotalLength(),"
               " Number(document.querySelector('path.fw-replay-arrows').dataset.count)]")
    page.wait_for_function(f"(id) => {{ const [px, n] = ({measure})(id); return Math.abs(n - Math.floor(px / 50)) <= 2; }}",
                           arg=hour_track.car_id, timeout=5_000)
    line_px, arrows = page.evaluate(measure, hour_track.car_id)
    assert arrows >= 5
    assert abs(arrows - line_px // 50) <= 2
    # the parking stop is marked with its duration; the table lists every point
    stop = page.get_by_test_id("replay-stop-park").first
    stop.wait_for()
    assert "停" in stop.inner_text()

    # play: the marker starts on the first point and moves at the track's default speed: the slowest
    # listed speed that plays its 360 points within two minutes, ×50 (five points a second, 72 s)
    assert page.get_by_test_id("replay-speed").inner_text().strip() == "×50"
    page.get_by_test_id("replay-play").click()
    marker = page.get_by_test_id(f"replay-marker-{hour_track.car_id}")
    marker.wait_for()
    first_lng, first_lat = hour_track.points[0]
    _wait_index(page, hour_track, 2)

    # pause: the marker stays where it is
    page.get_by_test_id("replay-pause").click()
    assert controls.get_attribute("data-status") == "paused"
    paused_at = _marker_index(page, hour_track)
    paused_lng = marker.get_attribute("data-lng")
    assert 2 <= paused_at < POINTS - 1
    assert (float(paused_lng), float(marker.get_attribute("data-lat"))) == hour_track.points[paused_at]
    assert (first_lng, first_lat) != hour_track.points[paused_at]
    page.wait_for_timeout(1500)  # a paused replay must not move in that time (at speed 50 it would, by 7-8 points)
    assert _marker_index(page, hour_track) == paused_at
    assert marker.get_attribute("data-lng") == paused_lng
    # the popup shows the paused point
    assert page.get_by_test_id("track-lng").inner_text() == f"{hour_track.points[paused_at][0]:.6f}"

    # a faster speed, then resume from where it paused
    page.get_by_test_id("replay-speed").click()
    page.locator(OPEN_OPTIONS).filter(has_text=re.compile(r"^×1000$")).click()
    page.get_by_test_id("replay-speed").filter(has_text="×1000").wait_for()
    page.get_by_test_id("replay-resume").click()
    started = time.monotonic()

    # the end pauses the replay with the marker on the last point
    page.wait_for_function(
        "() => document.querySelector(\"[data-testid='replay-controls']\").dataset.status === 'paused'", timeout=20_000)
    assert time.monotonic() - started < 15  # at ×1000: 100 points a second, not one
    last_lng, last_lat = hour_track.points[-1]
    assert _marker_index(page, hour_track) == POINTS - 1
    assert float(marker.get_attribute("data-lng")) == pytest.approx(last_lng, abs=1e-6)
    assert float(marker.get_attribute("data-lat")) == pytest.approx(last_lat, abs=1e-6)
    assert page.get_by_test_id("track-lng").inner_text() == f"{last_lng:.6f}"
    assert page.get_by_test_id("track-lat").inner_text() == f"{last_lat:.6f}"
    assert page.get_by_test_id("replay-time").inner_text().endswith(f"({POINTS}/{POINTS})")
    # the table follows: its highlighted row is the last point
    current = page.get_by_test_id("replay-table").locator(".fw-replay-row-current")
    current.wait_for()
    assert current.locator(".ant-table-cell").first.inner_text().strip() == str(POINTS)
    assert page.errors == []
    screenshot(page, "track-replay.png")


def test_the_replay_page_speaks_english_and_shows_the_servers_range_limit(
    page: Any, console_stack: ConsoleStack, hour_track: Track
) -> None:
    _open(page, hour_track)
    switch_language(page, "en-US")
    for testid, key in (("replay-play", "controls.play"), ("replay-restart", "controls.restart"),
                        ("replay-load", "load"), ("replay-preset-today", "presets.today"),
                        ("replay-preset-last3days", "presets.last3days"), ("replay-export-gpx", "export.gpx")):
        assert page.get_by_test_id(testid).inner_text().strip() == text("en-US", "replay", key)
    assert page.get_by_test_id("menu").get_by_text(text("en-US", "menu", "menu.dashboard.trace"), exact=True).count() >= 1
    assert page.get_by_text(text("en-US", "replay", "table.title"), exact=True).count() == 1

    # the export downloads every point of the range with the session's token
    page.get_by_test_id("replay-export-csv").click()
    with page.expect_download() as download:
        page.get_by_test_id(f"replay-export-csv-{hour_track.car_id}").click()
    lines = Path(download.value.path()).read_text(encoding="utf-8-sig").strip().splitlines()
    assert lines[0].startswith("time,lng,lat,speed")
    assert len(lines) == 1 + POINTS
    assert lines[-1].split(",")[1:3] == [str(v) for v in hour_track.points[-1]]

    # 40 days back: the server refuses past its 31-day limit and the page shows its message
    too_long = hour_track.url.replace(f"start={hour_track.start_ms}", f"start={hour_track.end_ms - 40 * 86_400_000}")
    page.goto(too_long)
    error = page.get_by_test_id("replay-error")
    error.wait_for()
    assert "the time range may not exceed 31 days" in error.inner_text()
    assert hour_track.plate in error.inner_text()


def test_an_active_safety_alarm_is_marked_on_the_track_and_named_in_the_point_popup(
    page: Any, console_stack: ConsoleStack, hour_track: Track
) -> None:
    _open(page, hour_track)
    # the alarm row's marker, named with its time, and the vehicle's alarm count
    marker = page.get_by_test_id(f"replay-alarm-{hour_track.safety_alarm_id}")
    marker.wait_for()
    assert marker.get_attribute("data-key") == "adas_1"
    assert int(marker.get_attribute("data-start")) == hour_track.times_ms[SAFETY_POINT]
    icon = page.locator(".fw-replay-alarm-safety", has=marker)
    title = icon.get_attribute("title")
    assert title.startswith("二级 前向碰撞报警（") and title.endswith("）")
    marker.hover()
    tooltip = page.locator(".fw-replay-alarm-tooltip")
    tooltip.wait_for()
    assert tooltip.inner_text().strip() == title
    assert page.get_by_test_id(f"replay-alarm-count-{hour_track.car_id}").inner_text().strip().endswith(
        text("zh-CN", "replay", "alarms.count").replace("{{count}}", "1"))

    # a click seeks to the alarm: the point's popup names every alarm of the fix, cut at 35 + "…"
    marker.click()
    _wait_index(page, hour_track, SAFETY_POINT)
    assert _marker_index(page, hour_track) == SAFETY_POINT
    cut = SAFETY_TEXT[:35] + "…"
    alarm = page.get_by_test_id("track-alarm")
    assert alarm.inner_text() == cut and alarm.get_attribute("title") == SAFETY_TEXT
    # the table's current row says the same in its alarm column
    current = page.get_by_test_id("replay-table").locator(".fw-replay-row-current")
    current.wait_for()
    assert current.locator(".ant-table-cell").first.inner_text().strip() == str(SAFETY_POINT + 1)
    assert current.locator(".fw-replay-alarm-text").inner_text() == cut
    assert page.errors == []
    screenshot(page, "track-replay-alarm.png")
