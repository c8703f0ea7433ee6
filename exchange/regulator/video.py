"""The regulator's side of JT/T 1078's platform-to-platform video (JT/T 1078-2016 §6.2, §8.1, §8.2): the
authorisation codes an inferior reported (0x1701, kept per account, the latest) and pulling a stream its
answer named.

``pull(...)`` opens ``http://SERVER_IP:SERVER_PORT/<plate>.<colour>.<channel>.<av flag>.<code>`` (the URL of
§6.2, fleet/video_streams.py) as the superior's client does, reads for ``seconds`` and says what came back:
``{"status": HTTP status, "bytes": body bytes read, "jt1078": whether the body starts as a JT/T 1078 packet
(table 18, what the standard's client gets), "flv": whether it starts as FLV (asked with ``flv=True``),
"closed": whether the server ended it}``. ``pull_answered(...)`` pulls at the address of the latest successful 0x1801 / 0x1A01 for
that vehicle, with the account's home-region code (or ``code``).

``authorize_requested(...)`` is the superior's half of JT/T 1078-2016 §8.1 (tables 40, 41): a cross-region
platform's 0x1702 names a vehicle; the answer, 0x9702 on that platform's sub link (the main link while the sub
link is down, JT/T 809 §4.1), carries the codes the vehicle's enterprise platform reported by 0x1701: the
account that forwarded a position of that vehicle in the last ``AUTHORIZE_WINDOW_S`` (the standard's "where
the vehicle was within 5 min"). A vehicle no account forwarded in that window, or whose account reported no
codes, is answered with both codes empty: the standard defines no failure result, and an empty code admits
no pull.
"""

from __future__ import annotations

import asyncio
import contextlib
from datetime import datetime
from typing import TYPE_CHECKING, Any

from fleet.video_streams import SuperiorPull, pull_path
from protocols.jt809 import messages as m
from protocols.jt1078.packet import MAGIC_BYTES

if TYPE_CHECKING:
    from exchange.regulator.regulator import Regulator
    from exchange.superior.links import PlatformLinks

HEAD_LIMIT = 16 * 1024
AUTHORIZE_WINDOW_S = 300.0
START_ANSWERS = (m.RealVideoAnswer.DATA_TYPE, m.PlaybackAnswer.DATA_TYPE)


async def pull(server_ip: str, server_port: int, request: SuperiorPull, seconds: float, *,
               flv: bool = False) -> dict[str, Any]:
    reader, writer = await asyncio.open_connection(server_ip, server_port)
    accept = "Accept: video/x-flv\r\n" if flv else ""
    writer.write(f"GET {pull_path(request)} HTTP/1.1\r\nHost: {server_ip}:{server_port}\r\n{accept}"
                 "Connection: close\r\n\r\n".encode())
    await writer.drain()
    head = b""
    body = b""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    closed = False
    try:
        while b"\r\n\r\n" not in head and len(head) < HEAD_LIMIT:
            async with asyncio.timeout(max(0.1, deadline - loop.time())):
                chunk = await reader.read(4096)
            if not chunk:
                closed = True
                break
            head += chunk
        head, _, body = head.partition(b"\r\n\r\n")
        count, first = len(body), body[:4]
        while not closed and loop.time() < deadline:
            try:
                async with asyncio.timeout(deadline - loop.time()):
                    chunk = await reader.read(65536)
            except TimeoutError:
                break
            if not chunk:
                closed = True
                break
            count += len(chunk)
            first = (first + chunk)[:4]
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()
    status_line = head.split(b"\r\n", 1)[0].split()
    status = int(status_line[1]) if len(status_line) > 1 and status_line[1].isdigit() else 0
    return {"status": status, "bytes": count if status == 200 else 0, "jt1078": first == MAGIC_BYTES,
            "flv": first[:3] == b"FLV", "closed": closed}


def authorize_reported(regulator: Regulator, user_id: int, report: m.AuthorizeReport, received_at: str) -> None:
    regulator.authorize_codes[user_id] = {"platform_id": report.platform_id, "code_1": report.authorize_code_1,
                                          "code_2": report.authorize_code_2, "received_at": received_at}


def codes_for(regulator: Regulator, plate: str, colour: int, at: datetime) -> tuple[str, str]:
    """(AUTHORIZE_CODE_1, AUTHORIZE_CODE_2) of the enterprise platform that forwarded the vehicle within
    ``AUTHORIZE_WINDOW_S`` of ``at``; ("", "") when none did or it reported no codes."""
    source = regulator.vehicle_sources.get((plate, colour))
    if source is None or (at - source[1]).total_seconds() > AUTHORIZE_WINDOW_S:
        return "", ""
    reported = regulator.authorize_codes.get(source[0])
    return ("", "") if reported is None else (str(reported["code_1"]), str(reported["code_2"]))


def authorize_requested(regulator: Regulator, links: PlatformLinks, plate: str, colour: int,
                        at: datetime) -> dict[str, Any]:
    """Answer a 0x1702 with 0x9702 (raises LinkDown when both of the requester's links are down)."""
    home, cross = codes_for(regulator, plate, colour, at)
    answer = m.AuthorizeDown(plate, colour, m.AuthorizeRequestAnswer.DATA_TYPE, m.AuthorizeRequestAnswer(home, cross))
    link, sn = links.send_request(m.AuthorizeDown.MSG_ID, answer)
    return {"link": link, "sn": sn, "found": bool(home)}


async def pull_answered(regulator: Regulator, plate: str, colour: int, channel: int, av_flag: int, seconds: float,
                        *, user_id: int | None = None, code: str | None = None) -> dict[str, Any]:
    """Raises LookupError without a successful start answer for the vehicle or a reported code."""
    answers = [a for a in regulator.tally.video_answers if a["plate"] == plate and a["colour"] == colour
               and a["data_type"] in START_ANSWERS and a["result"] == 0
               and (user_id is None or a["account"] == user_id)]
    if not answers:
        raise LookupError(f"no successful 0x1801 / 0x1A01 for {plate}")
    latest = answers[-1]
    if code is None:
        reported = regulator.authorize_codes.get(latest["account"])
        if reported is None:
            raise LookupError("no authorisation code reported (0x1701)")
        code = str(reported["code_1"])
    request = SuperiorPull(plate, colour, channel, av_flag, code)
    return await pull(latest["server_ip"], int(latest["server_port"]), request, seconds)
