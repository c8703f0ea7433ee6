"""0x0702 driver identity report (驾驶员身份信息采集上报): the IC card of the driver's qualification
certificate inserted (sign-in) or pulled out (sign-out).

2013/2019: status BYTE (1 inserted: sign-in, 2 pulled out: sign-out), time BCD[6] (GMT+8); with status 1
also the read result BYTE (0 read, 1 key authentication failed, 2 card locked, 3 card pulled out, 4 data
check error); with result 0 also name length BYTE, name STRING, qualification certificate number
STRING[20], issuing authority length BYTE, authority STRING, validity BCD[4] YYYYMMDD, and from 2019 the
driver's ID card number STRING[20]. Fixed-width text is NUL-padded on either side (terminals differ).
Bytes after the standard fields (a vendor's face-match value, a card UID) are ignored.
2011: name length BYTE, name, ID card STRING[20], qualification STRING[40], authority length BYTE and
authority, no status or time (a sign-in at the time of receipt).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import ClassVar

from protocols.jt808.errors import BodyError
from protocols.jt808.fields import (
    bcd_time_to_utc,
    check_version,
    decode_fixed_text,
    decode_text,
    encode_fixed_text,
    encode_text,
    utc_to_bcd_time,
)
from protocols.jt808.registry import register_body

SIGN_IN, SIGN_OUT = 1, 2
READ_OK = 0
QUALIFICATION_BYTES, ID_CARD_BYTES, QUALIFICATION_BYTES_2011 = 20, 20, 40


class _Reader:
    def __init__(self, body: bytes) -> None:
        self.body, self.at = body, 0

    def take(self, n: int, what: str) -> bytes:
        if self.at + n > len(self.body):
            raise BodyError(f"0x0702 ends in {what} (needs {self.at + n} bytes, has {len(self.body)})")
        part = self.body[self.at:self.at + n]
        self.at += n
        return part

    def counted_text(self, what: str) -> str:
        return decode_text(self.take(self.take(1, f"{what} length")[0], what))


def _validity(raw: bytes) -> str:
    digits = raw.hex()
    try:
        return date.fromisoformat(f"{digits[:4]}-{digits[4:6]}-{digits[6:8]}").isoformat()
    except ValueError:
        raise BodyError(f"0x0702 validity is not a BCD date: {raw.hex()}") from None


@register_body
@dataclass(frozen=True)
class DriverIdentity:
    """``time`` is None only for 2011 bodies; the card fields are None unless the card was read."""

    MSG_ID: ClassVar[int] = 0x0702
    status: int
    time: datetime | None
    read_result: int | None = None
    driver_name: str | None = None
    qualification_no: str | None = None
    issuing_authority: str | None = None
    valid_until: str | None = None  # ISO date
    id_card: str | None = None

    @classmethod
    def decode(cls, body: bytes, version: str) -> DriverIdentity:
        """Raises BodyError for a short body, an invalid time or validity."""
        r = _Reader(body)
        if version == "2011":
            name = r.counted_text("driver name")
            id_card = decode_fixed_text(r.take(ID_CARD_BYTES, "ID card number"))
            qualification = decode_fixed_text(r.take(QUALIFICATION_BYTES_2011, "qualification number"))
            return cls(SIGN_IN, None, READ_OK, name, qualification, r.counted_text("issuing authority"), None,
                       id_card)
        status = r.take(1, "status")[0]
        moment = bcd_time_to_utc(r.take(6, "time"))
        if status != SIGN_IN:
            return cls(status, moment)
        result = r.take(1, "read result")[0]
        if result != READ_OK:
            return cls(status, moment, result)
        name = r.counted_text("driver name")
        qualification = decode_fixed_text(r.take(QUALIFICATION_BYTES, "qualification number"))
        authority = r.counted_text("issuing authority")
        valid = _validity(r.take(4, "validity"))
        card = decode_fixed_text(r.take(ID_CARD_BYTES, "ID card number")) if version == "2019" else None
        return cls(status, moment, result, name, qualification, authority, valid, card)

    def encode(self, version: str) -> bytes:
        version = check_version(version)
        if version == "2011":
            name, authority = encode_text(self.driver_name or ""), encode_text(self.issuing_authority or "")
            return (bytes((len(name),)) + name + encode_fixed_text(self.id_card or "", ID_CARD_BYTES)
                    + encode_fixed_text(self.qualification_no or "", QUALIFICATION_BYTES_2011)
                    + bytes((len(authority),)) + authority)
        if self.time is None:
            raise ValueError("a 2013/2019 0x0702 needs its time")
        out = bytes((self.status,)) + utc_to_bcd_time(self.time)
        if self.status != SIGN_IN:
            return out
        out += bytes((self.read_result or 0,))
        if self.read_result:
            return out
        name, authority = encode_text(self.driver_name or ""), encode_text(self.issuing_authority or "")
        out += (bytes((len(name),)) + name + encode_fixed_text(self.qualification_no or "", QUALIFICATION_BYTES)
                + bytes((len(authority),)) + authority + bytes.fromhex((self.valid_until or "").replace("-", "")))
        if version == "2019":
            out += encode_fixed_text(self.id_card or "", ID_CARD_BYTES)
        return out
