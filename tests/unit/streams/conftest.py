"""Fixtures for the streams unit tests: a terminal and a clock."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from streams.payloads import Terminal

T0 = datetime(2026, 5, 1, 8, 0, 0, tzinfo=UTC)


@pytest.fixture
def terminal() -> Terminal:
    return Terminal(phone="013800000001", device_id=11, car_id=21, enterprise_id=3)
