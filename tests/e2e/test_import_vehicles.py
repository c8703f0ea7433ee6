"""Onboarding by spreadsheet in Chromium: a new company's administrator imports 1,000
vehicles from an XLSX file through the car list's import dialog (progress bar, summary), and the list
then counts them. The company is made here and its cars are soft-deleted afterwards, so the other
browser tests of the session never see 1,000 more vehicles in their trees."""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from typing import Any

import openpyxl
import pytest

from fleet.zh_hk import to_hk
from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import sign_in
from tests.e2e.test_console import text
from warehouse.db import connect
from warehouse.passwords import hash_password
from warehouse.seed import DEMO_PASSWORD, PARENT

VEHICLES = 1000
CAR_ACTIONS = ["add", "delete", "update", "query", "get", "import", "export"]


@pytest.fixture
def new_company(console_stack: ConsoleStack) -> Iterator[dict[str, Any]]:
    """A subsidiary of the demo root with one group and an administrator holding the car actions."""
    tag = secrets.token_hex(3).upper()
    with connect(console_stack.db_url) as conn:
        def one(query: str, params: tuple[Any, ...]) -> Any:
            row = conn.execute(query, params).fetchone()
            assert row is not None
            return row[0]

        parent_id, parent_path = conn.execute("SELECT id, path FROM enterprise WHERE name = %s",
                                              (PARENT.name,)).fetchone()  # type: ignore[misc]
        enterprise_id = one("INSERT INTO enterprise (parent_id, name, short_name) VALUES (%s, %s, %s) RETURNING id",
                            (parent_id, f"导入测试公司{tag}", f"导入{tag}"))
        conn.execute("UPDATE enterprise SET path = %s WHERE id = %s", (f"{parent_path}{enterprise_id}/", enterprise_id))
        conn.execute("INSERT INTO car_group (enterprise_id, name) VALUES (%s, %s)", (enterprise_id, "一车队"))
        role_id = one("INSERT INTO role (enterprise_id, name) VALUES (%s, %s) RETURNING id", (enterprise_id, f"管理员{tag}"))
        conn.execute("INSERT INTO role_permission (role_id, permission_code, actions) VALUES (%s, 'car', %s)",
                     (role_id, CAR_ACTIONS))
        user = f"import_{tag.lower()}"
        user_id = one("INSERT INTO app_user (enterprise_id, user_name, password_hash, name, nick_name)"
                      " VALUES (%s, %s, %s, %s, %s) RETURNING id",
                      (enterprise_id, user, hash_password(DEMO_PASSWORD), user, user))
        conn.execute("INSERT INTO user_role (user_id, role_id) VALUES (%s, %s)", (user_id, role_id))
    yield {"id": enterprise_id, "tag": tag, "user": user}
    with connect(console_stack.db_url) as conn:
        conn.execute("UPDATE car SET record_state = 0 WHERE enterprise_id = %s", (enterprise_id,))


def _workbook(path: Any, tag: str) -> None:
    """The sheet a fleet company has: zh-CN headers (the declaration's labels), a group by its name."""
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append(["车牌号", "车牌颜色", "车架号", "车组名称"])
    for i in range(VEHICLES):
        sheet.append([f"导{tag[:2]}{i:05d}", 2, f"LE2E{tag}{i:07d}", "一车队"])
    book.save(path)


def test_a_new_company_imports_1000_vehicles_from_a_spreadsheet(
    page: Any, console_stack: ConsoleStack, new_company: dict[str, Any], tmp_path: Any
) -> None:
    upload = tmp_path / "vehicles.xlsx"
    _workbook(upload, new_company["tag"])
    sign_in(page, new_company["user"], path="/list/car")
    page.wait_for_url(re.compile(r"/list/car"))
    page.get_by_test_id("list-page-car").wait_for()

    page.get_by_test_id("list-import").click()
    dialog = page.get_by_test_id("import-dialog")
    dialog.locator("input[type=file]").set_input_files(str(upload))
    page.get_by_test_id("import-progress").wait_for()
    summary = text("zh-CN", "list", "import.summary")
    for key, value in {"processed": VEHICLES, "total": VEHICLES, "created": VEHICLES, "failed": 0}.items():
        summary = summary.replace("{{" + key + "}}", str(value))
    page.get_by_test_id("import-summary").filter(has_text=summary).wait_for(timeout=120_000)
    assert page.get_by_test_id("import-errors").count() == 0
    dialog.get_by_role("button", name=text("zh-CN", "list", "import.close")).click()

    # the list reloads: 1,000 vehicles of the new company, each in its group
    page.wait_for_function("(t) => document.querySelector('[data-testid=list-total]')?.innerText.trim() === t",
                           arg=f"共 {VEHICLES} 条数据", timeout=30_000)
    with connect(console_stack.db_url) as conn:
        grouped = conn.execute(
            "SELECT count(*) FROM car c JOIN car_group g ON g.id = c.group_id"
            " WHERE c.enterprise_id = %s AND c.record_state = 1 AND g.name = '一车队'", (new_company["id"],)
        ).fetchone()
        audited = conn.execute(
            "SELECT count(*) FROM audit_log WHERE entity = 'car' AND action = 'create' AND enterprise_id = %s",
            (new_company["id"],),
        ).fetchone()
    assert grouped == (VEHICLES,) and audited == (VEHICLES,)
    assert page.errors == []  # type: ignore[attr-defined]


@pytest.mark.parametrize(("language", "reason"), [("zh-CN", "字段不能为空"), ("zh-HK", to_hk("字段不能为空")),
                                                  ("en-US", "field(s) required: plateNumber")])
def test_a_refused_row_is_explained_in_the_consoles_language(
    page: Any, console_stack: ConsoleStack, new_company: dict[str, Any], tmp_path: Any, language: str, reason: str
) -> None:
    # a row error reads as an error reply does (platform-spec §8): the caller's language, never the other one
    upload = tmp_path / "two.xlsx"
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append(["车牌号", "车牌颜色", "车架号", "车组名称"])
    sheet.append([f"导{new_company['tag'][:2]}R0001", 2, f"LR3E{new_company['tag']}0000001", "一车队"])
    sheet.append(["", 2, f"LR3E{new_company['tag']}0000002", "一车队"])  # row 3: no plate
    book.save(upload)
    page.add_init_script(f"window.localStorage.setItem('fleetwatch.language', '{language}')")
    sign_in(page, new_company["user"], path="/list/car")
    page.get_by_test_id("list-page-car").wait_for()
    page.get_by_test_id("list-import").click()
    page.get_by_test_id("import-dialog").locator("input[type=file]").set_input_files(str(upload))
    errors = page.get_by_test_id("import-errors")
    errors.filter(has_text=reason).wait_for(timeout=60_000)
    shown = errors.inner_text()
    assert "3" in shown
    if language == "en-US":
        assert "字段" not in shown
    else:
        assert "required" not in shown
    assert page.errors == []  # type: ignore[attr-defined]
