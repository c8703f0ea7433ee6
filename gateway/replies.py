"""Result codes the gateway uses, and the bodies of its replies (0x8001, 0x8100,
0x8003), encoded by the codec's body classes."""

from __future__ import annotations

from collections.abc import Sequence

from protocols.jt808.messages import PlatformResponse, RegistrationResponse, ResendSubpackagesRequest

# 0x8001 results
ACK_OK = 0
ACK_FAILURE = 1
ACK_MESSAGE_ERROR = 2
ACK_NOT_SUPPORTED = 3

# 0x8100 results
REG_OK = 0
REG_VEHICLE_TAKEN = 1
REG_NO_VEHICLE = 2
REG_TERMINAL_TAKEN = 3
REG_NO_TERMINAL = 4



def platform_ack_body(ack_seq: int, ack_msg_id: int, result: int) -> bytes:
    """0x8001 body: the terminal's serial number, its message id, the result."""
    return PlatformResponse(ack_seq & 0xFFFF, ack_msg_id & 0xFFFF, result).encode("2013")


def register_wire_result(result: int) -> int:
    """The 0x8100 result a terminal gets for a decision: 3 goes out as 4 (see register_reply_body)."""
    return REG_NO_TERMINAL if result == REG_TERMINAL_TAKEN else result


def register_reply_body(ack_seq: int, result: int, auth_code: str | None) -> bytes:
    """0x8100 body; the auth code only on success.

    "Terminal already registered" (3) goes on the wire as "no such terminal" (4): anyone can send a
    0x0100 for any phone, and 3 would tell a stranger that the phone is a live terminal of some tenant.
    Both are refusals JT/T 808 table 4 allows; the gateway's log keeps the real reason."""
    wire = register_wire_result(result)
    return RegistrationResponse(ack_seq & 0xFFFF, wire, auth_code if result == REG_OK else None).encode("2013")


def resend_subpackages_body(first_seq: int, missing_indexes: Sequence[int], version: str) -> bytes:
    """0x8003 body: serial of the first package and the missing package ids (count width by version)."""
    return ResendSubpackagesRequest(first_seq & 0xFFFF, tuple(missing_indexes)).encode(version)
