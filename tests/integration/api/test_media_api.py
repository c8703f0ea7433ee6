"""Terminal media files over the API: the evidence list, /file{objectKey} and the two
download routes serve the caller's enterprise (and its subsidiaries) only, never another's file nor
anything outside the store, with the right content type; the car detail lists the latest photos."""

from __future__ import annotations

import base64
import hashlib
import io
import os
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.db import get_db
from api.services import STORE_KEY
from fleet.media_store import MediaStore, media_key
from tests.integration.api.conftest import Demo, Vehicle

Login = Callable[[str], dict[str, str]]


@dataclass(frozen=True)
class Stored:
    id: int
    key: str
    data: bytes


def upload(app: Flask, vehicle: Vehicle, *, media_type: int = 0, media_format: int = 0,
           event_code: int = 0) -> Stored:
    """A file as the gateway and the streams step leave it: bytes in the store, a row."""
    store: MediaStore = app.extensions[STORE_KEY]
    data = b"\xff\xd8\xff\xe0" + os.urandom(2048) + b"\xff\xd9"
    sha = hashlib.sha256(data).hexdigest()
    media_id = uuid.uuid4().int % 10**9
    key = media_key(vehicle.device_id, media_id, sha, media_format, datetime.now(UTC))
    store.put(key, data)
    with get_db(app).connection() as conn:
        row = conn.execute(
            "INSERT INTO device_upload_file (object_key, resource_type, file_store_type, enterprise_id, biz_id,"
            " device_id, car_id, media_id, media_type, media_format, event_code, channel, lng, lat, size, sha256)"
            " VALUES (%s, 1, 1, %s, %s, %s, %s, %s, %s, %s, %s, 1, 116.4, 39.9, %s, %s) RETURNING id",
            (key, vehicle.enterprise_id, event_code, vehicle.device_id, vehicle.car_id, media_id, media_type,
             media_format, event_code, len(data), sha)).fetchone()
    assert row is not None
    return Stored(row[0], key, data)


@pytest.fixture(scope="module")
def files(app: Flask, demo: Demo) -> dict[str, Stored]:
    return {"a": upload(app, demo.a, event_code=3), "b": upload(app, demo.b),
            "a_wav": upload(app, demo.a, media_type=1, media_format=3)}


def test_the_evidence_list_shows_own_files_with_plate_and_filters(
        client: FlaskClient, login: Login, demo: Demo, files: dict[str, Stored]) -> None:
    a = login("admin_a")
    reply = client.post("/api/common/query/deviceUploadFile.json", headers=a,
                        json={"deviceId.eq": demo.a.device_id, "bizId.eq": 3})
    assert reply.status_code == 200, reply.json
    rows = reply.json["data"]["list"]  # type: ignore[index]
    assert [r["id"] for r in rows] == [files["a"].id]
    assert rows[0]["objectKey"] == files["a"].key and rows[0]["plateNumber"] and rows[0]["fileStoreType"] == 1
    assert rows[0]["mediaType"] == 0 and rows[0]["size"] == len(files["a"].data)
    every = client.post("/api/common/query/deviceUploadFile.json", headers=a, query_string={"pageSize": 500},
                        json={}).json["data"]["list"]  # type: ignore[index]
    ids = {r["id"] for r in every}
    assert {files["a"].id, files["a_wav"].id} <= ids and files["b"].id not in ids
    count = client.post("/api/common/count/deviceUploadFile.json", headers=login("admin_b"),
                        json={"deviceId.eq": demo.a.device_id})
    assert count.json["data"] == 0  # type: ignore[index]


def test_own_file_is_served_with_its_content_type_and_as_a_download(
        client: FlaskClient, login: Login, files: dict[str, Stored]) -> None:
    a = login("admin_a")
    own = client.get(f"/file{files['a'].key}", headers=a)
    assert own.status_code == 200 and own.data == files["a"].data
    assert own.headers["Content-Type"] == "image/jpeg"
    assert "attachment" not in own.headers.get("Content-Disposition", "")
    wav = client.get(f"/file{files['a_wav'].key}", headers=a)
    assert wav.status_code == 200 and wav.headers["Content-Type"] == "audio/wav"
    download = client.get(f"/api/media/download/{files['a'].id}.json", headers=a)
    assert download.status_code == 200 and download.data == files["a"].data
    disposition = download.headers["Content-Disposition"]
    assert disposition.startswith("attachment") and files["a"].key.rsplit("/", 1)[-1] in disposition
    obs = client.get(f"/api/media/obs/download/{files['a'].id}.json", headers=a)
    assert obs.status_code == 200 and obs.data == files["a"].data


