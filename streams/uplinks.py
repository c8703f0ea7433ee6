"""The uplinks agent's body: the declared steps a batch of ``jt808.uplink.v1`` events goes through.

``STEPS`` is the pipeline as data: one line per step (its name, the message ids it takes, a view or not),
run in order by streams.pipeline.Pipeline, which parses each uplink once, plans the positions
(``plan_decoded``, pure: the fixes to store and the refusals) and applies one failure policy to every step
(bad data dead-lettered with the step and the reason; an outage retried and the batch not acknowledged; a
bug dead-letters the step's events with the traceback, counted and replayable with ``fleet deadletters
replay --step NAME``). To add a step: streams/README.md, "Adding a step".

1. assess         teleports flagged, flagged fixes counted (streams.plausibility; a view: a failure
                  stores the batch unassessed).
2. live           plausible fixes into the live coalescer (a view: not waiting for the database; business
                  state as the states step knows it so far).
3. positions      gps + device_last in one transaction, then the refusals dead-lettered.
4. states         ACC / business transitions of the batch, one pipelined transaction, then pushes.
5. alarms         alarm episodes / events -> alarm rows, pushes 2 / 13, 0x9208 (streams.alarms).
5b. fences        platform fences and the terminal's area items -> type-4 alarm rows, push 2, 0x8300 TTS
                  to the driver (streams.fences).
6. commands       replies (0x0001, 0x0104, 0x0201, 0x0802, 0x0805, 0x1205) matched to commands.
7. media          0x0801 records -> device_upload_file rows, pushes 9 and 10 (streams.media).
8. alarm_files    0x1212 alarm attachments -> device_upload_file rows, alarm.atted (streams.alarm_files).
9. driver_events  0x0702 IC card sign-in / sign-out -> driver_event rows (streams.driver_events).
10. message_log   every uplink (raw and decoded) into message_log, one statement (streams.message_log).

``process`` returns only when every step took the batch; the caller then acks the events.
"""

from __future__ import annotations

from collections.abc import Sequence

from protocols.jt808.catalogue import (
    ATTACHMENT_FILE_DONE,
    BATCH_LOCATION_UPLOAD,
    DRIVER_IDENTITY,
    LOCATION_QUERY_RESPONSE,
    LOCATION_REPORT,
    MEDIA_UPLOAD,
    TERMINAL_RESPONSE,
    VEHICLE_CONTROL_RESPONSE,
)
from streams import alarm_files, driver_events, media, message_log
from streams.alarms import AlarmsStep
from streams.commands import OWN_REPLIES, CommandsProcessor
from streams.db import Database
from streams.deadletter import EventLike
from streams.fences import FenceStep
from streams.live import LivePositions
from streams.pipeline import Batch, Pipeline, Step
from streams.positions import PositionsProcessor
from streams.states import StatesProcessor

# the uplinks that carry fixes (streams.positions.plan_decoded)
FIXES = frozenset((LOCATION_REPORT, BATCH_LOCATION_UPLOAD, LOCATION_QUERY_RESPONSE, VEHICLE_CONTROL_RESPONSE))


class UplinksProcessor:
    """The resources the steps use (the app sets the optional ones) and the pipeline over ``STEPS``."""

    # Step message_log's connection; None: frames not kept (FLEET_STREAMS_MESSAGE_LOG_ENABLED false).
    message_log_db: Database | None = None
    commands: CommandsProcessor | None = None  # step commands; the app sets it
    alarms: AlarmsStep | None = None  # step alarms; None with FLEET_STREAMS_ALARMS_ENABLED false
    fences: FenceStep | None = None  # step fences; None with FLEET_STREAMS_FENCES_ENABLED false

    def __init__(self, positions: PositionsProcessor, states: StatesProcessor, live: LivePositions, *,
                 max_backoff_s: float = 10.0) -> None:
        self.positions, self.states, self.live = positions, states, live
        self.pipeline = Pipeline(STEPS, self, states.send, positions.limits, positions.zone,
                                 max_backoff_s=max_backoff_s)

    async def process(self, events: Sequence[EventLike]) -> None:
        await self.pipeline.process(events)


async def _assess(p: UplinksProcessor, batch: Batch) -> None:
    await p.positions.assess(batch.plan)  # teleports flagged before the live map sees them


async def _live(p: UplinksProcessor, batch: Batch) -> None:
    p.live.add_fixes(batch.plan.fixes)


async def _positions(p: UplinksProcessor, batch: Batch) -> None:
    await p.positions.process_planned(batch.events, batch.plan)


async def _states(p: UplinksProcessor, batch: Batch) -> None:
    await p.states.handle_uplinks(batch.events, batch.plan.state_fixes_by_event)


async def _alarms(p: UplinksProcessor, batch: Batch) -> None:
    if p.alarms is not None:
        await p.alarms.handle(batch.uplinks, batch.plan.fixes_by_event, refuse=batch.refuse)


async def _fences(p: UplinksProcessor, batch: Batch) -> None:
    if p.fences is not None:
        await p.fences.run(batch.uplinks, batch.plan.fixes_by_event)


async def _commands(p: UplinksProcessor, batch: Batch) -> None:
    if p.commands is not None:
        await p.commands.handle_uplinks(batch.uplinks)


async def _media(p: UplinksProcessor, batch: Batch) -> None:
    await media.store_uploads(p.positions.db, p.states.directory, p.states.send, batch.uplinks)


async def _alarm_files(p: UplinksProcessor, batch: Batch) -> None:
    await alarm_files.store_files(p.positions.db, batch.uplinks)


async def _driver_events(p: UplinksProcessor, batch: Batch) -> None:
    await driver_events.step(p.positions.db, batch.uplinks)


async def _message_log(p: UplinksProcessor, batch: Batch) -> None:
    if p.message_log_db is not None:
        await message_log.store_uplinks(p.message_log_db, batch.uplinks)


STEPS: list[Step] = [
    Step("assess", _assess, FIXES, view=True),
    Step("live", _live, FIXES, view=True),
    Step("positions", _positions),
    Step("states", _states),
    Step("alarms", _alarms, FIXES),
    Step("fences", _fences, FIXES),
    Step("commands", _commands, frozenset((TERMINAL_RESPONSE, *OWN_REPLIES))),
    Step("media", _media, frozenset((MEDIA_UPLOAD,))),
    Step("alarm_files", _alarm_files, frozenset((ATTACHMENT_FILE_DONE,))),
    Step("driver_events", _driver_events, frozenset((DRIVER_IDENTITY,))),
    Step("message_log", _message_log),
]
