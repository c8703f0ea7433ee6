"""The API serves the built console on its own origin (no database needed)."""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.app import create_app
from api.db import get_db
from fleet.settings import ApiSettings

INDEX = "<!doctype html><title>fleetwatch</title><div id=root></div>"


def _app(tmp_path: Path, console_dir: Path) -> Flask:
    settings = ApiSettings(token_secret="unit-secret", console_dir=console_dir)
    return create_app(settings, "postgresql://nobody@127.0.0.1:9/none", var_dir=tmp_path)


# One app per build layout for the module (building one compiles every route, 0.2-0.4 s); no test changes the files.
@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FlaskClient]:
    tmp_path = tmp_path_factory.mktemp("built")
    dist = tmp_path / "dist"
    (dist / "assets").mkdir(parents=True)
    (dist / "index.html").write_text(INDEX)
    (dist / "assets" / "index-3f2a9c.js").write_text("console.log(1)")
    (dist / "favicon.svg").write_text("<svg/>")
    app = _app(tmp_path, dist)
    try:
        yield app.test_client()
    finally:
        get_db(app).close()


@pytest.fixture(scope="module")
def unbuilt(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FlaskClient]:
    tmp_path = tmp_path_factory.mktemp("unbuilt")
    app = _app(tmp_path, tmp_path / "no-such-dist")
    try:
        yield app.test_client()
    finally:
        get_db(app).close()


def test_root_serves_index_html_uncached(built: FlaskClient) -> None:
    reply = built.get("/")
    assert reply.status_code == 200 and reply.text == INDEX
    assert reply.mimetype == "text/html" and reply.headers["Cache-Control"] == "no-cache"


@pytest.mark.parametrize("path", ["/dashboard/map", "/user/login?redirect=%2Fdashboard%2Findex", "/account/center",
                                  "/cockpit/nev1/index", "/404"])
def test_history_paths_fall_back_to_index_html(built: FlaskClient, path: str) -> None:
    reply = built.get(path)
    assert reply.status_code == 200 and reply.text == INDEX and reply.headers["Cache-Control"] == "no-cache"


def test_hashed_assets_are_cached_for_a_year(built: FlaskClient) -> None:
    reply = built.get("/assets/index-3f2a9c.js")
    assert reply.status_code == 200 and reply.text == "console.log(1)"
    assert reply.headers["Cache-Control"] == "public, max-age=31536000, immutable"


def test_missing_asset_is_a_404_not_index_html(built: FlaskClient) -> None:
    reply = built.get("/assets/index-old.js")
    assert reply.status_code == 404 and reply.json is not None and reply.json["code"] == 404


def test_top_level_build_files_are_served(built: FlaskClient) -> None:
    reply = built.get("/favicon.svg")
    assert reply.status_code == 200 and reply.text == "<svg/>" and reply.headers["Cache-Control"] == "no-cache"


@pytest.mark.parametrize("path", ["/../../etc/passwd", "/assets/../../secret", "/%2e%2e/etc/passwd"])
def test_paths_outside_the_build_never_escape_it(built: FlaskClient, path: str) -> None:
    reply = built.get(path)
    assert "root:" not in reply.text
    assert reply.status_code in (200, 404) and (reply.status_code == 404 or reply.text == INDEX)


@pytest.mark.parametrize("path", ["/api/nope.json", "/oauth2/nope", "/wss/nope", "/api"])
def test_api_paths_keep_the_json_404(built: FlaskClient, path: str) -> None:
    reply = built.get(path)
    assert reply.status_code == 404
    assert reply.json == {"code": 404, "message": "接口不存在", "data": None, "localMessage": "接口不存在"}
    english = built.get(path, headers={"X-Fleet-Language": "en-US"})
    assert english.json == {"code": 404, "message": "接口不存在", "data": None,
                            "localMessage": f"no such endpoint: GET {path}"}


def test_non_get_on_a_console_path_is_not_index_html(built: FlaskClient) -> None:
    reply = built.post("/dashboard/map")
    assert reply.status_code in (404, 405) and reply.json is not None


