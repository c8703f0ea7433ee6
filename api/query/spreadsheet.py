"""Spreadsheet files of declared entities: XLSX (openpyxl) and CSV (UTF-8 with BOM) written for
export and for the import template, and read back for import. No database here.

Cells are converted from and to the JSON values the generic routes take, so an imported row goes
through exactly the create route's validation (``api/query/records.py``):
- times are written as the console's local time (UTC+8, ``YYYY-MM-DD HH:MM:SS``), which is how a
  naive time is read back; JSON values (dicts, lists) as JSON text;
- a text cell starting with ``= + - @`` is stored as text in XLSX (never a formula) and prefixed with
  ``'`` in CSV (spreadsheet formula injection); the ``'`` is removed again on import.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import os
import tempfile
import zipfile
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import IO, Any

from openpyxl import Workbook, load_workbook
from openpyxl.cell import WriteOnlyCell
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE
from openpyxl.styles import Font

from api.errors import BadRequest
from api.query.grammar import EntitySpec, FieldSpec
from api.query.values import FLOAT_TEXT, INT_TEXT, NAIVE_TIME_ZONE

XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
CSV_TYPE = "text/csv; charset=utf-8"
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
MAX_COLUMNS = 200
MAX_XLSX_INFLATED = 256 * 1024 * 1024  # a 20,000-row sheet is a few MiB inflated
_SPOOL_BYTES = 8 * 1024 * 1024
_TRUE_TEXT = {"true", "1", "是", "yes", "y"}
_FALSE_TEXT = {"false", "0", "否", "no", "n"}


def header(name: str, spec: FieldSpec) -> str:
    return spec.label or name


# --- writing ---------------------------------------------------------------------------------------


def cell_text(value: Any) -> Any:
    """A value of a query row as a spreadsheet cell (number, text or None)."""
    if isinstance(value, datetime):
        local = (value if value.tzinfo else value.replace(tzinfo=UTC)).astimezone(NAIVE_TIME_ZONE)
        return local.strftime("%Y-%m-%d %H:%M:%S")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, dict | list | tuple):
        return json.dumps(value, ensure_ascii=False, default=str)
    if isinstance(value, bool):
        return int(value)
    return value


def _xlsx_cell(sheet: Any, value: Any, *, bold: bool = False) -> WriteOnlyCell:
    value = cell_text(value)
    if isinstance(value, str):
        value = ILLEGAL_CHARACTERS_RE.sub("", value)
    cell = WriteOnlyCell(sheet, value=value)
    if isinstance(value, str):
        cell.data_type = "s"  # never a formula, whatever the text starts with
    if bold:
        cell.font = Font(bold=True)
    return cell


def write_xlsx(sheets: Sequence[tuple[str, Sequence[str], Iterable[Sequence[Any]]]]) -> IO[bytes]:
    """A workbook (write-only: rows are not kept in memory) of ``(title, header, rows)`` sheets, in a
    spooled temporary file positioned at its start."""
    book = Workbook(write_only=True)
    for title, head, rows in sheets:
        sheet = book.create_sheet(title)
        try:
            sheet.append([_xlsx_cell(sheet, h, bold=True) for h in head])
            for row in rows:
                sheet.append([_xlsx_cell(sheet, v) for v in row])
        except BaseException:  # (the rows ran past the export maximum) close and drop the sheet's temp file
            _discard(sheet)
            raise
    out = tempfile.SpooledTemporaryFile(max_size=_SPOOL_BYTES)
    book.save(out)
    out.seek(0)
    return out


def _discard(sheet: Any) -> None:
    sheet.close()
    path = getattr(sheet._writer, "out", None)
    if isinstance(path, str) and os.path.exists(path):
        os.remove(path)


def _csv_text(value: Any) -> Any:
    value = cell_text(value)
    # a lone "-" (a screen's "no value") is no formula: it stays as it is
    if isinstance(value, str) and value != "-" and value.startswith(FORMULA_START):
        return "'" + value
    return value


def write_csv(head: Sequence[str], rows: Iterable[Sequence[Any]]) -> IO[bytes]:
    """UTF-8 with a BOM (Excel then opens Chinese text correctly), in a spooled temporary file."""
    out = tempfile.SpooledTemporaryFile(max_size=_SPOOL_BYTES)
    text = io.TextIOWrapper(out, encoding="utf-8-sig", newline="")
    writer = csv.writer(text)
    writer.writerow(head)
    for row in rows:
        writer.writerow([_csv_text(v) for v in row])
    text.flush()
    text.detach()
    out.seek(0)
    return out


def template(entity: EntitySpec, names: Sequence[str]) -> IO[bytes]:
    """The import template: a sheet with the header of the importable fields and a sheet describing
    each (required, format, allowed values)."""
    described = [
        (header(n, spec), n, "是 (yes)" if spec.required else "否 (no)", describe_format(spec),
         ", ".join(map(str, spec.enum or ())))
        for n, spec in ((n, entity.fields[n]) for n in names)
    ]
    return write_xlsx([
        ("导入模板", [header(n, entity.fields[n]) for n in names], []),
        ("字段说明", ["列名 (column)", "字段 (field)", "必填 (required)", "格式 (format)", "可选值 (allowed values)"],
         described),
    ])


def describe_format(spec: FieldSpec) -> str:
    kinds = {"int": "整数 (integer)", "float": "数字 (number)", "str": "文本 (text)",
             "time": "时间 YYYY-MM-DD HH:MM:SS (time, UTC+8)", "bool": "是/否 (true/false)"}
    parts = ["JSON" if spec.virtual else kinds[spec.type]]
    if spec.max_length is not None:
        parts.append(f"最长 {spec.max_length} 字符 (at most {spec.max_length} characters)")
    if spec.pattern is not None:
        parts.append(f"格式 {spec.pattern} (must match)")
    if spec.minimum is not None:
        parts.append(f">= {spec.minimum}")
    if spec.maximum is not None:
        parts.append(f"<= {spec.maximum}")
    if spec.unique:
        parts.append("唯一 (unique)")
    if spec.ref:
        parts.append(f"{spec.ref} 编号 (id of a {spec.ref})")
    return "; ".join(parts)


# --- reading ---------------------------------------------------------------------------------------


def read_rows(data: bytes, max_rows: int) -> Iterator[tuple[int, list[Any]]]:
    """``(row number, cells)`` of the first sheet of an XLSX workbook or of a CSV file (the first row
    is the header, number 1). Raises BadRequest for a file that is neither, or past ``max_rows``
    data rows."""
    rows = _xlsx_rows(data) if data[:4] == b"PK\x03\x04" else _csv_rows(data)
    for number, cells in enumerate(rows, start=1):
        if number > max_rows + 1:
            raise BadRequest(f"导入行数超过上限 (the file has more than {max_rows} rows; split it)")
        yield number, list(cells[:MAX_COLUMNS])


def _xlsx_rows(data: bytes) -> Iterator[Sequence[Any]]:
    try:
        # a zip bomb never reaches openpyxl (it reads the shared strings whole): the declared sizes
        # bound what zipfile will inflate
        inflated = sum(item.file_size for item in zipfile.ZipFile(io.BytesIO(data)).infolist())
        if inflated > MAX_XLSX_INFLATED:
            raise BadRequest(f"文件过大 (the workbook inflates to {inflated} bytes; at most {MAX_XLSX_INFLATED})")
        book = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
        sheet = book.worksheets[0]
        yield from sheet.iter_rows(values_only=True, max_col=MAX_COLUMNS)
    except BadRequest:
        raise
    except Exception as exc:  # zip, XML and openpyxl errors alike: the file is not a workbook we can read
        raise BadRequest(f"文件无法读取 (the file is not a readable XLSX workbook: {type(exc).__name__})") from None


def _csv_rows(data: bytes) -> Iterator[Sequence[Any]]:
    if b"\x00" in data:
        raise BadRequest("文件无法读取 (the file is neither an XLSX workbook nor CSV text)")
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        try:
            text = data.decode("gb18030")  # a CSV saved by a Chinese Excel
        except UnicodeDecodeError:
            raise BadRequest("文件无法读取 (CSV text must be UTF-8 or GB18030)") from None
    try:
        for cells in csv.reader(io.StringIO(text, newline="")):
            yield [_csv_cell(c) for c in cells]
    except csv.Error as exc:
        raise BadRequest(f"文件无法读取 (malformed CSV: {exc})") from None


def _csv_cell(text: str) -> str:
    if text.startswith("'") and text[1:].startswith(FORMULA_START):
        return text[1:]
    return text


def json_value(spec: FieldSpec, cell: Any) -> Any:
    """A cell as the JSON value the create route takes for ``spec`` (None for an empty cell). A
    value that does not fit is passed on unchanged: the route's validation names the problem."""
    if isinstance(cell, str):
        cell = cell.strip()
        if cell == "":
            return None
    if cell is None:
        return None
    if spec.virtual:
        if isinstance(cell, str) and cell[:1] in ("[", "{"):
            try:
                return json.loads(cell)
            except ValueError:
                return cell
        return cell
    if isinstance(cell, datetime):
        return cell.isoformat() if spec.type in ("str", "time") else cell
    if spec.choices and isinstance(cell, str):  # an export shows a code as its label: it imports back
        code = next((code for code, label in spec.choices if label == cell), None)
        if code is not None:
            return code
    return _CONVERT[spec.type](cell)


def _int(cell: Any) -> Any:
    if isinstance(cell, float) and cell.is_integer():
        return int(cell)
    if isinstance(cell, str) and INT_TEXT.fullmatch(cell):
        return int(cell)
    return cell


def _float(cell: Any) -> Any:
    if isinstance(cell, str) and FLOAT_TEXT.fullmatch(cell):
        return float(cell)
    return cell


def _str(cell: Any) -> Any:
    if isinstance(cell, bool):
        return cell
    if isinstance(cell, float) and cell.is_integer():
        return str(int(cell))  # "70101" read by Excel as a number
    if isinstance(cell, int | float):
        return str(cell)
    return cell


def _bool(cell: Any) -> Any:
    if isinstance(cell, str):
        lowered = cell.lower()
        return True if lowered in _TRUE_TEXT else False if lowered in _FALSE_TEXT else cell
    if isinstance(cell, int) and cell in (0, 1):
        return bool(cell)
    return cell


_CONVERT = {"int": _int, "float": _float, "str": _str, "time": _str, "bool": _bool}
