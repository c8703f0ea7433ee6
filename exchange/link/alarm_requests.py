"""Urgings (0x9401 督办) and the handling of alarms reported back (0x1401, 0x1403), pure: which alarm an urging
names, what RESULT a fleetwatch handling is, and the frames' bodies (exchange.link.service sends them).

JT/T 809 §5.4.2 / §5.4.3: the superior urges an alarm the inferior reported (0x1402) by vehicle, alarm type and
alarm time, with a deadline (END_TIME); the inferior answers 0x1401 with the handling's RESULT, and reports the
handling of every alarm it forwarded as 0x1403 (INFO_ID of the 0x1402, RESULT). RESULT: 0 being handled,
1 handled, 2 not to be handled, 3 to be handled later.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import timedelta
from typing import Any

from exchange.link.forwarding import upper_alarm_type
from protocols.jt809 import messages as m

# alarm.state (console handling, api/routes/alarms.py: 1 processing, 2 finished or ignored, 3 no action,
# 4 later) -> 0x1401 / 0x1403 RESULT. 0 (unhandled) has no result: nothing is reported.
RESULT_OF_STATE = {1: 0, 2: 1, 3: 2, 4: 3}

# WARN_TIME is whole UTC seconds; the alarm's start time has milliseconds. One second either side.
URGING_TIME_SLACK = timedelta(seconds=1)


def result_of_state(state: int) -> int | None:
    return RESULT_OF_STATE.get(state)


def urged_alarm(candidates: Iterable[Mapping[str, Any]], warn_type: int) -> Mapping[str, Any] | None:
    """The first candidate (nearest in time first, warehouse.queries.exchange.urged_alarm_candidates) whose
    key has the urging's upper-platform alarm type, else None."""
    for row in candidates:
        if upper_alarm_type(str(row["key"])) == warn_type:
            return row
    return None


def urging_answer_body(plate: str, colour: int, supervision_id: str, source_sn: int, result: int,
                       version: str) -> m.AlarmExchange:
    """0x1400 / 0x1401: 2011 SUPERVISION_ID + RESULT (plate in the family header); 2019 also names the
    request by its data type and SN."""
    answer = m.UrgingAnswer(supervision_id, result, m.UrgingRequest.DATA_TYPE if version == "2019" else None,
                            source_sn if version == "2019" else None)
    if version == "2019":
        return m.AlarmExchange(m.UrgingAnswer.DATA_TYPE, answer)
    return m.AlarmExchange(m.UrgingAnswer.DATA_TYPE, answer, plate, colour)


def handling_result_body(plate: str, colour: int, alarm_id: int, result: int, version: str) -> m.AlarmExchange:
    """0x1400 / 0x1403 of a forwarded alarm: INFO_ID is the alarm's id, as its 0x1402 carried it."""
    data = m.HandlingResult(alarm_id & 0xFFFFFFFF, result)
    if version == "2019":
        return m.AlarmExchange(m.HandlingResult.DATA_TYPE, data)
    return m.AlarmExchange(m.HandlingResult.DATA_TYPE, data, plate, colour)


def forwarded(key: str) -> bool:
    """Whether an alarm of this key was forwarded as 0x1402 (it has an upper-platform alarm type)."""
    return upper_alarm_type(key) is not None