def test_wrong_method_on_an_api_route_still_answers_405(built: FlaskClient) -> None:
    reply = built.get("/api/common/query/carView.json")
    assert reply.status_code == 405 and reply.json is not None and reply.json["code"] == 405


def test_without_a_build_browsers_are_told_how_to_build_it(unbuilt: FlaskClient) -> None:
    page = unbuilt.get("/dashboard/map", headers={"Accept": "text/html,application/xhtml+xml"})
    assert page.status_code == 503 and page.mimetype == "text/html"
    assert "make up" in page.text and "npm run build" in page.text
    data = unbuilt.get("/", headers={"Accept": "application/json", "X-Fleet-Language": "en-US"})
    assert data.status_code == 503 and data.json is not None and data.json["code"] == 503
    assert data.json["message"] == "控制台尚未构建" and "not built" in data.json["localMessage"]
    assert "npm run build" in data.json["localMessage"]
    assert unbuilt.get("/assets/index-3f2a9c.js").status_code == 404


# The opening page's chunks named by the address (api/console_preload.py): Vite's build manifest maps a
# screen's source file (src/screens/<address>.tsx) to its chunk and the chunks it imports.
BUILT_INDEX = ('<!doctype html><html><head><script type="module" crossorigin src="/assets/main-1.js"></script>\n'
               '  </head><body><div id="root"></div></body></html>')
MANIFEST = {
    "index.html": {"file": "assets/main-1.js", "isEntry": True, "imports": ["_react-1.js", "_shell-1.js"],
                   "css": ["assets/shell-1.css"]},
    "_react-1.js": {"file": "assets/react-1.js"},
    "_shell-1.js": {"file": "assets/shell-1.js", "imports": ["_react-1.js"],
                    "dynamicImports": ["src/screens/report/dailyMileage.tsx"]},
    "src/screens/report/dailyMileage.tsx": {"file": "assets/dailyMileage-1.js", "isDynamicEntry": True,
                                            "imports": ["_react-1.js", "_ListPage-1.js"],
                                            "dynamicImports": ["_EChart-1.js"]},
    "_ListPage-1.js": {"file": "assets/ListPage-1.js", "imports": ["_shell-1.js", "_table-1.js"],
                       "css": ["assets/ListPage-1.css", "assets/shell-1.css"]},
    "_table-1.js": {"file": "assets/table-1.js"},
    "_EChart-1.js": {"file": "assets/EChart-1.js", "isDynamicEntry": True},
}


@pytest.fixture(scope="module")
def with_manifest(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FlaskClient]:
    tmp_path = tmp_path_factory.mktemp("manifest")
    dist = tmp_path / "dist"
    (dist / ".vite").mkdir(parents=True)
    (dist / "index.html").write_text(BUILT_INDEX)
    (dist / ".vite" / "manifest.json").write_text(json.dumps(MANIFEST))
    app = _app(tmp_path, dist)
    try:
        yield app.test_client()
    finally:
        get_db(app).close()


def _preloads(html: str) -> list[str]:
    return re.findall(r'<link rel="modulepreload" crossorigin href="([^"]+)">', html)


def _style_preloads(html: str) -> list[str]:
    return re.findall(r'<link rel="preload" as="style" crossorigin href="([^"]+)">', html)


def test_a_report_address_names_its_page_chunk_and_static_imports_for_preload(with_manifest: FlaskClient) -> None:
    reply = with_manifest.get("/report/dailyMileage")
    assert reply.status_code == 200 and reply.headers["Cache-Control"] == "no-cache"
    # The page first, then its imports; what index.html loads anyway (react, shell) and the lazy chart are left out.
    assert _preloads(reply.text) == ["/assets/dailyMileage-1.js", "/assets/ListPage-1.js", "/assets/table-1.js"]
    # Its CSS is fetched early but not applied (the page's loader adds the stylesheet when the page opens).
    assert _style_preloads(reply.text) == ["/assets/ListPage-1.css"] and 'rel="stylesheet"' not in reply.text
    head, body = reply.text.split("</head>")
    assert len(_preloads(head)) == 3 and 'src="/assets/main-1.js"' in head and body == BUILT_INDEX.split("</head>")[1]


