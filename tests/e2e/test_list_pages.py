"""The one list page (dashboards/src/features/list/) in Chromium, on the car model catalogue: paging
total, create through the drawer (the server's 409 shown on its field first), edit, delete, English,
and the action directive hiding what a role may not do.

The screenshot docs/screenshots/list-carModel-zh-CN.png is written only with FLEET_SCREENSHOTS=1."""

from __future__ import annotations

import json
import re
import secrets
import urllib.request
from pathlib import Path
from typing import Any

from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import sign_in
from tests.e2e.test_console import screenshot, switch_language, text
from warehouse.db import connect
from warehouse.passwords import hash_password
from warehouse.seed import DEMO_PASSWORD, PARENT


def _post(stack: ConsoleStack, path: str, token: str, body: dict[str, Any]) -> Any:
    request = urllib.request.Request(f"{stack.base_url}{path}", data=json.dumps(body).encode(), method="POST",
                                     headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as reply:
        answer = json.load(reply)
    assert answer["code"] == 0, answer
    return answer["data"]


def _open_car_models(page: Any, user: str, password: str | None = None) -> None:
    sign_in(page, user, password, path="/list/carModel")
    page.wait_for_url(re.compile(r"/list/carModel"))
    page.get_by_test_id("list-page-carModel").wait_for()
    page.get_by_test_id("list-total").wait_for()


def _wait_total(page: Any, shown: str) -> None:
    """Waits until the pagination's total reads ``shown`` (antd shows no pagination for an empty list)."""
    page.wait_for_function("(t) => document.querySelector('[data-testid=list-total]')?.innerText.trim() === t",
                           arg=shown)


def _search_code(page: Any, code: str) -> None:
    page.get_by_test_id("list-filter-code").fill(code)
    page.get_by_test_id("list-search").click()


def _row(page: Any, code: str) -> Any:
    return page.get_by_test_id("list-table").locator("tr[data-row-key]", has_text=code)


def _field_error(page: Any, field: str) -> Any:
    item = page.get_by_test_id("record-drawer").locator(".ant-form-item", has=page.get_by_test_id(f"record-field-{field}"))
    return item.locator(".ant-form-item-explain-error")


def test_admin_lists_creates_edits_and_deletes_car_models(page: Any, console_stack: ConsoleStack) -> None:
    token = console_stack.token(PARENT.admin)
    taken = f"E2E{secrets.token_hex(3).upper()}"
    _post(console_stack, "/api/common/carModel.json", token, {"name": f"已有型号{taken}", "code": taken})
    count = _post(console_stack, "/api/common/count/carModel.json", token, {})

    _open_car_models(page, PARENT.admin)
    _wait_total(page, f"共 {count} 条数据")
    page.get_by_test_id("list-table").get_by_text(text("zh-CN", "catalogue", "carModel.fields.name"), exact=True).first.wait_for()
    screenshot(page, "list-carModel-zh-CN.png")

    # create: the server's 409 on the duplicate code lands on the code field, in the console's language
    # (zh-CN: the Chinese half of the bilingual message), then a fresh code saves
    page.get_by_test_id("list-create").click()
    name = f"型号{secrets.token_hex(3)}"
    code = f"E2F{secrets.token_hex(3).upper()}"
    page.get_by_test_id("record-field-name").fill(name)
    page.get_by_test_id("record-field-code").fill(taken)
    page.get_by_test_id("record-save").click()
    error = _field_error(page, "code").filter(has_text="code 已存在")
    error.wait_for()
    assert "already exists" not in error.inner_text()
    page.get_by_test_id("record-field-code").fill(code)
    page.get_by_test_id("record-save").click()
    page.get_by_test_id("record-drawer").wait_for(state="hidden")
    _wait_total(page, f"共 {count + 1} 条数据")

    # edit the new row, found by its code
    _search_code(page, code)
    _row(page, code).filter(has_text=name).wait_for()
    _wait_total(page, "共 1 条数据")
    record_id = _row(page, code).get_attribute("data-row-key")
    page.get_by_test_id(f"row-edit-{record_id}").click()
    renamed = f"{name}改"
    page.get_by_test_id("record-field-name").fill(renamed)
    page.get_by_test_id("record-save").click()
    page.get_by_test_id("record-drawer").wait_for(state="hidden")
    _row(page, code).filter(has_text=renamed).wait_for()

    # the list in English
    switch_language(page, "en-US")
    _wait_total(page, "Total: 1")
    page.get_by_test_id("list-table").get_by_text(text("en-US", "catalogue", "carModel.fields.name"), exact=True).first.wait_for()
    page.get_by_test_id("list-create").get_by_text(text("en-US", "list", "create")).wait_for()

    # delete it (confirm), the list is empty for that code and the server agrees
    page.get_by_test_id(f"row-delete-{record_id}").click()
    page.locator(".ant-popconfirm").get_by_role("button", name="OK").click()
    _row(page, code).wait_for(state="detached")
    page.get_by_test_id("list-table").locator(".ant-table-placeholder").wait_for()
    assert _post(console_stack, "/api/common/count/carModel.json", token, {"code.eq": code}) == 0
    assert page.errors == []


def test_a_role_without_add_sees_no_create_button_but_may_edit(page: Any, console_stack: ConsoleStack) -> None:
    user = f"e2e_cm_{secrets.token_hex(3)}"
    with connect(console_stack.db_url) as conn:
        def one(query: str, params: tuple[Any, ...]) -> Any:
            row = conn.execute(query, params).fetchone()
            assert row is not None
            return row[0]

        enterprise_id = one("SELECT id FROM enterprise WHERE name = %s", (PARENT.name,))
        role_id = one("INSERT INTO role (enterprise_id, name) VALUES (%s, %s) RETURNING id", (enterprise_id, f"型号查看{user}"))
        conn.execute("INSERT INTO role_permission (role_id, permission_code, actions) VALUES (%s, 'carModel', %s)",
                     (role_id, ["query", "get", "update"]))
        user_id = one("INSERT INTO app_user (enterprise_id, user_name, password_hash, name, nick_name)"
                      " VALUES (%s, %s, %s, %s, %s) RETURNING id",
                      (enterprise_id, user, hash_password(DEMO_PASSWORD), user, user))
        conn.execute("INSERT INTO user_role (user_id, role_id) VALUES (%s, %s)", (user_id, role_id))

    _open_car_models(page, user)
    first_id = page.get_by_test_id("list-table").locator("tr[data-row-key]").first.get_attribute("data-row-key")
    page.get_by_test_id(f"row-edit-{first_id}").wait_for()  # "update" on the server is the console's "edit"
    assert page.get_by_test_id("list-create").count() == 0
    assert page.get_by_test_id("list-bulk-delete").count() == 0
    assert page.get_by_test_id(f"row-delete-{first_id}").count() == 0
    assert page.get_by_test_id("list-import").count() == 0
    assert page.get_by_test_id("list-export-xlsx").count() == 0


def test_import_reports_refused_rows_and_export_follows_the_filters(page: Any, console_stack: ConsoleStack,
                                                                     tmp_path: Any) -> None:
    good = f"E2I{secrets.token_hex(3).upper()}"
    upload = tmp_path / "models.csv"
    upload.write_text(f"name,code,remark\n导入型号{good},{good},e2e\n坏型号,bad code,e2e\n", encoding="utf-8")
    _open_car_models(page, PARENT.admin)

    page.get_by_test_id("list-import").click()
    dialog = page.get_by_test_id("import-dialog")
    dialog.locator("input[type=file]").set_input_files(str(upload))
    summary = text("zh-CN", "list", "import.summary")
    for key, value in {"processed": 2, "total": 2, "created": 1, "failed": 1}.items():
        summary = summary.replace("{{" + key + "}}", str(value))
    page.get_by_test_id("import-summary").filter(has_text=summary).wait_for(timeout=30_000)
    refused = page.get_by_test_id("import-errors").locator("tbody tr.ant-table-row")
    assert refused.count() == 1
    assert "code" in refused.first.inner_text()  # the field the reason names (row 3 of the file)
    dialog.get_by_role("button", name=text("zh-CN", "list", "import.close")).click()

    _search_code(page, good)
    _row(page, good).wait_for()  # the list reloaded after the import
    with page.expect_download() as download:
        page.get_by_test_id("list-export-csv").click()
    exported = Path(download.value.path()).read_text(encoding="utf-8-sig")
    assert good in exported and "J6P" not in exported  # the filter applies to the export
    assert download.value.suggested_filename.endswith(".csv")
