"""The link service (``fleet exchange``): for every enabled superior platform, its two links (exchange.link.links),
forwarding from Kafka (exchange.link.forwarding) in the consumer group ``fleet-exchange-<platform id>``, the
superior's requests, and the link state and message log in PostgreSQL (warehouse.queries.exchange).

Nothing dropped (at-least-once: the superior may count duplicates, never a gap): while both links are down
nothing is consumed; a written frame may still sit unread in socket buffers when a link is lost, so after the
loss of a link that carried data the records written in the resend window before it (exchange.link.resend) and
the rest of the batch are read again, their positions sent as 0x1203 back-fill; a record's offset is committed
only once its frames were written and the window is behind it. Inspections answered in the API (state
``answered`` in exchange_inspection) are polled every ``poll_s`` and sent as 0x1301 (then ``sent``).

Positions sent are counted per second of sending and saved (exchange_sent_count), so the first 0x9101 after a
restart is reconciled with what the previous process sent. A 0x9601 is answered 0x1601 from the car's records.
Messages (0x9302) and warning tips (0x9402) become notices (0x9302 acknowledged with 0x1302).
Vehicle control requests (0x9501-0x9505) become terminal commands on the one command path
(exchange.link.control_commands) and are answered with the terminal's outcome; so do the JT/T 1078 video requests
(0x9801 / 0x9802 / 0x9A01 / 0x9A02, exchange.link.video_requests), after their stream is registered with the media
server; the day's authorisation codes (0x1701) are reported after each login and at midnight China time. An urging (0x9401) is stored with its deadline
against the alarm it names (exchange.link.alarm_requests); alarm handlings (alarm_confirm_record, written with
the handling in the API) are polled every ``poll_s`` after a per-platform cursor and reported as 0x1403 (a
forwarded alarm) and 0x1401 (an urged one); the cursor moves only after the frames were written. A stored
inspection is told to the console as push 16 on ``console.events.v1`` (docs/topics.md), so the owner enterprise's
signed-in operators see it at once; a push that cannot be sent is logged, the stored row is what counts (the
console also reads the open inspections at sign-in).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson

from exchange.link import alarm_requests, forward_loop, forwarding, static_info
from exchange.link.backoff import Backoff
from exchange.link.control_commands import ControlCommands
from exchange.link.links import MAIN, SUB, LinkConfig, LinkDown, Links
from exchange.link.resend import SentWindow
from exchange.link.video_requests import VideoRequests, video_address
from exchange.link.wire import PlatformWire
from fleet import topics
from fleet.enums import PushType
from fleet.media_client import MediaClient
from fleet.settings import ExchangeSettings, MediaServerSettings, StackSettings
from protocols.jt809 import CipherKeys, Message
from protocols.jt809 import messages as m
from protocols.jt809.jsonify import body_to_json
from warehouse.db import PooledCalls
from warehouse.queries import exchange as q

log = logging.getLogger(__name__)
POSITION_TYPES = (m.RealTimePosition.DATA_TYPE, m.BackfilledPositions.DATA_TYPE)
COUNT_WINDOW_S = 2 * 3600


def _counters() -> dict[str, Any]:
    return {"state": "disconnected", "since": datetime.now(UTC), "last_heartbeat_at": None, "sent": 0,
            "received": 0, "backfilled": 0, "thinned": 0, "mismatches": 0, "last_error": None}


class PlatformService:
    """One superior platform: links, forwarding, requests, state. ``run()`` until cancelled."""

    def __init__(self, platform: q.SuperiorPlatform, db_url: str, bootstrap: str, settings: ExchangeSettings,
                 kafka_options: dict[str, Any] | None = None, media: MediaClient | None = None) -> None:
        self.platform = platform
        self.db_url = db_url
        self._db = PooledCalls(db_url, name=f"exchange-{platform.id}")  # lookups per record, saves every poll_s
        self.bootstrap = bootstrap
        self.settings = settings
        self.kafka_options = kafka_options or {}
        keys = CipherKeys(platform.m1, platform.ia1, platform.ic1) if platform.encrypted else None
        self.wire = PlatformWire(platform.centre_id, platform.version, keys, platform.encrypt_key)
        config = LinkConfig(platform.host, platform.port, platform.user_id, platform.password, platform.centre_id,
                            platform.down_link_host, platform.down_link_port, settings.heartbeat_s)
        self.links = Links(config, self.wire, self, Backoff(settings.reconnect_min_s, settings.reconnect_max_s))
        self.links_state = {MAIN: _counters(), SUB: _counters()}
        self.thinning = forwarding.Thinning(platform.position_interval_s)
        self.registered: set[int] = set()
        self.logins = 0  # main link logins: what was registered before one is registered again after it
        self.vehicles: dict[int, q.ExchangedVehicle | None] = {}
        self.vehicle_devices: dict[int, int] = {}  # car id -> the device it was looked up with (for reload)
        self.enterprises: frozenset[int] = frozenset()
        self.sent_per_second: collections.Counter[int] = collections.Counter()
        self.unsaved_sent: collections.Counter[int] = collections.Counter()  # sent since the last flush
        self.handling_cursor: int | None = None  # last alarm_confirm_record id reported (loaded in run())
        self.controls = ControlCommands(platform, self.links, self._db, bootstrap, self.kafka_options)
        media = media or MediaClient.from_settings(MediaServerSettings(), StackSettings().var_dir)
        self.videos = VideoRequests(platform, self.links, self._db, self.controls, media,
                                    video_address(settings, media.settings))
        self.log_rows: list[dict[str, Any]] = []
        self.producer: Any = None  # the console events' producer, started by run()

    # --- LinkEvents -----------------------------------------------------------------------------

    def state(self, link: str, state: str, error: str | None = None) -> None:
        row = self.links_state[link]
        if row["state"] != state:
            row["state"], row["since"] = state, datetime.now(UTC)
        if error:
            row["last_error"] = error[:500]
        if link == MAIN and state == "connected":
            self.registered.clear()  # a new login: each vehicle is registered again before its first position
            self.logins += 1
            self.videos.reported_day = None  # and the day's authorisation codes reported again (0x1701)
        log.info("platform %s %s link: %s%s", self.platform.id, link, state, f" ({error})" if error else "")

    def heartbeat(self, link: str) -> None:
        self.links_state[link]["last_heartbeat_at"] = datetime.now(UTC)

    def frame(self, direction: str, link: str, msg_id: int, body: Any, raw: bytes) -> None:
        self.links_state[link]["sent" if direction == "up" else "received"] += 1
        data_type = getattr(body, "data_type", None)
        if msg_id == m.VehicleDynamic.MSG_ID and data_type in POSITION_TYPES:
            return  # positions are counted, not logged (migration 0045)
        decoded = body if isinstance(body, dict) else body_to_json(body)
        self.log_rows.append({"platform_id": self.platform.id, "direction": direction, "link": link,
                              "msg_id": msg_id, "data_type": data_type, "decoded": decoded, "raw_hex": raw.hex()})

    async def request(self, link: str, message: Message) -> None:
        body = message.body
        if message.header.msg_id == m.PlatformExchangeDown.MSG_ID and isinstance(body.data, m.InspectionRequest):
            await self._inspection(message.header.sn, body.data)
        elif isinstance(body, m.AlarmExchangeDown) and isinstance(body.data, m.UrgingRequest):
            await self._urging(message.header.sn, body)
        elif isinstance(getattr(body, "data", None), m.PlatformMessage | m.WarningTip):
            await self._notice(message.header.sn, body)
        elif isinstance(body, m.StaticInfoDown) and body.data_type == static_info.STATIC_INFO_REQUEST:
            await self._static_info(message.header.sn, body)
        elif isinstance(body, m.VehicleControlDown):
            self.controls.enterprises = self.enterprises
            try:
                await self.controls.handle(message.header.sn, body)
            except LinkDown:  # stored; a request answered at once is not answered again
                log.warning("platform %s: control answer for %s not sent: both links down", self.platform.id,
                            body.plate)
        elif isinstance(body, m.RealVideoDown | m.PlaybackDown):
            await self.videos.handle(message.header.sn, body, self.enterprises)
        elif isinstance(body, m.PositionCount):
            self._reconcile(body)

    # --- requests -------------------------------------------------------------------------------

    async def _inspection(self, sn: int, request: m.InspectionRequest) -> None:
        now = datetime.now(UTC)
        deadline = now + timedelta(minutes=request.answer_minutes) if request.answer_minutes else None
        row = {"platform_id": self.platform.id, "enterprise_id": self.platform.enterprise_id,
               "object_type": request.object_type, "object_id": request.object_id, "info_id": request.info_id,
               "source_sn": sn, "question": request.content, "deadline": deadline}
        inspection_id = await asyncio.to_thread(self._db, q.store_inspection, row)
        await self._push_inspection(inspection_id)

    async def _push_inspection(self, inspection_id: int) -> None:
        found = await asyncio.to_thread(self._db, q.inspection_push, inspection_id)
        if found is None or self.producer is None:
            return
        path = found.pop("path")
        data = {k: (v.astimezone(UTC).isoformat().replace("+00:00", "Z") if isinstance(v, datetime) else v)
                for k, v in found.items()}
        event = {"kind": "push", "enterprise_id": self.platform.enterprise_id, "enterprise_path": path,
                 "push": {"type": int(PushType.EXCHANGE_INSPECTION), "data": data}}
        try:
            await self.producer.send_and_wait(topics.CONSOLE_EVENTS, orjson.dumps(event),
                                              key=str(self.platform.enterprise_id).encode())
        except Exception:  # the row is stored: the console finds it when it reads the open inspections
            log.exception("platform %s: inspection %s not pushed to the console", self.platform.id, inspection_id)

    async def _urging(self, sn: int, body: m.AlarmExchangeDown) -> None:
        """0x9401: store the urging with its deadline against the alarm it names (plate and colour, alarm type,
        alarm time). It is answered (0x1401) by _report_handlings once the alarm is handled (at the next poll
        when it already is). An urging that names no alarm of ours is stored unanswered."""
        urging: m.UrgingRequest = body.data
        plate, colour = body.plate or "", body.plate_colour or 0
        candidates = await asyncio.to_thread(
            self._db, q.urged_alarm_candidates, sorted(self.enterprises), plate, colour, urging.warn_time,
            alarm_requests.URGING_TIME_SLACK)
        alarm = alarm_requests.urged_alarm(candidates, urging.warn_type)
        row = {"platform_id": self.platform.id, "enterprise_id": self.platform.enterprise_id,
               "alarm_id": alarm["id"] if alarm else None, "source_sn": sn, "supervision_id": urging.supervision_id,
               "plate": plate, "plate_colour": colour, "warn_src": urging.warn_src, "warn_type": urging.warn_type,
               "warn_time": urging.warn_time, "deadline": urging.end_time, "level": urging.level,
               "supervisor": urging.supervisor, "supervisor_tel": urging.supervisor_tel,
               "supervisor_email": urging.supervisor_email}
        await asyncio.to_thread(self._db, q.store_urging, row)
        if alarm is None:
            log.warning("platform %s: urging %s names no alarm of %s (type %d at %s)", self.platform.id,
                        urging.supervision_id, plate, urging.warn_type, urging.warn_time.isoformat())

    async def _notice(self, sn: int, body: Any) -> None:
        """0x9302 message / 0x9402 warning tip: stored as a notice (exchange_notice, bizType 5 in the console's
        notice list). A message is acknowledged at once with 0x1302 (its INFO_ID): the standard's answer says it
        arrived, not what an operator did with it. 0x1302 is typed in the 2011 layout only: a 2019 link sends none."""
        data = body.data
        tip = isinstance(data, m.WarningTip)
        row = {"platform_id": self.platform.id, "owner": self.platform.enterprise_id,
               "enterprises": sorted(self.enterprises), "data_type": body.data_type, "source_sn": sn,
               "info_id": None if tip else data.info_id, "object_type": None if tip else data.object_type,
               "object_id": None if tip else data.object_id, "plate": body.plate if tip else None,
               "plate_colour": body.plate_colour if tip else None, "warn_src": data.warn_src if tip else None,
               "warn_type": data.warn_type if tip else None, "warn_time": data.warn_time if tip else None,
               "content": data.content}
        notice_id = await asyncio.to_thread(self._db, q.store_notice, row)
        if tip or self.platform.version != "2011":
            return
        try:
            await self.links.send(m.PlatformExchange.MSG_ID, m.PlatformExchange(
                m.PlatformMessageAnswer.DATA_TYPE, m.PlatformMessageAnswer(data.info_id)))
        except LinkDown:
            log.warning("platform %s: 0x1302 for message %d not sent: both links down", self.platform.id,
                        data.info_id)
            return
        await asyncio.to_thread(self._db, q.mark_notice_answered, notice_id)

    async def _static_info(self, sn: int, body: m.StaticInfoDown) -> None:
        """0x9601: answer 0x1601 from the vehicle's records; a vehicle we do not exchange gets none."""
        vehicle = await asyncio.to_thread(self._db, q.static_vehicle, sorted(self.enterprises), body.plate,
                                          body.plate_colour)
        if vehicle is None:
            log.warning("platform %s: static information asked for %s (colour %d), not a vehicle it exchanges",
                        self.platform.id, body.plate, body.plate_colour)
            return
        try:
            await self.links.send(m.StaticInfo.MSG_ID, static_info.answer_body(vehicle, sn, self.platform.version))
        except LinkDown:  # the superior asks again; the request is not stored
            log.warning("platform %s: 0x1601 for %s not sent: both links down", self.platform.id, body.plate)

    async def _report_handlings(self, urgings: list[dict[str, Any]], handlings: list[dict[str, Any]]) -> None:
        """0x1401 for each unanswered urging whose alarm is handled (with the alarm's handling now); then the
        handlings after the cursor: 0x1403 when the alarm was forwarded (in scope, with an upper-platform alarm
        type; in the 2011 layout only, 2019 has no typed 0x1403 yet). An urging is marked answered after its
        frame was written; the cursor is saved once, up to the last handling done (LinkDown stops there)."""
        version = self.platform.version
        for urging in urgings:
            result = alarm_requests.result_of_state(int(urging["state"]))
            if result is None:
                continue
            await self.links.send(m.AlarmExchange.MSG_ID, alarm_requests.urging_answer_body(
                urging["plate"], urging["plate_colour"], urging["supervision_id"], urging["source_sn"], result,
                version))
            await asyncio.to_thread(self._db, q.mark_urging_answered, urging["id"], result)
        start = self.handling_cursor
        try:
            for row in handlings:
                result = alarm_requests.result_of_state(int(row["state"]))
                if row["in_scope"] and result is not None and alarm_requests.forwarded(str(row["key"])) \
                        and version == "2011":
                    await self.links.send(m.AlarmExchange.MSG_ID, alarm_requests.handling_result_body(
                        row["plate"] or "", int(row["colour"] or 0), int(row["alarm_id"]), result, version))
                self.handling_cursor = int(row["record_id"])
        finally:
            if self.handling_cursor is not None and self.handling_cursor != start:
                await asyncio.to_thread(self._db, q.set_handling_cursor, self.platform.id, self.handling_cursor)

    async def _answer_requests(self) -> None:
        """Every poll: what the superior's requests wait for, read in one connection, then the answers."""
        if self.handling_cursor is None:
            self.handling_cursor = await asyncio.to_thread(self._db, q.handling_cursor, self.platform.id)
        pending = await asyncio.to_thread(self._db, q.pending_answers, self.platform.id, self.handling_cursor,
                                          sorted(self.enterprises))
        await self._answer_inspections(pending["inspections"])
        await self._report_handlings(pending["urgings"], pending["handlings"])
        await self.controls.answer_done(pending["controls"])
        await self.videos.answer_done(pending["videos"])

    def _reconcile(self, count: m.PositionCount) -> None:
        """0x9101: compare the superior's count with the positions we sent in its time window. We count per
        second of sending and it counts by receipt, so a count between what we sent strictly inside the window
        and what we sent in it boundary seconds included agrees; anything else is a mismatch."""
        start, end = int(count.start.timestamp()), int(count.end.timestamp())
        inside = sum(n for second, n in self.sent_per_second.items() if start < second < end)
        sent = sum(n for second, n in self.sent_per_second.items() if start <= second <= end)
        if not inside <= count.total <= sent:
            self.links_state[MAIN]["mismatches"] += 1
            log.warning("platform %s: the superior counts %d positions from %d to %d, we sent %d",
                        self.platform.id, count.total, start, end, sent)

    async def _answer_inspections(self, rows: list[dict[str, Any]]) -> None:
        for row in rows:
            answer = m.InspectionAnswer(row["object_type"], row["object_id"], row["answer"] or "",
                                        info_id=row["info_id"], source_data_type=m.InspectionRequest.DATA_TYPE,
                                        source_sn=row["source_sn"])
            await self.links.send(m.PlatformExchange.MSG_ID,
                                  m.PlatformExchange(m.InspectionAnswer.DATA_TYPE, answer))
            await asyncio.to_thread(self._db, q.mark_inspection_sent, row["id"])

    # --- forwarding -----------------------------------------------------------------------------

    async def _vehicle(self, car_id: int, device_id: int) -> q.ExchangedVehicle | None:
        if car_id not in self.vehicles:
            self.vehicles[car_id] = await asyncio.to_thread(self._db, q.vehicle, car_id, device_id)
            self.vehicle_devices[car_id] = device_id
        return self.vehicles[car_id]

    async def _lookup_vehicles(self, wanted: dict[int, int]) -> None:
        """The cars of a record's positions not cached yet, in one query (car id -> device id): every vehicle is
        looked up again after each reload of the platform, and one round trip per vehicle then held the
        forwarding back by seconds at 10,000 vehicles (real-time positions go as they arrive: platform-spec §2
        "Data exchange")."""
        missing = {car: device for car, device in wanted.items() if car not in self.vehicles}
        if missing:
            found = await asyncio.to_thread(self._db, q.vehicles, missing)
            for car in missing:
                self.vehicles[car] = found.get(car)
            self.vehicle_devices.update(missing)

    async def refresh_vehicles(self) -> None:
        """Read every cached vehicle again (plates and colours may have changed) in one query, beside the
        forwarding: emptying the cache instead made the next record of every vehicle wait for a lookup, and at
        2,000 positions a second the forwarding's p99 rose to seconds after each reload (docs/performance.md,
        "JT/T 809 forwarding end to end"). A car deleted since is cached as None (its positions are not forwarded)."""
        wanted = dict(self.vehicle_devices)
        if not wanted:
            return
        found = await asyncio.to_thread(self._db, q.vehicles, wanted)
        # vehicles the forwarding cached while the query ran are kept as they are
        self.vehicles = {**self.vehicles, **{car: found.get(car) for car in wanted}}

    async def _send_positions(self, plan: list[forwarding.Outgoing]) -> None:
        """A record's position frames, a vehicle's first on this login preceded by its 0x1201 registration, written
        to the link as one (``Links.send_all``)."""
        version = self.platform.version
        messages: list[tuple[int, Any]] = []
        registering: set[int] = set()
        fixes = backfilled = 0
        for outgoing in plan:
            vehicle = await self._vehicle(outgoing.car_id, outgoing.device_id)
            if vehicle is None:
                continue
            if outgoing.car_id not in self.registered and outgoing.car_id not in registering:
                messages.append((m.VehicleDynamic.MSG_ID, forwarding.registration_body(
                    vehicle.plate, vehicle.plate_colour, str(self.platform.centre_id), vehicle.phone,
                    vehicle.device_sn, version)))
                registering.add(outgoing.car_id)
            messages.append((m.VehicleDynamic.MSG_ID,
                             forwarding.position_body(vehicle.plate, vehicle.plate_colour, outgoing, version)))
            fixes += len(outgoing.fixes)
            backfilled += len(outgoing.fixes) if outgoing.backfill else 0
        if not messages:
            return
        logins = self.logins
        link = await self.links.send_all(messages)
        if self.logins == logins:  # a login since registers every vehicle again
            self.registered |= registering
        second = int(time.time())
        self.sent_per_second[second] += fixes
        self.unsaved_sent[second] += fixes
        if backfilled:
            self.links_state[link]["backfilled"] += backfilled

    async def handle_record(self, topic: str, value: bytes, resend: bool = False) -> None:
        """Send what one Kafka record gives (``resend``: read again after a link loss, its positions go as
        back-fill). Raises LinkDown when it cannot be sent (nothing to commit)."""
        try:
            parsed = orjson.loads(value)
        except orjson.JSONDecodeError:
            return
        if topic == topics.JT808_UPLINK:
            fixes = forwarding.position_fixes(parsed, self.enterprises)
            plan, thinned = forwarding.plan_positions(fixes, self.thinning, datetime.now(UTC),
                                                      self.settings.backfill_after_s, resend)
            self.links_state[MAIN]["thinned"] += thinned
            await self._lookup_vehicles({outgoing.car_id: outgoing.device_id for outgoing in plan})
            await self._send_positions(plan)
        elif topic == topics.CONSOLE_EVENTS:
            alarm = forwarding.alarm_of(parsed, self.enterprises)
            if alarm is None:
                return
            vehicle = await self._vehicle(alarm.car_id, 0)
            colour = vehicle.plate_colour if vehicle else alarm.plate_colour
            await self.links.send(m.AlarmExchange.MSG_ID, forwarding.alarm_body(
                alarm, colour, str(self.platform.centre_id), self.platform.version))

    async def _forward(self) -> None:
        from aiokafka import AIOKafkaConsumer

        consumer = AIOKafkaConsumer(
            topics.JT808_UPLINK, topics.CONSOLE_EVENTS, bootstrap_servers=self.bootstrap,
            group_id=f"fleet-exchange-{self.platform.id}", enable_auto_commit=False,
            auto_offset_reset=self.settings.offset_reset, **self.kafka_options)
        await consumer.start()
        window: SentWindow[Any] = SentWindow(self.settings.resend_window_s, self.settings.resend_window_bytes)
        try:
            await forward_loop.forward(consumer, self.links, window,
                                       lambda record, resend: self.handle_record(record.topic, record.value, resend),
                                       f"platform {self.platform.id}")
        finally:
            await consumer.stop()

    # --- housekeeping ---------------------------------------------------------------------------

    def _save(self, conn: Any, states: dict[str, dict[str, Any]], rows: list[dict[str, Any]],
              sent: dict[int, int], oldest: int) -> None:
        for link, state in states.items():
            q.save_link_state(conn, self.platform.id, link, state)
        q.log_messages(conn, rows)
        q.save_sent_counts(conn, self.platform.id, sent, oldest)

    async def flush(self) -> None:
        """Save the links' state (counts as increments), the logged frames and the positions sent per second
        (put back when the database does not take them, so the next flush saves them)."""
        states = {}
        for link, row in self.links_state.items():
            states[link] = dict(row)
            for key in ("sent", "received", "backfilled", "thinned", "mismatches"):
                row[key] = 0
        rows, self.log_rows = self.log_rows, []
        oldest = int(time.time()) - COUNT_WINDOW_S
        for second in [s for s in self.sent_per_second if s < oldest]:
            del self.sent_per_second[second]
        sent, self.unsaved_sent = self.unsaved_sent, collections.Counter()
        try:
            await asyncio.to_thread(self._db, self._save, states, rows, dict(sent), oldest)
        except BaseException:
            self.unsaved_sent.update(sent)
            raise

    async def _housekeeping(self) -> None:
        reload_at = prune_at = 0.0
        while True:
            try:
                if time.monotonic() >= reload_at:
                    self.enterprises = await asyncio.to_thread(self._db, q.exchanged_enterprises, self.platform)
                    await self.refresh_vehicles()
                    reload_at = time.monotonic() + self.settings.reload_s
                if time.monotonic() >= prune_at:  # the message log keeps FLEET_EXCHANGE_MESSAGE_LOG_DAYS
                    await asyncio.to_thread(self._db, q.prune_messages, self.settings.message_log_days)
                    prune_at = time.monotonic() + 3600
                await self.flush()
                if self.links.is_up():
                    await self.videos.report_codes()
                    await self._answer_requests()
            except LinkDown:
                pass
            except Exception:  # the database may be away for a while: the links keep running
                log.exception("platform %s: housekeeping failed", self.platform.id)
            await asyncio.sleep(self.settings.poll_s)

    async def _start_producer(self) -> None:
        from aiokafka import AIOKafkaProducer

        producer = AIOKafkaProducer(bootstrap_servers=self.bootstrap, acks="all", linger_ms=0,
                                    client_id=f"fleet-exchange-{self.platform.id}", **self.kafka_options)
        await producer.start()
        self.producer = producer

    async def run(self) -> None:
        async with self._db.kept():
            self.enterprises = await asyncio.to_thread(self._db, q.exchanged_enterprises, self.platform)
            since = int(time.time()) - COUNT_WINDOW_S
            saved = await asyncio.to_thread(self._db, q.sent_counts, self.platform.id, since)
            self.sent_per_second.update(saved)  # what an earlier process sent, for the first 0x9101
            self.handling_cursor = await asyncio.to_thread(self._db, q.handling_cursor, self.platform.id)
            await self._start_producer()
            tasks = [asyncio.create_task(self.links.run()), asyncio.create_task(self._forward()),
                     asyncio.create_task(self._housekeeping())]
            try:
                done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
                for task in done:
                    task.result()
            finally:
                for task in tasks:
                    task.cancel()
                with contextlib.suppress(Exception):
                    await self.flush()
                with contextlib.suppress(Exception):
                    await self.controls.stop()
                if self.producer is not None:
                    with contextlib.suppress(Exception):
                        await self.producer.stop()
