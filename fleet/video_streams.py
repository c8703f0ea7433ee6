"""A terminal's JT/T 1078 stream as both its askers build it: the console's API (api/routes/video.py) and a
superior platform's requests over JT/T 809 (exchange/link/video_requests.py). Pure.

- ``stream_id``: ``<deviceId>-<channel>-<live|listen|talk|playback>``, one per device, channel and kind, so a
  console user and a superior watching the same channel share one terminal connection.
- ``registration``: the body of ``POST /internal/streams`` (fleet/media_client.py): the stream, its owner and
  the source address of the terminal's authenticated JT/T 808 session (the media server's ``address``
  policy). A superior's stream also carries the plate, its colour and the authorisation code the superior
  presented (``superior``): the media server then admits a pull of JT/T 1078-2016 §6.2's URL with that code.
- ``realtime_body`` / ``close_body`` / ``playback_body`` / ``playback_control_body``: the 0x9101 / 0x9102 /
  0x9201 / 0x9202 bodies sent to the terminal through the command path.
- ``pull_path`` / ``parse_pull_path``: JT/T 1078-2016 §6.2's stream request URL path,
  ``/<plate>.<plate colour>.<logical channel>.<audio/video flag>.<authorisation code>``, the plate UTF-8 and
  form-URL-encoded (RFC 2854's application/x-www-form-urlencoded), an optional sixth item (the location
  identification ``YYYYMMDD-HHMMSS-NXX.XXXXXX-EXXX.XXXXXX``, China time, of a cross-region request).
  ``parse_pull_path`` raises ValueError for anything else.
- ``refusal``: why the media server refuses a pull of a registered stream (None: admitted). JT/T 1078-2016
  §6.2 table 35: the audio/video flag must be the one the request asked (0x9801 / 0x9A01 AV_ITEM_TYPE); the
  location identification is "the vehicle's satellite time, latitude and longitude at any time within 5
  minutes", verified for a cross-region platform, empty for the home region's. So a request that carried
  GNSS_DATA (a cross-region one, §8's tables: only a cross-region request fills it) admits only a pull naming
  that position (time to the second, latitude and longitude to the URL's 1e-6 degree); any location named must
  be at most 5 minutes old at the pull.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any
from urllib.parse import quote_plus

from fleet.phones import canonical_phone
from protocols.china_time import CHINA_TZ
from protocols.jt808.messages.t9101_realtime_av_request import RealtimeAvRequest
from protocols.jt808.messages.t9102_av_transmission_control import AvTransmissionControl
from protocols.jt808.messages.t9201_playback_request import PlaybackRequest
from protocols.jt808.messages.t9202_playback_control import PlaybackControl
from protocols.jt809.messages import Gnss2011

AUTHORIZE_CODE = re.compile(r"^[A-Za-z0-9]{1,64}$")  # JT/T 1078-2016 §6.2: letters and digits, 64 characters
_PULL = re.compile(r"^/([^/]{1,21}?)\.(\d{1,3})\.(\d{1,3})\.([0-2])\.([A-Za-z0-9]{1,64})"
                   r"(?:\.(\d{8}-\d{6}-[NS]\d{1,2}\.\d{1,6}-[EW]\d{1,3}\.\d{1,6}))?$")
_LOCATION = re.compile(r"^(\d{8}-\d{6})-([NS])(\d{1,2}\.\d{1,6})-([EW])(\d{1,3}\.\d{1,6})$")
LOCATION_WINDOW = timedelta(minutes=5)  # JT/T 1078-2016 §6.2 table 35: a position "within 5 minutes"
SOUTH, WEST = 1 << 2, 1 << 3  # JT/T 808 status bits of a 2011 GNSS record: south latitude, west longitude


def stream_id(device_id: int, channel: int, kind: str) -> str:
    return f"{device_id}-{channel}-{kind}"


@dataclass(frozen=True)
class PullLocation:
    """A location identification: the fix time (aware) and signed millionths of a degree."""

    at: datetime
    lat_e6: int
    lng_e6: int

    def text(self) -> str:
        local = self.at.astimezone(CHINA_TZ)
        lat, lng = abs(self.lat_e6), abs(self.lng_e6)
        return (f"{local:%Y%m%d-%H%M%S}-{'S' if self.lat_e6 < 0 else 'N'}{lat // 10**6}.{lat % 10**6:06d}"
                f"-{'W' if self.lng_e6 < 0 else 'E'}{lng // 10**6}.{lng % 10**6:06d}")

    def as_json(self) -> dict[str, Any]:
        return {"at": self.at.isoformat(), "latE6": self.lat_e6, "lngE6": self.lng_e6}

    @classmethod
    def of_json(cls, value: dict[str, Any]) -> PullLocation:
        at = datetime.fromisoformat(str(value["at"]))
        if at.tzinfo is None:
            raise ValueError("location time must carry its offset")
        return cls(at, int(value["latE6"]), int(value["lngE6"]))


def parse_location(text: str) -> PullLocation:
    match = _LOCATION.match(text)
    if not match:
        raise ValueError("not a location identification YYYYMMDD-HHMMSS-NXX.XXXXXX-EXXX.XXXXXX")
    at = datetime.strptime(match.group(1), "%Y%m%d-%H%M%S").replace(tzinfo=CHINA_TZ)
    lat = int(Decimal(match.group(3)) * 10**6) * (-1 if match.group(2) == "S" else 1)
    lng = int(Decimal(match.group(5)) * 10**6) * (-1 if match.group(4) == "W" else 1)
    if abs(lat) > 90 * 10**6 or abs(lng) > 180 * 10**6:
        raise ValueError("location identification out of range")
    return PullLocation(at, lat, lng)


def location_of_gnss(gnss_hex: str) -> PullLocation:
    """The location a 0x9801 / 0x9A01's GNSS_DATA (a 2011 position record, 36 bytes) names. Raises ValueError
    for a record that does not decode."""
    gnss = Gnss2011.decode(bytes.fromhex(gnss_hex))
    return PullLocation(gnss.fix_at, -gnss.lat_e6 if gnss.state & SOUTH else gnss.lat_e6,
                        -gnss.lng_e6 if gnss.state & WEST else gnss.lng_e6)


@dataclass(frozen=True)
class SuperiorPull:
    """What a superior platform's pull URL names (JT/T 1078-2016 §6.2), or what its request registered."""

    plate: str
    plate_colour: int
    channel: int
    av_flag: int  # 0 audio and video, 1 audio, 2 video (a 0x9A01 registration: 3 video or audio and video)
    code: str
    location: PullLocation | None = None  # a cross-region request's position (URL item 6, 0x9801 GNSS_DATA)


