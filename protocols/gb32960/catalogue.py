"""The GB/T 32960.3 and GB 17691 command catalogue: every command id with its name and direction,
defined once (GB/T 32960.3-2016 table 3; GB 17691-2018 annex Q table Q.2). Ids are per family: 0x05 is
platform login in 32960 and time calibration in 17691. A command whose data unit the codec types is
the body class's ``COMMAND``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

from protocols.gb32960 import messages as m


@dataclass(frozen=True, slots=True)
class CommandInfo:
    command: int
    name: str  # as the standard names it (zh-CN)
    name_en: str
    uplink: bool  # terminal / platform -> receiving platform


VEHICLE_LOGIN: Final = m.VehicleLogin.COMMAND
REALTIME: Final = m.RealtimeReport.COMMAND
REISSUED: Final = m.ReissuedReport.COMMAND
VEHICLE_LOGOUT: Final = m.VehicleLogout.COMMAND
PLATFORM_LOGIN: Final = m.PlatformLogin.COMMAND
PLATFORM_LOGOUT: Final = m.PlatformLogout.COMMAND
HEARTBEAT: Final = m.Heartbeat.COMMAND
TIME_CALIBRATION: Final = m.TimeCalibration.COMMAND
PARAMETER_QUERY: Final = m.ParameterQuery.COMMAND
PARAMETER_SET: Final = m.ParameterSet.COMMAND
TERMINAL_CONTROL: Final = m.TerminalControl.COMMAND
EMISSION_TIME_CALIBRATION: Final = m.EmissionTimeCalibration.COMMAND
ACTIVATION: Final = m.ActivationRequest.COMMAND  # 2025 only
KEY_EXCHANGE: Final = m.KeyExchange.COMMAND  # 2025 only

GB32960_COMMANDS: Final[tuple[CommandInfo, ...]] = (
    CommandInfo(VEHICLE_LOGIN, "车辆登入", "Vehicle login", True),
    CommandInfo(REALTIME, "实时信息上报", "Real-time data", True),
    CommandInfo(REISSUED, "补发信息上报", "Back-filled data", True),
    CommandInfo(VEHICLE_LOGOUT, "车辆登出", "Vehicle logout", True),
    CommandInfo(PLATFORM_LOGIN, "平台登入", "Platform login", True),
    CommandInfo(PLATFORM_LOGOUT, "平台登出", "Platform logout", True),
    CommandInfo(HEARTBEAT, "心跳", "Heartbeat", True),
    CommandInfo(TIME_CALIBRATION, "终端校时", "Time calibration", True),
    CommandInfo(ACTIVATION, "激活", "Activation (2025)", True),
    CommandInfo(KEY_EXCHANGE, "数据单元加密密钥交换", "Data encryption key exchange (2025)", True),
    CommandInfo(PARAMETER_QUERY, "查询命令", "Parameter query", False),
    CommandInfo(PARAMETER_SET, "设置命令", "Parameter set", False),
    CommandInfo(TERMINAL_CONTROL, "车载终端控制命令", "Terminal control", False),
)
GB17691_COMMANDS: Final[tuple[CommandInfo, ...]] = (
    CommandInfo(VEHICLE_LOGIN, "车辆登入", "Vehicle login", True),
    CommandInfo(REALTIME, "实时信息上报", "Real-time data", True),
    CommandInfo(REISSUED, "补发信息上报", "Back-filled data", True),
    CommandInfo(VEHICLE_LOGOUT, "车辆登出", "Vehicle logout", True),
    CommandInfo(EMISSION_TIME_CALIBRATION, "终端校时", "Time calibration", True),
)

BY_FAMILY: Final[Mapping[str, Mapping[int, CommandInfo]]] = MappingProxyType({
    "gb32960": MappingProxyType({c.command: c for c in GB32960_COMMANDS}),
    "gb17691": MappingProxyType({c.command: c for c in GB17691_COMMANDS}),
})

INFO_TYPE_NAMES: Final[Mapping[int, str]] = MappingProxyType({
    0x01: "整车数据", 0x02: "驱动电机数据", 0x03: "燃料电池数据", 0x04: "发动机数据", 0x05: "车辆位置数据",
    0x06: "极值数据", 0x07: "报警数据", 0x08: "可充电储能装置电压数据", 0x09: "可充电储能装置温度数据",
})


def name_of(protocol_family: str, command: int) -> str:
    """zh-CN name of a command of that family ('gb32960' / 'gb17691'); hex when unknown."""
    info = BY_FAMILY[protocol_family].get(command)
    return info.name if info is not None else f"0x{command:02X}"
