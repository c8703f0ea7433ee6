"""The built console is answered compressed by Accept-Encoding (api/static.py): the build's brotli twin when
br is accepted, else its gzip twin, else the file itself; with Content-Encoding, the twin's Content-Length,
Vary: Accept-Encoding, and never a compressed answer to a Range request. No database needed.

The twins here are written by the test (gzip by Python; the brotli one stands for what the build writes:
the API sends its bytes as they are, it never decodes them); tests/e2e/test_console_served.py checks that
Chromium receives and decodes the real build's brotli."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from api.db import get_db
from tests.unit.api.test_console_static import BUILT_INDEX, MANIFEST, _app

SCRIPT = "export const a = 1;\n" * 200
BROTLI = b"\x1b\x00br-bytes-of-the-build"  # not decoded by the API: the same bytes must come back


def _twins(path: Path, text: str, *, br: bool = True, gz: bool = True) -> None:
    path.write_text(text)
    if gz:
        path.with_name(path.name + ".gz").write_bytes(gzip.compress(text.encode()))
    if br:
        path.with_name(path.name + ".br").write_bytes(BROTLI + path.name.encode())


@pytest.fixture
def dist(tmp_path: Path) -> Path:
    dist = tmp_path / "dist"
    (dist / "assets").mkdir(parents=True)
    (dist / "manual").mkdir()
    _twins(dist / "index.html", BUILT_INDEX)
    _twins(dist / "assets" / "main-1.js", SCRIPT)
    _twins(dist / "assets" / "only-gzip-1.css", "body{color:red}\n" * 100, br=False)
    (dist / "assets" / "plain-1.png").write_bytes(b"\x89PNG not compressed")
    _twins(dist / "manual" / "en-US.html", "<!doctype html><p>manual</p>" * 50)
    return dist


@pytest.fixture
def client(tmp_path: Path, dist: Path) -> Iterator[FlaskClient]:
    app = _app(tmp_path, dist)
    try:
        yield app.test_client()
    finally:
        get_db(app).close()


@pytest.mark.parametrize(("accept", "encoding", "twin"), [
    ("gzip, deflate, br, zstd", "br", ".br"),  # Chromium's
    ("br", "br", ".br"),
    ("gzip;q=1.0, br;q=0.5", "br", ".br"),  # either is fine for the client; the smaller one is sent
    ("gzip, deflate", "gzip", ".gz"),
    ("gzip, br;q=0", "gzip", ".gz"),
    ("*", "br", ".br"),
    ("identity", None, ""),
    ("", None, ""),
    ("deflate", None, ""),
    ("br;q=0, gzip;q=0", None, ""),
])
def test_an_asset_is_answered_in_the_best_encoding_the_browser_accepts(
        client: FlaskClient, dist: Path, accept: str, encoding: str | None, twin: str) -> None:
    reply = client.get("/assets/main-1.js", headers={"Accept-Encoding": accept})
    on_disk = (dist / "assets" / f"main-1.js{twin}").read_bytes()
    assert reply.status_code == 200 and reply.get_data() == on_disk
    assert reply.headers.get("Content-Encoding") == encoding
    assert reply.headers["Content-Length"] == str(len(on_disk))
    assert reply.mimetype == "text/javascript" and "immutable" in reply.headers["Cache-Control"]
    assert reply.headers["Vary"] == "Accept-Encoding"


def test_without_a_brotli_twin_gzip_is_sent_to_a_browser_accepting_both(client: FlaskClient, dist: Path) -> None:
    reply = client.get("/assets/only-gzip-1.css", headers={"Accept-Encoding": "gzip, deflate, br"})
    assert reply.headers["Content-Encoding"] == "gzip" and reply.mimetype == "text/css"
    assert gzip.decompress(reply.get_data()) == (dist / "assets" / "only-gzip-1.css").read_bytes()


def test_a_file_without_twins_is_sent_as_it_is_and_does_not_vary(client: FlaskClient) -> None:
    reply = client.get("/assets/plain-1.png", headers={"Accept-Encoding": "gzip, br"})
    assert reply.status_code == 200 and reply.get_data() == b"\x89PNG not compressed"
    assert "Content-Encoding" not in reply.headers and "Vary" not in reply.headers


def test_a_range_request_gets_a_range_of_the_file_itself(client: FlaskClient) -> None:
    reply = client.get("/assets/main-1.js", headers={"Accept-Encoding": "br, gzip", "Range": "bytes=0-9"})
    assert reply.status_code == 206 and reply.get_data() == SCRIPT.encode()[:10]
    assert "Content-Encoding" not in reply.headers and reply.headers["Content-Length"] == "10"
    assert reply.headers["Vary"] == "Accept-Encoding"


def test_each_encoding_has_its_own_etag_and_revalidates(client: FlaskClient) -> None:
    br = client.get("/assets/main-1.js", headers={"Accept-Encoding": "br"})
    plain = client.get("/assets/main-1.js")
    assert br.headers["ETag"] != plain.headers["ETag"]
    again = client.get("/assets/main-1.js", headers={"Accept-Encoding": "br", "If-None-Match": br.headers["ETag"]})
    assert again.status_code == 304 and again.get_data() == b""
    other = client.get("/assets/main-1.js", headers={"If-None-Match": br.headers["ETag"]})
    assert other.status_code == 200 and other.get_data() == SCRIPT.encode()


@pytest.mark.parametrize("path", ["/", "/dashboard/map"])
def test_index_html_is_compressed_too(client: FlaskClient, dist: Path, path: str) -> None:
    reply = client.get(path, headers={"Accept-Encoding": "gzip, deflate, br"})
    assert reply.status_code == 200 and reply.headers["Content-Encoding"] == "br"
    assert reply.get_data() == (dist / "index.html.br").read_bytes()
    assert reply.mimetype == "text/html" and reply.headers["Cache-Control"] == "no-cache"
    assert reply.headers["Vary"] == "Accept-Encoding"
    assert client.get(path).text == BUILT_INDEX


def test_top_level_build_files_are_compressed_too(client: FlaskClient, dist: Path) -> None:
    reply = client.get("/manual/en-US.html", headers={"Accept-Encoding": "gzip"})
    assert reply.headers["Content-Encoding"] == "gzip" and reply.headers["Cache-Control"] == "no-cache"
    assert gzip.decompress(reply.get_data()) == (dist / "manual" / "en-US.html").read_bytes()


def test_a_twin_is_never_served_for_a_missing_file(client: FlaskClient, dist: Path) -> None:
    (dist / "assets" / "main-1.js").unlink()
    reply = client.get("/assets/main-1.js", headers={"Accept-Encoding": "br, gzip"})
    assert reply.status_code == 404 and reply.json["code"] == 404  # type: ignore[index]


def test_the_index_with_a_pages_preloads_is_gzipped_per_request(client: FlaskClient, dist: Path) -> None:
    (dist / ".vite").mkdir()
    (dist / ".vite" / "manifest.json").write_text(json.dumps(MANIFEST))
    reply = client.get("/report/dailyMileage", headers={"Accept-Encoding": "gzip, deflate, br"})
    html = gzip.decompress(reply.get_data()).decode()
    assert reply.headers["Content-Encoding"] == "gzip" and 'href="/assets/dailyMileage-1.js"' in html
    assert reply.headers["Content-Length"] == str(len(reply.get_data())) and reply.headers["Vary"] == "Accept-Encoding"
    plain = client.get("/report/dailyMileage")
    assert plain.text == html and "Content-Encoding" not in plain.headers
    assert plain.headers["ETag"] != reply.headers["ETag"]
    again = client.get("/report/dailyMileage", headers={"Accept-Encoding": "gzip", "If-None-Match": reply.headers["ETag"]})
    assert again.status_code == 304