def refusal(granted: SuperiorPull, pull: SuperiorPull, now: datetime) -> str | None:
    """Why a pull of the stream registered as ``granted`` is refused, besides its code (None: admitted)."""
    allowed = (0, 2) if granted.av_flag == 3 else (granted.av_flag,)  # 0x9A01's 3: video, or audio and video
    if pull.av_flag not in allowed:
        return f"audio/video flag {pull.av_flag}, the request asked {granted.av_flag}"
    if granted.location is not None and pull.location is None:
        return "location identification required (a cross-region request)"
    if granted.location is not None and pull.location != granted.location:
        return "location identification does not match the request's GNSS_DATA"
    if pull.location is not None and abs(now - pull.location.at) > LOCATION_WINDOW:
        return "location identification more than 5 minutes from now"
    return None


def registration(target: dict[str, Any], sid: str, kind: str, channel: int, data_type: int, stream_type: int,
                 source_address: str | None, user_id: int | None,
                 superior: SuperiorPull | None = None) -> dict[str, Any]:
    """``target``: the device row (deviceId, carId, enterpriseId, plateNumber, phone, protocolVersion)."""
    phone = canonical_phone(target["phone"])
    body: dict[str, Any] = {
        "streamId": sid, "kind": kind, "sim": phone, "channel": channel, "dataType": data_type,
        "streamType": stream_type, "enterpriseId": target["enterpriseId"], "deviceId": target["deviceId"],
        "carId": target["carId"], "plateNumber": target["plateNumber"], "phone": phone,
        "protocolVersion": target["protocolVersion"] or "2013", "sourceAddress": source_address,
        "userId": user_id or None}
    if superior is not None:
        body["superior"] = {"plate": superior.plate, "plateColour": superior.plate_colour,
                            "channel": superior.channel, "avFlag": superior.av_flag, "code": superior.code}
        if superior.location is not None:
            body["superior"]["location"] = superior.location.as_json()
    return body


def realtime_body(server_ip: str, tcp_port: int, channel: int, data_type: int, stream_type: int) -> RealtimeAvRequest:
    """0x9101 (data type 0 audio+video, 1 video, 2 talk, 3 listen; stream type 0 main, 1 sub)."""
    return RealtimeAvRequest(server_ip, tcp_port, 0, channel, data_type, stream_type)


def close_body(channel: int, command: int = 0, close_type: int = 0, stream_type: int = 0) -> AvTransmissionControl:
    """0x9102 (command 0 close, 1 switch stream, 2 pause, 3 resume, 4 close talk)."""
    return AvTransmissionControl(channel, command, close_type, stream_type)


def playback_body(server_ip: str, tcp_port: int, channel: int, media_type: int, stream_type: int, storage: int,
                  mode: int, speed: int, start: datetime | None, end: datetime | None) -> PlaybackRequest:
    """0x9201 (media type 0 audio+video, 1 audio, 2 video, 3 either; stream 0 any, 1 main, 2 sub; storage 0
    any, 1 main, 2 disaster recovery)."""
    return PlaybackRequest(server_ip, tcp_port, 0, channel, media_type, stream_type, storage, mode, speed, start, end)


def playback_control_body(channel: int, control: int, speed: int, seek_to: datetime | None) -> PlaybackControl:
    """0x9202 (control 0 play, 1 pause, 2 end, 3 fast forward, 4 key frames back, 5 seek, 6 key frames
    forward); ``seek_to`` only for a seek."""
    return PlaybackControl(channel, control, speed, seek_to if control == 5 else None)


def pull_path(pull: SuperiorPull) -> str:
    located = "" if pull.location is None else f".{pull.location.text()}"
    return (f"/{quote_plus(pull.plate).replace('.', '%2E')}.{pull.plate_colour}.{pull.channel}.{pull.av_flag}"
            f".{pull.code}{located}")


def parse_pull_path(path: str) -> SuperiorPull:
    """``path`` as the HTTP server decoded it (percent-escapes resolved; a ``+`` is a space, as the form
    encoding has it)."""
    match = _PULL.match(path.replace("+", " "))
    if not match:
        raise ValueError("not a JT/T 1078 §6.2 stream request path")
    return SuperiorPull(match.group(1), int(match.group(2)), int(match.group(3)), int(match.group(4)),
                        match.group(5), None if match.group(6) is None else parse_location(match.group(6)))
