"""The terminal parameter table (JT/T 808-2013 table 12, with the 2019 additions): one declaration per
parameter id, read by the codec (``params.py``: wire type and size) and by the platform's 8103 checks.

Each ``ParamSpec`` states the wire type, the unit of the value as sent, the range a platform may set
(numbers: inclusive min/max of the value; STRING: at most ``max`` bytes of GBK; BYTES: exactly
``max`` bytes), what the parameter is, and its ``guard``:

- ``"link"``: where and how the terminal connects (server addresses and ports, APN, dial user and
  password) or which phones may reset, monitor or command it by call / SMS. A wrong value takes the
  terminal off this platform, so setting one needs its own permission and a confirmation.
- ``"identity"``: what the terminal reports itself as at registration (province, city, plate, plate
  colour); changing it re-identifies the vehicle, same guard.
- ``None``: an ordinary setting.

The ranges refuse values that make a terminal useless while staying within what the standard allows:
a heartbeat or report interval of 0 (a flood) or of 0xFFFFFFFF s (silent for 136 years).
``secret``: the value is a credential, never shown back (masked in command rows and audit lines).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from protocols.jt808.messages.active_safety_params import ADAS_PARAMS, DSM_PARAMS

ParamType = Literal["DWORD", "WORD", "BYTE", "STRING", "BYTES"]
Guard = Literal["link", "identity"] | None

TYPE_SIZE: dict[str, int] = {"DWORD": 4, "WORD": 2, "BYTE": 1}
DAY_S = 86_400


@dataclass(frozen=True)
class ParamSpec:
    id: int
    name: str  # snake case, the unit in the name (as ``PARAM_NAMES``)
    type: ParamType
    min: int
    max: int
    what: str
    unit: str | None = None
    guard: Guard = None
    secret: bool = False
    digits: bool = False  # a phone number: digits only (STRING)


def _n(pid: int, name: str, kind: ParamType, low: int, high: int, what: str, unit: str | None = None,
       guard: Guard = None) -> ParamSpec:
    return ParamSpec(pid, name, kind, low, high, what, unit, guard)


def _s(pid: int, name: str, size: int, what: str, guard: Guard = "link", *, secret: bool = False,
       digits: bool = False) -> ParamSpec:
    return ParamSpec(pid, name, "STRING", 0, size, what, None, guard, secret, digits)


_LINK: Guard = "link"
_IDENTITY: Guard = "identity"

_TABLE: list[ParamSpec] = [
    _n(0x0001, "heartbeat_interval_s", "DWORD", 5, 3600, "terminal heartbeat interval", "s"),
    _n(0x0002, "tcp_reply_timeout_s", "DWORD", 1, 600, "TCP reply timeout", "s"),
    _n(0x0003, "tcp_retransmissions", "DWORD", 0, 10, "TCP retransmissions"),
    _n(0x0004, "udp_reply_timeout_s", "DWORD", 1, 600, "UDP reply timeout", "s"),
    _n(0x0005, "udp_retransmissions", "DWORD", 0, 10, "UDP retransmissions"),
    _n(0x0006, "sms_reply_timeout_s", "DWORD", 1, 600, "SMS reply timeout", "s"),
    _n(0x0007, "sms_retransmissions", "DWORD", 0, 10, "SMS retransmissions"),
    _s(0x0010, "main_server_apn", 32, "main server APN / CDMA dial number"),
    _s(0x0011, "main_server_dial_user", 32, "main server wireless dial-up user"),
    _s(0x0012, "main_server_dial_password", 32, "main server wireless dial-up password", secret=True),
    _s(0x0013, "main_server_address", 64, "main server address (IP or domain name)"),
    _s(0x0014, "backup_server_apn", 32, "backup server APN / CDMA dial number"),
    _s(0x0015, "backup_server_dial_user", 32, "backup server wireless dial-up user"),
    _s(0x0016, "backup_server_dial_password", 32, "backup server wireless dial-up password", secret=True),
    _s(0x0017, "backup_server_address", 64, "backup server address (IP or domain name)"),
    _n(0x0018, "server_tcp_port", "DWORD", 1, 65535, "server TCP port", guard=_LINK),
    _n(0x0019, "server_udp_port", "DWORD", 1, 65535, "server UDP port", guard=_LINK),
    _s(0x001A, "ic_card_auth_main_server_address", 64, "IC card authentication main server address"),
    _n(0x001B, "ic_card_auth_server_tcp_port", "DWORD", 1, 65535, "IC card authentication server TCP port",
       guard=_LINK),
    _n(0x001C, "ic_card_auth_server_udp_port", "DWORD", 1, 65535, "IC card authentication server UDP port",
       guard=_LINK),
    _s(0x001D, "ic_card_auth_backup_server_address", 64, "IC card authentication backup server address"),
    _n(0x0020, "report_strategy", "DWORD", 0, 2, "position report strategy (0 timed, 1 distance, 2 both)"),
    _n(0x0021, "report_scheme", "DWORD", 0, 1, "position report scheme (0 by ACC, 1 by login and ACC)"),
    _n(0x0022, "driver_absent_report_interval_s", "DWORD", 1, DAY_S, "report interval, driver not logged in", "s"),
    _s(0x0023, "slave_server_apn", 32, "slave server APN"),
    _s(0x0024, "slave_server_dial_user", 32, "slave server wireless dial-up user"),
    _s(0x0025, "slave_server_dial_password", 32, "slave server wireless dial-up password", secret=True),
    _s(0x0026, "slave_server_backup_address", 64, "slave server backup address"),
    _n(0x0027, "sleep_report_interval_s", "DWORD", 1, DAY_S, "report interval while sleeping", "s"),
    _n(0x0028, "emergency_report_interval_s", "DWORD", 1, 3600, "report interval during an emergency alarm", "s"),
    _n(0x0029, "default_report_interval_s", "DWORD", 1, 3600, "default report interval", "s"),
    _n(0x002C, "default_report_distance_m", "DWORD", 1, 100_000, "default report distance", "m"),
    _n(0x002D, "driver_absent_report_distance_m", "DWORD", 1, 100_000, "report distance, driver not logged in", "m"),
    _n(0x002E, "sleep_report_distance_m", "DWORD", 1, 100_000, "report distance while sleeping", "m"),
    _n(0x002F, "emergency_report_distance_m", "DWORD", 1, 100_000, "report distance during an emergency alarm",
       "m"),
    _n(0x0030, "corner_retransmit_angle_deg", "DWORD", 1, 179, "corner supplementary report angle", "deg"),
    _n(0x0031, "geofence_radius_m", "WORD", 1, 65535, "electronic fence radius (illegal displacement)", "m"),
    ParamSpec(0x0032, "illegal_driving_period", "BYTES", 4, 4, "illegal driving period (BCD HHMM start, end)"),
    _s(0x0040, "monitor_platform_phone", 20, "monitoring platform phone number", digits=True),
    _s(0x0041, "reset_phone", 20, "phone number that resets the terminal by calling it", digits=True),
    _s(0x0042, "factory_reset_phone", 20, "phone number that restores factory settings by calling", digits=True),
    _s(0x0043, "platform_sms_phone", 20, "monitoring platform SMS number", digits=True),
    _s(0x0044, "sms_alarm_phone", 20, "SMS text alarm number", digits=True),
    _n(0x0045, "answer_strategy", "DWORD", 0, 1, "answer strategy (0 auto, 1 auto on ACC on)"),
    _n(0x0046, "max_call_time_s", "DWORD", 0, DAY_S, "longest call per call", "s"),
    _n(0x0047, "max_monthly_call_time_s", "DWORD", 0, 31 * DAY_S, "longest call time per month", "s"),
    _s(0x0048, "monitor_phone", 20, "monitoring (listen-in) phone number", digits=True),
    _s(0x0049, "privileged_sms_phone", 20, "privileged SMS number of the monitoring platform", digits=True),
    _n(0x0050, "alarm_mask", "DWORD", 0, 0xFFFFFFFF, "alarm mask word (bits of the alarm flags)"),
    _n(0x0051, "alarm_sms_switch", "DWORD", 0, 0xFFFFFFFF, "alarm SMS switch (bits)"),
    _n(0x0052, "alarm_photo_switch", "DWORD", 0, 0xFFFFFFFF, "alarm photo switch (bits)"),
    _n(0x0053, "alarm_photo_store_flags", "DWORD", 0, 0xFFFFFFFF, "alarm photo store flags (bits)"),
    _n(0x0054, "key_alarm_flags", "DWORD", 0, 0xFFFFFFFF, "key alarm flags (bits)"),
    # console-spec §5 alarm configuration ranges (api/commands.py keeps the spec's messages)
    _n(0x0055, "max_speed_kmh", "DWORD", 1, 180, "max speed", "km/h"),
    _n(0x0056, "overspeed_duration_s", "DWORD", 1, 10_000, "overspeed duration", "s"),
    _n(0x0057, "continuous_driving_limit_s", "DWORD", 1, 180, "continuous driving threshold", "s"),
    _n(0x0058, "daily_driving_limit_s", "DWORD", 1, 10_000, "daily cumulative driving threshold", "s"),
    _n(0x0059, "min_rest_s", "DWORD", 1, 10_000, "minimum rest time", "s"),
    _n(0x005A, "max_parking_s", "DWORD", 1, 100_000, "max parking time", "s"),
    _n(0x005B, "overspeed_warning_margin_01kmh", "WORD", 1, 65535, "overspeed warning difference", "0.1 km/h"),
    _n(0x005C, "fatigue_warning_margin_s", "WORD", 1, 65535, "fatigue warning difference", "s"),
    _n(0x005D, "collision_alarm_setting", "WORD", 0, 65535, "collision alarm (time ms, acceleration 0.1 g)"),
    _n(0x005E, "rollover_alarm_angle_deg", "WORD", 0, 180, "rollover alarm angle", "deg"),
    _n(0x0064, "timed_photo_control", "DWORD", 0, 0xFFFFFFFF, "timed photo control (bits)"),
    _n(0x0065, "distance_photo_control", "DWORD", 0, 0xFFFFFFFF, "distance photo control (bits)"),
    _n(0x0070, "image_quality", "DWORD", 1, 10, "image quality (1 best)"),
    _n(0x0071, "brightness", "DWORD", 0, 255, "brightness"),
    _n(0x0072, "contrast", "DWORD", 0, 127, "contrast"),
    _n(0x0073, "saturation", "DWORD", 0, 127, "saturation"),
    _n(0x0074, "chroma", "DWORD", 0, 255, "chroma"),
    _n(0x0080, "odometer_01km", "DWORD", 0, 99_999_999, "vehicle odometer", "0.1 km"),
    _n(0x0081, "province_id", "WORD", 0, 65535, "province id of the vehicle (GB/T 2260)", guard=_IDENTITY),
    _n(0x0082, "city_id", "WORD", 0, 65535, "city id of the vehicle (GB/T 2260)", guard=_IDENTITY),
    _s(0x0083, "plate_number", 16, "plate number issued by the traffic authority", _IDENTITY),
    _n(0x0084, "plate_color", "BYTE", 0, 9, "plate colour (JT/T 415; 0 no plate)", guard=_IDENTITY),
    _n(0x0090, "gnss_mode", "BYTE", 0, 15, "GNSS positioning mode (bits: GPS, BeiDou, GLONASS, Galileo)"),
    _n(0x0091, "gnss_baud_rate", "BYTE", 0, 5, "GNSS baud rate (0 4800 ... 5 115200)"),
    _n(0x0092, "gnss_output_frequency", "BYTE", 0, 4, "GNSS detail output frequency (0 500 ms ... 4 4000 ms)"),
    _n(0x0093, "gnss_sample_interval_s", "DWORD", 1, 3600, "GNSS detail sampling interval", "s"),
    _n(0x0094, "gnss_upload_mode", "BYTE", 0, 0x0D, "GNSS detail upload mode"),
    _n(0x0095, "gnss_upload_setting", "DWORD", 0, 0xFFFFFFFF, "GNSS detail upload setting"),
    _n(0x0100, "can1_sample_interval_ms", "DWORD", 0, DAY_S * 1000, "CAN channel 1 sampling interval (0 off)",
       "ms"),
    _n(0x0101, "can1_upload_interval_s", "WORD", 0, 65535, "CAN channel 1 upload interval (0 off)", "s"),
    _n(0x0102, "can2_sample_interval_ms", "DWORD", 0, DAY_S * 1000, "CAN channel 2 sampling interval (0 off)",
       "ms"),
    _n(0x0103, "can2_upload_interval_s", "WORD", 0, 65535, "CAN channel 2 upload interval (0 off)", "s"),
    *(ParamSpec(i, f"can_id_{i:04x}_sample_setting", "BYTES", 8, 8, "CAN bus id sampling setting")
      for i in range(0x0110, 0x0200)),
    # T/JSATL12-2017 §4.2 active-safety blocks: one byte block each, whose fields and ranges
    # active_safety_params.py declares (the API checks them field by field).
    *(ParamSpec(block.param_id, block.name, "BYTES", block.size, block.size, what)
      for block, what in ((ADAS_PARAMS, "ADAS parameters (Jiangsu layout)"),
                          (DSM_PARAMS, "DSM parameters (Jiangsu layout)"))),
]

PARAMS: dict[int, ParamSpec] = {spec.id: spec for spec in _TABLE}
