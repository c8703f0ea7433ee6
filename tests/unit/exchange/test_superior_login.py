"""The superior service's login checks (JT/T 809 §5.2.1.2 0x1002 results) on accounts made from inferior_platform
rows, and the position rows it stores (units converted once)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from exchange.superior.service import SuperiorService, account_of, position_row
from fleet.settings import ExchangeSettings
from protocols.jt809 import messages as m
from warehouse.queries.exchange_inferior import InferiorPlatform

ROW = InferiorPlatform(id=5, enterprise_id=1, user_id=1001, password="s3cret", centre_id=7001, version="2019",
                       encrypted=False, m1=0, ia1=0, ic1=0, encrypt_key=0, allowed_hosts=("10.0.0.8",))


def service() -> SuperiorService:
    svc = SuperiorService("postgresql://unused", ExchangeSettings(), port=0)
    svc.platforms = {ROW.user_id: ROW}
    svc.accounts = {ROW.user_id: account_of(ROW)}
    return svc


@pytest.mark.parametrize(("user", "password", "centre", "host", "version", "result"), [
    (1001, "s3cret", 7001, "10.0.0.8", "2019", m.LoginResult.OK),
    (1002, "s3cret", 7001, "10.0.0.8", "2019", m.LoginResult.USER_NOT_REGISTERED),
    (1001, "s3cret", 7001, "10.0.0.9", "2019", m.LoginResult.IP_INCORRECT),
    (1001, "s3creT", 7001, "10.0.0.8", "2019", m.LoginResult.PASSWORD_WRONG),
    (1001, "s3cret", 7002, "10.0.0.8", "2019", m.LoginResult.ACCESS_CODE_INCORRECT),
    (1001, "s3cret", 7001, "10.0.0.8", "2011", m.LoginResult.OTHER),
    (1001, "s3cret", 7001, "::ffff:10.0.0.8", "2019", m.LoginResult.OK),  # a dual-stack listener's view of it
])
def test_login_results_follow_the_inferior_platform_row(user: int, password: str, centre: int, host: str,
                                                        version: str, result: m.LoginResult) -> None:
    svc = service()
    request = m.LoginRequest(user, password, "10.0.0.8", 7000, centre if version == "2019" else None)
    assert svc.check_login(svc.accounts.get(user), request, centre, host, version) == result


def test_a_disabled_row_leaves_no_account_so_its_login_is_an_unknown_user() -> None:
    svc = service()
    svc.accounts = {}
    request = m.LoginRequest(1001, "s3cret", "10.0.0.8", 7000, 7001)
    assert svc.check_login(None, request, 7001, "10.0.0.8", "2019") == m.LoginResult.USER_NOT_REGISTERED


def test_a_2011_position_is_stored_in_degrees_and_utc() -> None:
    fix = datetime(2026, 12, 2, 6, 30, 5, tzinfo=UTC)
    gnss = m.Gnss2011(fix, 116_391_234, 39_912_345, speed_kmh=60, mileage_km=1234, direction_deg=271,
                      altitude_m=52, state=3, alarm=1)
    received = datetime(2026, 12, 2, 6, 30, 7, tzinfo=UTC)
    row = position_row(gnss, True, received)
    assert row == {"fix_at": fix, "received_at": received, "backfilled": True, "lat": 39.912345,
                   "lng": 116.391234, "speed_kmh": 60.0, "direction_deg": 271, "altitude_m": 52,
                   "mileage_km": 1234.0, "status": 3, "alarm": 1}


def test_a_login_is_logged_without_its_password() -> None:
    svc = service()
    request = m.LoginRequest(1001, "s3cret", "10.0.0.8", 7000, 7001)
    svc.record(1001, "main", "up", m.LoginRequest.MSG_ID, None, 1, request, b"\x5b secret frame \x5d")
    (row,) = svc.log_rows
    assert row["raw_hex"] == "" and "password" not in row["decoded"]
    assert "s3cret" not in repr(row)


@pytest.mark.parametrize(("down_link_ip", "host", "allowed", "result"), [
    ("10.0.0.8", "10.0.0.8", (), m.LoginResult.OK),                       # its sub link where its main link is
    ("10.0.0.20", "10.0.0.8", ("10.0.0.8", "10.0.0.20"), m.LoginResult.OK),  # another of its addresses
    ("10.0.0.20", "10.0.0.8", (), m.LoginResult.IP_INCORRECT),             # a host it does not own
    ("169.254.169.254", "10.0.0.8", ("10.0.0.8",), m.LoginResult.IP_INCORRECT),
    ("127.0.0.1", "10.0.0.8", (), m.LoginResult.IP_INCORRECT),              # our own loopback
    ("0.0.0.0", "0.0.0.0", (), m.LoginResult.IP_INCORRECT),
    ("sub.example.cn", "10.0.0.8", (), m.LoginResult.IP_INCORRECT),          # a name we would resolve for it
])
def test_the_sub_link_goes_back_only_to_an_address_of_the_platform(down_link_ip: str, host: str,
                                                                   allowed: tuple[str, ...],
                                                                   result: m.LoginResult) -> None:
    """JT/T 809 §5.2.1: we connect the sub link to the login's DOWN_LINK_IP; a platform may not point it at a
    host of our network (exchange/superior/addresses.py)."""
    svc = service()
    row = replace(ROW, allowed_hosts=allowed)
    request = m.LoginRequest(1001, "s3cret", down_link_ip, 7000, 7001)
    assert svc.check_login(account_of(row), request, 7001, host, "2019") == result
