"""Evidence files are served only while their bytes match the sha256 their row recorded: a file changed on
disk after it was stored is refused to the download (409, never its bytes) and raises a terminal security
notice ``evidence_mismatch`` on device.sessions.v1 (real Kafka), which the streams worker pushes to the
enterprise like the gateway's notices."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator

import orjson
import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.commands import Downlinks
from api.services import DOWNLINKS_KEY, STORE_KEY
from fleet.media_store import LocalMediaStore
from fleet.topics import DEVICE_SESSIONS
from streams.console import SECURITY_MESSAGES
from streams.messages import SecurityNotice, parse_sessions_record
from tests.integration.api.conftest import Demo
from tests.integration.api.test_media_api import upload
from tests.integration.gateway.support import tail

Login = Callable[[str], dict[str, str]]


@pytest.fixture
def kafka_app(app: Flask, kafka_bootstrap: str) -> Iterator[Flask]:
    previous = app.extensions.get(DOWNLINKS_KEY)
    app.extensions[DOWNLINKS_KEY] = Downlinks(kafka_bootstrap, 10.0)
    yield app
    app.extensions[DOWNLINKS_KEY].close()
    if previous is None:
        app.extensions.pop(DOWNLINKS_KEY, None)
    else:
        app.extensions[DOWNLINKS_KEY] = previous


def test_a_file_changed_on_disk_is_refused_on_download_and_raises_a_mismatch_notice(
        kafka_app: Flask, client: FlaskClient, login: Login, demo: Demo, kafka_bootstrap: str) -> None:
    stored = upload(kafka_app, demo.a)
    headers = login("admin_a")
    assert client.get(f"/api/media/download/{stored.id}.json", headers=headers).data == stored.data
    store = kafka_app.extensions[STORE_KEY]
    assert isinstance(store, LocalMediaStore)
    path = store.path_of(stored.key)
    path.write_bytes(b"\xff\xd8" + b"forged" * 300 + b"\xff\xd9")  # changed in place, behind the store's back

    async def download_and_read_notices() -> tuple[list[tuple[int, bytes, int]], list[dict[str, object]]]:
        async with tail(kafka_bootstrap, DEVICE_SESSIONS) as sessions:
            replies = []
            for url in (f"/api/media/download/{stored.id}.json", f"/file{stored.key}",
                        f"/api/media/obs/download/{stored.id}.json"):
                reply = await asyncio.to_thread(client.get, url, headers=headers)
                replies.append((reply.status_code, reply.data, (reply.json or {}).get("code", 0)))
            return replies, await sessions.records(min_count=3, timeout_s=15.0)

    replies, records = asyncio.run(download_and_read_notices())
    for status, data, code in replies:
        assert (status, code) == (409, 409) and b"forged" not in data
    notices = [n for n in (parse_sessions_record(orjson.dumps(r)) for r in records)
               if isinstance(n, SecurityNotice) and n.connection_id == f"file-{stored.id}"]
    assert len(notices) == 3
    assert {(n.reason, n.device_id, n.enterprise_id) for n in notices} == {
        ("evidence_mismatch", demo.a.device_id, demo.a.enterprise_id)}
    assert "evidence_mismatch" in SECURITY_MESSAGES


def test_an_intact_file_is_still_served_whole(client: FlaskClient, app: Flask, login: Login, demo: Demo) -> None:
    stored = upload(app, demo.a)
    reply = client.get(f"/file{stored.key}", headers=login("admin_a"))
    assert reply.status_code == 200 and reply.data == stored.data
