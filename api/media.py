"""The API's side of the media server: ``MediaClient`` (fleet/media_client.py, shared with the JT/T 809 link
service) kept one per app in ``app.extensions[MEDIA_KEY]`` (tests put their own there). A media server that
does not answer is ``MediaUnavailable`` (the routes answer 503 "no available live video server"). The stream
URLs it signs are valid ``FLEET_MEDIA_SERVER_URL_TTL_S`` to be opened; the host browsers reach is
``FLEET_MEDIA_SERVER_PUBLIC_URL``, else the console's own host name on the media port (the console's CSP allows
exactly that, api/security.py).
"""

from __future__ import annotations

from fleet.media_client import MediaClient, MediaUnavailable, NoSessionAddress

__all__ = ["MEDIA_KEY", "NO_SERVER_MESSAGE", "MediaClient", "MediaUnavailable", "NoSessionAddress"]

MEDIA_KEY = "fleet.media"
NO_SERVER_MESSAGE = "无可用的实时视频服务器，请联系系统管理员 (no available live video server, contact system administrator)"
