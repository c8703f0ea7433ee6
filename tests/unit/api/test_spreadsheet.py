"""Spreadsheet cells to and from the generic routes' JSON values (api/query/spreadsheet.py)."""

from __future__ import annotations

import io
from datetime import UTC, datetime

import pytest
from openpyxl import load_workbook

from api.errors import BadRequest
from api.query import spreadsheet
from api.query.grammar import FieldSpec


@pytest.mark.parametrize(
    ("ftype", "cell", "value"),
    [
        ("int", 3.0, 3), ("int", " 42 ", 42), ("int", "4.5", "4.5"), ("int", "", None), ("int", None, None),
        ("str", 70101, "70101"), ("str", 70101.0, "70101"), ("str", "  J6P ", "J6P"), ("str", 1.5, "1.5"),
        ("float", "2.5", 2.5), ("float", 2, 2),
        ("bool", "是", True), ("bool", "false", False), ("bool", 1, True), ("bool", "maybe", "maybe"),
        ("time", datetime(2026, 11, 24, 8, 0), "2026-11-24T08:00:00"), ("time", "2026-11-24 08:00:00", "2026-11-24 08:00:00"),
    ],
)
def test_cells_become_the_values_the_create_route_takes(ftype: str, cell: object, value: object) -> None:
    # a value that does not fit ("4.5" for an integer) passes unchanged: the route's validation names it
    assert spreadsheet.json_value(FieldSpec("c", ftype), cell) == value  # type: ignore[arg-type]


def test_virtual_fields_take_json_text() -> None:
    assert spreadsheet.json_value(FieldSpec("c", virtual=True), "[1, 2]") == [1, 2]
    assert spreadsheet.json_value(FieldSpec("c", virtual=True), "[broken") == "[broken"


def test_export_cells() -> None:
    assert spreadsheet.cell_text(datetime(2026, 11, 24, 0, 30, tzinfo=UTC)) == "2026-11-24 08:30:00"  # UTC+8
    assert spreadsheet.cell_text({"a": {"before": None, "after": "中"}}) == '{"a": {"before": null, "after": "中"}}'
    assert spreadsheet.cell_text(True) == 1


def test_csv_is_utf8_with_bom_and_formulas_are_text_both_ways() -> None:
    out = spreadsheet.write_csv(["名称", "备注"], [["=1+2", "-x"], ["解放", None]]).read()
    assert out.startswith(b"\xef\xbb\xbf")
    assert out.decode("utf-8-sig").splitlines() == ["名称,备注", "'=1+2,'-x", "解放,"]
    assert list(spreadsheet.read_rows(out, 10)) == [(1, ["名称", "备注"]), (2, ["=1+2", "-x"]), (3, ["解放", ""])]


def test_xlsx_text_is_never_a_formula() -> None:
    out = spreadsheet.write_xlsx([("s", ["h"], [["=HYPERLINK(\"http://x\")"], ["bad\x01char"]])])
    sheet = load_workbook(io.BytesIO(out.read())).worksheets[0]
    cell = sheet["A2"]
    assert (cell.data_type, cell.value) == ("s", "=HYPERLINK(\"http://x\")")
    assert sheet["A3"].value == "badchar"  # characters XML cannot hold are dropped


def test_a_gb18030_csv_from_a_chinese_excel_is_read() -> None:
    assert list(spreadsheet.read_rows("名称\n解放\n".encode("gb18030"), 10)) == [(1, ["名称"]), (2, ["解放"])]


def test_row_cap_and_unreadable_files() -> None:
    with pytest.raises(BadRequest, match="more than 2 rows"):
        list(spreadsheet.read_rows(b"h\n1\n2\n3\n", 2))
    assert len(list(spreadsheet.read_rows(b"h\n1\n2\n", 2))) == 3
    for junk in (b"PK\x03\x04junk", b"a\x00b", b"\xff\xfe\xfa\x00"):
        with pytest.raises(BadRequest, match="文件无法读取"):
            list(spreadsheet.read_rows(junk, 10))


def test_a_zip_bomb_is_refused_before_it_is_inflated(monkeypatch: pytest.MonkeyPatch) -> None:
    workbook = spreadsheet.write_xlsx([("s", ["h"], [["x" * 1000] for _ in range(200)])]).read()
    assert len(list(spreadsheet.read_rows(workbook, 1000))) == 201
    monkeypatch.setattr(spreadsheet, "MAX_XLSX_INFLATED", 100_000)
    with pytest.raises(BadRequest, match="inflates to"):
        list(spreadsheet.read_rows(workbook, 1000))


def test_a_lone_dash_is_no_formula_and_stays_as_the_screen_shows_it() -> None:
    out = spreadsheet.write_csv(["上线率", "备注"], [["-", "-1"]]).read()
    assert out.decode("utf-8-sig").splitlines() == ["上线率,备注", "-,'-1"]
