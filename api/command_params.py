"""The 8103 parameter list: each ``{id, value}`` (or ``{id, hex}``) checked against the one parameter table
(``protocols.jt808.messages.param_table``: type, unit, range, guard) before anything is sent.

One value form per type, so nothing is read two ways: a number parameter takes a JSON number
(``{"id": "0055", "value": 60}``), a STRING parameter text (``{"id": "0013", "value": "10.0.0.1"}``);
raw bytes go only under ``hex`` (``{"id": "0032", "hex": "08001800"}``), of the exact width for a
number (then range-checked like ``value``). The active-safety blocks 0xF364 (ADAS) and 0xF365 (DSM) of
T/JSATL12-2017 §4.2 take an object of their fields, camelCase (``{"id": "F364", "value":
{"alarmSpeedThresholdKmh": 30, ...}}``), or their whole block under ``hex``; either way every field is
checked against its range in ``protocols.jt808.messages.active_safety_params`` (all 0xFF: leave unchanged). A string "30" for a number parameter is a 400: it was read
as hex 0x30 before. Ids outside the table are refused: the platform sets only parameters it knows.

Where the spec and the protocol disagree: console-spec §5 lets the alarm form take 1 to 100000 for illegal
displacement (0x0031, m), overspeed warning difference (0x005B, km/h) and fatigue warning difference (0x005C,
s), but the JT/T 808 table of 0x8103 parameters makes each a WORD, and 0x005B counts 1/10 km/h on the wire.
The form accepts the spec's range (and sends 0x005B times 10); a value a terminal cannot carry is refused
here with the real maximum in the unit the form shows (65535 m, 6553.5 km/h, 65535 s), never clamped.
An alarm parameter's range text names the form's unit (``CONSOLE_UNIT``), not the wire's.

Failure modes: ``BadRequest`` naming the field (the console spec's messages for the alarm parameters).
"""

from __future__ import annotations

import re
from typing import Any

from api.errors import BadRequest
from protocols.jt808.errors import BodyError
from protocols.jt808.fields import encode_text
from protocols.jt808.messages.active_safety_params import BLOCKS, ParamBlock
from protocols.jt808.messages.param_table import PARAMS, TYPE_SIZE, ParamSpec
from protocols.jt808.messages.params import TerminalParam, decode_value

MASK = "******"

# console-spec §5 alarm configuration: id -> (the spec's name, English name); the ranges are the table's.
ALARM_PARAMS: dict[int, tuple[str, str]] = {
    0x0055: ("最高速度", "max speed"),
    0x0056: ("持续时间", "overspeed duration"),
    0x0057: ("连续驾驶时间门限", "continuous driving threshold"),
    0x0058: ("当天累计驾驶时间门限", "daily cumulative driving threshold"),
    0x0059: ("最小休息时间", "minimum rest time"),
    0x005A: ("最长停车时间", "max parking time"),
    0x0031: ("非法位移阈值", "illegal displacement threshold"),
    0x005B: ("超时报警预警差值", "overspeed warning difference"),
    0x005C: ("疲劳驾驶预警差值", "fatigue warning difference"),
}
# Console-spec §5 gives 0x0031, 0x005B and 0x005C 1 to 100000 (m, km/h, s), but the JT/T 808 table of 0x8103
# parameters makes each a WORD, and 0x005B counts 1/10 km/h: a terminal cannot carry more than 65535 m,
# 6553.5 km/h or 65535 s. The console's form takes the spec's range; a value past the WORD is refused here
# with the real maximum in the form's unit, never clamped.
WORD_CAPPED = frozenset({0x0031, 0x005B, 0x005C})
# id -> (the unit the console's alarm form shows, wire units per that unit) where it is not the wire's
CONSOLE_UNIT: dict[int, tuple[str, int]] = {0x005B: ("km/h", 10)}
# the spec's exact "required" texts (the last one has no 不能为空 in the spec)
_REQUIRED_TEXT = {pid: f"{zh}不能为空" for pid, (zh, _en) in ALARM_PARAMS.items()}
_REQUIRED_TEXT[0x005C] = "疲劳驾驶预警差值"

_HEX_ID = re.compile(r"^(0x)?[0-9A-Fa-f]{1,8}$")
_HEX = re.compile(r"^([0-9A-Fa-f]{2})*$")
_PHONE = re.compile(rb"^[0-9]*$")


