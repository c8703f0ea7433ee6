"""The live log's detail page (platform-spec §2 logs: live, with detail): ``GET /api/log/live/{id}.json``.

One read of a live session (``live_session_view``, migration 0056; the list is the declared entity ``liveLog``,
api/query/entities_video.py) with its timeline: the request, the 0x9101 that asked the terminal and its answer,
the first frame, each viewer joining and leaving, the last console heartbeat, the 0x9102 that stopped it, the
end and why. Permission ``videoLog`` (get; the list needs query); another enterprise's session answers the same 404
as a missing one.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from flask import Blueprint

from api.db import get_db
from api.errors import NotFound
from api.http import ok
from api.security import request_scope, requires
from warehouse.queries import live_sessions

bp = Blueprint("live_log", __name__)


def timeline(session: dict[str, Any], commands: list[dict[str, Any]],
             viewers: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The session's events in time order (events of one moment in the order they happen). Pure."""
    events: list[tuple[datetime, int, str, dict[str, Any]]] = [(session["requestTime"], 0, "requested",
                                                                {"userName": session["userName"]})]
    for command in commands:
        detail = {"commandId": command["id"], "msgId": command["msgId"], "command": command["command"],
                  "createdByName": command["createdByName"]}
        events.append((command["createdAt"], 1, "command", detail))
        if command["answeredAt"] is not None:
            events.append((command["answeredAt"], 2, "answered", {**detail, "result": command["result"]}))
    if session["firstFrameTime"] is not None:
        events.append((session["firstFrameTime"], 3, "firstFrame", {}))
    for viewer in viewers:
        who = {"userName": viewer["userName"], "client": viewer["client"], "transport": viewer["transport"]}
        events.append((viewer["startTime"], 4, "viewerJoined", who))
        if viewer["endTime"] is not None:
            events.append((viewer["endTime"], 5, "viewerLeft", {**who, "bytesSent": viewer["bytesSent"],
                                                                "endReason": viewer["endReason"]}))
    if session["lastHeartbeatTime"] is not None:
        events.append((session["lastHeartbeatTime"], 6, "lastHeartbeat", {"heartbeats": session["heartbeats"]}))
    if session["endTime"] is not None:
        events.append((session["endTime"], 7, "ended", {"endReason": session["endReason"],
                                                        "bytesIn": session["bytesIn"]}))
    events.sort(key=lambda e: (e[0], e[1]))
    return [{"time": at, "event": event, "detail": detail} for at, _, event, detail in events]


@bp.get("/api/log/live/<int:session_id>.json")
@requires("videoLog", "get")
def live_log_detail(session_id: int) -> dict[str, Any]:
    with get_db().connection() as conn:
        session = live_sessions.session(conn, request_scope(), session_id)
        if session is None:
            raise NotFound(f"实时视频会话 {session_id} 不存在 (live session {session_id} does not exist)")
        commands = live_sessions.session_commands(conn, session["deviceId"], session["streamId"],
                                                  session["requestTime"], session["endTime"])
        viewers = live_sessions.session_viewers(conn, session["sessionKey"])
    return ok({"session": session, "commands": commands, "viewers": viewers,
               "timeline": timeline(session, commands, viewers)})
