"""Field rules of the vehicle area: the national ID (GB 11643 weighted check digit), channel lists,
calendar dates, and the photo signatures."""

from __future__ import annotations

import pytest

from api.query import validators
from api.query.fleet_entities import channel_list, device_id_list
from api.routes.fleet import image_type


@pytest.mark.parametrize("national_id", ["11010519491231002X", "440524188001010014"])
def test_accepts_published_valid_national_ids(national_id: str) -> None:
    assert validators.national_id(national_id) is None


@pytest.mark.parametrize("national_id", [
    "110105194912310021",  # check digit should be X
    "440524188001010015",  # check digit should be 4
    "11010519491231002x",  # lower-case x
    "11010519490231002X",  # 31 February... 1949-02-31 does not exist
    "010105194912310021",  # region cannot start with 0
    "110105174912310021",  # born in the 1700s
    "1101051949123100",  # 16 characters
    "11010519491231002X0",  # 19 characters
])
def test_refuses_invalid_national_ids_with_the_spec_message(national_id: str) -> None:
    assert validators.national_id(national_id) == "身份证号码不合法"


def test_check_char_follows_the_weights() -> None:
    # sum of weights x digits of 11010519491231002 = 167; 167 % 11 = 2 -> "X"
    assert validators.national_id_check_char("11010519491231002") == "X"


@pytest.mark.parametrize(("value", "ok"), [
    ("", True), ("1", True), ("1,2,3,4", True), ("13,33,36,37", True),
    ("0", False), ("14", False), ("34", False), ("1,1", False), ("1, 2", False), ("1,", False), (5, False),
])
def test_channel_lists(value: object, ok: bool) -> None:
    assert (channel_list(value) is None) == ok


def test_device_id_lists() -> None:
    assert device_id_list([1, 2]) is None
    assert device_id_list([]) is None
    for bad in ([True], ["1"], [0], list(range(1, 18)), "1,2", 3):
        assert device_id_list(bad) is not None, bad


def test_calendar_dates() -> None:
    assert validators.calendar_date("2028-02-29") is None
    for bad in ("2027-02-29", "2027-2-1", "20270201", 20270201):
        assert validators.calendar_date(bad) is not None, bad


def test_photo_signatures() -> None:
    assert image_type(b"\xff\xd8\xff\xe0rest") == "image/jpeg"
    assert image_type(b"\x89PNG\r\n\x1a\nrest") == "image/png"
    assert image_type(b"RIFF\x00\x00\x00\x00WEBPVP8 ") == "image/webp"
    assert image_type(b"GIF89a") is None and image_type(b"<svg") is None
