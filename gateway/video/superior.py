"""A superior platform's pull of a stream (JT/T 1078-2016 §6.2, §8.2.1, §8.5.1): after this platform answered its
0x9801 / 0x9A01 over JT/T 809 with RESULT 0 and this server's address, the superior's client sends
``GET /<plate>.<plate colour>.<channel>.<audio/video flag>.<authorisation code>`` here (fleet/video_streams.py).

The link service registered the stream with the plate, colour, channel and the authorisation code the
superior presented in its request (one this platform reported by 0x1701, exchange/link/authorize.py); the
latest registration of a plate, colour and channel is the one pulled (a playback after a live request
replaces it). A path naming no registered stream is a 404; a code other than the registered one a 403
(compared in constant time, counted with the refused tokens), and so is a pull whose audio/video flag or
location identification does not match the request (``fleet.video_streams.refusal``: the flag the request
asked; a cross-region request's GNSS_DATA position, named in the URL's sixth item, at most 5 minutes old).

An admitted pull is a viewer without a user, ended when the stream stops (0x9802 / 0x9A02 end, or nobody
watching for ``idle_stop_s``). Over plain HTTP it gets what JT/T 1078-2016 §6.1 gives the client: the
terminal's own packets (table 18), re-encoded as they arrived, from an I frame's first packet on
(``application/octet-stream``); a client that asks for FLV (``Accept: video/x-flv``) or upgrades to a WebSocket
gets the FLV the console's players get.
"""

from __future__ import annotations

import asyncio
import hmac
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from fleet.video_streams import SuperiorPull, refusal
from gateway.video.browsers import serve_stream
from gateway.video.httpio import HttpError, Request

if TYPE_CHECKING:
    from gateway.video.server import MediaServer


def pull_key(plate: str, plate_colour: int, channel: int) -> tuple[str, int, int]:
    return plate, plate_colour, channel


async def serve_superior(server: MediaServer, request: Request, reader: asyncio.StreamReader,
                         writer: asyncio.StreamWriter, pull: SuperiorPull) -> None:
    stream_id = server.superior_pulls.get(pull_key(pull.plate, pull.plate_colour, pull.channel))
    stream = None if stream_id is None else server.streams.get(stream_id)
    granted = None if stream is None else stream.info.superior
    if stream is None or granted is None:
        raise HttpError(404, "no such stream")
    if not hmac.compare_digest(pull.code.encode(), granted.code.encode()):
        raise HttpError(403, "stream URL refused: authorisation code")
    problem = refusal(granted, pull, datetime.now(UTC))
    if problem is not None:
        raise HttpError(403, f"stream URL refused: {problem}")
    await serve_stream(server, request, reader, writer, stream, None, None, packets=wants_packets(request))


def wants_packets(request: Request) -> bool:
    """Table 18's packets unless the client asks for FLV or a WebSocket."""
    return not request.wants_websocket and "video/x-flv" not in request.headers.get("accept", "").lower()
