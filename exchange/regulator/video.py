"""The regulator's side of JT/T 1078's platform-to-platform video (JT/T 1078-2016 §6.2, §8.1, §8.2): the
authorisation codes an inferior reported (0x1701, kept per account, the latest) and pulling a stream its
answer named.

``pull(...)`` opens ``http://SERVER_IP:SERVER_PORT/<plate>.<colour>.<channel>.<av flag>.<code>`` (the URL of
§6.2, fleet/video_streams.py) as the superior's client does, reads for ``seconds`` and says what came back:
``{"status": HTTP status, "bytes": body bytes read, "flv": whether the body starts as FLV, "closed": whether the
server ended it}``. ``pull_answered(...)`` pulls at the address of the latest successful 0x1801 / 0x1A01 for
that vehicle, with the account's home-region code (or ``code``).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any

from fleet.video_streams import SuperiorPull, pull_path
from protocols.jt809 import messages as m

if TYPE_CHECKING:
    from exchange.regulator.regulator import Regulator

HEAD_LIMIT = 16 * 1024
START_ANSWERS = (m.RealVideoAnswer.DATA_TYPE, m.PlaybackAnswer.DATA_TYPE)


async def pull(server_ip: str, server_port: int, request: SuperiorPull, seconds: float) -> dict[str, Any]:
    reader, writer = await asyncio.open_connection(server_ip, server_port)
    writer.write(f"GET {pull_path(request)} HTTP/1.1\r\nHost: {server_ip}:{server_port}\r\n"
                 "Connection: close\r\n\r\n".encode())
    await writer.drain()
    head = b""
    body = b""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    closed = False
    try:
        while b"\r\n\r\n" not in head and len(head) < HEAD_LIMIT:
            chunk = await asyncio.wait_for(reader.read(4096), max(0.1, deadline - loop.time()))
            if not chunk:
                closed = True
                break
            head += chunk
        head, _, body = head.partition(b"\r\n\r\n")
        count, first = len(body), body[:3]
        while not closed and loop.time() < deadline:
            try:
                chunk = await asyncio.wait_for(reader.read(65536), deadline - loop.time())
            except TimeoutError:
                break
            if not chunk:
                closed = True
                break
            count += len(chunk)
            first = (first + chunk)[:3]
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()
    status_line = head.split(b"\r\n", 1)[0].split()
    status = int(status_line[1]) if len(status_line) > 1 and status_line[1].isdigit() else 0
    return {"status": status, "bytes": count if status == 200 else 0, "flv": first == b"FLV", "closed": closed}


def authorize_reported(regulator: Regulator, user_id: int, report: m.AuthorizeReport, received_at: str) -> None:
    regulator.authorize_codes[user_id] = {"platform_id": report.platform_id, "code_1": report.authorize_code_1,
                                          "code_2": report.authorize_code_2, "received_at": received_at}


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
