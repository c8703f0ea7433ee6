import pytest

from fleet.phones import canonical_phone, header_phone


@pytest.mark.parametrize("text, expected", [
    ("013912345602", "13912345602"),            # 2011/2013 12-digit BCD header
    ("00000000013912345602", "13912345602"),    # 2019 20-digit header
    ("13912345602", "13912345602"),             # 11-digit SIM
    (" 013912345602 ", "13912345602"),
    ("000000000000", "0"),
    ("0", "0"),
    ("100", "100"),                              # only leading zeros go
])
def test_canonical_phone_strips_leading_zeros(text, expected):
    assert canonical_phone(text) == expected


@pytest.mark.parametrize("text", ["", "   ", "0139-1234", "139a", "+8613912345602", "１３９"])
def test_canonical_phone_rejects_non_digits(text):
    with pytest.raises(ValueError):
        canonical_phone(text)


def test_the_three_forms_of_one_terminal_are_equal():
    assert len({canonical_phone(p) for p in ("013912345602", "00000000013912345602", "13912345602")}) == 1


@pytest.mark.parametrize("phone, version, expected", [
    ("13912345602", "2013", "013912345602"),
    ("13912345602", "2019", "00000000013912345602"),
    ("013912345602", "2011", "013912345602"),
])
def test_header_phone_pads_to_the_version_width(phone, version, expected):
    assert header_phone(phone, version) == expected
