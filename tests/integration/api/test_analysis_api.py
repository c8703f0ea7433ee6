"""The rendered analyst notebooks through the real app: a root enterprise's user with report:query reads the
list and a page; a subsidiary's administrator (the lake holds every enterprise) and a root user without the
right get 403; an unknown or malformed name is a 404."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.integration.api.conftest import Demo
from tests.integration.api.test_console_api import PASSWORD, make_user

PAGE = "<html><head><title>车队里程与出车率</title></head><body>北京示范运输集团 <img src=\"data:image/png;base64,iVBO\"></body></html>"


@pytest.fixture
def pages(app: Flask, tmp_path: Path) -> Iterator[Path]:
    (tmp_path / "fleet_mileage_utilisation.html").write_text(PAGE, encoding="utf-8")
    (tmp_path / "index.json").write_text(json.dumps([
        {"name": "fleet_mileage_utilisation", "title": "车队里程与出车率", "rendered_at": "2026-12-01T02:15:00+00:00"},
        {"name": "data_quality_kpis", "title": "数据质量考核指标", "rendered_at": "", "error": "CellExecutionError: x"},
    ], ensure_ascii=False), encoding="utf-8")
    app.config["FLEET_NOTEBOOK_PAGES_DIR"] = str(tmp_path)
    try:
        yield tmp_path
    finally:
        app.config.pop("FLEET_NOTEBOOK_PAGES_DIR", None)


def test_root_report_user_lists_and_reads_a_rendered_notebook(
        client: FlaskClient, login: Callable[[str], dict[str, str]], pages: Path) -> None:
    headers = login("admin")
    listed = client.get("/api/analysis/notebooks.json", headers=headers)
    assert listed.status_code == 200, listed.json
    assert listed.json["data"] == [  # type: ignore[index]
        {"name": "fleet_mileage_utilisation", "title": "车队里程与出车率", "renderedAt": "2026-12-01T02:15:00+00:00",
         "error": None},
        {"name": "data_quality_kpis", "title": "数据质量考核指标", "renderedAt": None, "error": "CellExecutionError: x"}]
    page = client.get("/api/analysis/notebooks/fleet_mileage_utilisation.json", headers=headers)
    assert page.status_code == 200
    assert page.json["data"]["title"] == "车队里程与出车率" and page.json["data"]["html"] == PAGE  # type: ignore[index]


def test_returns_403_to_a_subsidiary_administrator_the_lake_holds_other_enterprises(
        client: FlaskClient, login: Callable[[str], dict[str, str]], pages: Path) -> None:
    headers = login("admin_a")
    for url in ("/api/analysis/notebooks.json", "/api/analysis/notebooks/fleet_mileage_utilisation.json"):
        reply = client.get(url, headers=headers)
        assert reply.status_code == 403 and "根企业" in reply.json["message"], (url, reply.json)  # type: ignore[index]


def test_returns_403_to_a_root_user_without_the_report_right(
        client: FlaskClient, demo: Demo, pg_url: str, pages: Path) -> None:
    user = make_user(pg_url, demo.enterprises["parent"], {"monitor": ["query"]})
    reply = client.get("/oauth2/token.json", query_string={"grant_type": "password", "username": user.name,
                                                             "password": PASSWORD})
    headers = {"Authorization": f"Bearer {reply.json['data']['access_token']}"}  # type: ignore[index]
    assert client.get("/api/analysis/notebooks.json", headers=headers).status_code == 403


@pytest.mark.parametrize("name", ["nowhere", "data_quality_kpis", "Fleet-Mileage", "..%2Findex"])
def test_an_unknown_unrendered_or_malformed_page_is_a_404(
        client: FlaskClient, login: Callable[[str], dict[str, str]], pages: Path, name: str) -> None:
    reply = client.get(f"/api/analysis/notebooks/{name}.json", headers=login("admin"))
    assert reply.status_code == 404
