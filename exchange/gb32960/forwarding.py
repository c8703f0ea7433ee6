"""Which frames of ``gb32960.uplink.v1`` go to a GB/T 32960 superior platform, and the frames sent (pure).

GB/T 32960.3-2016 §7.2 / §7.5: a platform relays its vehicles' real-time data (0x02) as its terminals sent it,
each frame carrying the vehicle's VIN; data that could not be sent when it arrived (a link outage) goes as
back-filled data (0x03), oldest first. A terminal of the superior's edition has its data unit relayed byte for
byte (collection time and blocks as the terminal encoded them); only the frame around it is ours, in the superior's
framing (``##`` 2016 or ``$$`` 2025). The two editions' blocks differ (2025 changed the vehicle, motor, position,
alarm and cell layouts), so a terminal of the other edition has its data unit decoded and written again in the
superior's edition (protocols/gb32960/editions.py: what the two share, with its values; what the superior's edition
has no place for left out). A data unit the terminal encrypted cannot be read, so it goes only to a superior of its
own edition; to the other it is counted as skipped, as is one that does not decode.
A superior whose login's encryption rule is AES-128 gets every clear data unit encrypted with the key agreed with
it (protocols/gb32960/cipher.py); a data unit its terminal already encrypted goes as the terminal sent it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from fleet.gb32960_records import GbUplink
from protocols.gb32960 import Encryption, GB32960Error, Protocol, decode_frame, encode_frame
from protocols.gb32960.cipher import AesKey, encrypt_frame
from protocols.gb32960.editions import Transcoded, transcode
from protocols.gb32960.framing import HEADER_BYTES
from protocols.gb32960.messages import Heartbeat, PlatformLogin, PlatformLogout, RealtimeReport

REALTIME = 0x02
BACKFILL = 0x03
PLATFORM_LOGIN = 0x05
PLATFORM_LOGOUT = 0x06
HEARTBEAT = 0x07
DATA_COMMANDS = (REALTIME, BACKFILL)
# the platform login's header carries no vehicle: its VIN field is left empty (NUL-padded)
PLATFORM_VIN = ""
CHINA = timezone(timedelta(hours=8))
LAST_SERIAL = 65531  # login serials run 1 ... 65531 and restart each day (GB/T 32960.3-2016 table 11, 17)


def framing(version: str) -> Protocol:
    """The Protocol of a superior's configured version: '2016' (``##``) or '2025' (``$$``)."""
    if version == "2016":
        return Protocol.GB32960_2016
    if version == "2025":
        return Protocol.GB32960_2025
    raise ValueError(f"GB/T 32960 version must be 2016 or 2025, not {version!r}")


@dataclass(frozen=True)
class Outgoing:
    car_id: int
    vin: str
    command: int  # 0x02 or 0x03
    frame: bytes
    left_out: tuple[str, ...] = ()  # written in the other edition: what it had no place for


def relay(uplink: GbUplink, car_ids: frozenset[int], version: str, backfill: bool,
          key: AesKey | None = None) -> Outgoing | str | None:
    """The frame to send for one uplink: an Outgoing, None when the uplink is not data of an exchanged vehicle,
    or the reason (a str) it is data of an exchanged vehicle that this superior cannot take. ``key``: the link's
    AES key, when its encryption rule is AES-128."""
    if uplink.command not in DATA_COMMANDS or uplink.car_id is None or uplink.car_id not in car_ids:
        return None
    if uplink.protocol != "gb32960":
        return f"protocol {uplink.protocol} is not GB/T 32960"
    protocol = framing(version)
    raw = bytes.fromhex(uplink.raw_hex)
    left_out: tuple[str, ...] = ()
    if uplink.frame_protocol == protocol.value:
        data: bytes | RealtimeReport = raw[HEADER_BYTES:-1]
    else:
        written = _in_edition(raw, protocol)
        if isinstance(written, str):
            return f"a {uplink.frame_protocol} frame for a GB/T 32960-{version} superior: {written}"
        data, left_out = written.report, written.left_out
    command = BACKFILL if backfill or uplink.command == BACKFILL else REALTIME
    try:
        frame = encode_frame(command, data, vin=uplink.vin, protocol=protocol, encryption=raw[21])
    except ValueError as exc:  # a rewritten report the superior's layout cannot carry: that frame, not the link
        return f"a {uplink.frame_protocol} frame for a GB/T 32960-{version} superior: {exc}"
    if key is not None and raw[21] == Encryption.NONE:
        frame = encrypt_frame(frame, key)
    return Outgoing(uplink.car_id, uplink.vin, command, frame, left_out)


def _in_edition(raw: bytes, target: Protocol) -> Transcoded | str:
    """A terminal's frame of one edition as the other's report, or why it cannot be."""
    if raw[21] != Encryption.NONE:
        return f"its data unit is encrypted (0x{raw[21]:02X}) and cannot be written in another edition"
    try:
        message = decode_frame(raw)
    except GB32960Error as exc:
        return f"it does not decode ({exc})"
    if not isinstance(message.body, RealtimeReport):
        return f"its data unit is {type(message.body).__name__}, not real-time data"
    try:
        return transcode(message.body, message.header.protocol, target)
    except ValueError as exc:
        return f"it cannot be written in another edition ({exc})"


def is_late(uplink: GbUplink, now: datetime, backfill_after_s: float) -> bool:
    """True when the gateway received the frame longer than ``backfill_after_s`` ago: it was not relayed in real
    time (the link was down), so it goes as back-filled data."""
    received = datetime.fromisoformat(uplink.received_at.replace("Z", "+00:00"))
    return (now - received).total_seconds() > backfill_after_s


def login_frame(version: str, at: datetime, serial: int, username: str, password: str, encryption: int) -> bytes:
    """Platform login 0x05 (GB/T 32960.3-2016 §7.5.1 table 17): time, serial, username, password, encryption rule."""
    body = PlatformLogin(at, serial, username, password, encryption)
    return encode_frame(PLATFORM_LOGIN, body, vin=PLATFORM_VIN, protocol=framing(version))


def logout_frame(version: str, at: datetime, serial: int) -> bytes:
    """Platform logout 0x06: time and the serial of the login it ends."""
    return encode_frame(PLATFORM_LOGOUT, PlatformLogout(at, serial), vin=PLATFORM_VIN, protocol=framing(version))


def heartbeat_frame(version: str) -> bytes:
    return encode_frame(HEARTBEAT, Heartbeat(), vin=PLATFORM_VIN, protocol=framing(version))


class LoginSerial:
    """The platform login serial: 1 on the first login of a China (GMT+8) day, then one more per login, up to
    65531 (table 17)."""

    def __init__(self) -> None:
        self.day: str | None = None
        self.value = 0

    def next(self, at: datetime) -> int:
        day = at.astimezone(CHINA).strftime("%Y%m%d")
        if day != self.day or self.value >= LAST_SERIAL:
            self.day, self.value = day, 0
        self.value += 1
        return self.value


__all__ = ["Outgoing", "relay", "is_late", "login_frame", "logout_frame", "heartbeat_frame", "framing",
           "LoginSerial"]
