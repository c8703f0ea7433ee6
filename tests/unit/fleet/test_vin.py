"""The GB 16735 (ISO 3779) VIN check digit."""

from __future__ import annotations

from fleet.demo_fleet import GB_DEMO_VEHICLES
from fleet.vin import check_digit, is_valid_vin, with_check_digit


def test_check_digits_of_published_examples() -> None:
    assert is_valid_vin("1M8GDM9AXKP042788")  # the check digit X (remainder 10)
    assert check_digit("11111111111111111") == "1"
    assert with_check_digit("1M8GDM9A0KP042788") == "1M8GDM9AXKP042788"


def test_rejects_a_wrong_digit_a_wrong_length_and_letters_a_vin_cannot_hold() -> None:
    assert not is_valid_vin("1M8GDM9A1KP042788")
    assert not is_valid_vin("1M8GDM9AXKP04278")
    assert not is_valid_vin("IM8GDM9AXKP042788") and not is_valid_vin("1M8GDM9AXKP0427O8")


def test_the_gb_demo_vehicles_vins_pass_and_differ() -> None:
    assert all(is_valid_vin(v.vin) for v in GB_DEMO_VEHICLES)
    assert len({v.vin for v in GB_DEMO_VEHICLES}) == len(GB_DEMO_VEHICLES)
