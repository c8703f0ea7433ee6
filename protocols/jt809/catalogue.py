"""The JT/T 809 message catalogue: every inter-platform message id and sub-business data type with its
name and direction, defined once.

Main-link messages (``0x1xxx``) go from the inferior platform up to the superior one, sub-link messages
(``0x9xxx``) down (JT/T 809-2011 §5.1); a data type follows the numbering of its family. The ids overlap
JT/T 808's (0x1003, 0x9003), so they live in their own table. An id or data type whose body the codec
decodes is the body class's ``MSG_ID`` / ``DATA_TYPE``; the others are written here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from types import MappingProxyType
from typing import Final

from protocols.jt809 import messages as m


class Direction(Enum):
    UP = "up"  # inferior -> superior platform (main link)
    DOWN = "down"  # superior -> inferior platform (sub link)


def _direction(number: int) -> Direction:
    return Direction.UP if number < 0x9000 else Direction.DOWN


@dataclass(frozen=True, slots=True)
class ExchangeMessage:
    msg_id: int
    name: str  # as the standard names it (zh-CN)
    name_en: str

    @property
    def main_link(self) -> bool:
        """True for the main link (lower platform -> superior), False for the sub link."""
        return self.msg_id < 0x9000

    @property
    def direction(self) -> Direction:
        return _direction(self.msg_id)


@dataclass(frozen=True, slots=True)
class ExchangeDataType:
    """A sub-business (DATA_TYPE) inside a family message (0x1200, 0x9300, ...)."""

    data_type: int
    family: int  # the message id that carries it
    name: str
    name_en: str

    @property
    def direction(self) -> Direction:
        return _direction(self.data_type)


# Link management
LOGIN_REQUEST: Final = m.LoginRequest.MSG_ID
LOGIN_RESPONSE: Final = m.LoginResponse.MSG_ID
LOGOUT_REQUEST: Final = m.LogoutRequest.MSG_ID
LOGOUT_RESPONSE: Final = m.LogoutResponse.MSG_ID
HEARTBEAT: Final = m.Heartbeat.MSG_ID
HEARTBEAT_RESPONSE: Final = m.HeartbeatResponse.MSG_ID
DISCONNECT_NOTICE: Final = m.DisconnectNotice.MSG_ID
INFERIOR_CLOSING: Final = m.InferiorClosingNotice.MSG_ID
SUB_LOGIN_REQUEST: Final = m.SubLinkLoginRequest.MSG_ID
SUB_LOGIN_RESPONSE: Final = m.SubLinkLoginResponse.MSG_ID
SUB_LOGOUT_REQUEST: Final = m.SubLinkLogoutRequest.MSG_ID
SUB_LOGOUT_RESPONSE: Final = m.SubLinkLogoutResponse.MSG_ID
SUB_HEARTBEAT: Final = m.SubLinkHeartbeat.MSG_ID
SUB_HEARTBEAT_RESPONSE: Final = m.SubLinkHeartbeatResponse.MSG_ID
SUB_DISCONNECT_NOTICE: Final = m.SubLinkDisconnectNotice.MSG_ID
SUPERIOR_CLOSING: Final = m.SuperiorClosingNotice.MSG_ID
POSITION_COUNT: Final = m.PositionCount.MSG_ID
# Families (a sub-business header or data type, then the data)
DYNAMIC_UP: Final = m.VehicleDynamic.MSG_ID
DYNAMIC_DOWN: Final = m.VehicleDynamicDown.MSG_ID
PLATFORM_UP: Final = m.PlatformExchange.MSG_ID
PLATFORM_DOWN: Final = m.PlatformExchangeDown.MSG_ID
ALARM_UP: Final = m.AlarmExchange.MSG_ID
ALARM_DOWN: Final = m.AlarmExchangeDown.MSG_ID
CONTROL_UP: Final = m.VehicleControl.MSG_ID
CONTROL_DOWN: Final = m.VehicleControlDown.MSG_ID
STATIC_UP: Final = m.StaticInfo.MSG_ID
STATIC_DOWN: Final = m.StaticInfoDown.MSG_ID
# JT/T 1078-2016's video families (protocols/jt809/messages/video.py)
AUTHORIZE_UP: Final = m.Authorize.MSG_ID
REAL_VIDEO_UP: Final = m.RealVideo.MSG_ID
REAL_VIDEO_DOWN: Final = m.RealVideoDown.MSG_ID
PLAYBACK_UP: Final = m.Playback.MSG_ID
PLAYBACK_DOWN: Final = m.PlaybackDown.MSG_ID
# Data types with typed data
VEHICLE_REGISTRATION: Final = m.VehicleRegistration.DATA_TYPE
REAL_TIME_POSITION: Final = m.RealTimePosition.DATA_TYPE
BACKFILLED_POSITIONS: Final = m.BackfilledPositions.DATA_TYPE
EXCHANGED_POSITION: Final = m.ExchangedPosition.DATA_TYPE
EXCHANGED_BACKFILL: Final = m.ExchangedBackfill.DATA_TYPE
INSPECTION_REQUEST: Final = m.InspectionRequest.DATA_TYPE
INSPECTION_ANSWER: Final = m.InspectionAnswer.DATA_TYPE
URGING_ANSWER: Final = m.UrgingAnswer.DATA_TYPE
ALARM_REPORT: Final = m.AlarmReport.DATA_TYPE
HANDLING_RESULT: Final = m.HandlingResult.DATA_TYPE
URGING_REQUEST: Final = m.UrgingRequest.DATA_TYPE
LISTEN_ANSWER: Final = m.ListenAnswer.DATA_TYPE
RECORDER_REQUEST: Final = m.RecorderRequest.DATA_TYPE
EMERGENCY_ACCESS: Final = m.EmergencyAccess.DATA_TYPE
STATIC_INFO_ANSWER: Final = m.StaticInfoAnswer.DATA_TYPE
ALARM_REPORT_2011: Final = m.AlarmReport2011.DATA_TYPE
PLATFORM_MESSAGE: Final = m.PlatformMessage.DATA_TYPE
PLATFORM_MESSAGE_ANSWER: Final = m.PlatformMessageAnswer.DATA_TYPE
WARNING_TIP: Final = m.WarningTip.DATA_TYPE


MESSAGES: Final[tuple[ExchangeMessage, ...]] = (
    ExchangeMessage(LOGIN_REQUEST, "主链路登录请求", "Main link login request"),
    ExchangeMessage(LOGIN_RESPONSE, "主链路登录应答", "Main link login response"),
    ExchangeMessage(LOGOUT_REQUEST, "主链路注销请求", "Main link logout request"),
    ExchangeMessage(LOGOUT_RESPONSE, "主链路注销应答", "Main link logout response"),
    ExchangeMessage(HEARTBEAT, "主链路连接保持请求", "Main link keep-alive request"),
    ExchangeMessage(HEARTBEAT_RESPONSE, "主链路连接保持应答", "Main link keep-alive response"),
    ExchangeMessage(DISCONNECT_NOTICE, "主链路断开通知", "Main link disconnect notice"),
    ExchangeMessage(INFERIOR_CLOSING, "下级平台主动关闭链路通知", "Inferior platform closes the link"),
    ExchangeMessage(DYNAMIC_UP, "主链路动态信息交换", "Main link dynamic information exchange"),
    ExchangeMessage(PLATFORM_UP, "主链路平台间信息交互", "Main link platform information exchange"),
    ExchangeMessage(ALARM_UP, "主链路报警信息交互", "Main link alarm information exchange"),
    ExchangeMessage(CONTROL_UP, "主链路车辆监管", "Main link vehicle supervision"),
    ExchangeMessage(STATIC_UP, "主链路静态信息交换", "Main link static information exchange"),
    ExchangeMessage(AUTHORIZE_UP, "主链路时效口令交互", "Main link authorisation codes"),
    ExchangeMessage(REAL_VIDEO_UP, "主链路实时音视频交互", "Main link real-time audio/video"),
    ExchangeMessage(0x1900, "主链路远程录像检索交互", "Main link recording search"),
    ExchangeMessage(PLAYBACK_UP, "主链路远程录像回放交互", "Main link remote playback"),
    ExchangeMessage(0x1B00, "主链路远程录像下载交互", "Main link recording download"),
    ExchangeMessage(SUB_LOGIN_REQUEST, "从链路连接请求", "Sub link connect request"),
    ExchangeMessage(SUB_LOGIN_RESPONSE, "从链路连接应答", "Sub link connect response"),
    ExchangeMessage(SUB_LOGOUT_REQUEST, "从链路注销请求", "Sub link logout request"),
    ExchangeMessage(SUB_LOGOUT_RESPONSE, "从链路注销应答", "Sub link logout response"),
    ExchangeMessage(SUB_HEARTBEAT, "从链路连接保持请求", "Sub link keep-alive request"),
    ExchangeMessage(SUB_HEARTBEAT_RESPONSE, "从链路连接保持应答", "Sub link keep-alive response"),
    ExchangeMessage(SUB_DISCONNECT_NOTICE, "从链路断开通知", "Sub link disconnect notice"),
    ExchangeMessage(SUPERIOR_CLOSING, "上级平台主动关闭链路通知", "Superior platform closes the link"),
    ExchangeMessage(POSITION_COUNT, "接收定位信息数量通知", "Number of positions received"),
    ExchangeMessage(DYNAMIC_DOWN, "从链路动态信息交换", "Sub link dynamic information exchange"),
    ExchangeMessage(PLATFORM_DOWN, "从链路平台间信息交互", "Sub link platform information exchange"),
    ExchangeMessage(ALARM_DOWN, "从链路报警信息交互", "Sub link alarm information exchange"),
    ExchangeMessage(CONTROL_DOWN, "从链路车辆监管", "Sub link vehicle supervision"),
    ExchangeMessage(STATIC_DOWN, "从链路静态信息交换", "Sub link static information exchange"),
    ExchangeMessage(m.AuthorizeDown.MSG_ID, "从链路时效口令交互", "Sub link authorisation codes"),
    ExchangeMessage(REAL_VIDEO_DOWN, "从链路实时音视频交互", "Sub link real-time audio/video"),
    ExchangeMessage(0x9900, "从链路远程录像检索交互", "Sub link recording search"),
    ExchangeMessage(PLAYBACK_DOWN, "从链路远程录像回放交互", "Sub link remote playback"),
    ExchangeMessage(0x9B00, "从链路远程录像下载交互", "Sub link recording download"),
)

BY_ID: Final[Mapping[int, ExchangeMessage]] = MappingProxyType({msg.msg_id: msg for msg in MESSAGES})

_D = ExchangeDataType
DATA_TYPES: Final[tuple[ExchangeDataType, ...]] = (
    _D(VEHICLE_REGISTRATION, DYNAMIC_UP, "上传车辆注册信息", "Vehicle registration"),
    _D(REAL_TIME_POSITION, DYNAMIC_UP, "实时上传车辆定位信息", "Real-time position"),
    _D(BACKFILLED_POSITIONS, DYNAMIC_UP, "车辆定位信息自动补报", "Back-filled positions"),
    _D(0x1205, DYNAMIC_UP, "启动车辆定位信息交换应答", "Start position exchange response"),
    _D(0x1206, DYNAMIC_UP, "结束车辆定位信息交换应答", "Stop position exchange response"),
    _D(0x1207, DYNAMIC_UP, "申请交换指定车辆定位信息请求", "Request positions of a vehicle"),
    _D(0x1208, DYNAMIC_UP, "取消交换指定车辆定位信息请求", "Cancel positions of a vehicle"),
    _D(0x1209, DYNAMIC_UP, "补发车辆定位信息请求", "Request re-sent positions"),
    _D(0x120A, DYNAMIC_UP, "上报驾驶员身份识别信息应答", "Driver identity response"),
    _D(0x120B, DYNAMIC_UP, "上报车辆电子运单应答", "Electronic waybill response"),
    _D(0x120C, DYNAMIC_UP, "主动上报驾驶员身份信息", "Driver identity report"),
    _D(0x120D, DYNAMIC_UP, "主动上报车辆电子运单信息", "Electronic waybill report"),
    _D(EXCHANGED_POSITION, DYNAMIC_DOWN, "交换车辆定位信息", "Exchanged position"),
    _D(EXCHANGED_BACKFILL, DYNAMIC_DOWN, "车辆定位信息交换补发", "Exchanged back-filled positions"),
    _D(0x9204, DYNAMIC_DOWN, "交换车辆静态信息", "Exchanged vehicle static information"),
    _D(0x9205, DYNAMIC_DOWN, "启动车辆定位信息交换请求", "Start position exchange request"),
    _D(0x9206, DYNAMIC_DOWN, "结束车辆定位信息交换请求", "Stop position exchange request"),
    _D(0x9207, DYNAMIC_DOWN, "申请交换指定车辆定位信息应答", "Positions of a vehicle response"),
    _D(0x9208, DYNAMIC_DOWN, "取消交换指定车辆定位信息应答", "Cancel positions of a vehicle response"),
    _D(0x9209, DYNAMIC_DOWN, "补发车辆定位信息应答", "Re-sent positions response"),
    _D(0x920A, DYNAMIC_DOWN, "上报驾驶员身份识别信息请求", "Driver identity request"),
    _D(0x920B, DYNAMIC_DOWN, "上报车辆电子运单请求", "Electronic waybill request"),
    _D(INSPECTION_ANSWER, PLATFORM_UP, "平台查岗应答", "Inspection answer"),
    _D(PLATFORM_MESSAGE_ANSWER, PLATFORM_UP, "下发平台间报文应答", "Platform message answer"),
    _D(INSPECTION_REQUEST, PLATFORM_DOWN, "平台查岗请求", "Inspection request"),
    _D(PLATFORM_MESSAGE, PLATFORM_DOWN, "下发平台间报文请求", "Platform message request"),
    _D(URGING_ANSWER, ALARM_UP, "报警督办应答", "Alarm urging answer"),
    _D(ALARM_REPORT, ALARM_UP, "上报报警信息", "Alarm report"),
    _D(HANDLING_RESULT, ALARM_UP, "主动上报报警处理结果信息", "Alarm handling result"),
    _D(URGING_REQUEST, ALARM_DOWN, "报警督办请求", "Alarm urging request"),
    _D(WARNING_TIP, ALARM_DOWN, "报警预警", "Alarm warning tip"),
    _D(0x9403, ALARM_DOWN, "实时交换报警信息", "Exchanged alarm"),
    _D(LISTEN_ANSWER, CONTROL_UP, "车辆单向监听应答", "Listen-in answer"),
    _D(m.PhotoAnswer.DATA_TYPE, CONTROL_UP, "车辆拍照应答", "Photo answer"),
    _D(m.TextAnswer.DATA_TYPE, CONTROL_UP, "下发车辆报文应答", "Vehicle text answer"),
    _D(m.RecorderAnswer.DATA_TYPE, CONTROL_UP, "上报车辆行驶记录应答", "Travel recorder answer"),
    _D(m.EmergencyAnswer.DATA_TYPE, CONTROL_UP, "车辆应急接入监管平台应答", "Emergency access answer"),
    _D(m.ListenRequest.DATA_TYPE, CONTROL_DOWN, "车辆单向监听请求", "Listen-in request"),
    _D(m.PhotoRequest.DATA_TYPE, CONTROL_DOWN, "车辆拍照请求", "Photo request"),
    _D(m.TextRequest.DATA_TYPE, CONTROL_DOWN, "下发车辆报文请求", "Vehicle text request"),
    _D(RECORDER_REQUEST, CONTROL_DOWN, "上报车辆行驶记录请求", "Travel recorder request"),
    _D(EMERGENCY_ACCESS, CONTROL_DOWN, "车辆应急接入监管平台请求", "Emergency access request"),
    _D(STATIC_INFO_ANSWER, STATIC_UP, "补报车辆静态信息应答", "Vehicle static information answer"),
    _D(0x9601, STATIC_DOWN, "补报车辆静态信息请求", "Vehicle static information request"),
    _D(m.AuthorizeReport.DATA_TYPE, AUTHORIZE_UP, "时效口令上报", "Authorisation code report"),
    _D(m.AuthorizeRequest.DATA_TYPE, AUTHORIZE_UP, "时效口令请求", "Authorisation code request"),
    _D(m.AuthorizeRequestAnswer.DATA_TYPE, m.AuthorizeDown.MSG_ID, "时效口令请求应答",
       "Authorisation code request answer"),
    _D(m.RealVideoAnswer.DATA_TYPE, REAL_VIDEO_UP, "实时音视频请求应答", "Real-time video answer"),
    _D(m.RealVideoEndAnswer.DATA_TYPE, REAL_VIDEO_UP, "主动请求停止实时音视频传输应答", "Stop real-time video answer"),
    _D(m.RealVideoRequest.DATA_TYPE, REAL_VIDEO_DOWN, "实时音视频请求", "Real-time video request"),
    _D(m.RealVideoEnd.DATA_TYPE, REAL_VIDEO_DOWN, "主动请求停止实时音视频传输", "Stop real-time video"),
    _D(0x1901, 0x1900, "主动上传音视频资源目录信息", "Recording list upload"),
    _D(0x1902, 0x1900, "查询音视频资源目录应答", "Recording list answer"),
    _D(0x9901, 0x9900, "主动上传音视频资源目录信息应答", "Recording list upload answer"),
    _D(0x9902, 0x9900, "查询音视频资源目录请求", "Recording list request"),
    _D(m.PlaybackAnswer.DATA_TYPE, PLAYBACK_UP, "远程录像回放请求应答", "Playback answer"),
    _D(m.PlaybackControlAnswer.DATA_TYPE, PLAYBACK_UP, "远程录像回放控制应答", "Playback control answer"),
    _D(m.PlaybackRequest.DATA_TYPE, PLAYBACK_DOWN, "远程录像回放请求", "Playback request"),
    _D(m.PlaybackControl.DATA_TYPE, PLAYBACK_DOWN, "远程录像回放控制", "Playback control"),
)

BY_DATA_TYPE: Final[Mapping[int, ExchangeDataType]] = MappingProxyType({d.data_type: d for d in DATA_TYPES})


def name_of(msg_id: int, data_type: int | None = None) -> str:
    """zh-CN name of a message, or of its data type when given and known; hex when unknown."""
    if data_type is not None and data_type in BY_DATA_TYPE:
        return BY_DATA_TYPE[data_type].name
    info = BY_ID.get(msg_id)
    return info.name if info is not None else f"0x{msg_id:04X}"
