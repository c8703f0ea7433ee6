"""JT/T 809 (platform-to-platform data exchange, 2011 and 2019): framing, header, encryption, the
message catalogue and typed bodies for the link messages and the vehicle dynamic information family.
Pure code: bytes in, typed messages out, and back."""

from protocols.jt809 import messages  # importing it registers the typed bodies
from protocols.jt809.cipher import CipherKeys, crypt
from protocols.jt809.codec import (
    Message,
    decode_body,
    decode_frame,
    encode_frame,
    guess_version,
    register_body,
    registered_ids,
)
from protocols.jt809.errors import (
    BodyError,
    ChecksumError,
    EncryptedBodyError,
    FramingError,
    JT809Error,
    LengthError,
    UnknownVersionError,
)
from protocols.jt809.framing import crc16, escape, unescape
from protocols.jt809.header import Header

__all__ = [
    "BodyError", "ChecksumError", "CipherKeys", "EncryptedBodyError", "FramingError", "Header", "JT809Error",
    "LengthError", "Message", "UnknownVersionError", "crc16", "crypt", "decode_body", "decode_frame",
    "encode_frame", "escape", "guess_version", "messages", "register_body", "registered_ids", "unescape",
]
