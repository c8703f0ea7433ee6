"""The uplinks agent's body: one batch of ``jt808.uplink.v1`` events through ordered steps.

Each uplink is parsed once (``decode_batch``) and the result shared by the steps, in this order:

1. ``plan_decoded``       pure: the positions to store and the refusals (streams.validation).
1b. assess                teleports flagged, flagged fixes counted (streams.plausibility).
2. live                   plausible fixes into the live coalescer (a view: at-least-once, not waiting for the
                          database; business state as the states step knows it so far).
3. positions              gps + device_last in one transaction, then the refusals dead-lettered.
4. states                 ACC / business transitions of the batch, one pipelined transaction, then pushes.
4s. alarms                alarm episodes / events -> alarm rows, pushes 2 / 13, 0x9208 (streams.alarms).
4a. commands              replies (0x0001, 0x0104, 0x0201, 0x0802, 0x0805) matched to commands (streams.commands).
4b. media                 0x0801 records -> device_upload_file rows, pushes 9 and 10 (streams.media).
4c. alarm files           0x1212 alarm attachments -> device_upload_file rows, alarm.atted (streams.alarm_files).
4d. driver events         0x0702 IC card sign-in / sign-out -> driver_event rows (streams.driver_events).
5. message log            every uplink (raw and decoded) into message_log, one statement (streams.message_log).

Returns only when every write of the batch committed; the caller then acks the events. A step that fails
with a bug (not data, not an outage; those are handled inside) parks its events as dead letters of that
step and the others still run, as the three separate agents did.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from streams import alarm_files, driver_events, media, message_log
from streams.alarms import AlarmsStep
from streams.commands import CommandsProcessor
from streams.db import Database
from streams.deadletter import EventLike
from streams.live import LivePositions
from streams.messages import PayloadError
from streams.positions import PositionsProcessor, decode_batch, plan_decoded
from streams.states import StatesProcessor

log = logging.getLogger(__name__)


class UplinksProcessor:
    # Step 5's connection (streams.message_log); None: frames not kept (the app sets it unless
    # FLEET_STREAMS_MESSAGE_LOG_ENABLED is false).
    message_log_db: Database | None = None
    commands: CommandsProcessor | None = None  # step 4a; the app sets it
    alarms: AlarmsStep | None = None  # step 4s; the app sets it

    def __init__(self, positions: PositionsProcessor, states: StatesProcessor, live: LivePositions) -> None:
        self.positions, self.states, self.live = positions, states, live

    async def process(self, events: Sequence[EventLike]) -> None:
        uplinks = decode_batch([event.value for event in events])
        plan = plan_decoded(uplinks, self.positions.limits, self.positions.zone)
        try:  # teleports flagged before the live map sees them (streams.plausibility)
            await self.positions.assess(plan)
        except Exception:  # a bug: the batch is stored unassessed; never stop it
            log.exception("teleport check: batch not assessed")
        try:
            self.live.add_fixes(plan.fixes)
        except Exception:  # live positions are a view; never stop for them
            log.exception("live positions: batch skipped")
        try:
            await self.positions.process_planned(events, plan)
        except Exception as exc:  # a bug, not data or an outage: park the batch, keep going
            log.exception("positions: batch failed")
            for event in events:
                await self.positions.dead_letters(event, f"internal error: {exc!r}")
        try:
            await self.states.handle_uplinks(events, uplinks)
        except Exception as exc:
            log.exception("states: batch failed")
            for event in events:
                await self.states.dead_letters(event, f"internal error: {exc!r}")
        if self.alarms is not None:
            try:  # alarm rows, pushes 2 / 13, 0x9208 (streams.alarms)
                await self.alarms.handle(uplinks, plan.fixes_by_event)
            except Exception:  # a bug: these alarms are missed; never stop the batch
                log.exception("alarms: batch skipped")
        if self.commands is not None:
            try:  # replies -> command state, device_param, pushes 11/12 (streams.commands)
                await self.commands.handle_uplinks(uplinks)
            except Exception:  # a bug: the commands time out instead; never stop the batch
                log.exception("commands: batch skipped")
        if any(not isinstance(u, PayloadError) and u.msg_id == media.MEDIA_UPLOAD for u in uplinks):
            try:  # media files (0x0801): device_upload_file rows, pushes 9 and 10 (streams.media)
                await media.store_uploads(self.positions.db, self.states.directory, self.states.send, uplinks)
            except Exception:  # a bug: the files stay in the store; never stop the batch
                log.exception("media: batch skipped")
        await alarm_files.step(self.positions.db, uplinks)  # 0x1212 attachments -> rows, alarm.atted
        if any(not isinstance(u, PayloadError) and u.msg_id == driver_events.DRIVER_IDENTITY for u in uplinks):
            try:  # 0x0702 IC card sign-in / sign-out -> driver_event rows (streams.driver_events)
                await driver_events.step(self.positions.db, uplinks)
            except Exception:  # a bug: these events are missed; never stop the batch
                log.exception("driver events: batch skipped")
        if self.message_log_db is not None:
            try:  # every uplink kept (streams.message_log); a record: never stops the batch
                await message_log.store_uplinks(self.message_log_db, uplinks)
            except Exception:
                log.exception("message log: batch skipped")
