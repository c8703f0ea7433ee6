"""Pure JT/T 808 codec (2011, 2013, 2019): bytes in, typed messages out, and back.

The contract other components code against (docs/architecture.md, "Codec"):
JT808Error and its subclasses, Header, Message, FrameReader, decode_frame, encode_frame,
encode_subpackages, to_json. Bodies are dataclasses, one module per message id in ``messages/``;
0x0200 additional items are in ``extras/``. See protocols/README.md.
"""

from protocols.jt808.codec import (
    Message,
    decode_body,
    decode_frame,
    encode_frame,
    encode_subpackages,
    merge_subpackages,
    missing_packages,
)
from protocols.jt808.errors import (
    BodyError,
    ChecksumError,
    EncryptedBodyError,
    FramingError,
    JT808Error,
    LengthError,
    UnknownVersionError,
)
from protocols.jt808.extras import ItemSpec, UnknownItem, register_item
from protocols.jt808.framing import MAX_FRAME_BYTES, FrameReader
from protocols.jt808.header import Header
from protocols.jt808.jsonify import to_json
from protocols.jt808.messages import (
    Authentication,
    BatchLocationUpload,
    Heartbeat,
    LocationReport,
    Logout,
    PlatformResponse,
    QueryParameters,
    QueryParametersResponse,
    RawBody,
    Registration,
    RegistrationResponse,
    ResendSubpackagesRequest,
    SetParameters,
    TerminalParam,
    TerminalResponse,
)
from protocols.jt808.registry import register_body

__all__ = [
    "MAX_FRAME_BYTES",
    "Authentication",
    "BatchLocationUpload",
    "BodyError",
    "ChecksumError",
    "EncryptedBodyError",
    "FrameReader",
    "FramingError",
    "Header",
    "Heartbeat",
    "ItemSpec",
    "JT808Error",
    "LengthError",
    "LocationReport",
    "Logout",
    "Message",
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
    "UnknownItem",
    "UnknownVersionError",
    "decode_body",
    "decode_frame",
    "encode_frame",
    "encode_subpackages",
    "merge_subpackages",
    "missing_packages",
    "register_body",
    "register_item",
    "to_json",
]
