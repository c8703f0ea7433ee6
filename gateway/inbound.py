"""The gateway's use of the codec for inbound frames: decode or explain the failure, rebuild
reassembled messages, read registration fields.

When a frame fails to decode, `peek_header` reads just enough of the header (message id, serial,
phone) to answer with 0x8001 result 2 as the standard asks; if even that is unreadable, nothing is sent.
A sound frame of a reply message (0x0001, 0x0104, ...) whose body does not fit its layout still names
the command it answers in its first WORD (``reply_seq``): the command is then failed as answered with a
malformed reply, not left to time out.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from gateway.downlinks import REPLY_MSG_IDS
from protocols.jt808 import ChecksumError, JT808Error, Message, decode_body, decode_frame
from protocols.jt808.catalogue import TERMINAL_RESPONSE

try:  # optional in the codec: encrypted bodies are answered "not supported"
    from protocols.jt808 import EncryptedBodyError
except ImportError:  # pragma: no cover
    EncryptedBodyError = ()  # type: ignore[assignment,misc]

@dataclass(frozen=True)
class DecodeFailure:
    error: str
    bad_checksum: bool
    encrypted: bool
    msg_id: int | None
    seq: int | None
    phone: str | None
    reply_seq: int | None = None      # the serial a malformed reply answers (its body's first WORD)
    reply_msg_id: int | None = None   # a malformed 0x0001's second WORD, when the body holds it


def decode_inbound(frame: bytes) -> Message | DecodeFailure:
    """Decode one frame (with its 7e delimiters); never raises."""
    try:
        return decode_frame(frame)
    except JT808Error as exc:
        return _failure(frame, exc)
    except Exception as exc:  # a codec bug on odd input must not cost more than this frame
        return _failure(frame, exc)


def _failure(frame: bytes, exc: Exception) -> DecodeFailure:
    header = getattr(exc, "header", None)
    peeked = (header.msg_id, header.seq, header.phone) if header is not None else peek_header(frame)
    msg_id, seq, phone = peeked if peeked else (None, None, None)
    body = getattr(exc, "body", None)
    reply_seq = reply_msg_id = None
    if msg_id in REPLY_MSG_IDS and body is not None and len(body) >= 2:
        reply_seq = int.from_bytes(body[:2], "big")
        if msg_id == TERMINAL_RESPONSE and len(body) >= 4:
            reply_msg_id = int.from_bytes(body[2:4], "big")
    return DecodeFailure(f"{type(exc).__name__}: {exc}", isinstance(exc, ChecksumError),
                         isinstance(exc, EncryptedBodyError), msg_id, seq, phone, reply_seq, reply_msg_id)


def _unescape(data: bytes) -> bytes:
    return data.replace(b"\x7d\x02", b"\x7e").replace(b"\x7d\x01", b"\x7d")


def _bcd(data: bytes) -> str | None:
    digits = data.hex()
    return digits if digits.isdigit() else None


def peek_header(frame: bytes) -> tuple[int, int, str] | None:
    """(msg_id, seq, phone) from a frame's header, or None if the header is not all there."""
    inner = _unescape(frame.strip(b"\x7e"))
    if len(inner) < 4:
        return None
    msg_id = int.from_bytes(inner[0:2], "big")
    attr = int.from_bytes(inner[2:4], "big")
    if attr & 0x4000:  # 2019: protocol version byte + BCD[10] phone
        phone_bytes, seq_at = inner[5:15], 15
    else:
        phone_bytes, seq_at = inner[4:10], 10
    if len(inner) < seq_at + 2:
        return None
    phone = _bcd(phone_bytes)
    if phone is None:
        return None
    return msg_id, int.from_bytes(inner[seq_at:seq_at + 2], "big"), phone


def reassembled_message(last_package: Message, body: bytes, frames: list[bytes], first_seq: int) -> Message:
    """The whole message from its packages' bodies (in order), decoded as one, with the first
    package's serial; ``raw`` is the package frames concatenated. Raises JT808Error when the joined
    body does not fit its layout."""
    header = dataclasses.replace(last_package.header, seq=first_seq, body_length=len(body),
                                 package_total=None, package_index=None)
    return Message(header, decode_body(header.msg_id, body, header.version), b"".join(frames))


def _text(value: Any) -> str:
    if isinstance(value, bytes):
        value = value.decode("gbk", errors="replace")
    return str(value or "").strip("\x00 ")


def registration_fields(msg: Message) -> tuple[str, str, str]:
    """(terminal id, manufacturer id, terminal model) of a 0x0100, padding stripped on both sides."""
    body = msg.body
    return (_text(getattr(body, "terminal_id", "")), _text(getattr(body, "manufacturer_id", "")),
            _text(getattr(body, "terminal_model", "")))
