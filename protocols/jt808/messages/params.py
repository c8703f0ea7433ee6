"""Terminal parameters (0x8103 set, 0x0104 query reply): id DWORD, length BYTE, value.

Values of the standard parameters are typed by the parameter table (``param_table.py``, JT/T
808-2013/2019 table 12, with each parameter's unit, range and guard): a number for DWORD/WORD/BYTE,
text for STRING. Anything else, or a value whose length does not match
its type, stays ``bytes`` so it can be re-sent unchanged. ``PARAM_NAMES`` names every id of the
table (units in the name); ``to_json`` shows ``{id, name, value, value_hex}``. The API and the
console speak hex: ``param_value_from_hex`` / ``param_value_to_hex``.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from protocols.jt808.errors import BodyError
from protocols.jt808.fields import decode_text, encode_text
from protocols.jt808.messages.param_table import PARAMS, TYPE_SIZE

# Names, types and sizes come from the one parameter table (param_table.py); 2019 reserves 0x0018/0x0019.
PARAM_NAMES: dict[int, str] = {pid: spec.name for pid, spec in PARAMS.items()}
# Ids whose value is a fixed-size byte block (no number or text reading): kept as bytes.
BYTES_SIZE: dict[int, int] = {pid: spec.max for pid, spec in PARAMS.items() if spec.type == "BYTES"}
NUMBER_SIZE: dict[int, int] = {pid: TYPE_SIZE[spec.type] for pid, spec in PARAMS.items() if spec.type in TYPE_SIZE}
STRING_IDS = frozenset(pid for pid, spec in PARAMS.items() if spec.type == "STRING")

_ITEM_HEAD = struct.Struct(">IB")


@dataclass(frozen=True)
class TerminalParam:
    """``value``: int for numeric standard parameters, str for text ones, bytes otherwise."""

    id: int
    value: int | str | bytes
    # The value's bytes as received (decoded params only; ``dataclasses.replace`` drops them): shown
    # as hex unchanged even when the text was UTF-8 or undecodable. Not part of equality.
    raw: bytes | None = field(default=None, init=False, compare=False, repr=False)

    def value_bytes(self) -> bytes:
        """The wire bytes of the value: ``raw`` when decoded, else the typed value encoded."""
        return self.raw if self.raw is not None else self.encode()[_ITEM_HEAD.size :]

    def encode(self) -> bytes:
        value = self.value
        if isinstance(value, bytes):
            data = value
        elif isinstance(value, str):
            data = encode_text(value)
        else:
            size = NUMBER_SIZE.get(self.id)
            if size is None:
                raise ValueError(f"parameter 0x{self.id:04X} has no numeric type; pass bytes")
            data = value.to_bytes(size, "big")
        if len(data) > 0xFF:
            raise ValueError(f"parameter 0x{self.id:04X} value exceeds 255 bytes")
        return _ITEM_HEAD.pack(self.id, len(data)) + data


def decode_value(param_id: int, raw: bytes) -> int | str | bytes:
    if NUMBER_SIZE.get(param_id) == len(raw):
        return int.from_bytes(raw, "big")
    if param_id in STRING_IDS:
        return decode_text(raw)
    return raw


def param_name(param_id: int) -> str | None:
    return PARAM_NAMES.get(param_id)


def param_type(param_id: int) -> str:
    """"DWORD", "WORD", "BYTE", "STRING" or "BYTES" (also for ids outside the standard table)."""
    size = NUMBER_SIZE.get(param_id)
    if size is not None:
        return {4: "DWORD", 2: "WORD", 1: "BYTE"}[size]
    return "STRING" if param_id in STRING_IDS else "BYTES"


def param_value_from_hex(param_id: int, value_hex: str) -> int | str | bytes:
    """The console's / API's hex value -> the typed value (as ``decode_value``).

    Raises ValueError when ``value_hex`` is not hex, or is a numeric parameter of the wrong length
    (e.g. "3C" for the DWORD 0x0055: the terminal would read the next parameter's bytes).
    """
    try:
        raw = bytes.fromhex(value_hex)
    except ValueError:
        raise ValueError(f"parameter 0x{param_id:04X}: {value_hex!r} is not hex") from None
    size = NUMBER_SIZE.get(param_id) or BYTES_SIZE.get(param_id)
    if size is not None and len(raw) != size:
        raise ValueError(f"parameter 0x{param_id:04X} ({param_type(param_id)}) needs {size} bytes, got {len(raw)}")
    return decode_value(param_id, raw)


def param_value_to_hex(param_id: int, value: int | str | bytes) -> str:
    """A typed value -> upper-case hex of its wire bytes ("0000003C" for 60 km/h in 0x0055).
    Raises ValueError for a number that does not fit the parameter's type, or a number for a
    non-numeric parameter."""
    if isinstance(value, int) and not isinstance(value, bool):
        size = NUMBER_SIZE.get(param_id)
        if size is None:
            raise ValueError(f"parameter 0x{param_id:04X} has no numeric type; pass bytes")
        if not 0 <= value < 1 << (8 * size):
            raise ValueError(f"parameter 0x{param_id:04X} value {value} does not fit {param_type(param_id)}")
    return TerminalParam(param_id, value).encode()[_ITEM_HEAD.size :].hex().upper()


def decode_params(body: bytes, pos: int, count: int, name: str, *, short_ok: bool = False) -> tuple[TerminalParam, ...]:
    """``count`` parameters from ``body[pos:]``. Raises BodyError when one overruns the body, or
    when the body ends before ``count`` parameters unless ``short_ok`` (then those present are kept:
    terminals in the field announce more than they send, vector P-0104-SHORT)."""
    params = []
    for index in range(count):
        if short_ok and pos == len(body):
            break
        if pos + _ITEM_HEAD.size > len(body):
            raise BodyError(f"{name} announces {count} parameters, body ends after {index}")
        param_id, length = _ITEM_HEAD.unpack_from(body, pos)
        pos += _ITEM_HEAD.size
        if pos + length > len(body):
            raise BodyError(f"{name} parameter 0x{param_id:04X} of {length} bytes overruns the body")
        raw = body[pos : pos + length]
        param = TerminalParam(param_id, decode_value(param_id, raw))
        object.__setattr__(param, "raw", raw)
        params.append(param)
        pos += length
    return tuple(params)


def encode_params(params: tuple[TerminalParam, ...]) -> bytes:
    if len(params) > 0xFF:
        raise ValueError("at most 255 parameters per message")
    return bytes((len(params),)) + b"".join(p.encode() for p in params)
