"""Terminal fences (business type 2) to terminals: the reconciler of fence + fence_binding against fence_sync
(migration 0040's fence_sync comment), through the ONE command path (a ``command`` row, then the
``jt808.downlink.v1`` message shaped like api/command_send.py ``send()``, as streams/alarm_commands.py does).

Each tick (timer ``fence-sync``, every ``FLEET_STREAMS_FENCE_SYNC_INTERVAL_S``), one worker at a time (an
advisory lock):

1. rows whose command ended follow it: 0x0001 result 0 acknowledged, 1-3 failed with the result, no answer
   or not delivered failed with the error (``timeout``, ``offline``, ...); an acknowledged delete row goes;
2. ``plan(desired, held)``: a binding without a row, a fence edited since the row's version
   (fence.updated_at), or a row wanting delete that is bound again becomes a pending set; a set row no
   longer bound (or whose fence is gone or no longer a terminal fence) becomes a pending delete;
3. pending rows of online terminals are sent (set: 0x8600/0x8602/0x8604/0x8606 from the stored geometry,
   delete: 0x8601/0x8603/0x8605/0x8607 with the fence id), in the device's protocol version's layout;
   a fence no terminal can hold is failed with the reason (fleet.fence_areas.NotSendable) and not sent.
   Rows that failed without a terminal result go again once their terminal authenticated after the
   failure, so an offline terminal gets its fences when it next authenticates (within one tick of the
   sessions agent marking it online). Long polygons and routes are sub-packaged by the gateway.

A binding, an edit or an unbinding therefore needs no hook in the entity routes: the next tick sees it.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import orjson
import psycopg
from psycopg.rows import dict_row

from fleet.enums import DeviceState
from fleet.fence_areas import DELETE_BODY, NotSendable, delete_message, set_message
from fleet.phones import canonical_phone
from fleet.topics import JT808_DOWNLINK
from streams.db import Database
from streams.deadletter import Send
from warehouse.queries import commands
from warehouse.queries import fence_sync as sql

log = logging.getLogger(__name__)

CREATED_BY_NAME = "平台"
SEND_PER_TICK = 200  # a large binding spreads over ticks; the gateway paces each terminal anyway


@dataclass(frozen=True)
class Desired:
    fence_id: int
    device_id: int
    enterprise_id: int
    version: datetime
    shape: str


@dataclass(frozen=True)
class Held:
    fence_id: int
    device_id: int
    enterprise_id: int
    wanted: str  # set | delete
    state: str
    version: datetime
    shape: str | None


@dataclass(frozen=True)
class Change:
    """A row to (re)write as pending: ``wanted`` set (with the fence's version) or delete."""

    fence_id: int
    device_id: int
    enterprise_id: int
    wanted: str
    version: datetime
    shape: str | None


def plan(desired: Iterable[Desired], held: Iterable[Held]) -> list[Change]:
    """What to send so the terminals hold what the bindings say (pure; order: by fence, then device)."""
    want = {(d.fence_id, d.device_id): d for d in desired}
    have = {(h.fence_id, h.device_id): h for h in held}
    changes: list[Change] = []
    for key, d in want.items():
        h = have.get(key)
        if h is None or h.wanted == "delete" or h.version < d.version:
            changes.append(Change(d.fence_id, d.device_id, d.enterprise_id, "set", d.version, d.shape))
    for key, h in have.items():
        if key not in want and h.wanted == "set":
            changes.append(Change(h.fence_id, h.device_id, h.enterprise_id, "delete", h.version, h.shape))
    return sorted(changes, key=lambda c: (c.fence_id, c.device_id))


@dataclass
class Outgoing:
    phone: str
    value: bytes


class FenceSync:
    """``tick()``: one reconciliation (module doc); returns the downlinks produced."""

    def __init__(self, db: Database, send: Send) -> None:
        self.db, self.send = db, send
        self.sent = 0

    async def tick(self) -> int:
        outgoing = await self.db.transact(self._reconcile)
        for item in outgoing:  # after the commit: a command row exists for every downlink
            await self.send(JT808_DOWNLINK, item.phone.encode(), item.value)
        self.sent += len(outgoing)
        return len(outgoing)

    async def _reconcile(self, conn: psycopg.AsyncConnection[Any]) -> list[Outgoing]:
        async with conn.cursor(row_factory=dict_row) as cur:
            await cur.execute(sql.LOCK)
            locked = await cur.fetchone()
            if not locked or not next(iter(locked.values())):
                return []  # another worker is reconciling
            await cur.execute(sql.FOLLOW_COMMANDS)
            await cur.execute(sql.DROP_DELETED)
            await cur.execute(sql.CANDIDATES)  # only rows out of step: the same plan, without reading the rest
            desired: list[Desired] = []
            held: list[Held] = []
            for row in await cur.fetchall():
                side, wanted, state = row.pop("side"), row.pop("wanted"), row.pop("state")
                if side == "desired":
                    desired.append(Desired(**row))
                else:
                    held.append(Held(wanted=wanted, state=state, **row))
            for change in plan(desired, held):
                await cur.execute(sql.UPSERT_PENDING, change.__dict__)
            await cur.execute(sql.TO_SEND, {"online": int(DeviceState.ONLINE), "limit": SEND_PER_TICK})
            rows = await cur.fetchall()
            return [item for row in rows for item in await self._commands(cur, row)]

    async def _commands(self, cur: psycopg.AsyncCursor[dict[str, Any]], row: dict[str, Any]) -> list[Outgoing]:
        """The downlinks of one row: its set or delete; before a set whose fence changed shape since it was
        last sent, the delete of the old shape's area (a terminal keeps areas of each shape apart)."""
        key = {"fence_id": row["fence_id"], "device_id": row["device_id"]}
        held_shape = row["shape"]
        out: list[Outgoing] = []
        try:
            if row["wanted"] == "delete":
                msg_id, body = delete_message(held_shape or "", row["fence_id"], row["protocolVersion"])
                payload: dict[str, Any] = {"fenceId": row["fence_id"], "wanted": "delete", "shape": held_shape}
                shape = held_shape
            else:
                await cur.execute(sql.FENCE, key)
                fence = await cur.fetchone()
                if fence is None:
                    return []  # deleted meanwhile: the next tick plans its delete
                shape = fence["shape"]
                msg_id, body = set_message(fence, row["protocolVersion"])
                payload = {"fenceId": fence["id"], "fenceName": fence["name"], "wanted": "set", "shape": shape,
                           "version": fence["updated_at"].isoformat()}
                if held_shape != shape and held_shape in DELETE_BODY:
                    old_id, old_body = delete_message(held_shape, row["fence_id"], row["protocolVersion"])
                    old = {"fenceId": row["fence_id"], "wanted": "delete", "shape": held_shape}
                    out.append((await self._insert(cur, row, old_id, old_body, old))[1])
        except NotSendable as exc:
            log.info("fence %s not sent to device %s: %s", row["fence_id"], row["device_id"], exc)
            await cur.execute(sql.MARK_REFUSED, key | {"error": str(exc)[:500]})
            return []
        command_id, outgoing = await self._insert(cur, row, msg_id, body, payload)
        await cur.execute(sql.MARK_SENT, key | {"command_id": command_id, "shape": shape})
        return [*out, outgoing]

    @staticmethod
    async def _insert(cur: psycopg.AsyncCursor[dict[str, Any]], target: dict[str, Any], msg_id: int, body: bytes,
                      payload: dict[str, Any]) -> tuple[int, Outgoing]:
        """A platform command row (created by "平台") and its jt808.downlink.v1 value, produced after commit."""
        command = await commands.insert_async(cur.connection, target, msg_id=msg_id, payload=payload,
                                              body_hex=body.hex(), user_id=None, user_name=CREATED_BY_NAME)
        phone = canonical_phone(target["phone"])
        value = {"phone": phone, "msg_id": msg_id, "body_hex": body.hex(), "command_id": str(command["id"]),
                 "created_at": command["createdAt"].astimezone(UTC).isoformat().replace("+00:00", "Z")}
        return int(command["id"]), Outgoing(phone, orjson.dumps(value))

