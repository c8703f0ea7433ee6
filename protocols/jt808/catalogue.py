"""The message catalogue: every message id carried in JT/T 808 frames (JT/T 808 itself, the JT/T 1078
audio/video messages and the T/JSATL12-2017 active-safety attachment messages), with its name and
direction, defined once.

The rest of fleetwatch imports its message ids from here and never writes one as a literal (a unit
test scans the tree for that). An id whose body the codec decodes is the body class's ``MSG_ID``
(one module per message in ``messages/``); the few ids the platform names without a codec body are
written here. Direction follows the standard's numbering: ``0x0xxx``/``0x1xxx`` terminal to platform
(up), ``0x8xxx``/``0x9xxx`` platform to terminal (down).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from types import MappingProxyType
from typing import Final

from protocols.jt808 import messages as m


class Direction(Enum):
    UP = "up"  # terminal -> platform
    DOWN = "down"  # platform -> terminal


class Standard(Enum):
    JT808 = "JT/T 808"
    JT1078 = "JT/T 1078"
    ATTACHMENT = "T/JSATL12"  # the active-safety attachment protocol (Jiangsu 2017)


# JT/T 808: terminal -> platform
TERMINAL_RESPONSE: Final = m.TerminalResponse.MSG_ID
HEARTBEAT: Final = m.Heartbeat.MSG_ID
LOGOUT: Final = m.Logout.MSG_ID
REGISTRATION: Final = m.Registration.MSG_ID
AUTHENTICATION: Final = m.Authentication.MSG_ID
QUERY_PARAMETERS_RESPONSE: Final = m.QueryParametersResponse.MSG_ID
LOCATION_REPORT: Final = m.LocationReport.MSG_ID
LOCATION_QUERY_RESPONSE: Final = m.LocationQueryResponse.MSG_ID
VEHICLE_CONTROL_RESPONSE: Final = m.VehicleControlResponse.MSG_ID
DRIVER_IDENTITY: Final = m.DriverIdentity.MSG_ID
BATCH_LOCATION_UPLOAD: Final = m.BatchLocationUpload.MSG_ID
MEDIA_EVENT_INFO: Final = m.MediaEventInfo.MSG_ID
MEDIA_UPLOAD: Final = m.MediaUpload.MSG_ID
STORED_MEDIA_SEARCH_RESPONSE: Final = m.StoredMediaSearchResponse.MSG_ID
CAMERA_SHOOT_RESPONSE: Final = m.CameraShootResponse.MSG_ID
QUERY_AREAS_RESPONSE: Final = m.QueryAreasResponse.MSG_ID
# JT/T 808: platform -> terminal
PLATFORM_RESPONSE: Final = m.PlatformResponse.MSG_ID
RESEND_SUBPACKAGES_REQUEST: Final = m.ResendSubpackagesRequest.MSG_ID
SERVER_TIME_RESPONSE: Final = 0x8004  # 2019: the answer to 0x0004; no body decoded here
REGISTRATION_RESPONSE: Final = m.RegistrationResponse.MSG_ID
SET_PARAMETERS: Final = m.SetParameters.MSG_ID
QUERY_PARAMETERS: Final = m.QueryParameters.MSG_ID
TERMINAL_CONTROL: Final = m.TerminalControl.MSG_ID
QUERY_SPECIFIED_PARAMETERS: Final = m.QuerySpecifiedParameters.MSG_ID
QUERY_LOCATION: Final = m.QueryLocation.MSG_ID
VEHICLE_CONTROL: Final = m.VehicleControl.MSG_ID
TEMPORARY_TRACKING: Final = m.TemporaryTracking.MSG_ID
MANUAL_ALARM_CONFIRMATION: Final = m.ManualAlarmConfirmation.MSG_ID
TEXT_MESSAGE: Final = m.TextMessage.MSG_ID
PHONE_CALLBACK: Final = m.PhoneCallback.MSG_ID
RECORDER_COLLECT: Final = m.RecorderCollect.MSG_ID
SET_CIRCLE_AREAS: Final = m.SetCircleAreas.MSG_ID
DELETE_CIRCLE_AREAS: Final = m.DeleteCircleAreas.MSG_ID
SET_RECTANGLE_AREAS: Final = m.SetRectangleAreas.MSG_ID
DELETE_RECTANGLE_AREAS: Final = m.DeleteRectangleAreas.MSG_ID
SET_POLYGON_AREA: Final = m.SetPolygonArea.MSG_ID
DELETE_POLYGON_AREAS: Final = m.DeletePolygonAreas.MSG_ID
SET_ROUTE: Final = m.SetRoute.MSG_ID
DELETE_ROUTES: Final = m.DeleteRoutes.MSG_ID
QUERY_AREAS: Final = m.QueryAreas.MSG_ID
MEDIA_UPLOAD_RESPONSE: Final = m.MediaUploadResponse.MSG_ID
CAMERA_SHOOT: Final = m.CameraShoot.MSG_ID
STORED_MEDIA_SEARCH: Final = m.StoredMediaSearch.MSG_ID
STORED_MEDIA_UPLOAD: Final = m.StoredMediaUpload.MSG_ID
SINGLE_STORED_MEDIA_UPLOAD: Final = 0x8805  # one stored item by its media id; no body encoded here
# JT/T 1078
AV_ATTRIBUTES: Final = m.AvAttributes.MSG_ID
AV_RESOURCE_LIST: Final = m.AvResourceList.MSG_ID
FILE_UPLOAD_DONE: Final = m.FileUploadDone.MSG_ID
QUERY_AV_ATTRIBUTES: Final = m.QueryAvAttributes.MSG_ID
REALTIME_AV_REQUEST: Final = m.RealtimeAvRequest.MSG_ID
AV_TRANSMISSION_CONTROL: Final = m.AvTransmissionControl.MSG_ID
AV_TRANSMISSION_STATUS: Final = m.AvTransmissionStatus.MSG_ID
PLAYBACK_REQUEST: Final = m.PlaybackRequest.MSG_ID
PLAYBACK_CONTROL: Final = m.PlaybackControl.MSG_ID
QUERY_AV_RESOURCES: Final = m.QueryAvResources.MSG_ID
FILE_UPLOAD_REQUEST: Final = m.FileUploadRequest.MSG_ID
# T/JSATL12 active-safety attachments
ALARM_ATTACHMENT_LIST: Final = m.AlarmAttachmentList.MSG_ID
ATTACHMENT_FILE_INFO: Final = m.AttachmentFileInfo.MSG_ID
ATTACHMENT_FILE_DONE: Final = m.AttachmentFileDone.MSG_ID
ALARM_ATTACHMENT_UPLOAD_REQUEST: Final = m.AlarmAttachmentUploadRequest.MSG_ID
ATTACHMENT_FILE_DONE_RESPONSE: Final = m.AttachmentFileDoneResponse.MSG_ID


@dataclass(frozen=True, slots=True)
class MessageInfo:
    msg_id: int
    name: str  # as the standard names it (zh-CN)
    name_en: str
    standard: Standard
    has_body: bool = True  # False: named by the platform, not decoded or encoded by this codec

    @property
    def direction(self) -> Direction:
        return Direction.DOWN if self.msg_id & 0x8000 else Direction.UP

    @property
    def hex(self) -> str:
        """As the standards write it: ``0x0200``."""
        return f"0x{self.msg_id:04X}"


_808, _1078, _ATT = Standard.JT808, Standard.JT1078, Standard.ATTACHMENT

MESSAGES: Final[tuple[MessageInfo, ...]] = (
    MessageInfo(TERMINAL_RESPONSE, "终端通用应答", "Terminal general response", _808),
    MessageInfo(HEARTBEAT, "终端心跳", "Terminal heartbeat", _808),
    MessageInfo(LOGOUT, "终端注销", "Terminal logout", _808),
    MessageInfo(REGISTRATION, "终端注册", "Terminal registration", _808),
    MessageInfo(AUTHENTICATION, "终端鉴权", "Terminal authentication", _808),
    MessageInfo(QUERY_PARAMETERS_RESPONSE, "查询终端参数应答", "Query parameters response", _808),
    MessageInfo(LOCATION_REPORT, "位置信息汇报", "Location report", _808),
    MessageInfo(LOCATION_QUERY_RESPONSE, "位置信息查询应答", "Location query response", _808),
    MessageInfo(VEHICLE_CONTROL_RESPONSE, "车辆控制应答", "Vehicle control response", _808),
    MessageInfo(DRIVER_IDENTITY, "驾驶员身份信息采集上报", "Driver identity report", _808),
    MessageInfo(BATCH_LOCATION_UPLOAD, "定位数据批量上传", "Batch location upload", _808),
    MessageInfo(MEDIA_EVENT_INFO, "多媒体事件信息上传", "Multimedia event information", _808),
    MessageInfo(MEDIA_UPLOAD, "多媒体数据上传", "Multimedia data upload", _808),
    MessageInfo(STORED_MEDIA_SEARCH_RESPONSE, "存储多媒体数据检索应答", "Stored multimedia search response", _808),
    MessageInfo(CAMERA_SHOOT_RESPONSE, "摄像头立即拍摄命令应答", "Camera shoot response", _808),
    MessageInfo(QUERY_AREAS_RESPONSE, "查询区域或线路数据应答", "Query areas or routes response", _808),
    MessageInfo(AV_ATTRIBUTES, "终端上传音视频属性", "Terminal audio/video attributes", _1078),
    MessageInfo(AV_RESOURCE_LIST, "终端上传音视频资源列表", "Terminal audio/video resource list", _1078),
    MessageInfo(FILE_UPLOAD_DONE, "文件上传完成通知", "File upload finished notice", _1078),
    MessageInfo(ALARM_ATTACHMENT_LIST, "报警附件信息消息", "Alarm attachment list", _ATT),
    MessageInfo(ATTACHMENT_FILE_INFO, "文件信息上传", "Attachment file information", _ATT),
    MessageInfo(ATTACHMENT_FILE_DONE, "文件上传完成消息", "Attachment file upload finished", _ATT),
    MessageInfo(PLATFORM_RESPONSE, "平台通用应答", "Platform general response", _808),
    MessageInfo(RESEND_SUBPACKAGES_REQUEST, "补传分包请求", "Resend sub-packages request", _808),
    MessageInfo(SERVER_TIME_RESPONSE, "查询服务器时间应答", "Server time response", _808, has_body=False),
    MessageInfo(REGISTRATION_RESPONSE, "终端注册应答", "Registration response", _808),
    MessageInfo(SET_PARAMETERS, "设置终端参数", "Set terminal parameters", _808),
    MessageInfo(QUERY_PARAMETERS, "查询终端参数", "Query terminal parameters", _808),
    MessageInfo(TERMINAL_CONTROL, "终端控制", "Terminal control", _808),
    MessageInfo(QUERY_SPECIFIED_PARAMETERS, "查询指定终端参数", "Query specified terminal parameters", _808),
    MessageInfo(QUERY_LOCATION, "位置信息查询", "Location query", _808),
    MessageInfo(TEMPORARY_TRACKING, "临时位置跟踪控制", "Temporary location tracking", _808),
    MessageInfo(MANUAL_ALARM_CONFIRMATION, "人工确认报警消息", "Manual alarm confirmation", _808),
    MessageInfo(TEXT_MESSAGE, "文本信息下发", "Text message", _808),
    MessageInfo(PHONE_CALLBACK, "电话回拨", "Phone callback", _808),
    MessageInfo(VEHICLE_CONTROL, "车辆控制", "Vehicle control", _808),
    MessageInfo(RECORDER_COLLECT, "行驶记录数据采集命令", "Travel recorder data collection", _808),
    MessageInfo(SET_CIRCLE_AREAS, "设置圆形区域", "Set circular areas", _808),
    MessageInfo(DELETE_CIRCLE_AREAS, "删除圆形区域", "Delete circular areas", _808),
    MessageInfo(SET_RECTANGLE_AREAS, "设置矩形区域", "Set rectangular areas", _808),
    MessageInfo(DELETE_RECTANGLE_AREAS, "删除矩形区域", "Delete rectangular areas", _808),
    MessageInfo(SET_POLYGON_AREA, "设置多边形区域", "Set polygonal area", _808),
    MessageInfo(DELETE_POLYGON_AREAS, "删除多边形区域", "Delete polygonal areas", _808),
    MessageInfo(SET_ROUTE, "设置路线", "Set route", _808),
    MessageInfo(DELETE_ROUTES, "删除路线", "Delete routes", _808),
    MessageInfo(QUERY_AREAS, "查询区域或线路数据", "Query areas or routes", _808),
    MessageInfo(MEDIA_UPLOAD_RESPONSE, "多媒体数据上传应答", "Multimedia upload response", _808),
    MessageInfo(CAMERA_SHOOT, "摄像头立即拍摄命令", "Camera shoot command", _808),
    MessageInfo(STORED_MEDIA_SEARCH, "存储多媒体数据检索", "Stored multimedia search", _808),
    MessageInfo(STORED_MEDIA_UPLOAD, "存储多媒体数据上传命令", "Stored multimedia upload command", _808),
    MessageInfo(SINGLE_STORED_MEDIA_UPLOAD, "单条存储多媒体数据检索上传命令", "Single stored multimedia upload command",
                _808, has_body=False),
    MessageInfo(QUERY_AV_ATTRIBUTES, "查询终端音视频属性", "Query terminal audio/video attributes", _1078),
    MessageInfo(REALTIME_AV_REQUEST, "实时音视频传输请求", "Real-time audio/video transmission request", _1078),
    MessageInfo(AV_TRANSMISSION_CONTROL, "音视频实时传输控制", "Real-time audio/video transmission control", _1078),
    MessageInfo(AV_TRANSMISSION_STATUS, "实时音视频传输状态通知", "Real-time audio/video transmission status", _1078),
    MessageInfo(PLAYBACK_REQUEST, "平台下发远程录像回放请求", "Remote video playback request", _1078),
    MessageInfo(PLAYBACK_CONTROL, "平台下发远程录像回放控制", "Remote video playback control", _1078),
    MessageInfo(QUERY_AV_RESOURCES, "查询资源列表", "Query audio/video resource list", _1078),
    MessageInfo(FILE_UPLOAD_REQUEST, "文件上传指令", "File upload request", _1078),
    MessageInfo(ALARM_ATTACHMENT_UPLOAD_REQUEST, "报警附件上传指令", "Alarm attachment upload request", _ATT),
    MessageInfo(ATTACHMENT_FILE_DONE_RESPONSE, "文件上传完成消息应答", "Attachment file upload finished response", _ATT),
)

BY_ID: Final[Mapping[int, MessageInfo]] = MappingProxyType({info.msg_id: info for info in MESSAGES})


def message_info(msg_id: int) -> MessageInfo | None:
    """The catalogue entry of ``msg_id``; None for an id the platform does not know."""
    return BY_ID.get(msg_id)
