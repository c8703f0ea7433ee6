"""Typed JT/T 809 bodies. Importing this package registers them with the codec."""

from protocols.jt809.messages.alarms import (
    AlarmExchange,
    AlarmExchangeDown,
    AlarmReport,
    HandlingResult,
    UrgingAnswer,
    UrgingRequest,
)
from protocols.jt809.messages.control import (
    EmergencyAccess,
    ListenAnswer,
    RecorderRequest,
    StaticInfo,
    StaticInfoAnswer,
    StaticInfoDown,
    VehicleControl,
    VehicleControlDown,
)
from protocols.jt809.messages.control_requests import (
    EmergencyAnswer,
    ListenRequest,
    PhotoAnswer,
    PhotoRequest,
    RecorderAnswer,
    TextAnswer,
    TextRequest,
)
from protocols.jt809.messages.dynamic import (
    BackfilledPositions,
    ExchangedBackfill,
    ExchangedPosition,
    RealTimePosition,
    VehicleDynamic,
    VehicleDynamicDown,
    VehicleFamily,
    VehicleRegistration,
)
from protocols.jt809.messages.link import (
    DisconnectNotice,
    Heartbeat,
    HeartbeatResponse,
    InferiorClosingNotice,
    LoginRequest,
    LoginResponse,
    LoginResult,
    LogoutRequest,
    LogoutResponse,
    SubLinkDisconnectNotice,
    SubLinkHeartbeat,
    SubLinkHeartbeatResponse,
    SubLinkLoginRequest,
    SubLinkLoginResponse,
    SubLinkLoginResult,
    SubLinkLogoutRequest,
    SubLinkLogoutResponse,
    SuperiorClosingNotice,
)
from protocols.jt809.messages.notices import (
    AlarmReport2011,
    PlatformMessage,
    PlatformMessageAnswer,
    PositionCount,
    WarningTip,
)
from protocols.jt809.messages.platform import (
    InspectionAnswer,
    InspectionRequest,
    PlatformExchange,
    PlatformExchangeDown,
)
from protocols.jt809.messages.positions import Gnss2011, Gnss2019, PlatformAlarm
from protocols.jt809.messages.video import (
    Authorize,
    AuthorizeDown,
    AuthorizeReport,
    AuthorizeRequest,
    AuthorizeRequestAnswer,
    Playback,
    PlaybackAnswer,
    PlaybackControl,
    PlaybackControlAnswer,
    PlaybackDown,
    PlaybackRequest,
    RealVideo,
    RealVideoAnswer,
    RealVideoDown,
    RealVideoEnd,
    RealVideoEndAnswer,
    RealVideoRequest,
)

__all__ = [
    "AlarmExchange", "AlarmExchangeDown", "AlarmReport", "HandlingResult", "UrgingAnswer", "UrgingRequest",
    "BackfilledPositions", "DisconnectNotice", "ExchangedBackfill", "ExchangedPosition", "Gnss2011", "Gnss2019",
    "Heartbeat", "HeartbeatResponse", "InferiorClosingNotice", "InspectionAnswer", "InspectionRequest", "LoginRequest", "LoginResponse", "LoginResult",
    "LogoutRequest", "LogoutResponse", "PlatformAlarm", "PlatformExchange", "PlatformExchangeDown", "RealTimePosition", "SubLinkDisconnectNotice",
    "SubLinkHeartbeat", "SubLinkHeartbeatResponse", "SubLinkLoginRequest", "SubLinkLoginResponse",
    "SubLinkLoginResult", "SubLinkLogoutRequest", "SubLinkLogoutResponse", "SuperiorClosingNotice",
    "VehicleDynamic", "VehicleDynamicDown", "VehicleFamily", "VehicleRegistration", "EmergencyAccess", "ListenAnswer", "RecorderRequest",
    "StaticInfo", "StaticInfoAnswer", "StaticInfoDown", "VehicleControl", "VehicleControlDown",
    "AlarmReport2011", "PlatformMessage", "PlatformMessageAnswer", "PositionCount", "WarningTip",
    "EmergencyAnswer", "ListenRequest", "PhotoAnswer", "PhotoRequest", "RecorderAnswer", "TextAnswer", "TextRequest",
    "Authorize", "AuthorizeDown", "AuthorizeReport", "AuthorizeRequest", "AuthorizeRequestAnswer", "Playback",
    "PlaybackAnswer", "PlaybackControl", "PlaybackControlAnswer",
    "PlaybackDown", "PlaybackRequest", "RealVideo", "RealVideoAnswer", "RealVideoDown", "RealVideoEnd",
    "RealVideoEndAnswer", "RealVideoRequest",
]