def parse_param_id(raw: Any, field: str = "id") -> int:
    if isinstance(raw, int) and not isinstance(raw, bool) and 0 <= raw <= 0xFFFFFFFF:
        return raw
    if not isinstance(raw, str) or not _HEX_ID.match(raw.strip()):
        raise BadRequest(f"参数编号不合法 ({field}: a parameter id is 1 to 8 hex digits, got {str(raw)[:20]!r})",
                         data={"field": field})
    return int(raw.strip().removeprefix("0x").removeprefix("0X"), 16)


def _bad(label: str, zh: str, en: str) -> BadRequest:
    return BadRequest(f"参数 {label} {zh} (parameter {label} {en})", data={"field": label})


def _console_number(spec: ParamSpec, wire: int) -> str:
    """A wire value of an alarm parameter in the unit the console's alarm form shows (``CONSOLE_UNIT``)."""
    per = CONSOLE_UNIT.get(spec.id, ("", 1))[1]
    return f"{wire / per:g}" if per != 1 else str(wire)


def _range_error(spec: ParamSpec, label: str) -> BadRequest:
    unit = f" {spec.unit}" if spec.unit else ""
    if spec.id in ALARM_PARAMS:
        zh, en = ALARM_PARAMS[spec.id]
        low, high = _console_number(spec, spec.min), _console_number(spec, spec.max)
        shown = f" {CONSOLE_UNIT[spec.id][0]}" if spec.id in CONSOLE_UNIT else unit
        if spec.id in WORD_CAPPED:
            return BadRequest(f"{zh}范围 {low}~{high}{shown}，终端参数为 WORD，最大 {high}{shown}"
                              f" ({en} must be {low} to {high}{shown}: the terminal parameter is a WORD,"
                              f" at most {high}{shown})", data={"field": label})
        return BadRequest(f"{zh}范围 {low}~{high}{shown} ({en} must be {low} to {high}{shown})", data={"field": label})
    return _bad(label, f"超出范围 {spec.min}~{spec.max}",
                f"({spec.name}) must be {spec.min} to {spec.max}{unit}")


def _required(spec: ParamSpec | None, label: str) -> BadRequest:
    if spec is not None and spec.id in ALARM_PARAMS:
        return BadRequest(f"{_REQUIRED_TEXT[spec.id]} ({ALARM_PARAMS[spec.id][1]} is required)", data={"field": label})
    return BadRequest(f"参数 {label} 的值不能为空 (the value of parameter {label} is required)", data={"field": label})


def _from_hex(spec: ParamSpec, label: str, raw: Any) -> bytes:
    text = raw.strip().removeprefix("0x").removeprefix("0X") if isinstance(raw, str) else None
    if text is None or not _HEX.match(text):
        raise _bad(label, "的 hex 必须是十六进制文本", f"hex must be whole bytes of hex text, got {str(raw)[:20]!r}")
    data = bytes.fromhex(text)
    size = TYPE_SIZE.get(spec.type, spec.max if spec.type == "BYTES" else None)
    if size is not None and len(data) != size:
        raise _bad(label, f"是 {spec.type}，需要 {size} 字节", f"({spec.name}) is a {spec.type}: hex of {size} bytes")
    return data


