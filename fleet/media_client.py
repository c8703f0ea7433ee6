"""The media server's internal API as its clients see it (the API and the JT/T 809 link service).

``MediaClient`` talks to ``FLEET_MEDIA_SERVER_INTERNAL_URL`` with the key derived from the media secret, with
short timeouts: a media server that does not answer is ``MediaUnavailable``; a registration it refuses because
the terminal has no known JT/T 808 session address (policy ``address``) is ``NoSessionAddress``. Blocking
(http.client): asyncio callers run it in a thread. ``urls`` signs a stream's flvUrl / wsUrl / talkUrl for a
console user (fleet/video_tokens.py), valid ``FLEET_MEDIA_SERVER_URL_TTL_S`` to be opened; the host browsers
reach is ``FLEET_MEDIA_SERVER_PUBLIC_URL``, else the console's own host name on the media port. A superior
platform's pull is admitted by its authorisation code instead (fleet/video_streams.py, gateway/video/superior.py).
"""

from __future__ import annotations

import http.client
import json
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from fleet.settings import MediaServerSettings
from fleet.video_tokens import internal_key, media_secret, sign


class MediaUnavailable(Exception):
    """The media server did not answer (down, or too slow)."""


class NoSessionAddress(Exception):
    """The media server refused a registration: it knows no session address of the terminal (policy
    ``address``), so it could admit no media connection of it."""


class MediaClient:
    def __init__(self, settings: MediaServerSettings, secret: bytes, *, timeout_s: float = 2.0) -> None:
        self.settings = settings
        self.secret = secret
        self._key = internal_key(secret)
        self.timeout_s = timeout_s
        url = urlsplit(settings.internal_url or f"http://127.0.0.1:{settings.port}")
        self._host, self._port = url.hostname or "127.0.0.1", url.port or 80

    @classmethod
    def from_settings(cls, settings: MediaServerSettings, var_dir: Path) -> MediaClient:
        return cls(settings, media_secret(settings.secret, var_dir))

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        """(status, JSON) of an internal call. Raises MediaUnavailable when it cannot be made."""
        connection = http.client.HTTPConnection(self._host, self._port, timeout=self.timeout_s)
        try:
            payload = None if body is None else json.dumps(body).encode()
            headers = {"Authorization": f"Bearer {self._key}", "Content-Type": "application/json",
                       "Content-Length": str(len(payload or b""))}
            connection.request(method, path, body=payload, headers=headers)
            reply = connection.getresponse()
            data = reply.read()
            return reply.status, json.loads(data or b"null")
        except (OSError, http.client.HTTPException, ValueError) as exc:
            raise MediaUnavailable(str(exc)) from exc
        finally:
            connection.close()

    def register(self, stream: dict[str, Any]) -> dict[str, Any]:
        """Raises NoSessionAddress (409 from the media server) or MediaUnavailable."""
        status, data = self.call("POST", "/internal/streams", stream)
        if status == 409:
            raise NoSessionAddress(str(data))
        if status != 200:
            raise MediaUnavailable(f"registration refused: {status} {data}")
        return dict(data)

    def status(self, stream_id: str) -> dict[str, Any] | None:
        """The stream's status; None when the media server has no such stream."""
        status, data = self.call("GET", f"/internal/streams/{stream_id}")
        if status == 404:
            return None
        if status != 200:
            raise MediaUnavailable(f"status refused: {status} {data}")
        return dict(data)

    def heartbeat(self, stream_ids: list[str]) -> list[str]:
        status, data = self.call("POST", "/internal/heartbeat", {"streamIds": stream_ids})
        return list(data.get("known") or []) if status == 200 else []

    def release(self, stream_id: str, user_id: int | None, *, superior: bool = False,
                force: bool = False) -> dict[str, Any]:
        """Close unless another user watches (``{closed, viewers}``); ``superior``: a superior platform's stop
        (its pulls end, its code no longer admits one); ``force``: closed whoever watches."""
        body: dict[str, Any] = {"userId": user_id, **({"superior": True} if superior else {}),
                                **({"force": True} if force else {})}
        status, data = self.call("POST", f"/internal/streams/{stream_id}/close", body)
        if status != 200:
            raise MediaUnavailable(f"close refused: {status} {data}")
        return dict(data)

    def urls(self, stream_id: str, enterprise_id: int, user_id: int | None, request_host: str, scheme: str,
             *, talk: bool = False, session_epoch: int | None = None) -> dict[str, Any]:
        """flvUrl (HTTP-FLV), wsUrl (WebSocket-FLV), talkUrl (talk streams only) and their expiry."""
        base = self.settings.public_url.rstrip("/")
        if not base:
            name = request_host[: request_host.index("]") + 1] if request_host.startswith("[") \
                else request_host.split(":", 1)[0]
            base = f"{'https' if scheme == 'https' else 'http'}://{name}:{self.settings.port}"
        ws_base = "ws" + base[len("http"):] if base.startswith("http") else base
        token, expires = sign(self.secret, stream_id, enterprise_id, user_id, ttl_s=self.settings.url_ttl_s,
                              session_epoch=session_epoch)
        out: dict[str, Any] = {"flvUrl": f"{base}/live/{stream_id}.flv?token={token}",
                               "wsUrl": f"{ws_base}/live/{stream_id}.flv?token={token}", "talkUrl": None,
                               "urlExpiresAt": expires * 1000}
        if talk:
            talk_token, _ = sign(self.secret, stream_id, enterprise_id, user_id, kind="talk",
                                 ttl_s=self.settings.url_ttl_s, session_epoch=session_epoch)
            out["talkUrl"] = f"{ws_base}/talk/{stream_id}?token={talk_token}"
        return out
