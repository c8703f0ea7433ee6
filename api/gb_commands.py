"""Commands to a GB/T 32960 terminal on the existing command routes (the one command path): payload
validation and the data unit of 0x80 parameter query, 0x81 parameter set, 0x82 terminal control
(GB/T 32960.3-2016 §7.6-7.8, tables 24-27).

A device whose protocol is ``gb32960`` takes the JT/T 808 command codes that mean the same thing, so the
console and API keep one set of routes:

- 8104 ``{}``: 0x80 query of every table-24 id (0x01-0x10);
- 8106 ``{ids: ["02", "09"]}``: 0x80 query of those ids (hex text, 0x01-0x10);
- 8103 ``{paramList: [{id: "02", value: 10}, {id: "05", value: "gb.example.com"}]}``: 0x81 set; a number
  of the id's width (table 24), text for the domains 0x05 / 0x0E (their length items 0x04 / 0x0D are
  written from the text, never given); the versions 0x07 / 0x08 are read only;
- 8105 ``{command: 3}``: 0x82 terminal control 0x03 reset; 0x02 shutdown, 0x04 factory reset and
  0x05 disconnect are sensitive (``sensitiveCommand:cmd`` and ``confirm: true``); 0x01 upgrade, 0x06 alarm
  and 0x07 sampling link carry parameters whose layout the codec does not type, so they are refused.

Every other command is a 400 for such a device, and so is any command to a GB 17691 / HJ 1239 /
DB4403/T 363 device (those standards define no platform-to-terminal command). The data unit starts with
the platform's time (GMT+8, written by the codec); the gateway adds the header (VIN, flag 0xFE).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from api.commands import Built, int_field
from api.errors import BadRequest
from protocols.gb32960 import Protocol
from protocols.gb32960.messages.params import PARAMETERS, ParameterQuery, ParameterSet, TerminalControl

GB_COMMAND_PROTOCOL = "gb32960"
# the length items a domain's length comes from (table 24), and the read-only versions
_LENGTH_OF = {0x05: 0x04, 0x0E: 0x0D}
_DERIVED = {0x04: 0x05, 0x0D: 0x0E}
_READ_ONLY = {0x07, 0x08}
DOMAIN_MAX = 255  # the length item is one byte

SAFE_CONTROL = {0x03: "reset"}
SENSITIVE_CONTROL = {0x02: "shutdown", 0x04: "factory reset", 0x05: "disconnect from the platform"}


def _param_id(raw: Any, field: str) -> int:
    value: int | None = None
    if isinstance(raw, str) and 1 <= len(raw.strip()) <= 4:
        try:
            value = int(raw.strip(), 16)
        except ValueError:
            value = None
    if value is None or value not in PARAMETERS:
        raise BadRequest(f"{field} 不是 GB/T 32960 参数 ID (0x01~0x10) ({field} is not a GB/T 32960 parameter id: "
                         f"table 24 has 0x01 to 0x10)", data={"field": field})
    return value


def _query_all(p: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    ids = tuple(sorted(PARAMETERS))
    return ParameterQuery(datetime.now(UTC), ids), {"ids": [f"{pid:02X}" for pid in ids]}


def _query(p: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    raw = p.get("ids")
    if not isinstance(raw, list) or not raw or len(raw) > len(PARAMETERS):
        raise BadRequest(f"ids 不能为空，最多 {len(PARAMETERS)} 项 (ids must list 1 to {len(PARAMETERS)} parameter ids)",
                         data={"field": "ids"})
    ids = tuple(dict.fromkeys(_param_id(item, f"ids[{index}]") for index, item in enumerate(raw)))
    return ParameterQuery(datetime.now(UTC), ids), {"ids": [f"{pid:02X}" for pid in ids]}


def _set(p: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    raw = p.get("paramList")
    if not isinstance(raw, list) or not raw or len(raw) > len(PARAMETERS):
        raise BadRequest(f"paramList 不能为空，最多 {len(PARAMETERS)} 项 (paramList must list 1 to {len(PARAMETERS)} "
                         f"parameters)", data={"field": "paramList"})
    items: list[tuple[int, int | str]] = []
    shown: list[dict[str, Any]] = []
    seen: set[int] = set()
    for index, item in enumerate(raw):
        field = f"paramList[{index}]"
        if not isinstance(item, dict):
            raise BadRequest(f"{field} 必须是 {{id, value}} ({field} must be an object {{id, value}})",
                             data={"field": field})
        pid = _param_id(item.get("id"), f"{field}.id")
        name, width = PARAMETERS[pid]
        if pid in seen:
            raise BadRequest(f"{field}.id 重复 (parameter 0x{pid:02X} is given twice)", data={"field": f"{field}.id"})
        seen.add(pid)
        if pid in _READ_ONLY:
            raise BadRequest(f"参数 0x{pid:02X} 只读 (parameter 0x{pid:02X} {name} is read only)",
                             data={"field": f"{field}.id"})
        if pid in _DERIVED:
            raise BadRequest(f"参数 0x{pid:02X} 由 0x{_DERIVED[pid]:02X} 的长度得出 (parameter 0x{pid:02X} {name} "
                             f"is written from the length of 0x{_DERIVED[pid]:02X}; set that one)",
                             data={"field": f"{field}.id"})
        value = item.get("value")
        if width == 0:  # a domain: ASCII text of 1-255 bytes, preceded by its length item
            if not isinstance(value, str) or not value or len(value) > DOMAIN_MAX or not value.isascii() \
                    or not value.isprintable():
                raise BadRequest(f"{field}.value 必须是 1~{DOMAIN_MAX} 个 ASCII 字符 ({field}.value must be 1 to "
                                 f"{DOMAIN_MAX} printable ASCII characters for {name})", data={"field": f"{field}.value"})
            items += [(_LENGTH_OF[pid], len(value)), (pid, value)]
        else:
            high = (1 << (8 * width)) - 1
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= high:
                raise BadRequest(f"{field}.value 必须是 0~{high} 的整数 ({field}.value must be an integer from 0 to "
                                 f"{high}: {name} is {width} byte{'s' if width > 1 else ''})",
                                 data={"field": f"{field}.value"})
            items.append((pid, value))
        shown.append({"id": f"{pid:02X}", "value": value})
    return ParameterSet(datetime.now(UTC), tuple(items)), {"paramList": shown}


def _control(p: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    command = int_field(p, "command", 1, 255)
    if command not in SAFE_CONTROL and command not in SENSITIVE_CONTROL:
        allowed = ", ".join(f"{k} {v}" for k, v in sorted((SAFE_CONTROL | SENSITIVE_CONTROL).items()))
        raise BadRequest(f"不支持的终端控制命令 (GB/T 32960 terminal control {command} is not allowed; allowed: "
                         f"{allowed})", data={"field": "command"})
    return TerminalControl(datetime.now(UTC), command), {"command": command}


BUILDERS: dict[str, Callable[[dict[str, Any]], tuple[Any, dict[str, Any]]]] = {
    "8104": _query_all, "8106": _query, "8103": _set, "8105": _control,
}


def build(command: str, payload: Any, protocol: str) -> Built:
    """Validate ``payload`` of route code ``command`` for a GB device of ``protocol`` and encode its data unit."""
    if protocol != GB_COMMAND_PROTOCOL or command not in BUILDERS:
        raise BadRequest(f"{protocol} 终端不支持该指令 (a {protocol} terminal does not take command {command}; "
                         f"a gb32960 terminal takes {', '.join(BUILDERS)})", data={"field": "command"})
    if payload is not None and not isinstance(payload, dict):
        raise BadRequest("请求体必须是 JSON 对象 (the body must be a JSON object)")
    body, shown = BUILDERS[command](payload or {})
    sensitive: tuple[str, ...] = ()
    if command == "8105" and shown["command"] in SENSITIVE_CONTROL:
        sensitive = (f"terminal control: {SENSITIVE_CONTROL[shown['command']]}",)
    if command == "8103" and any(item["id"] in ("05", "06", "0E", "0F") for item in shown["paramList"]):
        sensitive = ("platform link parameters (domain, port)",)
    return Built(body.COMMAND, body.encode(Protocol.GB32960_2016).hex(), shown, sensitive)
