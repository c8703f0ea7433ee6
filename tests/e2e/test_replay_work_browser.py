"""Replay and the video-and-map view as the live map: tiles that do not load fall back to the offline
layer with the notice; a day's stops do not pile their labels on each other at the fitted zoom (the
longest keep theirs, the others are dots); a long track starts at a speed that plays it in a minute
or two. In Chromium against the live stack."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import sign_in
from tests.e2e.test_console import text
from warehouse.db import connect
from warehouse.partitions import ensure_gps_partitions

STOPS = 12
STOP_POINTS = 30  # 5 minutes at one fix every 10 s: a park (at least 3 minutes)
DRIVE_POINTS = 3


@pytest.fixture(scope="module")
def stops_track(console_stack: ConsoleStack) -> tuple[int, str]:
    """A car of the parent enterprise with STOPS parks in the last two hours, all but the last ~60 m
    apart: (car id, replay URL)."""
    tag = secrets.randbelow(10**8)
    plate = f"京S{tag % 10**5:05d}"
    now = datetime.now(UTC).replace(microsecond=0)
    count = STOPS * (STOP_POINTS + DRIVE_POINTS)
    first = now - timedelta(seconds=60 + 10 * count)
    parent = console_stack.of("parent")[0]
    rows = []
    with connect(console_stack.db_url) as conn:
        enterprise_id = conn.execute("SELECT enterprise_id FROM car WHERE id = %s", (parent.car_id,)).fetchone()[0]  # type: ignore[index]
        ensure_gps_partitions(conn, (first - timedelta(days=1)).date(), 3)
        device = conn.execute(
            "INSERT INTO device (enterprise_id, phone, device_sn, state, biz_state) VALUES (%s, %s, %s, 2, 0) RETURNING id",
            (enterprise_id, f"0177{tag:08d}", f"S{tag:08d}")).fetchone()[0]  # type: ignore[index]
        car = conn.execute(
            "INSERT INTO car (enterprise_id, plate_number, vin, master_device_id) VALUES (%s, %s, %s, %s) RETURNING id",
            (enterprise_id, plate, f"VINS{tag:013d}", device)).fetchone()[0]  # type: ignore[index]
        conn.execute("UPDATE device SET car_id = %s WHERE id = %s", (car, device))
        lng, lat, i = 116.30, 39.90, 0
        for stop in range(STOPS):
            # the stops ~60 m apart, then a 5 km drive to the last one: fitted to view, the close stops'
            # labels would sit on each other
            hop = 0.06 if stop == STOPS - 2 else 0.0007
            for step in range(STOP_POINTS + DRIVE_POINTS):
                driving = step >= STOP_POINTS
                if driving:
                    lng = round(lng + hop / DRIVE_POINTS, 6)
                at = first + timedelta(seconds=10 * i)
                rows.append((device, at, car, enterprise_id, lng, lat, 30.0 if driving else 0.0, 90,
                             1000 + i * 0.01, 0, 3 if driving else 2))
                i += 1
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO gps (device_id, fix_at, car_id, enterprise_id, lng, lat, altitude_m, speed_kmh,"
                " direction_deg, mileage_km, fuel_l, alarm_flags, status_flags, extras)"
                " VALUES (%s, %s, %s, %s, %s, %s, 50, %s, %s, %s, 40, %s, %s, '{}'::jsonb)", rows)
        conn.commit()
    start_ms = int((first - timedelta(minutes=1)).timestamp() * 1000)
    return int(car), f"/dashboard/trace?carId={car}&start={start_ms}&end={int(now.timestamp() * 1000)}"


def _open(page: Any, url: str, car_id: int) -> None:
    sign_in(page, "admin", path=url)
    page.get_by_test_id("replay-page").wait_for()
    page.get_by_test_id(f"replay-end-{car_id}").wait_for()


def test_replay_falls_back_to_the_offline_layer_with_the_notice(page: Any, stops_track: tuple[int, str]) -> None:
    car_id, url = stops_track
    _open(page, url, car_id)
    notice = page.get_by_test_id("base-layer-fallback")
    notice.wait_for()
    assert text("zh-CN", "map", "baseLayer.fallback") in notice.inner_text()
    page.locator(".fw-blank-tile").first.wait_for()
    assert page.errors == []


def test_the_video_and_map_view_falls_back_to_the_offline_layer_with_the_notice(page: Any) -> None:
    sign_in(page, "admin", path="/dashboard/videoMap")
    page.get_by_test_id("video-map-map").wait_for()
    page.get_by_test_id("base-layer-fallback").wait_for()
    page.locator(".fw-blank-tile").first.wait_for()
    assert page.errors == []


def _label_boxes(page: Any) -> list[dict[str, Any]]:
    return list(page.evaluate(
        """() => Array.from(document.querySelectorAll('.fw-replay-stop > span')).map((el) => {
          const r = el.getBoundingClientRect();
          return {label: el.dataset.label || '', left: r.left, top: r.top, right: r.right, bottom: r.bottom,
                  text: el.innerText};
        })"""))


def _overlapping(boxes: list[dict[str, Any]]) -> list[tuple[str, str]]:
    shown = [b for b in boxes if b["label"] != "dot"]
    return [(a["text"], b["text"]) for i, a in enumerate(shown) for b in shown[i + 1:]
            if a["left"] < b["right"] and b["left"] < a["right"] and a["top"] < b["bottom"] and b["top"] < a["bottom"]]


def test_stop_labels_do_not_overlap_at_the_fitted_zoom_and_come_back_when_zoomed_in(
        page: Any, stops_track: tuple[int, str]) -> None:
    car_id, url = stops_track
    _open(page, url, car_id)
    page.locator(".fw-replay-stop").first.wait_for()
    page.wait_for_timeout(1000)  # the fit
    boxes = _label_boxes(page)
    assert len(boxes) >= STOPS - 1, boxes
    assert _overlapping(boxes) == []
    dots = sum(1 for b in boxes if b["label"] == "dot")
    assert 0 < dots < len(boxes)  # ~60 m apart: some labels give way, the longest stay
    for _ in range(3):
        page.locator(".leaflet-control-zoom-in:not(.leaflet-disabled)").click()
        page.wait_for_timeout(600)
    closer = _label_boxes(page)
    assert _overlapping(closer) == []
    assert sum(1 for b in closer if b["label"] == "dot") < dots
    assert page.errors == []


def test_a_long_track_starts_at_a_speed_that_plays_it_in_two_minutes(page: Any, stops_track: tuple[int, str]) -> None:
    car_id, url = stops_track
    _open(page, url, car_id)
    shown = page.get_by_test_id("replay-time").inner_text()
    points = int(shown.rsplit("/", 1)[1].rstrip(")"))
    speed = int(page.get_by_test_id("replay-speed").inner_text().strip().lstrip("×"))
    assert speed > 10
    assert (points - 1) * 10000 / speed <= 120_000
    assert page.errors == []
