"""Tiny hand-made tracks for the pipeline tests.

Positions move along the meridian 116.4 E, so the haversine distance between two of them is exactly
R·Δφ: 1 km north is ``KM_DEG`` degrees of latitude (R = 6,371.0088 km). Times are local (UTC+8) on
``DAY`` unless said otherwise.
"""

from __future__ import annotations

import math
from datetime import UTC, date, datetime, timedelta
from typing import Any

import polars as pl

from pipelines.rules import Rules, Window
from pipelines.segments import POINT_SCHEMA

DAY = date(2026, 10, 15)
KM_DEG = 180 / (math.pi * 6371.0088)
LAT0, LNG = 39.9, 116.4
ACC_POS = 3  # status: ACC on + positioned
POS = 2      # positioned, ACC off
RULES = Rules()
WINDOW = Window.of(DAY)


def local(hh: int, mm: int = 0, ss: int = 0, day: date = DAY) -> datetime:
    """A local (UTC+8) wall time on ``day`` as an aware UTC datetime."""
    return datetime(day.year, day.month, day.day, hh, mm, ss, tzinfo=UTC) - timedelta(hours=8)


def point(device: int, at: datetime, km: float, speed: float, *, status: int = ACC_POS, odo: float | None = None,
          alarm: int = 0, lng: float = LNG) -> dict[str, Any]:
    return {"device_id": device, "fix_at": at, "lng": lng, "lat": LAT0 + km * KM_DEG, "speed_kmh": speed,
            "mileage_km": odo, "status_flags": status, "alarm_flags": alarm, "received_at": at + timedelta(seconds=1)}


def frame(rows: list[dict[str, Any]]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=POINT_SCHEMA)


def drive(device: int, start: datetime, minutes: int, *, km0: float = 0.0, kmh: float = 60.0,
          odo0: float | None = None, every_s: int = 60, status: int = ACC_POS, alarm: int = 0) -> list[dict[str, Any]]:
    """Points every ``every_s`` over ``minutes`` (both ends included) at ``kmh`` northwards."""
    rows = []
    for k in range(minutes * 60 // every_s + 1):
        km = km0 + kmh * k * every_s / 3600
        odo = None if odo0 is None else round(odo0 + km - km0, 6)
        rows.append(point(device, start + timedelta(seconds=k * every_s), km, kmh, odo=odo, status=status, alarm=alarm))
    return rows


def stand(device: int, start: datetime, minutes: int, *, km: float, status: int = ACC_POS, every_s: int = 60,
          odo: float | None = None) -> list[dict[str, Any]]:
    """Standing points (speed 0) every ``every_s`` over ``minutes`` (both ends included)."""
    return [point(device, start + timedelta(seconds=k * every_s), km, 0.0, status=status, odo=odo)
            for k in range(minutes * 60 // every_s + 1)]
