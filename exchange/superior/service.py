"""fleetwatch as a JT/T 809 superior platform (platform-spec §2 inferiorPlatform, car, gps, map): the main link
server (``MainLinkServer``, shared with the regulator in a box) with its accounts read from the enabled
``inferior_platform`` rows, storing what the inferiors report and sending the operators' requests.

- 0x1201 registrations and 0x1202 / 0x1203 positions become exchange vehicles and positions (migration 0048),
  written in batches every ``poll_s``; a position stored before (same vehicle, same fix time) is left alone.
- Link and platform frames (not positions: they are counted) are logged in exchange_message with the platform
  kind ``inferior``; each link's state and counts go to inferior_link_state.
- Operators' inspections (0x9301) and messages (0x9302) queued through the API (inferior_request, state
  ``queued``) are polled every ``poll_s`` and sent on the sub link (the main link while it is down); a request
  to a platform whose links are both down stays queued until its deadline. Their answers (0x1301 / 0x1302) are
  matched back with the latency from sending; a request unanswered at its deadline expires (migration 0050).
- A platform's time-limited authorisation codes (0x1701, JT/T 1078-2016 §8.1: code 1 for its home region's
  superior, code 2 for a cross-region one) are kept on its row, the latest report (migration 0065), shown to the
  holders of inferiorPlatform:superior: the codes its video platform admits a pull with. A report not yet written
  stays pending until a flush succeeds.
- Operators' live video and playback requests (0x9801 / 0x1801 / 0x9802, 0x9A01 / 0x1A01 / 0x9A02, migration 0066)
  are sent, answered and ended as
  exchange/superior/video.py says: an answered one is pulled by our media server for the console.
- The accounts are re-read every ``reload_s``: a new or changed row takes effect at its next login, a disabled
  or deleted row's links are closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from datetime import UTC, datetime
from typing import Any

from exchange.superior.accounts import Account
from exchange.superior.control import LINK_HANDLERS
from exchange.superior.links import LinkDown, PlatformLinks
from exchange.superior.server import MainLinkServer
from exchange.superior.video import VideoPulls
from fleet.media_client import MediaClient
from fleet.settings import ExchangeSettings, MediaServerSettings, StackSettings
from protocols.jt809 import CipherKeys, Message
from protocols.jt809 import messages as m
from protocols.jt809.jsonify import body_to_json
from warehouse.db import PooledCalls
from warehouse.queries import exchange as superior_q
from warehouse.queries import exchange_inferior as q

log = logging.getLogger(__name__)
POSITION_TYPES = (m.RealTimePosition.DATA_TYPE, m.BackfilledPositions.DATA_TYPE)


def account_of(platform: q.InferiorPlatform) -> Account:
    keys = CipherKeys(platform.m1, platform.ia1, platform.ic1) if platform.encrypted else None
    return Account(platform.user_id, platform.password, platform.centre_id, platform.version, keys,
                   platform.encrypt_key, platform.allowed_hosts)


def position_row(position: m.Gnss2011 | m.Gnss2019, backfilled: bool, received_at: datetime) -> dict[str, Any] | None:
    """One exchange_position row (units converted once, here: degrees, km/h, UTC), or None for a 2019 record
    that does not carry a 0x0200 body (public captures put other things there)."""
    if isinstance(position, m.Gnss2011):
        return {"fix_at": position.fix_at, "received_at": received_at, "backfilled": backfilled,
                "lat": position.lat, "lng": position.lng, "speed_kmh": float(position.speed_kmh),
                "direction_deg": position.direction_deg, "altitude_m": position.altitude_m,
                "mileage_km": float(position.mileage_km), "status": position.state, "alarm": position.alarm}
    loc = position.location
    if loc is None:
        return None
    mileage = loc.extras.get("mileage_km")
    return {"fix_at": loc.fix_at, "received_at": received_at, "backfilled": backfilled, "lat": loc.lat,
            "lng": loc.lng, "speed_kmh": float(loc.speed_kmh), "direction_deg": loc.direction_deg,
            "altitude_m": loc.altitude_m, "mileage_km": float(mileage) if mileage is not None else None,
            "status": loc.status_flags, "alarm": loc.alarm_flags}


def _counters() -> dict[str, Any]:
    return {"state": "down", "since": datetime.now(UTC), "peer": None, "last_heartbeat_at": None, "sent": 0,
            "received": 0, "positions": 0, "last_error": None}


class SuperiorService(MainLinkServer):
    """``run()`` until cancelled: listens on ``settings.superior_host:superior_port`` (or ``port`` given)."""

    def __init__(self, db_url: str, settings: ExchangeSettings, *, host: str | None = None,
                 port: int | None = None, media: MediaClient | None = None, **server: Any) -> None:
        super().__init__((), host=settings.superior_host if host is None else host,
                         port=settings.superior_port if port is None else port, **server)
        self.db_url = db_url
        self._db = PooledCalls(db_url, name="exchange-superior")  # reloads, saves and requests every poll_s
        self.settings = settings
        self.platforms: dict[int, q.InferiorPlatform] = {}  # by user id
        self.vehicle_ids: dict[tuple[int, str, int], int] = {}
        self.pending_vehicles: list[tuple[int, str, int, dict[str, str] | None]] = []
        self.pending_positions: list[tuple[int, str, int, dict[str, Any]]] = []
        self.log_rows: list[dict[str, Any]] = []
        self.states: dict[tuple[int, str], dict[str, Any]] = {}
        self.pending_codes: dict[int, dict[str, Any]] = {}  # by user id: the latest 0x1701 not yet written
        # An answer matches only a request marked sent, and the inferior may answer before that mark is written:
        # sending a request and marking it is one step, which matching an answer waits for.
        self._sending = asyncio.Lock()
        self.videos = VideoPulls(self._db, media or MediaClient.from_settings(MediaServerSettings(),
                                                                               StackSettings().var_dir))

    # -- accounts ---------------------------------------------------------------------------------
    async def reload(self) -> None:
        rows = await asyncio.to_thread(self._db, q.enabled_inferior_platforms)
        self.platforms = {p.user_id: p for p in rows}
        self.accounts = {p.user_id: account_of(p) for p in rows}
        for user_id, links in list(self.links.items()):
            if self.accounts.get(user_id) != links.account:  # disabled, deleted or changed: log in again
                del self.links[user_id]
                await links.close(notice=True)

    # -- what arrives -----------------------------------------------------------------------------
    async def handle(self, links: PlatformLinks, link: str, message: Message) -> None:
        body = message.body
        control = LINK_HANDLERS.get(type(body))
        if control is not None:
            control(self, links, link, message)
        elif isinstance(body, m.VehicleDynamic):
            self._dynamic(links, body)
        elif isinstance(body, m.Authorize) and isinstance(body.data, m.AuthorizeReport):
            report = body.data
            self.pending_codes[links.account.user_id] = {
                "platform_code": report.platform_id, "code_1": report.authorize_code_1,
                "code_2": report.authorize_code_2, "at": datetime.now(UTC)}
            self.event(links, "authorize_report", f"platform {report.platform_id}")
        elif (isinstance(body, m.RealVideo) and isinstance(body.data, m.RealVideoAnswer)) or (
                isinstance(body, m.Playback) and isinstance(body.data, m.PlaybackAnswer)):
            platform = self.platforms.get(links.account.user_id)
            if platform is not None:
                self.event(links, "video_answer", await self.videos.answered(platform, links, body))
        elif isinstance(body, m.PlatformExchange) and isinstance(body.data, m.InspectionAnswer):
            answer = body.data
            await self._answered(links, "inspection", answer.info_id, answer.source_sn, answer.content,
                                 answer.responder)
        elif isinstance(body, m.PlatformExchange) and isinstance(body.data, m.PlatformMessageAnswer):
            await self._answered(links, "message", body.data.info_id, None, None, None)

    def _dynamic(self, links: PlatformLinks, body: m.VehicleDynamic) -> None:
        user_id = links.account.user_id
        now = datetime.now(UTC)
        data = body.data
        if isinstance(data, m.VehicleRegistration):
            self.pending_vehicles.append((user_id, body.plate, body.plate_colour, {
                "platform_code": data.platform_id, "producer_id": data.producer_id,
                "terminal_model": data.terminal_model, "imei": data.imei, "terminal_id": data.terminal_id,
                "sim": data.sim}))
            return
        if isinstance(data, m.RealTimePosition):
            fixes, backfilled = [data.position], False
        elif isinstance(data, m.BackfilledPositions):
            fixes, backfilled = list(data.positions), True
        else:
            return
        for fix in fixes:
            row = position_row(fix, backfilled, now)
            if row is not None:
                self.pending_positions.append((user_id, body.plate, body.plate_colour, row))
        self._state(user_id, "main")["positions"] += len(fixes)

    async def _answered(self, links: PlatformLinks, kind: str, info_id: int | None, sn: int | None,
                        answer: str | None, responder: str | None) -> None:
        platform = self.platforms.get(links.account.user_id)
        if platform is None:
            return
        async with self._sending:  # its request's sent mark is written first
            found = await asyncio.to_thread(self._db, lambda conn: q.answer_request(
                conn, platform.id, kind, info_id=info_id if sn is None else None, sn=sn, answer=answer,
                responder=responder, at=datetime.now(UTC)))
        if found is None:
            log.info("inferior platform %s: a %s answer (info id %s, sn %s) matches no request sent", platform.id,
                     kind, info_id, sn)
        else:
            self.event(links, f"{kind}_answer", f"request {found[0]} after {found[1]} ms")

    # -- records ----------------------------------------------------------------------------------
    def _state(self, user_id: int, link: str) -> dict[str, Any]:
        return self.states.setdefault((user_id, link), _counters())

    def record(self, user_id: int, link: str, direction: str, msg_id: int, data_type: int | None, sn: int,
               body: Any = None, raw: bytes = b"") -> None:
        self._state(user_id, link)["received" if direction == "up" else "sent"] += 1
        platform = self.platforms.get(user_id)
        if platform is None or (msg_id == m.VehicleDynamic.MSG_ID and data_type in POSITION_TYPES):
            return  # positions are counted, not logged (migration 0045)
        decoded = body_to_json(body) if body is not None else None
        if isinstance(body, m.LoginRequest) and isinstance(decoded, dict):
            decoded = {k: v for k, v in decoded.items() if k != "password"}  # never logged
        self.log_rows.append({"platform_id": platform.id, "direction": direction, "link": link, "msg_id": msg_id,
                              "data_type": data_type, "decoded": decoded, "raw_hex": _loggable_hex(body, raw)})

    # -- requests ---------------------------------------------------------------------------------
    async def _send_requests(self) -> None:
        for user_id, links in list(self.links.items()):
            platform = self.platforms.get(user_id)
            if platform is None or not (links.main.state == "up" or links.sub.state == "up"):
                continue
            for row in await asyncio.to_thread(self._db, q.queued_requests, platform.id):
                body = self._request_body(row, links.account)
                async with self._sending:
                    try:
                        link, sn = links.send_request(m.PlatformExchangeDown.MSG_ID, body)
                    except LinkDown:
                        break  # stays queued
                    await asyncio.to_thread(self._db, q.mark_request_sent, row["id"], link, sn, datetime.now(UTC))
            await self.videos.send_queued(platform.id, links)

    async def _expire_requests(self) -> None:
        """An unanswered request past its deadline expires (migration 0050): it is not sent any more and a late
        answer matches nothing."""
        for request_id, platform_id, kind in await asyncio.to_thread(self._db, q.expire_requests, datetime.now(UTC)):
            log.info("inferior platform %s: %s request %s expired unanswered", platform_id, kind, request_id)
        for request_id in await asyncio.to_thread(self._db, q.expire_videos, datetime.now(UTC)):
            log.info("video request %s expired unanswered (0x1801)", request_id)

    @staticmethod
    def _request_body(row: dict[str, Any], account: Account) -> m.PlatformExchangeDown:
        """INFO_ID is the request's id: a 2011 answer (and every 0x1302) names its request by it."""
        object_id = row["object_id"] or str(account.centre_id)
        if row["kind"] == "inspection":
            minutes = row["answer_minutes"] if account.version == "2019" else None
            return m.PlatformExchangeDown(m.InspectionRequest.DATA_TYPE, m.InspectionRequest(
                row["object_type"], object_id, row["id"], row["content"], minutes))
        return m.PlatformExchangeDown(m.PlatformMessage.DATA_TYPE, m.PlatformMessage(
            row["object_type"], object_id, row["id"], row["content"]))

    # -- housekeeping -----------------------------------------------------------------------------
    def _save(self, conn: Any, vehicles: list[Any], positions: list[Any], states: dict[Any, dict[str, Any]],
              rows: list[dict[str, Any]], codes: dict[int, dict[str, Any]]) -> None:
        by_user = self.platforms

        def vid(user_id: int, plate: str, colour: int) -> int | None:
            platform = by_user.get(user_id)
            if platform is None:
                return None
            key = (platform.id, plate, colour)
            if key not in self.vehicle_ids:
                self.vehicle_ids[key] = q.vehicle_id(conn, platform.id, platform.enterprise_id, plate, colour)
            return self.vehicle_ids[key]

        for user_id, plate, colour, registration in vehicles:
            found = vid(user_id, plate, colour)
            if found is not None and registration is not None:
                q.register_vehicle(conn, found, registration)
        stored = []
        for user_id, plate, colour, row in positions:
            found = vid(user_id, plate, colour)
            if found is not None:
                stored.append({**row, "vehicle_id": found})
        q.store_positions(conn, stored)
        for (user_id, link), state in states.items():
            platform = by_user.get(user_id)
            if platform is not None:
                q.save_link_state(conn, platform.id, link, state)
        q.log_messages(conn, rows)
        for user_id, report in codes.items():
            platform = by_user.get(user_id)
            if platform is not None:
                q.save_authorize_codes(conn, platform.id, report)

    async def flush(self) -> None:
        """Write what arrived since the last flush (vehicles, positions, link state as increments, frames)."""
        vehicles, self.pending_vehicles = self.pending_vehicles, []
        positions, self.pending_positions = self.pending_positions, []
        rows, self.log_rows = self.log_rows, []
        for user_id, links in self.links.items():
            for link, state in (("main", links.main), ("sub", links.sub)):
                row = self._state(user_id, link)
                row.update(state=state.state, since=state.since, peer=state.peer, last_error=state.error)
                if state.last_heartbeat is not None:
                    row["last_heartbeat_at"] = state.last_heartbeat
        states = {}
        for key, row in self.states.items():
            states[key] = dict(row)
            for count in ("sent", "received", "positions"):
                row[count] = 0
        codes = dict(self.pending_codes)
        await asyncio.to_thread(self._db, self._save, vehicles, positions, states, rows, codes)
        for user_id, report in codes.items():  # written: forgotten, unless a newer one arrived meanwhile
            if self.pending_codes.get(user_id) is report:
                del self.pending_codes[user_id]

    async def run(self) -> None:
        async with self._db.kept():
            await self.reload()
            await self.start()
            reload_at = prune_at = time.monotonic()
            try:
                while True:
                    await asyncio.sleep(self.settings.poll_s)
                    try:
                        if time.monotonic() >= reload_at:
                            await self.reload()
                            reload_at = time.monotonic() + self.settings.reload_s
                        if time.monotonic() >= prune_at:  # positions and frames kept as long as their settings say
                            await asyncio.to_thread(self._db, q.prune_positions, self.settings.superior_position_days)
                            await asyncio.to_thread(self._db, superior_q.prune_messages, self.settings.message_log_days)
                            prune_at = time.monotonic() + 3600
                        await self.flush()
                        await self._expire_requests()
                        await self._send_requests()
                        links = {p.id: self.links.get(user_id) for user_id, p in self.platforms.items()}
                        await self.videos.watch(links)
                    except Exception:  # the database may be away for a while: the links keep running
                        log.exception("superior service: housekeeping failed")
            finally:
                await self.stop()
                with contextlib.suppress(Exception):
                    await self.flush()


def _loggable_hex(body: Any, raw: bytes) -> str:
    """The frame as hex, except a 0x1001's: it carries the password in clear, which is never logged."""
    return "" if isinstance(body, m.LoginRequest) else raw.hex()
