"""Vehicle control requests (0x9501-0x9505) through the one command path to terminals, and their answers; the
same path carries the terminal commands of the superior's video requests (``send_terminal``,
exchange/link/video_requests.py).

The path is the API's (api/command_send.py): a ``command`` row (warehouse.queries.commands.insert, created by
no user, named after the superior platform), then the downlink on ``jt808.downlink.v1`` keyed by the
canonical phone; the gateway paces and writes it, the streams correlate the terminal's reply and time it out
(the row's state). The link service never writes to a terminal any other way. It polls the rows of its
requests every ``poll_s`` and answers each once its command has an outcome (exchange.link.control). A vehicle
not exchanged, or whose terminal is offline, is answered at once; so is a command Kafka did not take (failed).
A 2019 request keeps its bytes (no public layout) and is only logged.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import orjson

from exchange.link import control
from exchange.link.links import Links
from fleet.enums import DeviceState
from fleet.phones import canonical_phone
from fleet.topics import JT808_DOWNLINK
from protocols.jt809 import messages as m
from warehouse.queries import commands as command_queries
from warehouse.queries import exchange as q

log = logging.getLogger(__name__)
SEND_TIMEOUT_S = 10.0


def insert_command(conn: Any, target: dict[str, Any], msg_id: int, payload: dict[str, Any], body_hex: str,
                   name: str) -> dict[str, Any]:
    """The command row of a superior's request: created by no user, named after the platform."""
    return command_queries.insert(conn, target, msg_id=msg_id, payload=payload, body_hex=body_hex, user_id=None,
                                  user_name=name)


class ControlCommands:
    """One platform's control requests. ``db(fn, *args)`` runs a query function in a connection (blocking)."""

    def __init__(self, platform: q.SuperiorPlatform, links: Links, db: Callable[..., Any], bootstrap: str,
                 kafka_options: dict[str, Any] | None = None) -> None:
        self.platform = platform
        self.links = links
        self.db = db
        self.bootstrap = bootstrap
        self.kafka_options = kafka_options or {}
        self.producer: Any = None
        self.enterprises: frozenset[int] = frozenset()

    async def _produce(self, key: str, value: bytes) -> None:
        if self.producer is None:
            from aiokafka import AIOKafkaProducer

            producer = AIOKafkaProducer(bootstrap_servers=self.bootstrap, acks="all", **self.kafka_options)
            await producer.start()
            self.producer = producer
        async with asyncio.timeout(SEND_TIMEOUT_S):
            await self.producer.send_and_wait(JT808_DOWNLINK, value, key=key.encode())

    async def stop(self) -> None:
        if self.producer is not None:
            await self.producer.stop()
            self.producer = None

    async def handle(self, sn: int, body: m.VehicleControlDown) -> None:
        request: Any = body.data
        if body.data_type not in control.REQUESTS or isinstance(request, bytes | bytearray):
            log.warning("platform %s: vehicle control 0x%04X for %s not handled (no layout for this version)",
                        self.platform.id, body.data_type, body.plate)
            return
        row: dict[str, Any] = {"platform_id": self.platform.id, "data_type": body.data_type, "source_sn": sn,
                               "plate": body.plate, "plate_colour": body.plate_colour,
                               "data_hex": request.encode("2011").hex(), "command_id": None, "outcome": None}
        target = await asyncio.to_thread(self.db, q.control_target, sorted(self.enterprises), body.plate,
                                         body.plate_colour)
        if target is None:
            row["outcome"] = control.UNKNOWN
        elif target["state"] != DeviceState.ONLINE:
            row["outcome"] = control.OFFLINE
        else:
            row["command_id"], row["outcome"] = await self._send_command(target, request)
        await asyncio.to_thread(self.db, q.store_control, row)
        if row["outcome"] is not None:
            await self._answer(request, body.plate, body.plate_colour, sn, row["outcome"])

    async def _send_command(self, target: dict[str, Any], request: Any) -> tuple[int, str | None]:
        """The terminal command of a control request: (command id, None), or a FAILED outcome when Kafka does
        not take it."""
        body, shown = control.terminal_command(request, datetime.now(UTC))
        command_id, taken = await self.send_terminal(target, body, shown, request.DATA_TYPE)
        return command_id, None if taken else control.FAILED

    async def send_terminal(self, target: dict[str, Any], body: Any, shown: dict[str, Any],
                            request_type: int) -> tuple[int, bool]:
        """Write the command row of a JT/T 808 ``body`` for the superior's request ``request_type`` and produce
        its downlink: (command id, whether Kafka took it). Not taken: the row is failed, as the API does."""
        version = target["protocolVersion"] if target["protocolVersion"] in ("2011", "2013", "2019") else "2013"
        body_hex = body.encode(version).hex()
        name = f"上级平台 {self.platform.name}"[:64]
        payload = {**shown, "exchangeRequest": f"{request_type:04X}"}
        row = await asyncio.to_thread(self.db, insert_command, target, body.MSG_ID, payload, body_hex, name)
        phone = canonical_phone(target["phone"])
        value = {"phone": phone, "msg_id": body.MSG_ID, "body_hex": body_hex, "command_id": str(row["id"]),
                 "created_at": row["createdAt"].astimezone(UTC).isoformat().replace("+00:00", "Z")}
        try:
            await self._produce(phone, orjson.dumps(value))
        except Exception as exc:  # Kafka away or slow: the request fails now rather than never
            log.warning("platform %s: command %s not taken by Kafka: %r", self.platform.id, row["id"], exc)
            await asyncio.to_thread(self.db, command_queries.mark_failed, row["id"], "kafka_unavailable")
            return int(row["id"]), False
        return int(row["id"]), True

    async def _answer(self, request: Any, plate: str, colour: int, sn: int, outcome: str) -> None:
        await self.links.send(m.VehicleControl.MSG_ID, control.answer_body(request, plate, colour, sn, outcome,
                                                                           self.platform.version))

    async def answer_done(self, rows: list[dict[str, Any]]) -> None:
        """Answer the requests whose command has an outcome (``rows``: warehouse.queries.exchange.
        controls_to_answer); each is marked answered after its frame was written (LinkDown leaves it for the
        next poll)."""
        for row in rows:
            outcome = control.outcome_of(row["state"], row["result"])
            if outcome is None:
                continue
            request = control.decode_request(row["data_type"], bytes.fromhex(row["data_hex"]))
            await self._answer(request, row["plate"], row["plate_colour"], int(row["source_sn"]), outcome)
            await asyncio.to_thread(self.db, q.mark_control_answered, row["id"], outcome)