def test_a_preloading_index_is_revalidated_by_its_etag(with_manifest: FlaskClient) -> None:
    first = with_manifest.get("/report/dailyMileage/")
    assert first.headers.get("ETag") and _preloads(first.text)
    again = with_manifest.get("/report/dailyMileage", headers={"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304 and again.headers["Cache-Control"] == "no-cache"


@pytest.mark.parametrize("path", ["/", "/report/noSuchReport", "/dashboard/map", "/report/dailyMileage.tsx",
                                  "/user/login?redirect=%2Freport%2FdailyMileage", "/report/../screens/report",
                                  "/report/daily%22Mileage"])
def test_an_address_of_no_screen_gets_the_plain_index(with_manifest: FlaskClient, path: str) -> None:
    reply = with_manifest.get(path)
    assert reply.status_code == 200 and reply.text == BUILT_INDEX


def test_without_a_manifest_a_report_address_gets_the_plain_index(built: FlaskClient) -> None:
    reply = built.get("/report/dailyMileage")
    assert reply.status_code == 200 and reply.text == INDEX


def test_the_build_manifest_is_not_served(with_manifest: FlaskClient) -> None:
    reply = with_manifest.get("/.vite/manifest.json")
    assert reply.status_code == 200 and reply.text == BUILT_INDEX


def test_preloads_keep_the_content_security_policy(with_manifest: FlaskClient) -> None:
    """Same-origin module URLs only, nothing inline: script-src 'self' still covers every script."""
    reply = with_manifest.get("/report/dailyMileage")
    assert "script-src 'self';" in reply.headers["Content-Security-Policy"]
    assert all(url.startswith("/assets/") for url in _preloads(reply.text))
    assert reply.text.count("<script") == BUILT_INDEX.count("<script")


def _client_app(tmp_path_factory: pytest.TempPathFactory, **settings: object) -> Flask:
    tmp_path = tmp_path_factory.mktemp("client")
    dist = tmp_path / "dist"
    (dist / ".vite").mkdir(parents=True)
    (dist / "index.html").write_text(BUILT_INDEX)
    (dist / ".vite" / "manifest.json").write_text(json.dumps(MANIFEST))
    app_settings = ApiSettings(token_secret="unit-secret", console_dir=dist, **settings)  # type: ignore[arg-type]
    return create_app(app_settings, "postgresql://nobody@127.0.0.1:9/none", var_dir=tmp_path)


CLIENT_META = re.compile(r'<meta name="fleetwatch:client-(id|secret)" content="([^"]*)">')


def test_under_protocol_2_every_console_address_names_the_consoles_client(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """console-spec §7 "General" (protocol 2: Basic client credentials on the token call): the API names the
    console's open platform app in the head of every index.html it answers, escaped, with and without preloads."""
    app = _client_app(tmp_path_factory, auth_protocol=2, console_client_id="fw_console",
                      console_client_secret='s3"<cret&')
    try:
        client = app.test_client()
        for path in ("/", "/user/login", "/report/dailyMileage"):
            head, _ = client.get(path).text.split("</head>")
            assert CLIENT_META.findall(head) == [("id", "fw_console"), ("secret", "s3&quot;&lt;cret&amp;")], path
        assert _preloads(client.get("/report/dailyMileage").text)  # the preloads stay
        gzipped = client.get("/user/login", headers={"Accept-Encoding": "gzip"})
        assert gzipped.headers["Content-Encoding"] == "gzip"
        assert CLIENT_META.search(gzip.decompress(gzipped.get_data()).decode())
    finally:
        get_db(app).close()


@pytest.mark.parametrize("protocol", [1, 3])
def test_other_protocols_never_name_the_client(tmp_path_factory: pytest.TempPathFactory, protocol: int) -> None:
    app = _client_app(tmp_path_factory, auth_protocol=protocol, console_client_id="fw_console",
                      console_client_secret="secret")
    try:
        assert not CLIENT_META.search(app.test_client().get("/user/login").text)
    finally:
        get_db(app).close()


def test_a_console_client_needs_its_key_and_secret_together() -> None:
    with pytest.raises(ValueError, match="console_client_id and console_client_secret"):
        ApiSettings(token_secret="unit-secret", console_client_id="fw_console")
