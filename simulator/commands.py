"""How a simulated terminal answers platform commands, without the network (unit-testable).

``CommandResponder.handle`` takes one decoded downlink and returns the frames to send back (bodies,
encoded by the terminal with its header version) and the media to upload afterwards:

| downlink | answer |
|---|---|
| 0x8103 set parameters | applies the values, 0x0001 result 0 (the next 0x8104 returns them) |
| 0x8104 / 0x8106 | 0x0104 with all / the requested parameters (unknown ids left out; the active-safety blocks 0xF364 / 0xF365 included) |
| 0x8105, 0x8202, 0x8300 | 0x0001 result 0 (texts are kept in ``texts``) |
| 0x8203 | 0x0001 result 0; releases the held alarm bits it names (``simulator.alarms``: emergency) |
| 0x9208 | 0x0001 result 0, then the alarm's attachments go to the named server (``attachment_requests``) |
| 0x8201 | 0x0201 with the latest position |
| 0x8500 | locks or unlocks the doors (``doors_locked``, status bit 12 of its reports): 0x0500 with the latest position |
| 0x8801 | 0x0805 (result 0 and the media ids; 2 for a channel outside 1-8; 1 for video) then each photo as 0x0801 unless ``save_flag`` |
| 0x8802 | 0x0802 listing the stored media that match |
| 0x8803 | 0x0001 result 0, then the matching stored media as 0x0801 (removed if ``delete``) |
| 0x8600-0x8607 | applies them to the terminal's areas (``simulator.areas``: update / append / modify, delete): 0x0001 result 0, or 1 when a modify names an area it does not hold |
| 0x8608 | a 2019 terminal: 0x0608 listing the areas asked for; 2011/2013: result 3 (not in their standard) |
| 0x9101, 0x9102, 0x9205, 0x9201, 0x9202 | a terminal with cameras: ``simulator.video_terminal`` (streams to the media server, 0x1205 recordings); without: result 3 |
| an undecodable body of a readable header | 0x0001 result 2 (message error) |
| any other id | 0x0001 result 3 (unsupported) |

A terminal's ``behaviour`` (``behaviour_for``, deterministic by phone) is ``normal``, ``unsupported``
(every command answered 0x0001 result 3) or ``silent`` (never answers a command), so the console's
error paths show in ``make up``.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from protocols.jt808 import (
    AlarmAttachmentUploadRequest,
    CameraShoot,
    CameraShootResponse,
    LocationQueryResponse,
    LocationReport,
    ManualAlarmConfirmation,
    MediaSearchItem,
    QueryAreas,
    QueryLocation,
    QueryParameters,
    QueryParametersResponse,
    QuerySpecifiedParameters,
    SetParameters,
    StoredMediaSearch,
    StoredMediaSearchResponse,
    StoredMediaUpload,
    TemporaryTracking,
    TerminalControl,
    TerminalParam,
    TerminalResponse,
    TextMessage,
    VehicleControl,
    VehicleControlResponse,
)
from protocols.jt808.catalogue import (
    MEDIA_UPLOAD_RESPONSE,
    PLATFORM_RESPONSE,
    REGISTRATION_RESPONSE,
    RESEND_SUBPACKAGES_REQUEST,
)
from protocols.jt808.messages.active_safety_params import ADAS_PARAMS_ID, BLOCKS
from protocols.jt808.messages.t0500_vehicle_control_response import DOORS_LOCKED_BIT
from protocols.jt808.messages.t8500_vehicle_control import DOOR_LOCK
from protocols.jt808.messages.t8801_camera_shoot import COMMAND_RECORD, COMMAND_STOP
from simulator.areas import TerminalAreas
from simulator.camera import resolution_size, take_photo

if TYPE_CHECKING:
    from simulator.alarms import AlarmSchedule
    from simulator.video_terminal import VideoTerminal

NORMAL = "normal"
UNSUPPORTED = "unsupported"
SILENT = "silent"

RESULT_OK = 0
RESULT_MESSAGE_ERROR = 2
RESULT_UNSUPPORTED = 3
CAMERA_CHANNELS = range(1, 9)
MAX_PHOTOS_PER_COMMAND = 10
EVENT_PLATFORM_COMMAND = 0
MEDIA_PHOTO = 0
FORMAT_JPEG = 0
# Messages the terminal acknowledges with 0x0001 result 0 and nothing else.
_ACK_ONLY = (TerminalControl, TemporaryTracking, ManualAlarmConfirmation, TextMessage)
# Platform ids that are answers or requests handled elsewhere (never commands to answer here).
NOT_COMMANDS = frozenset({PLATFORM_RESPONSE, RESEND_SUBPACKAGES_REQUEST, REGISTRATION_RESPONSE, MEDIA_UPLOAD_RESPONSE})


def behaviour_for(phone: str, unsupported_share: float, silent_share: float) -> str:
    """``normal``, ``unsupported`` or ``silent``: stable for a phone across runs and processes."""
    draw = (zlib.crc32(phone.lstrip("0").encode()) % 10_000) / 10_000
    if draw < unsupported_share:
        return UNSUPPORTED
    if draw < unsupported_share + silent_share:
        return SILENT
    return NORMAL


def default_params(plate: str, interval_s: float) -> dict[int, TerminalParam]:
    """A realistic parameter set: what a freshly installed terminal reports to 0x8104 (and 0x8106)."""
    numbers = {
        0x0001: 30, 0x0002: 10, 0x0003: 3, 0x0004: 10, 0x0005: 3, 0x0006: 30, 0x0007: 3,
        0x0018: 7611, 0x0019: 0, 0x0020: 0, 0x0021: 0, 0x0022: 30, 0x0027: 300, 0x0028: 10,
        0x0029: max(1, round(interval_s)), 0x002C: 500, 0x002D: 1000, 0x002E: 1000, 0x002F: 100, 0x0030: 15,
        0x0031: 500, 0x0050: 0, 0x0051: 0, 0x0052: 0x00000001, 0x0053: 0, 0x0054: 0x00000001,
        0x0055: 100, 0x0056: 10, 0x0057: 14_400, 0x0058: 28_800, 0x0059: 1_200, 0x005A: 3_600,
        0x005B: 50, 0x005C: 1_800, 0x005D: 0x0A0A, 0x005E: 30, 0x0064: 0, 0x0065: 0,
        0x0070: 5, 0x0071: 127, 0x0072: 64, 0x0073: 64, 0x0074: 127, 0x0080: 0, 0x0081: 11, 0x0082: 100,
        0x0084: 2, 0x0090: 0x03, 0x0091: 0x01, 0x0092: 0x01, 0x0093: 1, 0x0094: 0, 0x0095: 1,
    }
    texts = {0x0010: "cmnet", 0x0011: "", 0x0012: "", 0x0013: "127.0.0.1", 0x0017: "", 0x0040: "",
             0x0083: plate}
    params = {k: TerminalParam(k, v) for k, v in numbers.items()}
    params.update({k: TerminalParam(k, v) for k, v in texts.items()})
    # An active-safety terminal (T/JSATL12-2017 §4.2): its ADAS and DSM blocks at the standard's defaults,
    # the ADAS alarm speed threshold at 40 km/h as an installer would set it on a coach.
    for block in BLOCKS.values():
        values = block.defaults()
        if block.param_id == ADAS_PARAMS_ID:
            values["alarm_speed_threshold_kmh"] = 40
        params[block.param_id] = TerminalParam(block.param_id, block.encode(values))
    return dict(sorted(params.items()))


@dataclass(frozen=True)
class Answer:
    """One frame to send: ``body`` is a codec body object (``MSG_ID``, ``encode(version)``)."""

    msg_id: int
    body: Any


@dataclass(frozen=True)
class StoredMedia:
    media_id: int
    media_type: int
    media_format: int
    event_code: int
    channel: int
    location: LocationReport  # basic block only
    data: bytes
    taken_at: datetime


@dataclass(frozen=True)
class Handled:
    answers: tuple[Answer, ...] = ()
    uploads: tuple[StoredMedia, ...] = ()
    attachment_requests: tuple[AlarmAttachmentUploadRequest, ...] = ()


@dataclass
class CommandResponder:
    phone: str
    plate: str
    behaviour: str = NORMAL
    params: dict[int, TerminalParam] = field(default_factory=dict)
    media_id_start: int = 1
    max_stored: int = 20
    stored: list[StoredMedia] = field(default_factory=list)
    texts: list[TextMessage] = field(default_factory=list)
    alarms: AlarmSchedule | None = None
    video: VideoTerminal | None = None  # None: no cameras, the JT/T 1078 commands are unsupported
    protocol_version: str = "2013"  # its header version: 0x8608 exists only in 2019
    areas: TerminalAreas = field(default_factory=TerminalAreas)
    doors_locked: bool = False  # 0x8500's door control; status bit 12 of every report

    def __post_init__(self) -> None:
        self._next_media_id = self.media_id_start

    def door_status(self, status_flags: int) -> int:
        """Status flags with bit 12 (doors locked) as the last 0x8500 left the doors."""
        return status_flags | DOORS_LOCKED_BIT if self.doors_locked else status_flags & ~DOORS_LOCKED_BIT

    def handle(self, msg_id: int, seq: int, body: Any, position: LocationReport, now: datetime) -> Handled:
        """Answer one downlink. ``body`` is the decoded body, or None when it did not decode."""
        if msg_id in NOT_COMMANDS or self.behaviour == SILENT:
            return Handled()
        if self.behaviour == UNSUPPORTED:
            return _ack(seq, msg_id, RESULT_UNSUPPORTED)
        if body is None:
            return _ack(seq, msg_id, RESULT_MESSAGE_ERROR)
        if isinstance(body, SetParameters):
            for param in body.params:
                self.params[param.id] = TerminalParam(param.id, param.value)
            return _ack(seq, msg_id, RESULT_OK)
        if isinstance(body, QueryParameters):
            return _one(QueryParametersResponse(seq, tuple(self.params.values())))
        if isinstance(body, QuerySpecifiedParameters):
            found = tuple(self.params[i] for i in body.ids if i in self.params)
            return _one(QueryParametersResponse(seq, found))
        if isinstance(body, QueryLocation):
            return _one(LocationQueryResponse(seq, position))
        if isinstance(body, VehicleControl):
            for control in body.controls:
                self.doors_locked = control.value == DOOR_LOCK
            return _one(VehicleControlResponse(seq, replace(position, status_flags=self.door_status(position.status_flags))))
        if isinstance(body, TextMessage):
            self.texts.append(body)
            return _ack(seq, msg_id, RESULT_OK)
        if isinstance(body, ManualAlarmConfirmation) and self.alarms is not None:
            self.alarms.confirm(body.alarm_type)
            return _ack(seq, msg_id, RESULT_OK)
        if isinstance(body, AlarmAttachmentUploadRequest):
            return Handled(_ack(seq, msg_id, RESULT_OK).answers, attachment_requests=(body,))
        if isinstance(body, _ACK_ONLY):
            return _ack(seq, msg_id, RESULT_OK)
        if isinstance(body, CameraShoot):
            return self._shoot(seq, body, position, now)
        if isinstance(body, StoredMediaSearch):
            items = tuple(MediaSearchItem(m.media_id, m.media_type, m.channel, m.event_code, m.location)
                          for m in self._matching(body))
            return _one(StoredMediaSearchResponse(seq, items))
        if isinstance(body, StoredMediaUpload):
            matching = tuple(self._matching(body))
            if body.delete:
                self.stored = [m for m in self.stored if m not in matching]
            return Handled(_ack(seq, msg_id, RESULT_OK).answers, matching)
        if self.areas.handles(body):
            if isinstance(body, QueryAreas) and self.protocol_version != "2019":
                return _ack(seq, msg_id, RESULT_UNSUPPORTED)
            outcome = self.areas.apply(body)
            return _ack(seq, msg_id, outcome) if isinstance(outcome, int) else _one(outcome)
        if self.video is not None and self.video.handles(body):
            result, reply = self.video.answer(body, seq, now)
            return _one(reply) if result < 0 else _ack(seq, msg_id, result)
        return _ack(seq, msg_id, RESULT_UNSUPPORTED)

    def _shoot(self, seq: int, cmd: CameraShoot, position: LocationReport, now: datetime) -> Handled:
        if cmd.channel not in CAMERA_CHANNELS:
            return _one(CameraShootResponse(seq, 2))  # channel not supported
        if cmd.command == COMMAND_RECORD:
            return _one(CameraShootResponse(seq, 1))  # no video recorder in the simulator
        if cmd.command == COMMAND_STOP:
            return _one(CameraShootResponse(seq, 0))
        basic = basic_block(position)
        size = resolution_size(cmd.resolution)
        photos = []
        for n in range(min(cmd.command, MAX_PHOTOS_PER_COMMAND)):
            when = now + timedelta(seconds=max(1, cmd.interval_s) * n)  # the n-th shot, as drawn
            data = take_photo(self.plate, when, size=size, quality=cmd.quality, channel=cmd.channel,
                              brightness=cmd.brightness)
            photos.append(StoredMedia(self._media_id(), MEDIA_PHOTO, FORMAT_JPEG, EVENT_PLATFORM_COMMAND,
                                      cmd.channel, basic, data, now))
        self.stored = (self.stored + photos)[-self.max_stored :]
        answer = _one(CameraShootResponse(seq, 0, tuple(p.media_id for p in photos)))
        return Handled(answer.answers, () if cmd.save_flag else tuple(photos))

    def _media_id(self) -> int:
        media_id = self._next_media_id
        self._next_media_id = media_id + 1 if media_id < 0xFFFFFFFF else 1
        return media_id

    def _matching(self, query: StoredMediaSearch | StoredMediaUpload) -> list[StoredMedia]:
        return [
            m for m in self.stored
            if m.media_type == query.media_type
            and query.channel in (0, m.channel)
            and m.event_code == query.event_code
            and (query.start is None or m.taken_at >= query.start)
            and (query.end is None or m.taken_at <= query.end)
        ]


def basic_block(position: LocationReport) -> LocationReport:
    """The position without its additional items (what 0x0801/0x0802 carry)."""
    return replace(position, extras={}, unknown_items=())


def _ack(seq: int, msg_id: int, result: int) -> Handled:
    return _one(TerminalResponse(seq, msg_id, result))


def _one(body: Any) -> Handled:
    return Handled((Answer(body.MSG_ID, body),))
