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
  identification ``YYYYMMDD-HHMMSS-NXX.XXXXXX-EXXX.XXXXXX`` of a cross-region request) accepted and not
  checked. ``parse_pull_path`` raises ValueError for anything else.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import quote_plus

from fleet.phones import canonical_phone
from protocols.jt808.messages.t9101_realtime_av_request import RealtimeAvRequest
from protocols.jt808.messages.t9102_av_transmission_control import AvTransmissionControl
from protocols.jt808.messages.t9201_playback_request import PlaybackRequest
from protocols.jt808.messages.t9202_playback_control import PlaybackControl

AUTHORIZE_CODE = re.compile(r"^[A-Za-z0-9]{1,64}$")  # JT/T 1078-2016 §6.2: letters and digits, 64 characters
_PULL = re.compile(r"^/([^/]{1,21}?)\.(\d{1,3})\.(\d{1,3})\.([0-2])\.([A-Za-z0-9]{1,64})"
                   r"(?:\.\d{8}-\d{6}-[NS]\d{1,2}\.\d{1,6}-[EW]\d{1,3}\.\d{1,6})?$")


def stream_id(device_id: int, channel: int, kind: str) -> str:
    return f"{device_id}-{channel}-{kind}"


@dataclass(frozen=True)
class SuperiorPull:
    """What a superior platform's pull URL names (JT/T 1078-2016 §6.2)."""

    plate: str
    plate_colour: int
    channel: int
    av_flag: int  # 0 audio and video, 1 audio, 2 video
    code: str


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
                            "channel": superior.channel, "code": superior.code}
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
    return f"/{quote_plus(pull.plate).replace('.', '%2E')}.{pull.plate_colour}.{pull.channel}.{pull.av_flag}.{pull.code}"


def parse_pull_path(path: str) -> SuperiorPull:
    """``path`` as the HTTP server decoded it (percent-escapes resolved; a ``+`` is a space, as the form
    encoding has it)."""
    match = _PULL.match(path.replace("+", " "))
    if not match:
        raise ValueError("not a JT/T 1078 §6.2 stream request path")
    return SuperiorPull(match.group(1), int(match.group(2)), int(match.group(3)), int(match.group(4)),
                        match.group(5))
