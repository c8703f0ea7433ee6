"""Typed GB/T 32960 and GB 17691 data units. Importing this package registers them with the codec."""

from protocols.gb32960.messages._blocks import BLOCKS, CustomBlock, UnparsedTail
from protocols.gb32960.messages.activation import ActivationAnswer, ActivationRequest, KeyExchange
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
from protocols.gb32960.messages.blocks_2025 import (
    Alarms2025,
    Engine2025,
    FuelCell2025,
    FuelCellStacks,
    MinUnitVoltages,
    Motors2025,
    PackTemperatures2025,
    PackUnitVoltages,
    Position2025,
    Signature,
    Stack,
    Supercapacitor,
    SupercapacitorExtremes,
    VehicleData2025,
)
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
    "ActivationAnswer", "ActivationRequest", "KeyExchange",
    "Alarms2025", "Engine2025", "FuelCell2025", "FuelCellStacks", "MinUnitVoltages", "PackTemperatures2025",
    "PackUnitVoltages", "Position2025", "Signature", "Stack", "Supercapacitor", "SupercapacitorExtremes",
    "BLOCKS", "Alarms", "CellVoltages", "ControlCommand", "CustomBlock", "EmissionLogin", "EmissionReissued",
    "EmissionReport", "EmissionTimeCalibration", "Engine", "EngineDataStream", "Extremes", "FuelCell",
    "GeneralAlarm", "Heartbeat", "Motor", "Motors", "Motors2025", "ObdInfo", "PackTemperatures", "PackVoltages",
    "ParameterQuery", "ParameterSet", "PlatformLogin", "PlatformLogout", "Position", "ProbeTemperatures",
    "RealtimeReport", "ReissuedReport", "TerminalControl", "TimeCalibration", "UnparsedTail", "VehicleData", "VehicleData2025",
    "VehicleLogin", "VehicleLogout",
]
