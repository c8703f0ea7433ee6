"""Typed GB/T 32960 and GB 17691 data units. Importing this package registers them with the codec."""

from protocols.gb32960.messages._blocks import BLOCKS, CustomBlock, UnparsedTail
from protocols.gb32960.messages.blocks_2016 import (
    Alarms,
    CellVoltages,
    Engine,
    Extremes,
    FuelCell,
    GeneralAlarm,
    Motor,
    Motors,
    PackTemperatures,
    PackVoltages,
    Position,
    ProbeTemperatures,
    VehicleData,
)
from protocols.gb32960.messages.blocks_2025 import Motors2025, VehicleData2025
from protocols.gb32960.messages.emission import EngineDataStream, ObdInfo
from protocols.gb32960.messages.params import ControlCommand, ParameterQuery, ParameterSet, TerminalControl
from protocols.gb32960.messages.realtime import (
    EmissionReissued,
    EmissionReport,
    RealtimeReport,
    ReissuedReport,
)
from protocols.gb32960.messages.session import (
    EmissionLogin,
    EmissionTimeCalibration,
    Heartbeat,
    PlatformLogin,
    PlatformLogout,
    TimeCalibration,
    VehicleLogin,
    VehicleLogout,
)

__all__ = [
    "BLOCKS", "Alarms", "CellVoltages", "ControlCommand", "CustomBlock", "EmissionLogin", "EmissionReissued",
    "EmissionReport", "EmissionTimeCalibration", "Engine", "EngineDataStream", "Extremes", "FuelCell",
    "GeneralAlarm", "Heartbeat", "Motor", "Motors", "Motors2025", "ObdInfo", "PackTemperatures", "PackVoltages",
    "ParameterQuery", "ParameterSet", "PlatformLogin", "PlatformLogout", "Position", "ProbeTemperatures",
    "RealtimeReport", "ReissuedReport", "TerminalControl", "TimeCalibration", "UnparsedTail", "VehicleData", "VehicleData2025",
    "VehicleLogin", "VehicleLogout",
]
