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
from protocols.jt808.messages.t0704_batch_location_upload import BatchLocationUpload
from protocols.jt808.messages.t8001_platform_response import PlatformResponse
from protocols.jt808.messages.t8003_resend_subpackages_request import ResendSubpackagesRequest
from protocols.jt808.messages.t8100_registration_response import RegistrationResponse
from protocols.jt808.messages.t8103_set_parameters import SetParameters
from protocols.jt808.messages.t8104_query_parameters import QueryParameters

__all__ = [
    "Authentication",
    "BatchLocationUpload",
    "Heartbeat",
    "LocationReport",
    "Logout",
    "PlatformResponse",
    "QueryParameters",
    "QueryParametersResponse",
    "RawBody",
    "Registration",
    "RegistrationResponse",
    "ResendSubpackagesRequest",
    "SetParameters",
    "TerminalParam",
    "TerminalResponse",
]
