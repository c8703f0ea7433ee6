"""Command state in the stream processors: replies, sent records, timeouts, pushes 11/12.

A command row (migration 0013, written by api/commands.py in state ``created``) moves:

- ``created`` -> ``sent``: the gateway's ``jt808.sent.v1`` record ``event: sent`` (agent ``sent``) gives
  the header serial it used (``seq``) and ``sent_at``;
- ``created``/``sent`` -> ``failed``: a ``failed`` record (reason offline, closed, queue_full,
  encode_error, or reply_malformed: the terminal answered with a reply whose body did not decode)
  -> push 12 (reason 1 offline for offline/closed, 2 message error otherwise);
- ``sent`` -> ``answered``: a reply uplink of that device whose ``reply_seq`` is that serial (uplinks
  agent, step ``commands``): 0x0001 (its ``reply_msg_id`` must be the command's), or the command's own
  reply (0x0104 for 8104/8106, 0x0201 for 8201, 0x0500 for 8500, 0x0802 for 8802, 0x0805 for 8801, 0x1205 for 9205/9201). Result 0/1 -> push
  11; 2 (message error) / 3 (unsupported) -> push 12 reason 2 / 3. 0x0805's own result 2 (channel not
  supported) counts as 3. A 0x0104 also upserts ``device_param``;
- ``created``/``sent`` -> ``timed_out``: no answer ``FLEET_COMMANDS_TIMEOUT_S`` after it was sent (or
  created, when never sent), by the timer ``command-timeouts``, or the gateway's ``failed`` record with
  reason ``reply_timeout`` -> push 11 with result null.

``answered``, ``timed_out`` and ``failed`` are final: every update is conditional on the state, so
replays (at-least-once) and late records never move a row back, and a push is sent only by the update
that made the change.

The race: a reply and the sent record that tells its serial come from two topics, so the reply may be
processed first. A reply that matches no ``sent`` command while the device has a ``created`` one is kept
in ``command_reply_early`` and applied when that sent record arrives (then deleted; stale ones are
dropped by the timer).
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from fleet.enums import PushType
from fleet.gb32960_records import GbUplink
from fleet.topics import CONSOLE_EVENTS
from protocols.gb32960 import Encryption
from protocols.gb32960.cipher import ENCRYPTION_AT
from protocols.gb32960.framing import HEADER_BYTES
from protocols.gb32960.messages.params import PARAMETERS
from protocols.gb32960.values import TIME_BYTES, read_time, write_time
from protocols.jt808.catalogue import (
    AV_RESOURCE_LIST,
    CAMERA_SHOOT,
    CAMERA_SHOOT_RESPONSE,
    LOCATION_QUERY_RESPONSE,
    PLAYBACK_REQUEST,
    QUERY_AV_RESOURCES,
    QUERY_LOCATION,
    QUERY_PARAMETERS,
    QUERY_PARAMETERS_RESPONSE,
    QUERY_SPECIFIED_PARAMETERS,
    STORED_MEDIA_SEARCH,
    STORED_MEDIA_SEARCH_RESPONSE,
    TERMINAL_RESPONSE,
    VEHICLE_CONTROL,
    VEHICLE_CONTROL_RESPONSE,
)
from protocols.jt808.redact import SECRET_PARAM_IDS
from streams import console
from streams.db import DATA_ERRORS, Database
from streams.deadletter import Send, encode
from streams.directory import Directory
from streams.messages import PayloadError, Uplink, load_json_object, parse_time
from warehouse.queries import command_state as sql

log = logging.getLogger(__name__)
T = TypeVar("T")

# reply msg id -> the command msg ids it answers (0x0001: any, checked against its reply_msg_id)
OWN_REPLIES: dict[int, tuple[int, ...]] = {
    QUERY_PARAMETERS_RESPONSE: (QUERY_PARAMETERS, QUERY_SPECIFIED_PARAMETERS),
    LOCATION_QUERY_RESPONSE: (QUERY_LOCATION,),
    VEHICLE_CONTROL_RESPONSE: (VEHICLE_CONTROL,),
    STORED_MEDIA_SEARCH_RESPONSE: (STORED_MEDIA_SEARCH,),
    CAMERA_SHOOT_RESPONSE: (CAMERA_SHOOT,),
    AV_RESOURCE_LIST: (QUERY_AV_RESOURCES, PLAYBACK_REQUEST),  # answers a search, and a playback request
}
RESULT_MESSAGE_ERROR, RESULT_UNSUPPORTED = 2, 3
OPEN_STATES = ("created", "sent")
EARLY_SLACK_S = 5.0  # a kept reply may precede its command's row by this much (clocks of two hosts)
# A GB command's own time and its row's created_at are read on two hosts' clocks (the API's, the database's)
ECHO_WINDOW_S = 5.0

SEND_ERROR_OFFLINE, SEND_ERROR_MESSAGE, SEND_ERROR_UNSUPPORTED = 1, 2, 3
SEND_ERROR_TEXT = {
    SEND_ERROR_OFFLINE: "车辆不在线，指令未送达 (the vehicle is offline; the command was not delivered)",
    SEND_ERROR_MESSAGE: "指令消息有误，终端或网关未能处理 (message error: the command could not be processed)",
    SEND_ERROR_UNSUPPORTED: "终端不支持该指令 (the terminal does not support this command)",
}
_GATEWAY_REASON = {"offline": SEND_ERROR_OFFLINE, "closed": SEND_ERROR_OFFLINE,
                   "queue_full": SEND_ERROR_MESSAGE, "encode_error": SEND_ERROR_MESSAGE,
                   "reply_malformed": SEND_ERROR_MESSAGE}


@dataclass(frozen=True, slots=True)
class Reply:
    """A reply uplink, as matching needs it."""

    device_id: int
    reply_seq: int
    msg_id: int
    reply_msg_id: int | None   # 0x0001 only: the message it answers
    result: int                # 0 success, 1 failure, 2 message error, 3 unsupported
    reply: dict[str, Any]
    received_at: datetime

    def answers(self) -> tuple[int, ...] | None:
        """Command msg ids this reply can answer (None: the one in reply_msg_id)."""
        return None if self.msg_id == TERMINAL_RESPONSE else OWN_REPLIES.get(self.msg_id, ())


@dataclass(frozen=True, slots=True)
class SentRecord:
    """One ``jt808.sent.v1`` value that concerns a command."""

    command_id: int
    device_id: int | None
    seq: int | None
    event: str
    reason: str | None
    at: datetime


def _small_int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 0xFFFFFFFF else None


def reply_of(uplink: Uplink) -> Reply | None:
    """The reply an uplink is, or None (not a reply, or a body without a usable ``reply_seq``). Pure."""
    if uplink.msg_id != TERMINAL_RESPONSE and uplink.msg_id not in OWN_REPLIES:
        return None
    body = uplink.body
    reply_seq = _small_int(body.get("reply_seq"))
    if reply_seq is None or reply_seq > 0xFFFF:
        return None
    reply_msg_id = None
    result = 0
    if uplink.msg_id == TERMINAL_RESPONSE:
        reply_msg_id = _small_int(body.get("reply_msg_id"))
        result = _small_int(body.get("result"))  # type: ignore[assignment]
        if reply_msg_id is None or result is None:
            return None
    elif uplink.msg_id == CAMERA_SHOOT_RESPONSE:
        own = _small_int(body.get("result")) or 0
        result = {0: 0, 1: 1, 2: RESULT_UNSUPPORTED}.get(own, 1)
    if uplink.msg_id == QUERY_PARAMETERS_RESPONSE:
        body = without_secret_params(body)
    return Reply(uplink.device_id, reply_seq, uplink.msg_id, reply_msg_id, min(result, 255), body,
                 uplink.received_at)


def without_secret_params(body: dict[str, Any]) -> dict[str, Any]:
    """A 0x0104 body as the command's reply and device_param keep it: the values of the parameters the
    table marks secret (dial-up passwords) starred, same length (protocols/jt808/redact.py)."""
    params = body.get("params")
    if not isinstance(params, list) or not any(isinstance(p, dict) and p.get("id") in SECRET_PARAM_IDS for p in params):
        return body
    masked = []
    for item in params:
        if isinstance(item, dict) and item.get("id") in SECRET_PARAM_IDS:
            size = len(str(item.get("value_hex") or "")) // 2 or len(str(item.get("value") or ""))
            item = {**item, "value": "*" * size, "value_hex": "2A" * size}
        masked.append(item)
    return {**body, "params": masked}


@dataclass(frozen=True, slots=True)
class GbAnswer:
    """A GB/T 32960 terminal's answer to a platform command (0x80 / 0x81 / 0x82), as matching needs it."""

    device_id: int
    command: int
    result: int                # 0 success (flag 0x01), 1 failure (0x02 error, or any other flag)
    reply: dict[str, Any]      # {response, params: [{id, name, value}]} (params: a 0x80 answer's items)
    received_at: datetime
    car_id: int | None = None
    # the time its data unit starts with: the answered command's own time when the terminal echoes it, as the
    # standard's answers do (GB/T 32960.3-2016 §6.3.2); None in an encrypted or shorter data unit
    time: datetime | None = None


