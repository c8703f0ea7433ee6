"""Vehicle identification numbers (GB 16735-2019, after ISO 3779): 17 characters of digits and capital
letters without I, O and Q, the 9th a check digit over the other 16 (transliterated letters, position
weights 8 7 6 5 4 3 2 10 0 9 8 7 6 5 4 3 2, remainder mod 11, 10 written ``X``)."""

from __future__ import annotations

VIN_LENGTH = 17
_LETTERS = dict(zip("ABCDEFGHJKLMNPRSTUVWXYZ", (1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 7, 9, 2, 3, 4, 5, 6, 7, 8, 9),
                    strict=True))
_WEIGHTS = (8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2)


def _value(char: str) -> int:
    if char.isdigit():
        return int(char)
    if char in _LETTERS:
        return _LETTERS[char]
    raise ValueError(f"{char!r} cannot be part of a VIN (digits and capitals without I, O, Q)")


def check_digit(vin: str) -> str:
    """The check digit (``0``-``9`` or ``X``) of a 17-character VIN (its own 9th character is ignored).
    Raises ValueError for a wrong length or a character a VIN cannot hold."""
    if len(vin) != VIN_LENGTH:
        raise ValueError(f"a VIN has {VIN_LENGTH} characters, not {len(vin)}")
    total = sum(_value(c) * w for c, w in zip(vin, _WEIGHTS, strict=True) if w)
    if vin[8] != "X":
        _value(vin[8])  # the check position must still hold a VIN character
    remainder = total % 11
    return "X" if remainder == 10 else str(remainder)


def with_check_digit(vin: str) -> str:
    """``vin`` with its 9th character replaced by the check digit."""
    return vin[:8] + check_digit(vin) + vin[9:]


def is_valid_vin(vin: str) -> bool:
    try:
        return vin[8] == check_digit(vin)
    except (ValueError, IndexError):
        return False
