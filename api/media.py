"""The API's side of the media server: ``MediaClient`` (fleet/media_client.py, shared with the JT/T 809 link
service) kept one per app in ``app.extensions[MEDIA_KEY]`` (tests put their own there). A media server that
does not answer is ``MediaUnavailable`` (the routes answer 503 "no available live video server"). The stream
URLs it signs are valid ``FLEET_MEDIA_SERVER_URL_TTL_S`` to be opened; the host browsers reach is
``FLEET_MEDIA_SERVER_PUBLIC_URL``, else the console's own host name on the media port (the console's CSP allows
exactly that, api/security.py).
"""

from __future__ import annotations

from typing import Any

from flask import current_app, request

from api.db import get_db
from api.security import current_principal
from fleet.media_client import MediaClient, MediaUnavailable, NoSessionAddress
from fleet.settings import MediaServerSettings
from warehouse.queries.auth import session_state

__all__ = ["MEDIA_KEY", "NO_SERVER_MESSAGE", "MediaClient", "MediaUnavailable", "NoSessionAddress", "media",
           "signed_urls"]

MEDIA_KEY = "fleet.media"
NO_SERVER_MESSAGE = "无可用的实时视频服务器，请联系系统管理员 (no available live video server, contact system administrator)"


def media() -> MediaClient:
    found = current_app.extensions.get(MEDIA_KEY)
    if found is None:
        from fleet.settings import StackSettings

        found = current_app.extensions[MEDIA_KEY] = MediaClient.from_settings(MediaServerSettings(),
                                                                              StackSettings().var_dir)
    return found


def signed_urls(stream_id: str, target: dict[str, Any], *, talk: bool = False) -> dict[str, Any]:
    """Signed with the user's session epoch: the media server ends the viewer or talk socket once the
    user's sessions are revoked (gateway/video/sessions.py)."""
    user_id = current_principal().user_id
    epoch = None
    if user_id:
        with get_db().connection() as conn:
            state = session_state(conn, user_id)
        epoch = None if state is None else state[0]
    return media().urls(stream_id, int(target["enterpriseId"]), user_id, request.host, request.scheme, talk=talk,
                        session_epoch=epoch)
