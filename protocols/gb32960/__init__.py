"""GB/T 32960.3 (2016 ``##`` and 2025 ``$$``) and GB 17691-2018 annex Q / HJ 1239-2021: framing with BCC,
a stream reader, the command catalogue and typed data units. Pure code: bytes in, typed messages out,
and back."""

from protocols.gb32960 import messages  # importing it registers the typed bodies
from protocols.gb32960.codec import Message, TimeOnly, decode_body, decode_frame, encode_frame, register_body
from protocols.gb32960.errors import BodyError, ChecksumError, FramingError, GB32960Error, LengthError
from protocols.gb32960.framing import MAX_FRAME_BYTES, STARTS, FrameReader, bcc
from protocols.gb32960.header import Encryption, Header, Protocol, Response
from protocols.gb32960.values import Reading, Special

__all__ = [
    "MAX_FRAME_BYTES", "STARTS", "BodyError", "ChecksumError", "Encryption", "FrameReader", "FramingError",
    "GB32960Error", "Header", "LengthError", "Message", "Protocol", "Reading", "Response", "Special", "TimeOnly",
    "bcc", "decode_body", "decode_frame", "encode_frame", "messages", "register_body",
]
