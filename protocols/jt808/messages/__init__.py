"""Message bodies, one module per message id. Importing this package registers them all."""

from protocols.jt808.messages.params import TerminalParam
from protocols.jt808.messages.raw import RawBody
from protocols.jt808.messages.t0001_terminal_response import TerminalResponse
from protocols.jt808.messages.t0002_heartbeat import Heartbeat
from protocols.jt808.messages.t0003_logout import Logout
from protocols.jt808.messages.t0100_registration import Registration
from protocols.jt808.messages.t0102_authentication import Authentication
from protocols.jt808.messages.t0104_query_parameters_response import QueryParametersResponse
from protocols.jt808.messages.t0200_location_report import LocationReport
from protocols.jt808.messages.t0201_location_query_response import LocationQueryResponse
from protocols.jt808.messages.t0500_vehicle_control_response import VehicleControlResponse
from protocols.jt808.messages.t0608_query_areas_response import QueryAreasResponse
from protocols.jt808.messages.t0702_driver_identity import DriverIdentity
from protocols.jt808.messages.t0704_batch_location_upload import BatchLocationUpload
from protocols.jt808.messages.t0800_media_event_info import MediaEventInfo
from protocols.jt808.messages.t0801_media_upload import MediaUpload
from protocols.jt808.messages.t0802_stored_media_search_response import (
    MediaSearchItem,
    StoredMediaSearchResponse,
)
from protocols.jt808.messages.t0805_camera_shoot_response import CameraShootResponse
from protocols.jt808.messages.t1003_av_attributes import AvAttributes
from protocols.jt808.messages.t1205_av_resource_list import AvResource, AvResourceList
from protocols.jt808.messages.t1206_file_upload_done import FileUploadDone
from protocols.jt808.messages.t1210_alarm_attachment_list import AlarmAttachmentList, AttachmentFile
from protocols.jt808.messages.t1211_attachment_file_info import AttachmentFileInfo
from protocols.jt808.messages.t1212_attachment_file_done import AttachmentFileDone
from protocols.jt808.messages.t8001_platform_response import PlatformResponse
from protocols.jt808.messages.t8003_resend_subpackages_request import ResendSubpackagesRequest
from protocols.jt808.messages.t8100_registration_response import RegistrationResponse
from protocols.jt808.messages.t8103_set_parameters import SetParameters
from protocols.jt808.messages.t8104_query_parameters import QueryParameters
from protocols.jt808.messages.t8105_terminal_control import TerminalControl
from protocols.jt808.messages.t8106_query_specified_parameters import QuerySpecifiedParameters
from protocols.jt808.messages.t8201_query_location import QueryLocation
from protocols.jt808.messages.t8202_temporary_tracking import TemporaryTracking
from protocols.jt808.messages.t8203_manual_alarm_confirmation import ManualAlarmConfirmation
from protocols.jt808.messages.t8300_text_message import TextMessage
from protocols.jt808.messages.t8400_phone_callback import PhoneCallback
from protocols.jt808.messages.t8500_vehicle_control import Control, VehicleControl
from protocols.jt808.messages.t8600_set_circle_areas import CircleArea, SetCircleAreas
from protocols.jt808.messages.t8601_delete_circle_areas import DeleteCircleAreas
from protocols.jt808.messages.t8602_set_rectangle_areas import RectangleArea, SetRectangleAreas
from protocols.jt808.messages.t8603_delete_rectangle_areas import DeleteRectangleAreas
from protocols.jt808.messages.t8604_set_polygon_area import SetPolygonArea, Vertex
from protocols.jt808.messages.t8605_delete_polygon_areas import DeletePolygonAreas
from protocols.jt808.messages.t8606_set_route import RoutePoint, SetRoute
from protocols.jt808.messages.t8607_delete_routes import DeleteRoutes
from protocols.jt808.messages.t8608_query_areas import QueryAreas
from protocols.jt808.messages.t8700_recorder_collect import RecorderCollect
from protocols.jt808.messages.t8800_media_upload_response import MediaUploadResponse
from protocols.jt808.messages.t8801_camera_shoot import CameraShoot
from protocols.jt808.messages.t8802_stored_media_search import StoredMediaSearch
from protocols.jt808.messages.t8803_stored_media_upload import StoredMediaUpload
from protocols.jt808.messages.t9003_query_av_attributes import QueryAvAttributes
from protocols.jt808.messages.t9101_realtime_av_request import RealtimeAvRequest
from protocols.jt808.messages.t9102_av_transmission_control import AvTransmissionControl
from protocols.jt808.messages.t9105_av_transmission_status import AvTransmissionStatus
from protocols.jt808.messages.t9201_playback_request import PlaybackRequest
from protocols.jt808.messages.t9202_playback_control import PlaybackControl
from protocols.jt808.messages.t9205_query_av_resources import QueryAvResources
from protocols.jt808.messages.t9206_file_upload_request import FileUploadRequest
from protocols.jt808.messages.t9208_alarm_attachment_upload_request import AlarmAttachmentUploadRequest
from protocols.jt808.messages.t9212_attachment_file_done_response import AttachmentFileDoneResponse

__all__ = [
    "Control",
    "PhoneCallback",
    "VehicleControl",
    "VehicleControlResponse",
    "RecorderCollect",
    "AlarmAttachmentList",
    "AlarmAttachmentUploadRequest",
    "AttachmentFile",
    "AttachmentFileDone",
    "AttachmentFileDoneResponse",
    "AttachmentFileInfo",
    "Authentication",
    "AvAttributes",
    "AvResource",
    "AvResourceList",
    "AvTransmissionControl",
    "AvTransmissionStatus",
    "BatchLocationUpload",
    "CameraShoot",
    "CameraShootResponse",
    "CircleArea",
    "DeleteCircleAreas",
    "DeletePolygonAreas",
    "DeleteRectangleAreas",
    "DeleteRoutes",
    "DriverIdentity",
    "FileUploadDone",
    "FileUploadRequest",
    "Heartbeat",
    "LocationQueryResponse",
    "LocationReport",
    "Logout",
    "ManualAlarmConfirmation",
    "MediaEventInfo",
    "MediaSearchItem",
    "MediaUpload",
    "MediaUploadResponse",
    "PlatformResponse",
    "PlaybackControl",
    "PlaybackRequest",
    "QueryAreas",
    "QueryAreasResponse",
    "QueryAvAttributes",
    "QueryAvResources",
    "QueryLocation",
    "QueryParameters",
    "QueryParametersResponse",
    "QuerySpecifiedParameters",
    "RawBody",
    "RealtimeAvRequest",
    "RectangleArea",
    "Registration",
    "RegistrationResponse",
    "ResendSubpackagesRequest",
    "RoutePoint",
    "SetCircleAreas",
    "SetParameters",
    "SetPolygonArea",
    "SetRectangleAreas",
    "SetRoute",
    "StoredMediaSearch",
    "StoredMediaSearchResponse",
    "StoredMediaUpload",
    "TemporaryTracking",
    "TerminalControl",
    "TerminalParam",
    "TerminalResponse",
    "TextMessage",
    "Vertex",
]
