"""Time-limited authorisation codes (时效口令, JT/T 1078-2016 §6.2, §8.1), pure.

This platform (the enterprise video platform) generates two codes a day and reports them to each superior on
its main link by 0x1701 UP_AUTHORIZE_MSG_STARTUP: AUTHORIZE_CODE_1 for the home region's government platform,
AUTHORIZE_CODE_2 for a cross-region one (which obtains it from its own superior). A superior presents one in
its 0x9801 / 0x9A01 and again in the URL it pulls the stream with; the link service registers the stream with
the code presented, and the media server admits that pull only (gateway/video/superior.py).

A code is 64 letters and digits (the standard's form): the HMAC-SHA256, in hex, of the platform's id, the
code's number and the day in China time (UTC+8) under the media secret (``FLEET_MEDIA_SERVER_SECRET`` or
``var/media-secret``). So it changes every 24 h at midnight China time, survives a restart of the link service
without being stored, and differs per superior platform. The previous day's codes are still accepted (a
request in flight across midnight, a superior that has not yet read the new report).
"""

from __future__ import annotations

import hashlib
import hmac
from datetime import date, datetime, timedelta, timezone

from protocols.jt809 import messages as m

CHINA = timezone(timedelta(hours=8))
PLATFORM_ID_BYTES = 11


def day_of(now: datetime) -> date:
    """The day a code belongs to: the China (UTC+8) date of ``now`` (timezone-aware)."""
    return now.astimezone(CHINA).date()


def codes(secret: bytes, platform_id: int, day: date) -> tuple[str, str]:
    """(AUTHORIZE_CODE_1 home region, AUTHORIZE_CODE_2 cross-region) of ``day``."""
    def one(n: int) -> str:
        return hmac.new(secret, f"jt1078-authorize:{platform_id}:{n}:{day.isoformat()}".encode(),
                        hashlib.sha256).hexdigest()
    return one(1), one(2)


def accepted(secret: bytes, platform_id: int, code: str, now: datetime) -> bool:
    """Whether ``code`` is one of the platform's codes of today or yesterday (compared in constant time)."""
    today = day_of(now)
    valid = [*codes(secret, platform_id, today), *codes(secret, platform_id, today - timedelta(days=1))]
    return any(hmac.compare_digest(code.encode(), v.encode()) for v in valid)


def report(secret: bytes, platform_id: int, centre_id: int, day: date) -> m.Authorize:
    """0x1700 / 0x1701 with the day's codes; PLATFORM_ID is this platform's centre id as the superior knows it
    (BYTE[11]); the family's vehicle fields are empty (the report is about the platform)."""
    home, cross = codes(secret, platform_id, day)
    data = m.AuthorizeReport(str(centre_id)[:PLATFORM_ID_BYTES], home, cross)
    return m.Authorize("", 0, m.AuthorizeReport.DATA_TYPE, data)
