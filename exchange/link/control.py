"""Vehicle control requests of the superior (0x9501-0x9505, JT/T 809-2011 §5.5.1) as terminal commands and the
terminal's outcome as their answers (0x1501-0x1505), pure (exchange.link.service sends the command through the
one command path and answers).

| request | terminal command | answer |
|---|---|---|
| 0x9501 listen-in, MONITOR_TEL | 0x8400 phone callback, flag 1 (listen) | 0x1501 RESULT 0 / 1 |
| 0x9502 photo, LENS_ID, SIZE_TYPE | 0x8801 one photo on channel LENS_ID at resolution SIZE_TYPE | 0x1502 PHOTO_RSP_FLAG |
| 0x9503 text, MSG_SEQUENCE, priority | 0x8300 shown and read out (priority 0: also the emergency flag) | 0x1503 MSG_SEQUENCE, RESULT |
| 0x9504 travel recorder, command | 0x8700 with the command and, for 0x08-0x15, the period | 0x1504 COMMAND_TYPE, no data |
| 0x9505 emergency access | 0x8105 command 2 (connect to the named server until END_TIME) | 0x1505 RESULT 0 / 1 |

Outcomes: ``OK`` the terminal answered with result 0; ``FAILED`` it answered otherwise, did not answer in time
or Kafka did not take the command; ``OFFLINE`` the vehicle's terminal is offline; ``UNKNOWN`` no vehicle of the
exchanged enterprises has that plate and colour. RESULT is 0 for OK and 1 for every other outcome; 0x1502 says
which (1 taken, 3 offline, 9 wrong plate, 5 other). 0x1502 carries no image and 0x1504 no recorder data: the
photo arrives later as the terminal's media upload and the recorder's 0x0700 is not decoded yet.
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any

from protocols.jt808.messages import (
    CameraShoot,
    PhoneCallback,
    RecorderCollect,
    TerminalControl,
    TextMessage,
)
from protocols.jt808.messages.t8300_text_message import FLAG_DISPLAY, FLAG_EMERGENCY, FLAG_TTS
from protocols.jt808.messages.t8400_phone_callback import FLAG_LISTEN
from protocols.jt808.messages.t8700_recorder_collect import PERIOD_COMMANDS
from protocols.jt809 import messages as m

OK, FAILED, OFFLINE, UNKNOWN = "ok", "failed", "offline", "unknown"
REQUESTS: dict[int, Any] = {cls.DATA_TYPE: cls for cls in (m.ListenRequest, m.PhotoRequest, m.TextRequest,
                                                          m.RecorderRequest, m.EmergencyAccess)}
CONNECT_TO_SERVER = 2  # 0x8105 command word: connect to the server named in the parameters
PHOTO_FLAGS = {OK: 1, OFFLINE: 3, FAILED: 5, UNKNOWN: 9}


def terminal_command(request: Any, now: datetime) -> tuple[Any, dict[str, Any]]:
    """The JT/T 808 body for a typed 0x950x request, and the payload shown on the command row."""
    if isinstance(request, m.ListenRequest):
        return PhoneCallback(FLAG_LISTEN, request.monitor_tel), {"flag": FLAG_LISTEN, "phone": request.monitor_tel}
    if isinstance(request, m.PhotoRequest):
        body = CameraShoot(request.lens_id, 1, 0, 0, request.size_type, 1, 127, 64, 64, 127)
        return body, {"channelId": request.lens_id, "totalPicture": 1, "resolution": request.size_type}
    if isinstance(request, m.TextRequest):
        flags = FLAG_DISPLAY | FLAG_TTS | (FLAG_EMERGENCY if request.priority == 0 else 0)
        return TextMessage(flags, request.content), {"content": request.content, "flags": flags}
    if isinstance(request, m.RecorderRequest):
        collect = (RecorderCollect(request.command, request.start, request.end, request.max_blocks)
                   if request.command in PERIOD_COMMANDS else RecorderCollect(request.command))
        return collect, {"command": request.command, "start": request.start.isoformat(), "end": request.end.isoformat()}
    if isinstance(request, m.EmergencyAccess):
        minutes = max(1, math.ceil((request.end_time - now).total_seconds() / 60))
        params = ";".join(str(v) for v in (0, request.auth_code, request.apn, request.username, request.password,
                                             request.server_ip, request.tcp_port, request.udp_port, minutes))
        shown = {"command": CONNECT_TO_SERVER, "server": f"{request.server_ip}:{request.tcp_port}", "minutes": minutes}
        return TerminalControl(CONNECT_TO_SERVER, params), shown
    raise TypeError(f"not a vehicle control request: {type(request).__name__}")


def outcome_of(command_state: str, result: int | None) -> str | None:
    """The outcome of a command row (None while it is still on its way)."""
    if command_state == "answered":
        return OK if result == 0 else FAILED
    if command_state in ("timed_out", "failed"):
        return FAILED
    return None


def answer_body(request: Any, plate: str, colour: int, source_sn: int, outcome: str,
                version: str) -> m.VehicleControl:
    """0x1500 with the answer to ``request`` (2019: naming the request by its data type and SN)."""
    source: dict[str, Any] = ({"source_data_type": request.DATA_TYPE, "source_sn": source_sn} if version == "2019"
                              else {})
    result = 0 if outcome == OK else 1
    answer: Any
    if isinstance(request, m.ListenRequest):
        answer = m.ListenAnswer(result, **source)
    elif isinstance(request, m.PhotoRequest):
        answer = m.PhotoAnswer(PHOTO_FLAGS[outcome], request.lens_id, request.size_type, **source)
    elif isinstance(request, m.TextRequest):
        answer = m.TextAnswer(request.msg_sequence, result, **source)
    elif isinstance(request, m.RecorderRequest):
        answer = m.RecorderAnswer(request.command, b"", **source)
    elif isinstance(request, m.EmergencyAccess):
        answer = m.EmergencyAnswer(result, **source)
    else:
        raise TypeError(f"not a vehicle control request: {type(request).__name__}")
    return m.VehicleControl(plate, colour, answer.DATA_TYPE, answer)


def decode_request(data_type: int, raw: bytes) -> Any:
    """A stored request (2011 layout) typed again, to answer it once the terminal has."""
    cls = REQUESTS.get(data_type)
    if cls is None:
        raise ValueError(f"not a vehicle control request: 0x{data_type:04X}")
    return cls.decode(raw, "2011")