def block_field_key(name: str) -> str:
    """A block field's name as the API spells it: ``alarm_speed_threshold_kmh`` -> ``alarmSpeedThresholdKmh``."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _block_error(label: str, exc: ValueError) -> BadRequest:
    return BadRequest(f"参数 {label} 的字段不合法 (parameter {label}: {exc})", data={"field": label})


def _block_value(block: ParamBlock, label: str, raw: Any) -> bytes:
    """An active-safety block given as its fields (camelCase keys; reserved fields as hex, optional)."""
    if not isinstance(raw, dict):
        raise _bad(label, "的值必须是字段对象", f"({block.name}) takes an object of its fields, or hex")
    by_key = {block_field_key(f.name): f for f in block.fields}
    values: dict[str, Any] = {}
    for key, value in raw.items():
        field = by_key.get(key)
        if field is None:
            raise _block_error(label, ValueError(f"{block.name} has no field {str(key)[:40]!r}"))
        if field.reserved and isinstance(value, str):
            if not _HEX.match(value):
                raise _block_error(label, ValueError(f"{key} takes hex text"))
            value = bytes.fromhex(value)
        values[field.name] = value
    try:
        return block.encode(values)
    except ValueError as exc:
        raise _block_error(label, exc) from None


def _checked_block_hex(block: ParamBlock, label: str, data: bytes) -> bytes:
    """A block given as hex: its fields are range-checked as if given one by one."""
    try:
        return block.encode(block.decode(data))
    except (BodyError, ValueError) as exc:
        raise _block_error(label, exc) from None


def _typed_value(spec: ParamSpec, label: str, raw: Any) -> int | bytes:
    """A ``value``: a JSON number for number parameters, text for STRING ones (as GBK bytes), an object
    of fields for an active-safety block."""
    if spec.id in BLOCKS:
        return _block_value(BLOCKS[spec.id], label, raw)
    if spec.type in TYPE_SIZE:
        if isinstance(raw, bool) or not isinstance(raw, int):
            raise _bad(label, "的值必须是数字", f"({spec.name}) takes a JSON number, e.g. {spec.min}, "
                       f"not {str(raw)[:20]!r} (raw bytes go in hex)")
        return raw
    if spec.type == "STRING":
        if not isinstance(raw, str):
            raise _bad(label, "的值必须是文本", f"({spec.name}) takes text")
        try:
            return encode_text(raw)
        except (ValueError, UnicodeError):
            raise _bad(label, "含终端无法保存的字符", f"({spec.name}) has characters outside GBK") from None
    raise _bad(label, "的值只能用 hex 给出", f"({spec.name}) is a byte block: give it as hex")


def parse_param(item: Any, index: int) -> TerminalParam:
    """One item of an 8103 paramList as a TerminalParam, checked against the parameter table."""
    if not isinstance(item, dict):
        raise BadRequest(f"paramList[{index}] 必须是 {{id, value}} (paramList[{index}] must be an object {{id, value}})",
                         data={"field": f"paramList[{index}]"})
    param_id = parse_param_id(item.get("id"), f"paramList[{index}].id")
    label = f"{param_id:04X}"
    spec = PARAMS.get(param_id)
    if spec is None:
        raise _bad(label, "不是平台可设置的终端参数", "is not a terminal parameter this platform sets")
    if "value" in item and "hex" in item:
        raise _bad(label, "只能给出 value 或 hex 之一", "takes either value or hex, not both")
    raw = item.get("hex", item.get("value"))
    if raw is None or (isinstance(raw, str) and not raw.strip() and spec.type != "STRING"):
        raise _required(spec, label)
    value = _from_hex(spec, label, raw) if "hex" in item else _typed_value(spec, label, raw)
    if spec.id in BLOCKS and "hex" in item:
        value = _checked_block_hex(BLOCKS[spec.id], label, value)  # type: ignore[arg-type]
    if spec.type in TYPE_SIZE:
        number = value if isinstance(value, int) else int.from_bytes(value, "big")
        if not spec.min <= number <= spec.max:
            raise _range_error(spec, label)
        return TerminalParam(param_id, number)
    assert isinstance(value, bytes)
    if spec.type == "STRING" and len(value) > spec.max:
        raise _bad(label, f"最长 {spec.max} 字节", f"({spec.name}) is at most {spec.max} bytes")
    if spec.digits and not _PHONE.match(value):
        raise _bad(label, "必须是电话号码（数字）", f"({spec.name}) is a phone number: digits only")
    return TerminalParam(param_id, decode_value(param_id, value) if spec.type == "STRING" else value)


def shown(param: TerminalParam) -> dict[str, Any]:
    """A parameter as the command row and the audit keep it: typed, credentials masked."""
    spec = PARAMS[param.id]
    if spec.secret:
        return {"id": f"{param.id:04X}", "value": MASK}
    if isinstance(param.value, bytes):
        return {"id": f"{param.id:04X}", "hex": param.value.hex().upper()}
    return {"id": f"{param.id:04X}", "value": param.value}


def guarded(params: tuple[TerminalParam, ...]) -> list[str]:
    """The link and identity parameters among ``params`` (param_table.py), as ``name (0xID)``."""
    return [f"{PARAMS[p.id].name} (0x{p.id:04X})" for p in params if PARAMS[p.id].guard]


def audit_changes(params: tuple[TerminalParam, ...], last_read: dict[str, str]) -> list[dict[str, Any]]:
    """Old (the terminal's last 0x0104) and new value of each guarded parameter, credentials masked."""
    out = []
    for param in params:
        spec = PARAMS[param.id]
        if not spec.guard:
            continue
        label = f"{param.id:04X}"
        old_hex = last_read.get(label)
        old: Any = None
        if old_hex is not None:
            try:
                old = decode_value(param.id, bytes.fromhex(old_hex))
            except ValueError:
                old = old_hex
            if isinstance(old, bytes):
                old = old.hex().upper()
        new = shown(param).get("value", shown(param).get("hex"))
        out.append({"id": label, "name": spec.name, "old": MASK if spec.secret and old is not None else old,
                    "new": new})
    return out
