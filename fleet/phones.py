"""Terminal identity: one canonical phone per terminal.

A JT/T 808 header carries the terminal phone as BCD: 12 digits in 2011/2013, 20 digits in 2019, both
left-padded with zeros; a SIM card number is usually recorded as 11 digits. All of these name the same
terminal. The canonical form is the digits without leading zeros ("013912345602" and
"00000000013912345602" and "13912345602" are all "13912345602"); an all-zero phone is "0".
`device.phone`, the gateway registry and the keys of downlink records use it.
"""

from __future__ import annotations


def canonical_phone(text: str) -> str:
    """Digits with leading zeros stripped ("0" for all zeros). Surrounding whitespace is ignored;
    anything else that is not an ASCII digit (or an empty phone) raises ValueError."""
    if not isinstance(text, str):
        raise ValueError(f"phone must be text, not {type(text).__name__}")
    digits = text.strip()
    if not digits or not (digits.isascii() and digits.isdigit()):
        raise ValueError(f"phone must be digits only: {text!r}")
    return digits.lstrip("0") or "0"


def header_phone(phone: str, version: str | int | None) -> str:
    """The phone as a terminal of `version` writes it in its header: 20 digits for 2019, 12 otherwise
    (zero-padded on the left; a longer phone is returned unchanged)."""
    width = 20 if str(version) == "2019" else 12
    return canonical_phone(phone).rjust(width, "0")


def phone_search_text(text: object) -> object:
    """A phone a user searches for, in the form the tables keep (canonical) when it is digits; anything
    else (a partial or mistyped search) unchanged, so the filter says no match instead of an error."""
    try:
        return canonical_phone(text)  # type: ignore[arg-type]
    except ValueError:
        return text
