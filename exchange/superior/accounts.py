"""The inferior platforms a superior platform accepts: one account per platform (JT/T 809 §5.2.1 login).

An account names what a 0x1001 must carry (USERID, PASSWORD, and MSG_GNSSCENTERID, the inferior's
access code), the header layout of the link (2011 or 2019, which the frames do not say) and, when the
two platforms agreed on the simple encryption, M1 / IA1 / IC1 and the key of the frames we send.
"""

from __future__ import annotations

from dataclasses import dataclass

from protocols.jt809 import CipherKeys
from protocols.jt809.header import check_version


@dataclass(frozen=True)
class Account:
    """``keys`` decrypt the inferior's encrypted bodies and, when set, encrypt ours with ``key``.
    ``allowed_hosts`` (empty: any) are the source addresses its main link may come from."""

    user_id: int
    password: str
    centre_id: int
    version: str = "2011"
    keys: CipherKeys | None = None
    key: int = 0
    allowed_hosts: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        check_version(self.version)
        if not 0 <= self.user_id <= 0xFFFFFFFF or not 0 <= self.centre_id <= 0xFFFFFFFF:
            raise ValueError("user id and centre id are unsigned 32-bit integers")
        if len(self.password.encode("gbk")) > 8:
            raise ValueError("a JT/T 809 password is at most 8 bytes")


def parse_account(text: str, keys: CipherKeys | None = None, key: int = 0) -> Account:
    """``USER:PASSWORD:CENTRE[:VERSION]`` -> Account. Raises ValueError naming what is wrong."""
    parts = text.split(":")
    if len(parts) not in (3, 4):
        raise ValueError(f"account {text!r}: expected USER:PASSWORD:CENTRE[:VERSION]")
    try:
        user_id, centre_id = int(parts[0]), int(parts[2])
    except ValueError:
        raise ValueError(f"account {text!r}: USER and CENTRE are integers") from None
    version = parts[3] if len(parts) == 4 else "2011"
    return Account(user_id, parts[1], centre_id, version, keys, key)


def parse_keys(text: str) -> CipherKeys:
    """``M1:IA1:IC1`` -> CipherKeys. Raises ValueError."""
    parts = text.split(":")
    if len(parts) != 3:
        raise ValueError(f"keys {text!r}: expected M1:IA1:IC1")
    try:
        m1, ia1, ic1 = (int(p, 0) for p in parts)
    except ValueError:
        raise ValueError(f"keys {text!r}: M1, IA1 and IC1 are integers") from None
    return CipherKeys(m1, ia1, ic1)