def test_another_enterprises_file_is_a_404_on_every_route(
        client: FlaskClient, login: Login, files: dict[str, Stored]) -> None:
    a = login("admin_a")
    other = files["b"]
    for url in (f"/file{other.key}", f"/api/media/download/{other.id}.json",
                f"/api/media/obs/download/{other.id}.json"):
        for params in ({}, {"isParent": "true"}):
            reply = client.get(url, headers=a, query_string=params)
            assert reply.status_code == 404, url
            assert reply.json["code"] == 404 and other.data not in reply.data  # type: ignore[index]
    assert client.get(f"/file{other.key}", headers=login("admin_b")).data == other.data  # B itself reads it
    assert client.get("/api/media/download/999999999999.json", headers=a).status_code == 404
    assert client.get("/api/media/download/99999999999999999999999.json", headers=a).status_code == 404


def test_the_parent_enterprise_reads_its_subsidiaries_files(
        client: FlaskClient, login: Login, files: dict[str, Stored]) -> None:
    root = login("admin")
    for name in ("a", "b"):
        assert client.get(f"/file{files[name].key}", headers=root).data == files[name].data


@pytest.mark.parametrize("path", [
    "/file/../../etc/passwd", "/file/%2e%2e/%2e%2e/etc/passwd", "/file/..%2f..%2fetc%2fpasswd",
    "/file/%2F..%2F..%2Fetc%2Fpasswd", "/file//etc/passwd", "/file/%252e%252e/etc/passwd",
    "/file/..\\..\\etc\\passwd", "/file/x/../../../../etc/passwd",
])
def test_no_path_leaves_the_store(client: FlaskClient, login: Login, path: str) -> None:
    reply = client.get(path, headers=login("admin"), follow_redirects=True)  # "//" is merged by a 308 first
    assert reply.status_code == 404, (path, reply.status_code)
    assert b"root:" not in reply.data


def test_files_need_a_token(client: FlaskClient, files: dict[str, Stored]) -> None:
    reply = client.get(f"/file{files['a'].key}")
    assert reply.status_code == 401 and files["a"].data not in reply.data


def test_the_car_detail_lists_the_latest_terminal_photos(
        client: FlaskClient, login: Login, demo: Demo, files: dict[str, Stored]) -> None:
    reply = client.get(f"/api/car/{demo.a.car_id}/detail.json", headers=login("admin_a"))
    photos = reply.json["data"]["photos"]  # type: ignore[index]
    terminal = [p for p in photos if p["source"] == "terminal"]
    assert terminal and terminal[0]["id"] == files["a"].id and terminal[0]["objectKey"] == files["a"].key
    assert terminal[0]["contentType"] == "image/jpeg"
    assert all(p["id"] != files["a_wav"].id for p in terminal)  # audio is no photo


def test_a_driver_photo_is_kept_on_the_media_store_and_read_back(app: Flask, client: FlaskClient, login: Login) -> None:
    png = b"\x89PNG\r\n\x1a\n" + os.urandom(512)
    reply = client.post("/api/driver/photo.json", headers=login("admin_a"), content_type="multipart/form-data",
                        data={"file": (io.BytesIO(png), "p.png")})
    photo_id = reply.json["data"]["id"]  # type: ignore[index]
    with get_db(app).connection() as conn:
        row = conn.execute("SELECT content, object_key FROM media WHERE id = %s", (photo_id,)).fetchone()
    assert row is not None and row[0] is None and row[1].startswith("/driver/")  # no bytes in the row
    with app.extensions[STORE_KEY].open(row[1]) as f:
        assert f.read() == png
    image = client.get(f"/api/driver/photo/{photo_id}.json", headers=login("admin_a")).json["data"]  # type: ignore[index]
    assert image["contentType"] == "image/png" and base64.b64decode(image["content"]) == png
    assert client.get(f"/file{row[1]}", headers=login("admin_a")).status_code == 404  # not a terminal file
