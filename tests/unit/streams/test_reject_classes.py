"""Refusals are counted per reason class for the data-qualification KPI (gps_reject_day)."""

from __future__ import annotations

import json
from datetime import timedelta
from zoneinfo import ZoneInfo

from streams import payloads
from streams.messages import parse_uplink
from streams.payloads import Terminal
from streams.positions import plan_decoded
from streams.validation import UNPOSITIONED, Limits, reason_class

from .conftest import T0


def test_reason_classes() -> None:
    assert reason_class("latitude 91.0 out of range") == "latitude"
    assert reason_class("item 3: speed 300 km/h outside 0..250") == "speed"
    assert reason_class(UNPOSITIONED) == "unpositioned"
    assert reason_class("body too short") == "malformed"


def test_plan_counts_refusals_per_local_day_of_receipt_device_and_class() -> None:
    term = Terminal("013800000007", 7, 107, 3)
    at = T0 + timedelta(hours=17)  # 2026-05-02 01:00 UTC = 09:00 local on the 2nd
    values = [payloads.location_report(term, fix_at=at, received_at=at, speed_kmh=speed) for speed in (300.0, 400.0, 30.0)]
    plan = plan_decoded([parse_uplink(json.dumps(v)) for v in values], Limits(600, 250), ZoneInfo("Asia/Shanghai"))
    assert len(plan.fixes) == 1
    assert plan.reject_counts == {(at.astimezone(ZoneInfo("Asia/Shanghai")).date(), 7, "speed", 3): 2}