GB_PLATFORM_COMMANDS = frozenset({0x80, 0x81, 0x82})  # GB/T 32960.3-2016 table 5: parameter query / set, control
GB_SUCCESS = 0x01


def gb_answer_of(uplink: GbUplink, received_at: datetime) -> GbAnswer | None:
    """The answer a ``gb32960.uplink.v1`` record is, or None (a terminal's own command, flag 0xFE). Pure."""
    if uplink.command not in GB_PLATFORM_COMMANDS or uplink.response in (None, 0xFE):
        return None
    reply: dict[str, Any] = {"response": uplink.response}
    body = uplink.message.get("body")
    values = body.get("values") if isinstance(body, dict) else None
    if uplink.command == 0x80 and isinstance(values, list):
        params = []
        for item in values:
            if isinstance(item, list) and len(item) == 2 and _small_int(item[0]) in PARAMETERS:
                params.append({"id": f"{item[0]:02X}", "name": PARAMETERS[item[0]][0], "value": item[1]})
        reply["params"] = params
    return GbAnswer(uplink.device_id, uplink.command, 0 if uplink.response == GB_SUCCESS else 1, reply, received_at,
                    uplink.car_id, _answer_time(uplink.raw_hex))


def _answer_time(raw_hex: str) -> datetime | None:
    """The time a clear GB/T 32960 answer's data unit starts with, or None."""
    try:
        raw = bytes.fromhex(raw_hex)
        if len(raw) < HEADER_BYTES + TIME_BYTES + 1 or raw[ENCRYPTION_AT] != Encryption.NONE:
            return None
        return read_time(raw, HEADER_BYTES)[0]
    except ValueError:  # not hex, or not a date (BodyError is a ValueError)
        return None


