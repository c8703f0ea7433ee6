"""The message catalogue is the one definition of every message id; the rest of the tree imports it.

The rule the scan enforces, outside ``protocols/`` and the tests: an int literal written as four hex
digits (``0x0200``) whose value is a message id of the JT/T 808 or JT/T 809 catalogue may not appear
- in the value of a module- or class-level assignment (a message-id constant, or a set/dict of ids), nor
- anywhere in a function body, except as a key of a dict display (terminal parameter ids, 0x0001...,
  share the number space with message ids).
Test vectors (``tests/``) keep their literals: they check the codec against the standard's numbers.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import protocols.jt808 as jt808
import protocols.jt808.messages as bodies
from protocols.jt808 import catalogue
from protocols.jt808.registry import body_class, registered_ids
from protocols.jt809 import catalogue as exchange

ROOT = Path(__file__).resolve().parents[3]
SCANNED = ("api", "benchmarks", "fleet", "gateway", "notebooks", "orchestration", "pipelines", "scripts",
           "simulator", "streams", "warehouse")
FOUR_HEX = re.compile(r"0[xX][0-9A-Fa-f]{4}")
MESSAGE_IDS = set(catalogue.BY_ID) | set(exchange.BY_ID)


class _Scan(ast.NodeVisitor):
    """Collects the lines of message-id literals, split by where they stand."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.constants: list[int] = []  # in a module- or class-level assignment
        self.inline: list[int] = []  # in a function body, not as a dict key
        self._in_function = 0
        self._in_assignment = 0
        self._dict_keys: set[int] = set()

    def _is_message_id(self, node: ast.Constant) -> bool:
        if type(node.value) is not int or node.value not in MESSAGE_IDS or node.end_col_offset is None:
            return False
        text = self.lines[node.lineno - 1][node.col_offset:node.end_col_offset]
        return FOUR_HEX.fullmatch(text) is not None

    def visit_Constant(self, node: ast.Constant) -> None:
        if not self._is_message_id(node):
            return
        if self._in_function:
            if id(node) not in self._dict_keys:
                self.inline.append(node.lineno)
        elif self._in_assignment:
            self.constants.append(node.lineno)

    def visit_Dict(self, node: ast.Dict) -> None:
        self._dict_keys.update(id(key) for key in node.keys if key is not None)
        self.generic_visit(node)

    def _function(self, node: ast.AST) -> None:
        self._in_function += 1
        self.generic_visit(node)
        self._in_function -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function

    def _assignment(self, node: ast.AST) -> None:
        self._in_assignment += 1
        self.generic_visit(node)
        self._in_assignment -= 1

    visit_Assign = visit_AnnAssign = visit_AugAssign = _assignment


def _scan(path: Path) -> tuple[list[int], list[int]]:
    """(lines of message-id constants, lines of message-id literals in function bodies) of one module."""
    source = path.read_text(encoding="utf-8")
    scan = _Scan(source.splitlines())
    scan.visit(ast.parse(source))
    return sorted(set(scan.constants)), sorted(set(scan.inline))


def _python_files() -> list[Path]:
    return sorted(p for folder in SCANNED for p in (ROOT / folder).rglob("*.py") if "node_modules" not in p.parts)


def test_no_module_outside_protocols_defines_a_message_id_constant() -> None:
    offenders = {}
    for path in _python_files():
        constants, _ = _scan(path)
        if constants:
            offenders[str(path.relative_to(ROOT))] = constants
    assert offenders == {}, f"{len(offenders)} modules define message ids; import them from protocols.jt808.catalogue"


def test_no_code_outside_protocols_writes_a_message_id_as_a_literal() -> None:
    offenders = {}
    for path in _python_files():
        _, inline = _scan(path)
        if inline:
            offenders[str(path.relative_to(ROOT))] = inline
    assert offenders == {}, "write the catalogue's name (protocols.jt808.catalogue), not the number"


def test_the_scan_finds_a_constant_a_set_of_ids_and_an_inline_id_but_not_parameter_keys(tmp_path: Path) -> None:
    module = tmp_path / "sample.py"
    module.write_text("A = 0x0200\nB = frozenset({0x8001})\nC = 0x00FF\nD = 512\n"
                      "class K:\n    E = 0x9208\n"
                      "def f(x):\n    params = {0x0001: 30}\n    return x == 0x0704, params\n", encoding="utf-8")
    assert _scan(module) == ([1, 2, 6], [9])


def test_every_body_the_codec_registers_is_in_the_catalogue_and_vice_versa() -> None:
    with_body = sorted(info.msg_id for info in catalogue.MESSAGES if info.has_body)
    assert with_body == registered_ids()
    assert all(body_class(info.msg_id) is None for info in catalogue.MESSAGES if not info.has_body)
    assert len(catalogue.BY_ID) == len(catalogue.MESSAGES)  # no id listed twice


def test_direction_and_standard_follow_the_numbering() -> None:
    info = catalogue.message_info(catalogue.LOCATION_REPORT)
    assert info is not None and info.direction is catalogue.Direction.UP and info.hex == "0x0200"
    assert catalogue.BY_ID[catalogue.ALARM_ATTACHMENT_UPLOAD_REQUEST].direction is catalogue.Direction.DOWN
    assert catalogue.BY_ID[catalogue.REALTIME_AV_REQUEST].standard is catalogue.Standard.JT1078
    assert catalogue.BY_ID[catalogue.ATTACHMENT_FILE_DONE].standard is catalogue.Standard.ATTACHMENT
    assert catalogue.message_info(0x0FFF) is None
    assert all(info.name and info.name_en for info in catalogue.MESSAGES)
    assert exchange.BY_ID[0x1001].main_link and not exchange.BY_ID[0x9001].main_link


def test_the_package_exports_every_body_its_messages_package_exports() -> None:
    assert set(bodies.__all__) <= set(jt808.__all__)
    assert all(hasattr(jt808, name) for name in jt808.__all__)
    assert jt808.DriverIdentity is bodies.DriverIdentity
