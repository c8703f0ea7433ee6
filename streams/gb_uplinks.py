"""The gb_uplinks agent's body: the declared steps a batch of ``gb32960.uplink.v1`` records goes through,
run by the same runner as the 808 steps (streams.pipeline.Pipeline: one parse per record, one failure
policy, dead letters under the step's name; streams/README.md).

The parse (``parse_gb``) reads each record once (streams.gb_frames) and plans its fix; a record that does
not parse, or whose position is out of range, is a refusal dead-lettered by step ``gb_positions``.

1. gb_assess    teleports flagged, flagged fixes counted (a view, as ``assess``).
2. gb_live      the valid fixes into the live map's coalescer (a view, as ``live``).
3. gb_positions gps + device_last (the 808 path's statements), then the refusals dead-lettered.
4. gb_transitions ACC / business-state transitions of the real-time fixes (the 808 ``states`` step's
                processor: acc_state_log, biz_state_log, the device's state, pushes 1 / 6).
5. gb_charging  charging sessions (streams.gb_charging), before gb_state, whose vehicle time is its mark.
6. gb_state     nev_state (newest block wins) and nev_reading (chart readings), one transaction.
7. gb_alarms    general alarm flags and fault lists -> alarm rows of type 9, push 2 (streams.gb_alarms).
8. gb_commands  a terminal's answers to parameter query / set and terminal control (0x80 / 0x81 / 0x82)
                -> the command row answered, push 11 (streams.commands, the one command path).
9. gb_message_log every frame (raw and decoded) into message_log under its protocol (streams.message_log);
                off with the 808 steps' ``message_log_enabled=false``.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from datetime import tzinfo
from typing import Any

import psycopg

from streams import message_log
from streams.commands import GB_PLATFORM_COMMANDS, CommandsProcessor, gb_answer_of
from streams.db import DATA_ERRORS, Database
from streams.deadletter import DeadLetters, EventLike, Send
from streams.gb_alarms import GbAlarms
from streams.gb_charging import marks_from_rows, plan_sessions
from streams.gb_frames import DATA_COMMANDS, GbFrame, parse_frames
from streams.live import LivePositions
from streams.messages import PayloadError
from streams.pipeline import Batch, Pipeline, Step
from streams.positions import PlannedBatch, PositionsProcessor
from streams.states import StatesProcessor
from streams.validation import Limits
from warehouse.queries import gb_states

log = logging.getLogger(__name__)


def parse_gb(values: Sequence[Any], limits: Limits, zone: tzinfo) -> tuple[list[Any], PlannedBatch]:
    """The pipeline's parse for gb32960.uplink.v1: frames (or PayloadErrors) and their fixes' plan. A real-time
    frame's states fix (its fix, or an unpositioned one when it has no valid position: ACC from the vehicle
    status, business state from speed) goes to the states unless its time is flagged; a back-filled frame's
    does not (its vehicle has moved on since)."""
    frames = parse_frames(values, limits)
    plan = PlannedBatch()
    for index, frame in enumerate(frames):
        if isinstance(frame, PayloadError):
            plan.fixes_by_event.append([])
            plan.state_fixes_by_event.append([])
            plan.rejects.append((index, str(frame)))
        else:
            fix, state_fix = frame.fix, frame.state_fix
            plan.fixes_by_event.append([fix] if fix is not None else [])
            plan.state_fixes_by_event.append(
                [state_fix] if state_fix is not None and not state_fix.quality and not frame.backfilled else [])
    return list(frames), plan


class GbUplinksProcessor:
    """The resources of the GB steps (each its own connection) and the pipeline over ``GB_STEPS``."""

    def __init__(self, positions: PositionsProcessor, live: LivePositions, db: Database, alarms: GbAlarms | None,
                 send: Send, *, states: StatesProcessor | None = None, max_backoff_s: float = 10.0) -> None:
        self.positions, self.live, self.db, self.alarms, self.states = positions, live, db, alarms, states
        self.transition_letters = DeadLetters(send, "gb_transitions")
        # Step gb_message_log's connection; None: frames not kept (FLEET_STREAMS_MESSAGE_LOG_ENABLED false).
        self.message_log_db: Database | None = None
        self.phones = message_log.DevicePhones()
        self.commands: CommandsProcessor | None = None  # step gb_commands; the app sets it
        self.pipeline = Pipeline(GB_STEPS, self, send, positions.limits, positions.zone,
                                 max_backoff_s=max_backoff_s, parse=parse_gb)

    async def process(self, events: Sequence[EventLike]) -> None:
        await self.pipeline.process(events)


def _frames(batch: Batch) -> list[GbFrame]:
    return [f for f in batch.uplinks if isinstance(f, GbFrame) and f.state and f.collected_at is not None]


async def _assess(p: GbUplinksProcessor, batch: Batch) -> None:
    await p.positions.assess(batch.plan)


async def _live(p: GbUplinksProcessor, batch: Batch) -> None:
    p.live.add_fixes(batch.plan.fixes)


async def _positions(p: GbUplinksProcessor, batch: Batch) -> None:
    await p.positions.process_planned(batch.events, batch.plan)


async def _transitions(p: GbUplinksProcessor, batch: Batch) -> None:
    if p.states is not None:
        await p.states.handle_uplinks(batch.events, batch.plan.state_fixes_by_event, dead_letters=p.transition_letters)


Write = Callable[[psycopg.AsyncConnection[Any], list[GbFrame]], Awaitable[None]]


async def _by_device(p: GbUplinksProcessor, batch: Batch, frames: list[GbFrame], step: str, write: Write) -> None:
    """``write`` the frames in one transaction; when the database refuses the batch's data (a device or
    enterprise deleted meanwhile), device by device, so only the refused device's records are dead-lettered
    for this step (replayable) and the others are stored."""
    try:
        await p.db.transact(lambda conn: write(conn, frames))
        return
    except DATA_ERRORS as exc:
        log.info("%s: batch refused (%s); writing device by device", step, exc)
    by_device: dict[int, list[GbFrame]] = {}
    for frame in frames:
        by_device.setdefault(frame.device_id, []).append(frame)
    for device_id, own in by_device.items():
        try:
            await p.db.transact(lambda conn, own=own: write(conn, own))  # type: ignore[misc]
        except DATA_ERRORS as exc:
            for index, item in enumerate(batch.uplinks):
                if isinstance(item, GbFrame) and item.device_id == device_id:
                    batch.refuse(index, f"{step} refused by the database: {exc}")


async def _write_sessions(conn: psycopg.AsyncConnection[Any], frames: list[GbFrame]) -> None:
    devices = sorted({f.device_id for f in frames})
    marks = marks_from_rows(await gb_states.charging_marks_async(conn, devices))
    sessions = plan_sessions(frames, marks)
    await gb_states.upsert_sessions_async(conn, [s.row() for s in sessions])


async def _charging(p: GbUplinksProcessor, batch: Batch) -> None:
    frames = [f for f in _frames(batch) if "vehicle" in f.state]
    if frames:
        await _by_device(p, batch, frames, "gb_charging", _write_sessions)


def state_rows(frames: Sequence[GbFrame]) -> list[dict[str, Any]]:
    """One nev_state row per device: the head of its newest frame, each block from the newest frame with it."""
    rows: dict[int, dict[str, Any]] = {}
    for frame in sorted(frames, key=lambda f: (f.device_id, f.collected_at)):
        record = frame.uplink
        row = rows.setdefault(frame.device_id, {})
        row.update(device_id=record.device_id, car_id=record.car_id, enterprise_id=record.enterprise_id,
                   protocol=record.protocol, frame_protocol=record.frame_protocol, vin=record.vin,
                   collected_at=frame.collected_at, received_at=frame.received_at)
        for block, columns in frame.state.items():
            row[f"{block}_at"] = frame.collected_at
            row.update(columns)
    return list(rows.values())


def reading_rows(frames: Sequence[GbFrame]) -> list[tuple[Any, ...]]:
    """nev_reading rows (warehouse.queries.gb_states.READING_COLUMNS) of frames with a vehicle or data-stream block."""
    out: dict[tuple[int, Any], tuple[Any, ...]] = {}
    for f in frames:
        vehicle, stream = f.state.get("vehicle"), f.state.get("stream")
        if vehicle is None and stream is None:
            continue
        v, s = vehicle or {}, stream or {}
        out[(f.device_id, f.collected_at)] = (
            f.device_id, f.collected_at, f.car_id, f.enterprise_id, v.get("soc_pct"), v.get("total_voltage_v"),
            v.get("total_current_a"), s.get("nox_upstream_ppm"), s.get("nox_downstream_ppm"),
            s.get("reagent_level_pct"))
    return list(out.values())


async def _write_state(conn: psycopg.AsyncConnection[Any], frames: list[GbFrame]) -> None:
    await gb_states.upsert_states_async(conn, state_rows(frames))
    await gb_states.insert_readings_async(conn, reading_rows(frames))


async def _state(p: GbUplinksProcessor, batch: Batch) -> None:
    frames = _frames(batch)
    if frames:
        await _by_device(p, batch, frames, "gb_state", _write_state)


async def _alarms(p: GbUplinksProcessor, batch: Batch) -> None:
    if p.alarms is not None:
        await p.alarms.handle(batch.uplinks, batch.refuse)


async def _commands(p: GbUplinksProcessor, batch: Batch) -> None:
    if p.commands is None:
        return
    answers = [a for a in (gb_answer_of(f.uplink, f.received_at) for f in batch.uplinks if isinstance(f, GbFrame))
               if a is not None]
    await p.commands.handle_gb_answers(answers)


async def _message_log(p: GbUplinksProcessor, batch: Batch) -> None:
    if p.message_log_db is not None:
        await message_log.store_gb_uplinks(p.message_log_db, p.phones, batch.uplinks)


GB_STEPS: list[Step] = [
    Step("gb_assess", _assess, view=True),
    Step("gb_live", _live, view=True),
    Step("gb_positions", _positions),
    Step("gb_transitions", _transitions, DATA_COMMANDS),
    Step("gb_charging", _charging, DATA_COMMANDS),
    Step("gb_state", _state, DATA_COMMANDS),
    Step("gb_alarms", _alarms, DATA_COMMANDS),
    Step("gb_commands", _commands, GB_PLATFORM_COMMANDS),
    Step("gb_message_log", _message_log),
]
