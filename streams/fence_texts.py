"""0x8300 TTS to the driver for a platform fence crossing with a "to driver" attribute (fence attributes 2
entering / 4 leaving, platform-spec §9), through the ONE command path, as streams/alarm_commands.py does
for 0x9208: a ``command`` row (created_by NULL, created_by_name "平台", payload shaped like the API's 8300
``{content, tts, display, emergency, textType}``) and a ``jt808.downlink.v1`` message ``{phone, msg_id,
body_hex, command_id, created_at}``; the gateway paces it, the commands step matches its 0x0001.

Only to a connected terminal (``alarm_commands.reachable``: online, or heard from in the batch): a crossing
announced minutes later would mislead, so an unreachable terminal gets nothing and nothing is queued.
Failure modes: a device deleted meanwhile or a name the terminal cannot show (GBK) is logged and skipped.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import orjson
import psycopg

from fleet.phones import canonical_phone
from fleet.topics import JT808_DOWNLINK
from protocols.jt808.catalogue import TEXT_MESSAGE
from protocols.jt808.messages.t8300_text_message import FLAG_DISPLAY, FLAG_TTS, TextMessage
from streams.alarm_commands import CREATED_BY_NAME, reachable
from streams.db import DATA_ERRORS, Database
from streams.deadletter import Send
from warehouse.queries import commands

log = logging.getLogger(__name__)


class DriverTexts:
    """``say(device_id, text, heard_at)``: one 0x8300 TTS + display text; returns 1 when sent, else 0."""

    def __init__(self, db: Database, send: Send) -> None:
        self.db, self.send = db, send
        self.sent = 0

    async def say(self, device_id: int, text: str, heard_at: datetime | None) -> int:
        async def target_of(conn: psycopg.AsyncConnection[Any]) -> dict[str, Any] | None:
            return await commands.target_async(conn, device_id)

        try:
            target = await self.db.transact(target_of)
            if target is None or not reachable(target, heard_at, datetime.now(UTC)):
                log.info("fence TTS not sent: device %s is not connected", device_id)
                return 0
            version = target["protocolVersion"]
            body = TextMessage(FLAG_TTS | FLAG_DISPLAY, text).encode(
                version if version in ("2011", "2013", "2019") else "2013")
        except (ValueError, UnicodeError) as exc:
            log.warning("fence TTS for device %s not encodable: %s", device_id, exc)
            return 0
        payload: Mapping[str, Any] = {"content": text, "tts": True, "display": True, "emergency": False,
                                      "textType": 1}

        async def insert(conn: psycopg.AsyncConnection[Any]) -> dict[str, Any]:
            return await commands.insert_async(conn, target, msg_id=TEXT_MESSAGE, payload=dict(payload),
                                               body_hex=body.hex(), user_id=None, user_name=CREATED_BY_NAME)

        try:
            command = await self.db.transact(insert)
        except DATA_ERRORS as exc:
            log.warning("fence TTS for device %s not created: %s", device_id, exc)
            return 0
        phone = canonical_phone(target["phone"])
        value = {"phone": phone, "msg_id": TEXT_MESSAGE, "body_hex": body.hex(), "command_id": str(command["id"]),
                 "created_at": command["createdAt"].astimezone(UTC).isoformat().replace("+00:00", "Z")}
        await self.send(JT808_DOWNLINK, phone.encode(), orjson.dumps(value))
        self.sent += 1
        return 1
