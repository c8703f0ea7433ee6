"""The Faust app factory: ``create_app(settings, kafka_bootstrap, db_url)``.

The agents, timers and the live-flush task (see streams/README.md):

- ``uplinks``  jt808.uplink.v1, in batches; each uplink is parsed once, then the declared steps
               (streams.uplinks.STEPS: live, positions, states, alarms, fences, commands, media, alarm_files,
               driver_events, message_log) under one failure policy (streams.pipeline)
- ``gb_uplinks`` gb32960.uplink.v1 (GB/T 32960 / GB 17691 terminals), in batches, through the same runner:
               streams.gb_uplinks.GB_STEPS (positions, live map, charging sessions, nev_state, alarms)
- ``sessions`` device.sessions.v1 -> device state, online log, pushes type 1 (and 6)
- ``sent``     jt808.sent.v1 -> command sent / failed (streams.commands), then the message log
- timers: ``no-signal`` (states), ``command-timeouts``,
          ``fence-sync`` (terminal fences to terminals, streams.fence_sync)
- task ``live-flush``: live positions to the map as the takes bring them, at most once per live_coalesce_ms

Until 2026-11 positions, states and live positions were three agents each consuming (and parsing) every
uplink; Faust's per-event cost and the JSON decoding were paid three times (docs/performance.md).

Delivery: both agents iterate without auto-acks (``streams.take``: Faust's noack_take, its window
only when busy) and ack an event only after every database write of its batch committed and its dead
letters were handed to the producer; Faust commits only acked offsets (contiguously) and flushes the
producer before committing. A crash therefore
replays from the last commit, and the idempotent sinks absorb the replay.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo

import faust

from fleet.kafka_clients import faust_credentials
from fleet.settings import (
    AttachmentsSettings,
    CommandsSettings,
    KafkaSettings,
    ReportSettings,
    StreamsSettings,
)
from fleet.topics import (
    CONSOLE_EVENTS,
    DEAD_LETTER,
    DEVICE_SESSIONS,
    GB32960_UPLINK,
    JT808_DOWNLINK,
    JT808_SENT,
    JT808_UPLINK,
)
from streams import message_log
from streams.alarm_commands import AttachmentRequests
from streams.alarms import AlarmsStep
from streams.commands import CommandsProcessor, parse_sent
from streams.db import Database
from streams.deadletter import DeadLetters, Send
from streams.directory import Directory
from streams.fence_sync import FenceSync
from streams.fences import FenceStep
from streams.gb_alarms import GbAlarms
from streams.gb_uplinks import GbUplinksProcessor
from streams.live import LivePositions
from streams.messages import PayloadError, load_json_object
from streams.positions import PositionsProcessor
from streams.records import expand
from streams.state_rules import Rules
from streams.states import StatesProcessor, StateStore
from streams.take import take
from streams.uplinks import UplinksProcessor
from streams.validation import Limits
from warehouse.partitions import PARENT as GPS
from warehouse.partitions import DayPartitions

log = logging.getLogger(__name__)


@dataclass
class Components:
    """What the agents run, exposed for tests and the benchmark (``app.fleet``)."""

    positions: PositionsProcessor
    states: StatesProcessor
    live: LivePositions
    store: StateStore
    uplinks: UplinksProcessor
    commands: CommandsProcessor
    gb: GbUplinksProcessor


def _database(settings: StreamsSettings, db_url: str, name: str) -> Database:
    return Database(db_url, name=name, max_backoff_s=settings.retry_max_backoff_s)


def build_components(settings: StreamsSettings, db_url: str, send: Send, commands: CommandsSettings,
                     attachments: AttachmentsSettings) -> Components:
    """The processors and the uplink pipeline's resources (streams.uplinks.STEPS), each with its own
    connection: one async connection's transactions must not interleave between agents."""
    limits = Limits(max_future_s=settings.max_future_s, max_speed_kmh=settings.max_speed_kmh,
                    max_past_s=settings.max_past_h * 3600, max_implied_speed_kmh=settings.max_implied_speed_kmh,
                    teleport_min_km=settings.teleport_min_km)
    rules = Rules(no_signal_after_s=settings.no_signal_after_s,
                  driving_min_speed_kmh=settings.driving_min_speed_kmh)

    def database(name: str) -> Database:
        return _database(settings, db_url, name)

    states_db = database("states")
    directory = Directory(database("directory"))
    store = StateStore(states_db)
    positions_p = PositionsProcessor(database("positions"), DayPartitions(db_url, GPS),
                                     DeadLetters(send, "positions"), limits, ZoneInfo(ReportSettings().tz))
    states_p = StatesProcessor(states_db, store, directory, send, DeadLetters(send, "states"), rules, limits)
    live_p = LivePositions(directory, send, limits, rules, store, window_s=settings.live_coalesce_ms / 1000.0)
    uplinks = UplinksProcessor(positions_p, states_p, live_p, max_backoff_s=settings.retry_max_backoff_s)
    if settings.message_log_enabled:
        uplinks.message_log_db = database("message-log")
    uplinks.commands = CommandsProcessor(database("commands"), Directory(database("commands-directory")), send,
                                         timeout_s=commands.timeout_s)
    if settings.alarms_enabled:  # step alarms (streams.alarms); 0x9208 through the command path
        alarms_db = database("alarms")
        uplinks.alarms = AlarmsStep(alarms_db, send, directory, request_attachments=AttachmentRequests(
            alarms_db, send, attachments.public_host, attachments.port, attachments.request_ttl_s).request)
    if settings.fences_enabled:  # step fences (streams.fences); 0x8300 TTS through the command path
        uplinks.fences = FenceStep(database("fences"), send, reload_s=settings.fences_reload_s)
    # gb32960.uplink.v1: its own positions processor (connection, dead letters "gb_positions"), the same live map
    gb_positions = PositionsProcessor(database("gb-positions"), DayPartitions(db_url, GPS),
                                      DeadLetters(send, "gb_positions"), limits, ZoneInfo(ReportSettings().tz))
    gb_alarms = GbAlarms(database("gb-alarms"), send) if settings.alarms_enabled else None
    gb = GbUplinksProcessor(gb_positions, live_p, database("gb-state"), gb_alarms, send, states=states_p,
                            max_backoff_s=settings.retry_max_backoff_s)
    gb.commands = uplinks.commands
    if settings.message_log_enabled:
        gb.message_log_db = database("gb-message-log")
    return Components(positions=positions_p, states=states_p, live=live_p, store=store, uplinks=uplinks,
                      commands=uplinks.commands, gb=gb)


