"""What the regulator does with each decoded frame from an inferior platform (JT/T 809 §5.2-§5.4,
the superior's half): answer the link messages (exchange.superior.control), count positions, keep alarms and answers."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from exchange.regulator import video
from exchange.superior.control import LINK_HANDLERS
from exchange.superior.links import LinkDown, PlatformLinks, now
from protocols.jt809 import Message
from protocols.jt809 import messages as m

if TYPE_CHECKING:
    from exchange.regulator.regulator import Regulator

log = logging.getLogger("exchange.regulator")


def fix_time(position: m.Gnss2011 | m.Gnss2019) -> datetime | None:
    """The fix time of a 2011 record, or of the 0x0200 inside a 2019 one (None when that is not a
    0x0200 body: public captures carry other things there)."""
    if isinstance(position, m.Gnss2011):
        return position.fix_at
    return position.location.fix_at if position.location is not None else None


async def handle(regulator: Regulator, links: PlatformLinks, link: str, message: Message) -> None:
    body = message.body
    handler = _HANDLERS.get(type(body))
    if handler is None:
        regulator.count_other(message.header.msg_id, getattr(body, "data_type", None))
        return
    handler(regulator, links, link, message)


def _dynamic(regulator: Regulator, links: PlatformLinks, link: str, message: Message) -> None:
    body: m.VehicleDynamic = message.body
    tally = regulator.tally
    data = body.data
    if isinstance(data, m.RealTimePosition | m.BackfilledPositions):
        regulator.vehicle_sources[(body.plate, body.plate_colour)] = (links.account.user_id, now())
    if isinstance(data, m.RealTimePosition):
        tally.real_time(body.plate, body.plate_colour, fix_time(data.position), now())
        regulator.positions_in_period += 1
    elif isinstance(data, m.BackfilledPositions):
        tally.backfill(body.plate, body.plate_colour, [fix_time(p) for p in data.positions])
        regulator.positions_in_period += len(data.positions)
    elif body.data_type == m.VehicleRegistration.DATA_TYPE:
        tally.registration(body.plate, body.plate_colour)
    else:
        regulator.count_other(message.header.msg_id, body.data_type)


def _platform(regulator: Regulator, links: PlatformLinks, link: str, message: Message) -> None:
    body: m.PlatformExchange = message.body
    if isinstance(body.data, m.InspectionAnswer):
        regulator.inspection_answered(links, body.data)
    elif body.data_type == m.PlatformMessageAnswer.DATA_TYPE:
        info_id = body.data.info_id if isinstance(body.data, m.PlatformMessageAnswer) else None
        regulator.event(links, "message_answer", f"0x1302 info id {info_id}")
    else:
        regulator.count_other(message.header.msg_id, body.data_type)


def _alarm(regulator: Regulator, links: PlatformLinks, link: str, message: Message) -> None:
    body: m.AlarmExchange = message.body
    data = body.data
    if isinstance(data, m.AlarmReport2011):
        regulator.alarm_reported(links, body.plate or "", body.plate_colour or 0, data.warn_type, data.warn_time,
                                 data.info_id, data.warn_src, data.content)
    elif isinstance(data, m.AlarmReport):
        regulator.alarm_reported(links, data.plate, data.plate_colour, data.warn_type, data.warn_time, 0, 0,
                                 data.content)
    elif body.data_type == m.HandlingResult.DATA_TYPE:
        record: dict[str, Any] = {"account": links.account.user_id, "received_at": now().isoformat(),
                                  "plate": body.plate}
        if isinstance(data, m.HandlingResult):
            record.update(info_id=data.info_id, result=data.result)
        else:
            record["hex"] = bytes(data).hex()
        regulator.tally.handling_results.append(record)
        regulator.counts["handling_results"] += 1
    elif isinstance(data, m.UrgingAnswer):
        regulator.tally.urging_answers.append({
            "account": links.account.user_id, "received_at": now().isoformat(), "plate": body.plate,
            "supervision_id": data.supervision_id, "result": data.result, "source_sn": data.source_sn})
        regulator.counts["urging_answers"] += 1
        regulator.event(links, "urging_answer", f"0x1401 supervision {data.supervision_id} result {data.result}")
    else:
        regulator.count_other(message.header.msg_id, body.data_type)


def _control(regulator: Regulator, links: PlatformLinks, link: str, message: Message) -> None:
    body: m.VehicleControl = message.body
    record: dict[str, Any] = {"account": links.account.user_id, "received_at": now().isoformat(), "plate": body.plate,
                              "data_type": body.data_type}
    if isinstance(body.data, bytes | bytearray):
        record["hex"] = bytes(body.data).hex()
    else:
        record.update({k: v for k, v in vars(body.data).items() if isinstance(v, int | str | None)})
    regulator.tally.control_answers.append(record)
    regulator.counts["control_answers"] += 1


def _static_info(regulator: Regulator, links: PlatformLinks, link: str, message: Message) -> None:
    body: m.StaticInfo = message.body
    if isinstance(body.data, m.StaticInfoAnswer):
        regulator.tally.static_answers.append({
            "account": links.account.user_id, "received_at": now().isoformat(), "plate": body.plate,
            "colour": body.plate_colour, "car_info": body.data.car_info, "source_sn": body.data.source_sn})
        regulator.counts["static_answers"] += 1
    else:
        regulator.count_other(message.header.msg_id, body.data_type)


def _video(regulator: Regulator, links: PlatformLinks, link: str, message: Message) -> None:
    """JT/T 1078 answers (0x1801 / 0x1802 / 0x1A01 / 0x1A02): RESULT and, for a start, the address to pull."""
    body: m.RealVideo | m.Playback = message.body
    if isinstance(body.data, bytes | bytearray):
        regulator.count_other(message.header.msg_id, body.data_type)
        return
    regulator.tally.video_answers.append({
        "account": links.account.user_id, "received_at": now().isoformat(), "plate": body.plate,
        "colour": body.plate_colour, "data_type": body.data_type, "result": body.data.result,
        "server_ip": getattr(body.data, "server_ip", None), "server_port": getattr(body.data, "server_port", None)})
    regulator.counts["video_answers"] += 1


def _authorize(regulator: Regulator, links: PlatformLinks, link: str, message: Message) -> None:
    """0x1701: the inferior's authorisation codes of the day (regulator/video.py pulls with them); 0x1702: a
    cross-region platform asks for a vehicle's codes, answered by 0x9702 (regulator/video.py)."""
    body: m.Authorize = message.body
    if isinstance(body.data, m.AuthorizeRequest):
        regulator.counts["authorize_requests"] += 1
        try:
            sent = video.authorize_requested(regulator, links, body.plate, body.plate_colour, now())
        except LinkDown as exc:
            log.info("0x1702 for %s not answered: %s", body.plate, exc)
            return
        regulator.event(links, "authorize_answer", f"0x9702 for {body.plate} on the {sent['link']} link"
                        + ("" if sent["found"] else " (no codes: not forwarded in the last 5 min)"))
        return
    if not isinstance(body.data, m.AuthorizeReport):
        regulator.count_other(message.header.msg_id, body.data_type)
        return
    video.authorize_reported(regulator, links.account.user_id, body.data, now().isoformat())
    regulator.counts["authorize_reports"] += 1
    regulator.event(links, "authorize_report", f"platform {body.data.platform_id}")


_HANDLERS: dict[type, Callable[[Regulator, PlatformLinks, str, Message], None]] = {
    **LINK_HANDLERS,
    m.VehicleDynamic: _dynamic,
    m.PlatformExchange: _platform,
    m.AlarmExchange: _alarm,
    m.StaticInfo: _static_info,
    m.VehicleControl: _control,
    m.RealVideo: _video,
    m.Playback: _video,
    m.Authorize: _authorize,
}
