"""Credentials out of what people read: a frame with its secrets replaced by ``*`` of the same length.

What a log or a screen shows of a frame (the message log's hex and decoded JSON, both directions) must
not hand anyone a working credential: the auth code of 0x8100 and 0x0102, and the values of the
parameters the table marks ``secret`` (dial-up passwords) in 0x8103 and 0x0104. ``redact_frame``
re-encodes such a frame with each secret byte replaced by 0x2A (``*``) under the same header (serial,
phone, version), so the logged frame still decodes, keeps its layout and length, and holds no secret.
The real bytes exist only on the wire. Frames without credentials come back unchanged.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from protocols.jt808.codec import decode_frame, encode_frame
from protocols.jt808.errors import JT808Error
from protocols.jt808.messages.param_table import PARAMS
from protocols.jt808.messages.params import TerminalParam
from protocols.jt808.messages.t0102_authentication import Authentication
from protocols.jt808.messages.t0104_query_parameters_response import QueryParametersResponse
from protocols.jt808.messages.t8100_registration_response import RegistrationResponse
from protocols.jt808.messages.t8103_set_parameters import SetParameters

# Messages that may carry a credential; any other frame is returned as it is, without decoding it.
CREDENTIAL_MSG_IDS = frozenset({0x0102, 0x0104, 0x8100, 0x8103})
SECRET_PARAM_IDS = frozenset(pid for pid, spec in PARAMS.items() if spec.secret)


def _stars(text: str | None) -> str | None:
    return None if text is None else "*" * len(text.encode("gbk", errors="replace"))


def _params(params: tuple[TerminalParam, ...]) -> tuple[tuple[TerminalParam, ...], bool]:
    changed = False
    out = []
    for param in params:
        if param.id in SECRET_PARAM_IDS:
            changed = True
            out.append(TerminalParam(param.id, "*" * len(param.value_bytes())))
        else:
            out.append(param)
    return tuple(out), changed


def redact_body(body: Any) -> Any | None:
    """The body with its credentials starred, or None when it holds none."""
    if isinstance(body, RegistrationResponse):
        return replace(body, auth_code=_stars(body.auth_code)) if body.auth_code else None
    if isinstance(body, Authentication):
        return replace(body, auth_code=_stars(body.auth_code) or "")
    if isinstance(body, SetParameters | QueryParametersResponse):
        params, changed = _params(body.params)
        return replace(body, params=params) if changed else None
    return None


def redact_frame(frame: bytes) -> bytes | None:
    """``frame`` (one, with its 7e delimiters) with its credentials starred; the frame itself when it holds
    none; None when it should hold one but does not decode (then it is not shown at all)."""
    if len(frame) < 3 or frame[0] != 0x7E or int.from_bytes(frame[1:3], "big") not in CREDENTIAL_MSG_IDS:
        return frame
    try:
        msg = decode_frame(frame)
        if msg.header.package_total is not None:  # a package alone cannot be re-read: not shown
            return None
        body = redact_body(msg.body)
        if body is None:
            return frame
        h = msg.header
        return encode_frame(h.msg_id, body, phone=h.phone, seq=h.seq, version=h.version,
                            protocol_version=h.protocol_version or 1)
    except (JT808Error, ValueError):
        return None


def _frames(data: bytes) -> list[bytes]:
    """Concatenated frames (a sub-packaged message as logged) -> the frames."""
    frames, start = [], None
    for i, byte in enumerate(data):
        if byte == 0x7E:
            if start is None:
                start = i
            else:
                frames.append(data[start:i + 1])
                start = None
    return frames


def redact_raw_hex(raw_hex: str) -> str:
    """A logged frame, or the concatenated frames of a sub-packaged message, in hex with its credentials
    starred. A sub-packaged message that holds credentials, or a frame that should hold one and does not
    decode, is not kept at all (empty): a secret is never logged because its frame was odd."""
    try:
        data = bytes.fromhex(raw_hex)
    except ValueError:
        return ""
    frames = _frames(data)
    if len(frames) <= 1:
        redacted = redact_frame(data)
        return "" if redacted is None else redacted.hex()
    if int.from_bytes(frames[0][1:3], "big") not in CREDENTIAL_MSG_IDS:
        return raw_hex
    from protocols.jt808.codec import merge_subpackages

    try:
        merged = merge_subpackages([decode_frame(f) for f in frames])
    except (JT808Error, ValueError):
        return ""
    return raw_hex if redact_body(merged.body) is None else ""
