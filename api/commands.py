"""Commands to terminals: payload validation, encoding to a JT/T 808 body, the downlink.

``build(command, payload, version)`` is pure: it checks the console's payload server-side (a
``BadRequest`` naming the field, with the console spec's messages for the alarm parameters and the
text message) and encodes the body with the codec's dataclasses (``protocols.jt808``; the API imports
the codec only here and in ``api/command_params.py``, to encode downlink bodies). ``Downlinks`` sends the encoded body to
``jt808.downlink.v1`` with one kafka-python producer per process (acks=all), flushed per request.

Payloads (console-spec §5, §7; parameter ids are hex text):

- 8103 ``{paramList: [{id: "0055", value: 60}, {id: "0013", value: "10.0.0.1"}, {id: "0032", hex: "..."}]}``
  (a number for number parameters, text for STRING ones, raw bytes only under ``hex``; api/command_params.py);
  8104 ``{}``; 8106 ``{ids: ["0055"]}``
- 8105 ``{command: 4}`` (the safe subset: 4 reset the terminal)
- 8201 ``{}``; 8202 ``{interval, validity}`` (s); 8203 ``{messageSeq, alarmType}``
- 8300 ``{content, tts, display, emergency, textType}``
- 8500 ``{lock: 1}`` lock the doors, ``{lock: 0}`` unlock them (vehicle control: 2011 / 2013 a flag byte,
  2019 control type 0x0001; the answer 0x0500 is also a fix of the track)
- 8801 ``{channelId, commandType, totalPicture, executionTime, saveFlag, resolution, quality, luminance,
  contrast, saturation, chromaticity}``; commandType 0 stop, 1 record video (executionTime = seconds),
  2 take ``totalPicture`` (1 to ``PHOTO_MAX``) photos ``executionTime`` seconds apart
- 8802 / 8803 ``{mediaType, channelId, eventCode, startTime, endTime, deleteFlag}`` (8803 only: deleteFlag)

Sensitive commands (``Built.sensitive`` says why): link and identity parameters in 8103, 8202 tracking
without an end (validity 0 or over a day), 8801 recording without an end, 8803 with deleteFlag 1, every 8500 (it opens or locks a vehicle). The
route then needs the ``sensitiveCommand:cmd`` permission, ``confirm: true`` in the body, and writes the
reasons (and old / new parameter values, credentials masked) in the audit line.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from api.command_params import guarded, parse_param, parse_param_id
from api.command_params import shown as shown_param
from api.errors import BadRequest
from api.query.values import coerce
from protocols.jt808.messages.params import TerminalParam
from protocols.jt808.messages.t8103_set_parameters import SetParameters
from protocols.jt808.messages.t8104_query_parameters import QueryParameters
from protocols.jt808.messages.t8105_terminal_control import TerminalControl
from protocols.jt808.messages.t8106_query_specified_parameters import QuerySpecifiedParameters
from protocols.jt808.messages.t8201_query_location import QueryLocation
from protocols.jt808.messages.t8202_temporary_tracking import TemporaryTracking
from protocols.jt808.messages.t8203_manual_alarm_confirmation import ManualAlarmConfirmation
from protocols.jt808.messages.t8300_text_message import TextMessage
from protocols.jt808.messages.t8500_vehicle_control import VehicleControl
from protocols.jt808.messages.t8801_camera_shoot import CameraShoot
from protocols.jt808.messages.t8802_stored_media_search import StoredMediaSearch
from protocols.jt808.messages.t8803_stored_media_upload import StoredMediaUpload

log = logging.getLogger(__name__)

OFFLINE_MESSAGE = "终端不在线，不能发送指令！ (the terminal is offline; the command was not sent)"
ACCEPTED_MESSAGE = "指令已下发，等待网关处理中"
TEXT_MAX_CHARS = 150

PHOTO_MAX = 10  # photos per 8801: a burst of evidence, not 65,534 shots filling the terminal's storage
TRACKING_MAX_S = 86_400  # 8202 validity an operator may set alone; longer or endless needs the guard

@dataclass(frozen=True)
class Built:
    """What a command sends: its message id, encoded body, and the payload as stored on the row."""

    msg_id: int
    body_hex: str
    payload: dict[str, Any]
    # Why the command needs the sensitive-command permission and a confirmation (empty: it does not).
    sensitive: tuple[str, ...] = ()
    params: tuple[TerminalParam, ...] = ()


def _obj(payload: Any) -> dict[str, Any]:
    if payload is None:
        return {}
    if not isinstance(payload, dict):
        raise BadRequest("请求体必须是 JSON 对象 (the body must be a JSON object)")
    return payload


def int_field(payload: dict[str, Any], name: str, low: int, high: int, default: int | None = None) -> int:
    value = payload.get(name)
    if value is None:
        if default is not None:
            return default
        raise BadRequest(f"{name} 不能为空 ({name} is required)", data={"field": name})
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise BadRequest(f"{name} 必须是 {low}~{high} 的整数 ({name} must be an integer from {low} to {high})",
                         data={"field": name})
    return value


def _bool_field(payload: dict[str, Any], name: str) -> bool:
    value = payload.get(name)
    if value is None or isinstance(value, bool):
        return bool(value)
    raise BadRequest(f"{name} 必须是布尔值 ({name} must be true or false)", data={"field": name})


def _time_field(payload: dict[str, Any], name: str) -> datetime | None:
    value = payload.get(name)
    if value in (None, "", 0):
        return None
    moment = coerce(name, "time", value)
    if not 2000 <= moment.year <= 2099:
        raise BadRequest(f"{name} 超出终端时间范围 ({name} must lie in the years 2000-2099)", data={"field": name})
    return moment


def _b8103(p: dict[str, Any], version: str) -> tuple[Any, dict[str, Any]]:
    items = p.get("paramList")
    if not isinstance(items, list) or not items:
        raise BadRequest("paramList 不能为空 (paramList must be a non-empty list)", data={"field": "paramList"})
    if len(items) > 255:
        raise BadRequest("paramList 最多 255 项 (at most 255 parameters per command)", data={"field": "paramList"})
    params = tuple(parse_param(item, index) for index, item in enumerate(items))
    return SetParameters(params), {"paramList": [shown_param(param) for param in params]}


def _b8104(p: dict[str, Any], version: str) -> tuple[Any, dict[str, Any]]:
    return QueryParameters(), {}


def _b8106(p: dict[str, Any], version: str) -> tuple[Any, dict[str, Any]]:
    ids = p.get("ids")
    if not isinstance(ids, list) or not ids or len(ids) > 255:
        raise BadRequest("ids 不能为空，最多 255 项 (ids must list 1 to 255 parameter ids)", data={"field": "ids"})
    parsed = tuple(parse_param_id(raw, f"ids[{index}]") for index, raw in enumerate(ids))
    return QuerySpecifiedParameters(parsed), {"ids": [f"{pid:04X}" for pid in parsed]}


SAFE_CONTROL = {4: "reset"}


def _b8105(p: dict[str, Any], version: str) -> tuple[Any, dict[str, Any]]:
    command = int_field(p, "command", 1, 255)
    if command not in SAFE_CONTROL:
        raise BadRequest(f"不支持的终端控制命令 (terminal control {command} is not allowed; allowed: 4 reset)",
                         data={"field": "command"})
    return TerminalControl(command), {"command": command}


def _b8500(p: dict[str, Any], version: str) -> tuple[Any, dict[str, Any]]:
    lock = int_field(p, "lock", 0, 1)
    return VehicleControl.doors(bool(lock)), {"lock": lock}


def _b8201(p: dict[str, Any], version: str) -> tuple[Any, dict[str, Any]]:
    return QueryLocation(), {}


def _b8202(p: dict[str, Any], version: str) -> tuple[Any, dict[str, Any]]:
    interval = int_field(p, "interval", 0, 0xFFFF)
    # interval 0 stops tracking; otherwise validity is how long it lasts (0 reads as "no end" on terminals)
    validity = int_field(p, "validity", 0, 0xFFFFFFFF, default=0 if interval == 0 else None)
    return TemporaryTracking(interval, validity), {"interval": interval, "validity": validity}


def _b8203(p: dict[str, Any], version: str) -> tuple[Any, dict[str, Any]]:
    seq = int_field(p, "messageSeq", 0, 0xFFFF)
    alarm_type = int_field(p, "alarmType", 0, 0xFFFFFFFF)
    return ManualAlarmConfirmation(seq, alarm_type), {"messageSeq": seq, "alarmType": alarm_type}


def text_payload(p: dict[str, Any]) -> dict[str, Any]:
    content = p.get("content")
    if content is None or (isinstance(content, str) and not content.strip()):
        raise BadRequest("下发内容不能为空 (the content is required)", data={"field": "content"})
    if not isinstance(content, str):
        raise BadRequest("content 必须是文本 (content must be text)", data={"field": "content"})
    if len(content) > TEXT_MAX_CHARS:
        raise BadRequest(f"下发内容最多 {TEXT_MAX_CHARS} 个字符 (the content has at most {TEXT_MAX_CHARS} characters)",
                         data={"field": "content"})
    return {"content": content, "tts": _bool_field(p, "tts"), "display": _bool_field(p, "display"),
            "emergency": _bool_field(p, "emergency"), "textType": int_field(p, "textType", 1, 2, default=1)}


def _b8300(p: dict[str, Any], version: str) -> tuple[Any, dict[str, Any]]:
    shown = text_payload(p)
    flags = (1 if shown["emergency"] else 0) | (4 if shown["display"] else 0) | (8 if shown["tts"] else 0)
    try:
        body = TextMessage(flags, shown["content"], shown["textType"])
        body.encode(version)
    except (ValueError, UnicodeError):
        raise BadRequest("下发内容含终端无法显示的字符 (the content has characters a terminal cannot show, GBK)",
                         data={"field": "content"}) from None
    return body, shown


def _b8801(p: dict[str, Any], version: str) -> tuple[Any, dict[str, Any]]:
    shown = {
        "channelId": int_field(p, "channelId", 0, 255),
        "commandType": int_field(p, "commandType", 0, 2, default=2),
        "totalPicture": int_field(p, "totalPicture", 0, PHOTO_MAX, default=1),
        "executionTime": int_field(p, "executionTime", 0, 0xFFFF, default=0),
        "saveFlag": int_field(p, "saveFlag", 0, 1, default=0),
        # The capture defaults of console-spec §7 (resolution 2, quality 1, luminance 127, saturation 1,
        # chromaticity 1), so a request that omits them takes the photo the console would; contrast is not
        # in the spec and keeps the mid value.
        "resolution": int_field(p, "resolution", 0, 255, default=2),
        "quality": int_field(p, "quality", 0, 255, default=1),
        "luminance": int_field(p, "luminance", 0, 255, default=127),
        "contrast": int_field(p, "contrast", 0, 255, default=64),
        "saturation": int_field(p, "saturation", 0, 255, default=1),
        "chromaticity": int_field(p, "chromaticity", 0, 255, default=1),
    }
    kind = shown["commandType"]
    command = 0 if kind == 0 else 0xFFFF if kind == 1 else shown["totalPicture"]
    if kind == 2 and command == 0:
        raise BadRequest(f"totalPicture 必须是 1~{PHOTO_MAX} (totalPicture must be 1 to {PHOTO_MAX} to take photos)",
                         data={"field": "totalPicture"})
    body = CameraShoot(shown["channelId"], command, shown["executionTime"], shown["saveFlag"], shown["resolution"],
                       shown["quality"], shown["luminance"], shown["contrast"], shown["saturation"],
                       shown["chromaticity"])
    return body, shown


def _media_query(p: dict[str, Any]) -> dict[str, Any]:
    start, end = _time_field(p, "startTime"), _time_field(p, "endTime")
    if start and end and end < start:
        raise BadRequest("结束时间不能早于开始时间 (endTime must not be before startTime)", data={"field": "endTime"})
    return {"mediaType": int_field(p, "mediaType", 0, 2), "channelId": int_field(p, "channelId", 0, 255, default=0),
            "eventCode": int_field(p, "eventCode", 0, 255, default=0), "startTime": start, "endTime": end}


def _b8802(p: dict[str, Any], version: str) -> tuple[Any, dict[str, Any]]:
    q = _media_query(p)
    body = StoredMediaSearch(q["mediaType"], q["channelId"], q["eventCode"], q["startTime"], q["endTime"])
    return body, _shown_times(q)


def _b8803(p: dict[str, Any], version: str) -> tuple[Any, dict[str, Any]]:
    q = _media_query(p) | {"deleteFlag": int_field(p, "deleteFlag", 0, 1, default=0)}
    body = StoredMediaUpload(q["mediaType"], q["channelId"], q["eventCode"], q["startTime"], q["endTime"],
                             q["deleteFlag"])
    return body, _shown_times(q)


def _shown_times(q: dict[str, Any]) -> dict[str, Any]:
    return {k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in q.items()}


BUILDERS: dict[str, Callable[[dict[str, Any], str], tuple[Any, dict[str, Any]]]] = {
    "8103": _b8103, "8104": _b8104, "8105": _b8105, "8106": _b8106, "8201": _b8201, "8202": _b8202,
    "8203": _b8203, "8300": _b8300, "8500": _b8500, "8801": _b8801, "8802": _b8802, "8803": _b8803,
}


def sensitive_reasons(command: str, payload: dict[str, Any], params: tuple[TerminalParam, ...]) -> tuple[str, ...]:
    """Why a valid command needs the sensitive-command permission and a confirmation: link and identity
    parameters (param_table.py guards), tracking or recording without an end, media deleted on the
    terminal after upload."""
    reasons = list(guarded(params))
    if command == "8202" and payload["interval"] and not 0 < payload["validity"] <= TRACKING_MAX_S:
        reasons.append(f"temporary tracking without an end (validity over {TRACKING_MAX_S} s or 0)")
    if command == "8801" and payload["commandType"] == 1 and payload["executionTime"] == 0:
        reasons.append("video recording without an end (executionTime 0)")
    if command == "8500":
        reasons.append("vehicle control: " + ("lock the doors" if payload["lock"] else "unlock the doors"))
    if command == "8803" and payload["deleteFlag"]:
        reasons.append("delete the media on the terminal after upload (deleteFlag 1)")
    return tuple(reasons)


def supported(command: str) -> bool:
    return command in BUILDERS


def build(command: str, payload: Any, version: str) -> Built:
    """Validate ``payload`` for ``command`` (e.g. "8103") and encode its body for ``version``."""
    body, shown = BUILDERS[command](_obj(payload), version if version in ("2011", "2013", "2019") else "2013")
    try:
        encoded = body.encode(version if version in ("2011", "2013", "2019") else "2013")
    except (ValueError, UnicodeError) as exc:
        raise BadRequest(f"指令无法编码 (the command cannot be encoded: {exc})") from None
    if len(encoded) > 0x3FF * 64:  # far beyond any command; the gateway splits bodies over 1023 bytes
        raise BadRequest("指令过长 (the command body is too long)")
    params = body.params if isinstance(body, SetParameters) else ()
    return Built(int(command, 16), encoded.hex(), shown, sensitive_reasons(command, shown, params), params)


class DownlinkUnavailable(Exception):
    """Kafka did not take the downlink in time."""


class Downlinks:
    """One kafka-python producer per process (acks=all), created on first use; ``send`` waits for
    the broker's acknowledgement at most ``timeout_s`` and raises DownlinkUnavailable otherwise."""

    RETRY_AFTER_S = 5.0

    def __init__(self, bootstrap: str, timeout_s: float) -> None:
        self._bootstrap, self._timeout_s = bootstrap, timeout_s
        self._down_until = 0.0
        self._producer: Any = None
        self._lock = threading.Lock()

    def _get(self) -> Any:
        with self._lock:
            if self._producer is None:
                from kafka import KafkaProducer

                from fleet.kafka_clients import kafka_python_options

                self._producer = KafkaProducer(
                    bootstrap_servers=[h.strip() for h in self._bootstrap.split(",") if h.strip()],
                    acks="all", linger_ms=0, retries=3,
                    # the whole wait is bounded by the timeout, the first contact with the broker included
                    # (kafka-python's bootstrap otherwise waits 30 s for an unreachable broker)
                    bootstrap_timeout_ms=int(self._timeout_s * 1000),
                    max_block_ms=int(self._timeout_s * 1000), request_timeout_ms=int(self._timeout_s * 1000),
                    client_id="fleet-api-commands", **kafka_python_options(),
                )
            return self._producer

    def send(self, topic: str, key: str, value: bytes) -> None:
        # After a failure, refuse at once for a few seconds: during a Kafka outage every request would
        # otherwise wait out the bootstrap and send timeouts, holding an API worker each time.
        if time.monotonic() < self._down_until:
            raise DownlinkUnavailable("Kafka was unavailable moments ago; not retried yet")
        try:
            producer = self._get()
            future = producer.send(topic, key=key.encode(), value=value)
            producer.flush(timeout=self._timeout_s)
            future.get(timeout=self._timeout_s)
        except Exception as exc:  # kafka-python raises its own errors, timeouts and NoBrokersAvailable
            log.warning("downlink to %s not acknowledged: %r", topic, exc)
            self._down_until = time.monotonic() + self.RETRY_AFTER_S
            raise DownlinkUnavailable(str(exc)) from exc

    def close(self) -> None:
        with self._lock:
            if self._producer is not None:
                try:
                    self._producer.close(timeout=1)
                finally:
                    self._producer = None
