"""Terminal parameters (0x8103 set, 0x0104 query reply): id DWORD, length BYTE, value.

Values of the standard parameters are typed by the table below (JT/T 808-2013/2019 table 12): a
number for DWORD/WORD/BYTE, text for STRING. Anything else, or a value whose length does not match
its type, stays ``bytes`` so it can be re-sent unchanged. ``PARAM_NAMES`` names every id of the
table (units in the name); ``to_json`` shows ``{id, name, value, value_hex}``. The API and the
console speak hex: ``param_value_from_hex`` / ``param_value_to_hex``.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from protocols.jt808.errors import BodyError
from protocols.jt808.fields import decode_text, encode_text

_DWORD = (
    list(range(0x0001, 0x0008)) + [0x0018, 0x0019, 0x001B, 0x001C, 0x0020, 0x0021, 0x0022]
    + [0x0027, 0x0028, 0x0029, 0x002C, 0x002D, 0x002E, 0x002F, 0x0030, 0x0045, 0x0046, 0x0047]
    + list(range(0x0050, 0x005B)) + [0x0064, 0x0065] + list(range(0x0070, 0x0075))
    + [0x0080, 0x0093, 0x0095, 0x0100, 0x0102]
)
_WORD = [0x0031, 0x005B, 0x005C, 0x005D, 0x005E, 0x0081, 0x0082, 0x0101, 0x0103]
_BYTE = [0x0084, 0x0090, 0x0091, 0x0092, 0x0094]
_STRING = (
    list(range(0x0010, 0x0018)) + [0x001A, 0x001D] + list(range(0x0023, 0x0027))
    + list(range(0x0040, 0x0045)) + [0x0048, 0x0049, 0x0083]
)
# JT/T 808-2013 table 12, with the 2019 additions (0x0023-0x0026, 0x0032); 2019 reserves 0x0018/0x0019.
PARAM_NAMES: dict[int, str] = {
    0x0001: "heartbeat_interval_s",
    0x0002: "tcp_reply_timeout_s",
    0x0003: "tcp_retransmissions",
    0x0004: "udp_reply_timeout_s",
    0x0005: "udp_retransmissions",
    0x0006: "sms_reply_timeout_s",
    0x0007: "sms_retransmissions",
    0x0010: "main_server_apn",
    0x0011: "main_server_dial_user",
    0x0012: "main_server_dial_password",
    0x0013: "main_server_address",
    0x0014: "backup_server_apn",
    0x0015: "backup_server_dial_user",
    0x0016: "backup_server_dial_password",
    0x0017: "backup_server_address",
    0x0018: "server_tcp_port",
    0x0019: "server_udp_port",
    0x001A: "ic_card_auth_main_server_address",
    0x001B: "ic_card_auth_server_tcp_port",
    0x001C: "ic_card_auth_server_udp_port",
    0x001D: "ic_card_auth_backup_server_address",
    0x0020: "report_strategy",
    0x0021: "report_scheme",
    0x0022: "driver_absent_report_interval_s",
    0x0023: "slave_server_apn",
    0x0024: "slave_server_dial_user",
    0x0025: "slave_server_dial_password",
    0x0026: "slave_server_backup_address",
    0x0027: "sleep_report_interval_s",
    0x0028: "emergency_report_interval_s",
    0x0029: "default_report_interval_s",
    0x002C: "default_report_distance_m",
    0x002D: "driver_absent_report_distance_m",
    0x002E: "sleep_report_distance_m",
    0x002F: "emergency_report_distance_m",
    0x0030: "corner_retransmit_angle_deg",
    0x0031: "geofence_radius_m",
    0x0032: "illegal_driving_period",
    0x0040: "monitor_platform_phone",
    0x0041: "reset_phone",
    0x0042: "factory_reset_phone",
    0x0043: "platform_sms_phone",
    0x0044: "sms_alarm_phone",
    0x0045: "answer_strategy",
    0x0046: "max_call_time_s",
    0x0047: "max_monthly_call_time_s",
    0x0048: "monitor_phone",
    0x0049: "privileged_sms_phone",
    0x0050: "alarm_mask",
    0x0051: "alarm_sms_switch",
    0x0052: "alarm_photo_switch",
    0x0053: "alarm_photo_store_flags",
    0x0054: "key_alarm_flags",
    0x0055: "max_speed_kmh",
    0x0056: "overspeed_duration_s",
    0x0057: "continuous_driving_limit_s",
    0x0058: "daily_driving_limit_s",
    0x0059: "min_rest_s",
    0x005A: "max_parking_s",
    0x005B: "overspeed_warning_margin_01kmh",
    0x005C: "fatigue_warning_margin_s",
    0x005D: "collision_alarm_setting",
    0x005E: "rollover_alarm_angle_deg",
    0x0064: "timed_photo_control",
    0x0065: "distance_photo_control",
    0x0070: "image_quality",
    0x0071: "brightness",
    0x0072: "contrast",
    0x0073: "saturation",
    0x0074: "chroma",
    0x0080: "odometer_01km",
    0x0081: "province_id",
    0x0082: "city_id",
    0x0083: "plate_number",
    0x0084: "plate_color",
    0x0090: "gnss_mode",
    0x0091: "gnss_baud_rate",
    0x0092: "gnss_output_frequency",
    0x0093: "gnss_sample_interval_s",
    0x0094: "gnss_upload_mode",
    0x0095: "gnss_upload_setting",
    0x0100: "can1_sample_interval_ms",
    0x0101: "can1_upload_interval_s",
    0x0102: "can2_sample_interval_ms",
    0x0103: "can2_upload_interval_s",
    **{i: f"can_id_{i:04x}_sample_setting" for i in range(0x0110, 0x0200)},
}
# Ids whose value is a fixed-size byte block (no number or text reading): kept as bytes.
BYTES_SIZE: dict[int, int] = {0x0032: 4, **dict.fromkeys(range(0x0110, 0x0200), 8)}
NUMBER_SIZE: dict[int, int] = {**dict.fromkeys(_DWORD, 4), **dict.fromkeys(_WORD, 2), **dict.fromkeys(_BYTE, 1)}
STRING_IDS = frozenset(_STRING)

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