def parse_sent(raw: bytes | str | dict[str, Any]) -> SentRecord | None:
    """A sent record that names a command, else None (the gateway's own replies). Raises PayloadError."""
    obj = raw if isinstance(raw, dict) else load_json_object(raw)
    command_id = obj.get("command_id")
    if command_id in (None, ""):
        return None
    try:
        cid = int(str(command_id))
    except ValueError:
        raise PayloadError(f"command_id: not an integer: {command_id!r}") from None
    event = obj.get("event")
    if event not in ("sent", "failed"):
        raise PayloadError(f"event: expected 'sent' or 'failed', got {event!r}")
    seq = _small_int(obj.get("seq"))
    return SentRecord(cid, _small_int(obj.get("device_id")), seq if seq is not None and seq <= 0xFFFF else None,
                      event, None if obj.get("reason") is None else str(obj["reason"])[:64],
                      parse_time(obj.get("at"), "at"))


def param_value_hex(item: dict[str, Any]) -> str | None:
    """The hex value of one 0x0104 parameter as the uplink JSON carries it (``value_hex``, else from
    ``value``: a number of the standard's size, text (GBK) or hex of raw bytes)."""
    if isinstance(item.get("value_hex"), str):
        return str(item["value_hex"]).upper()
    value = item.get("value")
    if isinstance(value, str):
        return value.upper() if len(value) % 2 == 0 and all(c in "0123456789abcdefABCDEF" for c in value) \
            else value.encode("gbk", errors="replace").hex().upper()
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value.to_bytes(max(1, (value.bit_length() + 7) // 8), "big").hex().upper()
    return None


def device_params(reply: Reply) -> list[tuple[int, str]]:
    """(param id, hex value) of a 0x0104 reply."""
    out = []
    for item in reply.reply.get("params") or []:
        if isinstance(item, dict) and _small_int(item.get("id")) is not None:
            value = param_value_hex(item)
            if value is not None:
                out.append((int(item["id"]), value))
    return out


def iso(at: datetime) -> str:
    return console.iso(at)


def result_push(row: dict[str, Any], plate: str | None, at: datetime) -> tuple[int, dict[str, Any]]:
    """Push 11 (result 0/1, or timed out: result None) or 12 (terminal result 2 / 3) for a changed row."""
    result = row.get("result")
    if row["state"] == "answered" and result in (RESULT_MESSAGE_ERROR, RESULT_UNSUPPORTED):
        reason = SEND_ERROR_MESSAGE if result == RESULT_MESSAGE_ERROR else SEND_ERROR_UNSUPPORTED
        return send_error_push(row, plate, reason, at)
    return int(PushType.COMMAND_RESULT), {
        "commandId": row["id"], "deviceId": row["device_id"], "carId": row["car_id"], "plateNumber": plate,
        "msgId": row["msg_id"], "state": row["state"], "result": result if row["state"] == "answered" else None,
        "replyMsgId": row.get("reply_msg_id"), "createdBy": row.get("created_by"), "time": iso(at),
    }


def send_error_push(row: dict[str, Any], plate: str | None, reason: int, at: datetime) -> tuple[int, dict[str, Any]]:
    return int(PushType.COMMAND_SEND_ERROR), {
        "commandId": row["id"], "deviceId": row["device_id"], "carId": row["car_id"], "plateNumber": plate,
        "msgId": row["msg_id"], "reason": reason, "message": SEND_ERROR_TEXT[reason],
        "createdBy": row.get("created_by"), "time": iso(at),
    }


def _own_for(msg_id: int) -> list[int]:
    """Reply ids (other than 0x0001) that answer command ``msg_id``."""
    return [reply for reply, answers in OWN_REPLIES.items() if msg_id in answers]


class CommandsProcessor:
    """The command steps (no Faust here): ``handle_uplinks`` (a step of the uplinks agent),
    ``handle_sent`` (agent ``sent``), ``check_timeouts`` (timer)."""

    def __init__(self, db: Database, directory: Directory, send: Send, *, timeout_s: float) -> None:
        self.db, self.directory, self.send, self.timeout_s = db, directory, send, timeout_s
        # the uplinks step, the sent agent and the timer run concurrently; one connection serves them
        # one transaction at a time (an async connection cannot interleave two)
        self._lock = asyncio.Lock()
        self._directory_lock = asyncio.Lock()  # the directory's connection, likewise

    async def _transact(self, work: Callable[[psycopg.AsyncConnection[Any]], Awaitable[T]]) -> T:
        async with self._lock:
            return await self.db.transact(work)

    async def handle_uplinks(self, uplinks: Sequence[Uplink | PayloadError]) -> int:
        """Match the batch's replies; returns how many answered a command. Non-replies cost nothing."""
        replies = [r for r in (reply_of(u) for u in uplinks if isinstance(u, Uplink)) if r is not None]
        if not replies:
            return 0
        try:  # the batch's replies in one transaction; a refused one: reply by reply, that one skipped
            done = await self._transact(functools.partial(self._apply_replies, replies=replies))
        except DATA_ERRORS:
            done = []
            for reply in replies:
                try:
                    done += await self._transact(functools.partial(self._apply_replies, replies=[reply]))
                except DATA_ERRORS as exc:  # e.g. a device deleted meanwhile: nothing to answer
                    log.warning("reply %s of device %s not applied: %s", hex(reply.msg_id), reply.device_id, exc)
        for row, reply in done:
            await self._push(row, *result_push(row, await self._plate(row), reply.received_at))
        return len(done)

    async def _apply_replies(self, conn: psycopg.AsyncConnection[Any],
                             replies: list[Reply]) -> list[tuple[dict[str, Any], Reply]]:
        return [(row, reply) for reply in replies for row in await self._apply_reply(conn, reply)]

    async def _apply_reply(self, conn: psycopg.AsyncConnection[Any], reply: Reply) -> list[dict[str, Any]]:
        if reply.msg_id == QUERY_PARAMETERS_RESPONSE:
            params = dict(device_params(reply))  # one statement; a repeated id: the last value
            if params:
                await conn.execute(sql.UPSERT_PARAMS, {"device_id": reply.device_id, "at": reply.received_at,
                                                       "ids": list(params), "values": list(params.values())})
        answers = reply.answers()
        args = {"result": reply.result, "msg_id": reply.msg_id, "reply": Jsonb(reply.reply),
                "at": reply.received_at, "device_id": reply.device_id, "seq": reply.reply_seq,
                "answers": list(answers) if answers is not None else None, "reply_msg_id": reply.reply_msg_id}
        async with conn.cursor(row_factory=dict_row) as cur:
            await cur.execute(sql.ANSWER, args)
            row = await cur.fetchone()
            if row is not None:
                return [row]
            await cur.execute(sql.KEEP_EARLY, args)
        return []

    async def handle_gb_answers(self, answers: Sequence[GbAnswer]) -> int:
        """Answer the command rows of GB/T 32960 terminals' answers (streams/gb_uplinks.py step
        ``gb_commands``), in one transaction; push 11 for each row answered. Returns how many."""
        if not answers:
            return 0

        async def work(conn: psycopg.AsyncConnection[Any]) -> list[tuple[dict[str, Any], GbAnswer]]:
            done = []
            async with conn.cursor(row_factory=dict_row) as cur:
                for answer in answers:
                    await cur.execute(sql.ANSWER_UNSEQUENCED, {
                        "result": answer.result, "msg_id": answer.command, "reply": Jsonb(answer.reply),
                        "at": answer.received_at, "device_id": answer.device_id, "slack_s": EARLY_SLACK_S,
                        "car_id": answer.car_id, "time": answer.time,
                        "time_hex": None if answer.time is None else write_time(answer.time).hex(),
                        "echo_window_s": ECHO_WINDOW_S})
                    row = await cur.fetchone()
                    if row is not None:
                        done.append((row, answer))
            return done

        done = await self._transact(work)
        for row, answer in done:
            await self._push(row, *result_push(row, await self._plate(row), answer.received_at))
        return len(done)

    async def handle_sent(self, values: Iterable[Any]) -> int:
        """Apply a batch of ``jt808.sent.v1`` values; returns the commands changed. Raises PayloadError
        only through ``parse_sent`` per value (callers dead-letter that value)."""
        return await self.apply_sent([record for record in map(parse_sent, values) if record is not None])

    async def apply_sent(self, records: list[SentRecord]) -> int:
        """Apply parsed sent records in one transaction (a refused one: record by record, that one
        skipped); returns the commands changed."""
        if not records:
            return 0

        async def work(conn: psycopg.AsyncConnection[Any], batch: list[SentRecord]) -> list[Any]:
            return [push for record in batch for push in await self._apply_sent(conn, record)]

        try:
            pushes = await self._transact(functools.partial(work, batch=records))
        except DATA_ERRORS:
            pushes = []
            for record in records:
                try:
                    pushes += await self._transact(functools.partial(work, batch=[record]))
                except DATA_ERRORS as exc:
                    log.warning("sent record of command %s not applied: %s", record.command_id, exc)
        for row, push_type, data in pushes:
            await self._push(row, push_type, data)
        return len(pushes)

    async def _apply_sent(self, conn: psycopg.AsyncConnection[Any],
                          record: SentRecord) -> list[tuple[dict[str, Any], int, dict[str, Any]]]:
        async with conn.cursor(row_factory=dict_row) as cur:
            if record.event == "failed":
                timed_out = record.reason == "reply_timeout"
                await cur.execute(sql.FAIL, {"id": record.command_id, "state": "timed_out" if timed_out else "failed",
                                          "reason": record.reason or "failed"})
                row = await cur.fetchone()
                if row is None:
                    return []
                plate = await self._plate(row)
                if timed_out:
                    return [(row, *result_push(row, plate, record.at))]
                reason = _GATEWAY_REASON.get(record.reason or "", SEND_ERROR_MESSAGE)
                return [(row, *send_error_push(row, plate, reason, record.at))]
            if record.seq is None:
                return []
            await cur.execute(sql.MARK_SENT, {"id": record.command_id, "seq": record.seq, "at": record.at})
            row = await cur.fetchone()
            if row is None:
                return []  # answered, timed out, failed or unknown: never moved back
            since = row["created_at"].timestamp() - EARLY_SLACK_S
            await cur.execute(sql.TAKE_EARLY, {"device_id": row["device_id"], "seq": row["seq"],
                                            "since": datetime.fromtimestamp(since, UTC), "cmd_msg_id": row["msg_id"],
                                            "own_for": _own_for(row["msg_id"])})
            early = await cur.fetchall()
            if not early:
                return []
            first = min(early, key=lambda e: e["received_at"])
            await cur.execute(sql.ANSWER, {
                "result": first["result"], "msg_id": first["msg_id"], "reply": Jsonb(first["reply"]),
                "at": first["received_at"], "device_id": row["device_id"], "seq": row["seq"], "answers": None,
                "reply_msg_id": row["msg_id"]})
            answered = await cur.fetchone()
            if answered is None:
                return []
            return [(answered, *result_push(answered, await self._plate(answered), first["received_at"]))]

    async def check_timeouts(self, now: datetime | None = None) -> int:
        """Time out open commands older than ``timeout_s``; push 11 for each. Returns how many."""

        async def work(conn: psycopg.AsyncConnection[Any]) -> list[dict[str, Any]]:
            async with conn.cursor(row_factory=dict_row) as cur:
                await cur.execute(sql.TIME_OUT, {"timeout": self.timeout_s})
                rows = await cur.fetchall()
                await cur.execute(sql.DROP_STALE_EARLY, (max(600.0, 4 * self.timeout_s),))
                return rows

        rows = await self._transact(work)
        at = now or datetime.now(UTC)
        for row in rows:
            await self._push(row, *result_push(row, await self._plate(row), at))
        return len(rows)

    async def _plate(self, row: dict[str, Any]) -> str | None:
        async with self._directory_lock:
            return await self.directory.plate_number(row["car_id"])

    async def _push(self, row: dict[str, Any], push_type: int, data: dict[str, Any]) -> None:
        enterprise_id = int(row["enterprise_id"])
        async with self._directory_lock:
            path = await self.directory.enterprise_path(enterprise_id)
        # The answer goes to the sender's sessions only; the platform's own commands (no sender) to
        # the vehicle's enterprise and its ancestors.
        payload = console.push_event(enterprise_id, path, push_type, data, user_id=row.get("created_by"))
        await self.send(CONSOLE_EVENTS, str(enterprise_id).encode(), encode(payload))
