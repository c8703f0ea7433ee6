"""The evidence list in Chromium: a photo a terminal uploaded (bytes in this stack's media
store, its device_upload_file row) is listed with its plate and previews as an image fetched with the
token, and shows on the vehicle's detail page; another enterprise's user does not see it; in zh-CN and
en-US."""

from __future__ import annotations

import hashlib
import uuid
from datetime import UTC, datetime
from typing import Any

from fleet.media_store import LocalMediaStore, media_key
from simulator.camera import take_photo
from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import sign_in
from tests.e2e.test_console import switch_language
from warehouse.db import connect


def _uploaded_photo(stack: ConsoleStack, vehicle_enterprise: str) -> tuple[int, str, Any]:
    vehicle = stack.of(vehicle_enterprise)[0]
    now = datetime.now(UTC)
    photo = take_photo(vehicle.plate, now, size=(320, 240))
    sha = hashlib.sha256(photo).hexdigest()
    media_id = uuid.uuid4().int % 10**9
    key = media_key(vehicle.device_id, media_id, sha, 0, now)
    LocalMediaStore(stack.logs / "media").put(key, photo)  # FLEET_MEDIA_ROOT of the stack's API
    with connect(stack.db_url) as conn:
        row = conn.execute(
            "INSERT INTO device_upload_file (object_key, resource_type, file_store_type, enterprise_id, biz_id,"
            " device_id, car_id, media_id, media_type, media_format, event_code, channel, lng, lat, fix_time, size,"
            " sha256) SELECT %s, 1, 1, d.enterprise_id, 0, d.id, d.car_id, %s, 0, 0, 0, 1, 116.4, 39.9, %s, %s, %s"
            " FROM device d WHERE d.id = %s RETURNING id",
            (key, media_id, now, len(photo), sha, vehicle.device_id)).fetchone()
        conn.commit()
    assert row is not None
    return int(row[0]), key, vehicle


def test_an_uploaded_photo_is_listed_and_previews(page: Any, console_stack: ConsoleStack) -> None:
    file_id, key, vehicle = _uploaded_photo(console_stack, "a")
    sign_in(page, "admin_a", path="/list/evidence")
    page.goto("/list/evidence")
    screen = page.get_by_test_id("list-page-deviceUploadFile")
    screen.wait_for()
    row = screen.get_by_test_id("list-table").locator("tr.ant-table-row", has=page.get_by_test_id(
        f"row-preview-{file_id}"))
    row.wait_for()
    assert vehicle.plate in row.inner_text() and "图片" in row.inner_text() and "平台下发指令" in row.inner_text()
    page.get_by_test_id(f"row-preview-{file_id}").click()
    preview = page.get_by_test_id("evidence-preview")
    image = preview.get_by_test_id("evidence-photo")
    image.wait_for()
    page.wait_for_function("el => el.complete && el.naturalWidth === 320", arg=image.element_handle())
    assert image.get_attribute("src").startswith("blob:")  # fetched with the token, not a bare URL
    assert key in preview.inner_text()
    page.keyboard.press("Escape")

    switch_language(page, "en-US")
    row.get_by_text("Photo", exact=True).wait_for()
    row.get_by_text("Platform command", exact=True).wait_for()

    page.goto(f"/list/carDetail?carId={vehicle.car_id}")  # the vehicle's detail shows its latest photo
    photo = page.get_by_test_id("detail-photos").locator("img[src^='blob:']").first
    photo.wait_for()
    page.wait_for_function("el => el.complete && el.naturalWidth === 320", arg=photo.element_handle())
    assert page.errors == []  # type: ignore[attr-defined]


def test_another_enterprises_user_does_not_see_the_file(console_stack: ConsoleStack) -> None:
    file_id, _key, _vehicle = _uploaded_photo(console_stack, "b")
    token = console_stack.token("admin_a")
    listed = console_stack.post("/api/common/query/deviceUploadFile.json?isParent=true&pageSize=500", token, {})
    assert file_id not in [r["id"] for r in listed["list"]]
    own = console_stack.post("/api/common/query/deviceUploadFile.json?pageSize=500", console_stack.token("admin_b"),
                             {})
    assert file_id in [r["id"] for r in own["list"]]


def test_a_photo_changed_on_disk_is_refused_in_the_preview_with_the_checksum_message(
        page: Any, console_stack: ConsoleStack) -> None:
    file_id, key, _vehicle = _uploaded_photo(console_stack, "a")
    path = LocalMediaStore(console_stack.logs / "media").path_of(key)
    path.write_bytes(take_photo("FORGED", datetime.now(UTC), size=(320, 240)))  # replaced behind the store's back
    sign_in(page, "admin_a", path="/list/evidence")
    page.goto("/list/evidence")
    page.get_by_test_id(f"row-preview-{file_id}").click()
    page.get_by_test_id("evidence-preview").wait_for()
    page.get_by_text("文件校验失败").first.wait_for()  # the API's message, through the console's one error handler
    assert page.get_by_test_id("evidence-photo").count() == 0
