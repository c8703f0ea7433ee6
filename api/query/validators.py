"""Field rules of console-spec §5 for ``FieldSpec.check``: each takes a present value and answers
None when it is acceptable, else the spec's exact message (records.check_value adds the field).
The console has the same rules in ``dashboards/src/utils/validators.ts``."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

USERNAME_INVALID = "用户名不合法（字母开头，允许4-16个字符串，允许字母数字下划线）"
PASSWORD_INVALID = "密码不合法（长度6~16位，数字、字母、符号至少包含其中两种）"
NAME_INVALID = "请输入汉字、数字、字母、空格、横杠或者下划线"
PHONE_INVALID = "电话号码格式不正确"
EMAIL_INVALID = "邮箱格式不正确"

_USERNAME = re.compile(r"[A-Za-z][A-Za-z0-9_]{3,15}")
_NAME = re.compile(r"[\u4e00-\u9fa5A-Za-z0-9 _-]+")
_PHONE = re.compile(r"[0-9]{11}|(?:0[0-9]{2,3}-?)?[0-9]{7,8}(?:-[0-9]{1,6})?")
_EMAIL = re.compile(r"[^@\x00-\x20]+@[^@\x00-\x20]+\.[^@\x00-\x20]+")
_SYMBOLS = re.compile(r"[!-/:-@\[-`{-~]")  # printable ASCII that is neither a letter nor a digit


def _matching(pattern: re.Pattern[str], message: str) -> Any:
    def check(value: Any) -> str | None:
        return None if isinstance(value, str) and pattern.fullmatch(value) else message

    return check


username = _matching(_USERNAME, USERNAME_INVALID)
person_name = _matching(_NAME, NAME_INVALID)
phone = _matching(_PHONE, PHONE_INVALID)
email = _matching(_EMAIL, EMAIL_INVALID)


def password_is_valid(password: str) -> bool:
    """6-16 printable ASCII characters (no spaces) with at least two of: digits, letters, symbols."""
    if not 6 <= len(password) <= 16 or not all("!" <= ch <= "~" for ch in password):
        return False
    kinds = (re.search(r"\d", password), re.search(r"[A-Za-z]", password), _SYMBOLS.search(password))
    return sum(1 for kind in kinds if kind) >= 2


def password(value: Any) -> str | None:
    return None if isinstance(value, str) and password_is_valid(value) else PASSWORD_INVALID


NATIONAL_ID_INVALID = "身份证号码不合法"
_NATIONAL_ID = re.compile(r"[1-9][0-9]{5}(18|19|20)[0-9]{2}(0[1-9]|1[0-2])(0[1-9]|[12][0-9]|3[01])[0-9]{3}[0-9X]")
_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_ID_CHECK_CHARS = "10X98765432"


def national_id_check_char(first17: str) -> str:
    """The GB 11643 check character of the first 17 digits of an 18-character national ID."""
    return _ID_CHECK_CHARS[sum(w * int(d) for w, d in zip(_ID_WEIGHTS, first17, strict=True)) % 11]


def national_id_is_valid(value: str) -> bool:
    """18 characters: region, a birth date that exists, sequence, and the weighted check digit
    (an upper-case X for 10; a lower-case x is refused so one person has one stored form)."""
    if not _NATIONAL_ID.fullmatch(value):
        return False
    try:
        date.fromisoformat(f"{value[6:10]}-{value[10:12]}-{value[12:14]}")
    except ValueError:
        return False
    return national_id_check_char(value[:17]) == value[17]


def national_id(value: Any) -> str | None:
    return None if isinstance(value, str) and national_id_is_valid(value) else NATIONAL_ID_INVALID


DATE_INVALID = "日期格式不正确（YYYY-MM-DD）"


def calendar_date(value: Any) -> str | None:
    """A date as YYYY-MM-DD text that exists on the calendar."""
    if not isinstance(value, str) or not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", value):
        return DATE_INVALID
    try:
        date.fromisoformat(value)
    except ValueError:
        return DATE_INVALID
    return None
