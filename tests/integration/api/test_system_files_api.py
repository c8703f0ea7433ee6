"""``GET /api/common/systemFile/{name}.json`` (console-spec §3, §7) against the real database's sign-in: the
path and modifyTime of the built console's logo and manuals; a changed file gets a new modifyTime (so the
console's ``path?t=modifyTime`` is a new URL), and that URL serves the file."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.system_files import SYSTEM_FILES
from fleet.settings import ApiSettings
from tests.integration.api.conftest import ENGLISH, Demo, error_text
from tests.integration.api.test_console_api import bearer, make_user

FILES = {"favicon.svg": "<svg/>", "api-reference.html": "<!doctype html><title>API</title>",
         "manual/zh-CN.html": "<p>用户手册</p>", "manual/zh-HK.html": "<p>用戶手冊</p>", "manual/en-US.html": "<p>manual</p>",
         "index.html": "<!doctype html><div id=root></div>"}
MODIFIED_S = 1_780_000_000.25


@pytest.fixture
def console_app(app: Flask, tmp_path: Path) -> Iterator[Flask]:
    """The session's app serving a console built into ``tmp_path`` (its settings restored after)."""
    for relative, text in FILES.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text, encoding="utf-8")
        os.utime(tmp_path / relative, (MODIFIED_S, MODIFIED_S))
    saved: ApiSettings = app.config["FLEET_API_SETTINGS"]
    app.config["FLEET_API_SETTINGS"] = saved.model_copy(update={"console_dir": tmp_path})
    try:
        yield app
    finally:
        app.config["FLEET_API_SETTINGS"] = saved


@pytest.fixture
def signed_in(console_app: Flask, pg_url: str, demo: Demo) -> dict[str, str]:
    """A user without any permission: the system files are for every signed-in user."""
    return bearer(console_app.test_client(), make_user(pg_url, demo.enterprises["a"]).name)


@pytest.mark.parametrize(("name", "path"), [("logo", "/favicon.svg"), ("apiManual", "/api-reference.html"),
                                            ("userManual-zh-CN", "/manual/zh-CN.html"),
                                            ("userManual-zh-HK", "/manual/zh-HK.html"),
                                            ("userManual-en-US", "/manual/en-US.html")])
def test_a_system_file_answers_its_path_and_modify_time(console_app: Flask, signed_in: dict[str, str], name: str,
                                                        path: str) -> None:
    reply = console_app.test_client().get(f"/api/common/systemFile/{name}.json", headers=signed_in)
    assert reply.status_code == 200, reply.json
    assert reply.json["code"] == 0 and reply.json["data"] == {  # type: ignore[index]
        "name": name, "path": path, "modifyTime": int(MODIFIED_S * 1000)}


def test_a_changed_file_gets_a_new_modify_time_and_its_url_serves_it(console_app: Flask, tmp_path: Path,
                                                                      signed_in: dict[str, str]) -> None:
    client: FlaskClient = console_app.test_client()
    before = client.get("/api/common/systemFile/userManual-en-US.json", headers=signed_in).json["data"]  # type: ignore[index]
    (tmp_path / "manual/en-US.html").write_text("<p>manual, second edition</p>", encoding="utf-8")
    os.utime(tmp_path / "manual/en-US.html", (MODIFIED_S + 60, MODIFIED_S + 60))
    after = client.get("/api/common/systemFile/userManual-en-US.json", headers=signed_in).json["data"]  # type: ignore[index]
    assert after["modifyTime"] == before["modifyTime"] + 60_000 and after["path"] == before["path"]
    page = client.get(f"{after['path']}?t={after['modifyTime']}")
    assert page.status_code == 200 and page.text == "<p>manual, second edition</p>"


@pytest.mark.parametrize("name", ["nosuch", "index", "favicon.svg", "userManual-fr-FR", "..%2Findex"])
def test_an_unknown_name_is_a_404_naming_the_known_ones(console_app: Flask, signed_in: dict[str, str],
                                                        name: str) -> None:
    reply = console_app.test_client().get(f"/api/common/systemFile/{name}.json", headers={**signed_in, **ENGLISH})
    assert reply.status_code == 404 and reply.json["code"] == 404  # type: ignore[index]
    if "%2F" not in name:
        assert all(known in error_text(reply, "en-US") for known in SYSTEM_FILES)  # type: ignore[index]


def test_a_file_the_build_lacks_is_a_404(console_app: Flask, tmp_path: Path, signed_in: dict[str, str]) -> None:
    (tmp_path / "manual/zh-HK.html").unlink()
    reply = console_app.test_client().get("/api/common/systemFile/userManual-zh-HK.json", headers=signed_in)
    assert reply.status_code == 404


def test_signing_in_is_required(console_app: Flask) -> None:
    reply = console_app.test_client().get("/api/common/systemFile/logo.json")
    assert reply.status_code == 401