def _faust_app(settings: StreamsSettings, kafka_bootstrap: str, kafka: KafkaSettings) -> faust.App:
    return faust.App(
        settings.app_id,
        broker=[f"kafka://{host.strip()}" for host in kafka_bootstrap.split(",") if host.strip()],
        broker_credentials=faust_credentials(kafka),
        store="memory://",
        autodiscover=False,
        datadir=str(settings.data_dir),
        web_enabled=settings.web_enabled,
        web_port=settings.web_port,
        web_bind="127.0.0.1",
        topic_partitions=kafka.topic_partitions,
        consumer_auto_offset_reset=settings.auto_offset_reset,
        producer_acks=-1,
        broker_commit_interval=1.0,
        broker_commit_every=5000,
        broker_session_timeout=settings.session_timeout_s,
        broker_heartbeat_interval=min(3.0, settings.session_timeout_s / 3),
        key_serializer="raw",
        value_serializer="raw",
    )


def create_app(settings: StreamsSettings, kafka_bootstrap: str, db_url: str,
               kafka: KafkaSettings | None = None, commands: CommandsSettings | None = None,
               attachments: AttachmentsSettings | None = None) -> faust.App:
    """A new, unstarted Faust app wired to the given Kafka and database. Reads no environment."""
    kafka = kafka or KafkaSettings()
    commands = commands or CommandsSettings()
    attachments = attachments or AttachmentsSettings()
    app = _faust_app(settings, kafka_bootstrap, kafka)
    topics = {name: app.topic(name, key_type=bytes, value_type=bytes, partitions=kafka.topic_partitions)
              for name in (JT808_UPLINK, DEVICE_SESSIONS, CONSOLE_EVENTS, DEAD_LETTER, JT808_SENT,
                           JT808_DOWNLINK, GB32960_UPLINK)}

    async def send(topic: str, key: bytes | None, value: bytes) -> None:
        await topics[topic].send(key=key, value=value)

    parts = build_components(settings, db_url, send, commands, attachments)
    commands_p = parts.commands
    app.fleet = parts  # type: ignore[attr-defined]

    @app.agent(topics[JT808_UPLINK], name="uplinks")
    async def uplinks(stream: Any) -> None:
        # A record holds one uplink or a batch of them (docs/topics.md): the steps see uplinks, at most
        # batch_size at a time; the records are acked once every uplink of the take is done.
        size = settings.batch_size
        async for events in take(stream, settings.batch_records, settings.batch_window_s, settings.batch_idle_s):
            expanded = expand(events)
            for start in range(0, len(expanded), size):
                await parts.uplinks.process(expanded[start:start + size])
            for event in events:
                await stream.ack(event)

    @app.agent(topics[GB32960_UPLINK], name="gb_uplinks")
    async def gb_uplinks(stream: Any) -> None:
        # the same delivery as uplinks: batches expanded, acked once every frame of the take is done
        size = settings.batch_size
        async for events in take(stream, settings.batch_records, settings.batch_window_s, settings.batch_idle_s):
            expanded = expand(events)
            for start in range(0, len(expanded), size):
                await parts.gb.process(expanded[start:start + size])
            for event in events:
                await stream.ack(event)

    @app.agent(topics[DEVICE_SESSIONS], name="sessions")
    async def sessions(stream: Any) -> None:
        # a take's events in one transaction (StatesProcessor.handle_sessions); a bug in it redoes the take
        # event by event, so only the event that trips it is parked
        async for events in take(stream, settings.batch_size, settings.batch_window_s, settings.batch_idle_s):
            try:
                await parts.states.handle_sessions(events)
            except Exception:
                log.exception("sessions: batch failed; handling event by event")
                for event in events:
                    try:
                        await parts.states.handle(event)
                    except Exception as exc:  # a bug, not data or an outage: park the event, keep going
                        log.exception("sessions: event failed")
                        await parts.states.dead_letters(event, f"internal error: {exc!r}")
            for event in events:
                await stream.ack(event)

    @app.agent(topics[JT808_SENT], name="sent")
    async def sent(stream: Any) -> None:
        # the gateway's sent records: command state (streams.commands), then the message log
        sent_dead = DeadLetters(send, "sent")
        # its own connection: one async connection's transactions must not interleave between agents
        sent_log_db = _database(settings, db_url, "sent-log")
        async for events in take(stream, settings.batch_size, settings.batch_window_s, settings.batch_idle_s):
            values, records = [], []
            for event in events:
                try:
                    value = load_json_object(event.value)
                    record = parse_sent(value)
                except PayloadError as exc:
                    await sent_dead(event, str(exc))
                    continue
                values.append(value)
                if record is not None:
                    records.append(record)
            try:
                await commands_p.apply_sent(records)
            except Exception:  # a bug, not data or an outage: the commands time out instead
                log.exception("sent: batch failed")
            if values and settings.message_log_enabled:
                try:
                    await message_log.store_downlinks(sent_log_db, values)
                except Exception:
                    log.exception("message log: sent batch skipped")
            for event in events:
                await stream.ack(event)

    @app.timer(commands.sweep_interval_s, name="command-timeouts")
    async def command_timeouts() -> None:
        try:
            await commands_p.check_timeouts()
        except Exception:
            log.exception("command timeouts check failed")

    fence_sync = FenceSync(_database(settings, db_url, "fence-sync"), send)

    @app.timer(settings.fence_sync_interval_s, name="fence-sync")
    async def fence_sync_tick() -> None:
        try:
            await fence_sync.tick()
        except Exception:
            log.exception("fence sync failed")

    @app.task
    async def live_flush() -> None:  # flushes as fixes arrive, at most once per live_coalesce_ms (streams.live)
        await parts.live.run()

    @app.timer(max(1.0, min(30.0, settings.no_signal_after_s / 4)), name="no-signal")
    async def no_signal() -> None:
        try:
            await parts.states.check_no_signal()
        except Exception:
            log.exception("no-signal check failed")

    async def forget_states(sender: Any, /, *args: Any, signal: Any, **kwargs: Any) -> None:
        parts.store.clear()  # another worker may own these devices now; re-seed on next sight
        parts.positions.teleports.forget()  # their last plausible fixes re-read from device_last
        if parts.uplinks.alarms is not None:
            parts.uplinks.alarms.clear()  # alarm bits rebuilt from the open alarm rows
        if parts.uplinks.fences is not None:
            parts.uplinks.fences.clear()  # fence states read again from fence_vehicle_state
        parts.gb.positions.teleports.forget()
        if parts.gb.alarms is not None:
            parts.gb.alarms.clear()  # open GB alarm keys rebuilt from the open type-9 rows

    app.on_partitions_revoked.connect(forget_states)
    return app
