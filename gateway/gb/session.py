"""A GB terminal connection's session rules, pure (no socket, database or Kafka), one table per family.

States: connected -> logged in (vehicle login 0x01 of a VIN found in the vehicle records, answered
0x01 after Kafka stored the login) -> logged out (0x04) or closed. Each command's policy is stated once
(`POLICIES`): whether it is forwarded to ``gb32960.uplink.v1``, and how it is answered:

- GB/T 32960.3-2016 §6.3.2 (and the 2025 edition): a command the terminal starts (flag 0xFE) is answered
  with the same command and a response flag, 0x01 success, 0x02 error, 0x03 VIN duplicate. Data the
  platform must keep (login, real-time 0x02, back-filled 0x03, logout 0x04) is answered only once Kafka
  stored it (docs/architecture.md §2: a terminal without an answer keeps the data and back-fills it with
  0x03); the answer's data unit is the command's own time (its first 6 bytes). Heartbeat 0x07 is answered
  at once with an empty data unit, time calibration 0x08 at once with the platform's time: neither
  carries data whose loss an early answer could hide, and a calibration answered late would be wrong.
- GB 17691-2018 annex Q / HJ 1239-2021: the header has no response flag, so the platform answers
  only time calibration (0x05, with its time); logins and data are not answered. A refused frame
  there cannot be told to the terminal: it is logged and, for a refused login, the connection closed.

Everything else is refused (not forwarded, logged): any frame before a successful login, a frame
whose VIN is not the logged-in one, and commands a vehicle terminal does not send to this gateway
(platform login / logout, which are the exchange's, and the 2025 activation / key exchange, for
which the gateway holds no keys), answered 0x02 where the family has an answer flag.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from types import MappingProxyType
from typing import Final

from protocols.gb32960 import Header, Response
from protocols.gb32960.catalogue import (
    EMISSION_TIME_CALIBRATION,
    HEARTBEAT,
    PARAMETER_QUERY,
    PARAMETER_SET,
    REALTIME,
    REISSUED,
    TERMINAL_CONTROL,
    TIME_CALIBRATION,
    VEHICLE_LOGIN,
    VEHICLE_LOGOUT,
)

# device.protocol values each port accepts (fleet.gb32960_records.GB_PROTOCOLS split by framing family):
# the 7617 port reads ## as GB/T 32960-2016 (and $$ as 2025), the 7618 port reads ## as GB 17691.
# DB4403/T 363 terminals are taken on the emissions port: their layout is not public to us, and the
# codec reads their frames with the GB 17691 / HJ 1239 layout (docs/architecture.md).
PORT_PROTOCOLS: Final[Mapping[str, tuple[str, ...]]] = MappingProxyType({
    "gb32960": ("gb32960",),
    "gb17691": ("gb17691", "hj1239", "db4403t363"),
})


class Answer(Enum):
    NONE = "none"                # no answer (GB 17691 data, terminal answers to platform commands)
    AT_ONCE = "at_once"          # answered on receipt (heartbeat, time calibration)
    AFTER_KAFKA = "after_kafka"  # answered from the Kafka delivery of its record, never before


class AnswerBody(Enum):
    EMPTY = "empty"
    COMMAND_TIME = "command_time"    # the command's first 6 bytes (its time), GB/T 32960.3-2016 §6.3.2
    PLATFORM_TIME = "platform_time"  # time calibration: the platform's clock, GMT+8


@dataclass(frozen=True, slots=True)
class CommandPolicy:
    answer: Answer
    body: AnswerBody = AnswerBody.EMPTY
    ends_session: bool = False  # logout: offline (reason logout) once answered / stored, then closed


LOGIN: Final = CommandPolicy(Answer.AFTER_KAFKA, AnswerBody.COMMAND_TIME)
_DATA: Final = CommandPolicy(Answer.AFTER_KAFKA, AnswerBody.COMMAND_TIME)
_FORWARD_ONLY: Final = CommandPolicy(Answer.NONE)

POLICIES: Final[Mapping[str, Mapping[int, CommandPolicy]]] = MappingProxyType({
    "gb32960": MappingProxyType({
        VEHICLE_LOGIN: LOGIN,
        REALTIME: _DATA,
        REISSUED: _DATA,
        VEHICLE_LOGOUT: CommandPolicy(Answer.AFTER_KAFKA, AnswerBody.COMMAND_TIME, ends_session=True),
        HEARTBEAT: CommandPolicy(Answer.AT_ONCE),
        TIME_CALIBRATION: CommandPolicy(Answer.AT_ONCE, AnswerBody.PLATFORM_TIME),
    }),
    "gb17691": MappingProxyType({
        VEHICLE_LOGIN: CommandPolicy(Answer.NONE),
        REALTIME: _FORWARD_ONLY,
        REISSUED: _FORWARD_ONLY,
        VEHICLE_LOGOUT: CommandPolicy(Answer.NONE, ends_session=True),
        EMISSION_TIME_CALIBRATION: CommandPolicy(Answer.AT_ONCE, AnswerBody.PLATFORM_TIME),
    }),
})
# A 32960 terminal's answers (flag not 0xFE) to the platform's parameter / control commands: kept, not answered.
TERMINAL_ANSWERS: Final = frozenset({PARAMETER_QUERY, PARAMETER_SET, TERMINAL_CONTROL})


class Refusal(Enum):
    """Why a frame is not forwarded (the log's reason; counters of the same name)."""

    NOT_LOGGED_IN = "not_logged_in"
    VIN_MISMATCH = "vin_mismatch"
    UNSUPPORTED = "unsupported_command"
    UNKNOWN_VIN = "unknown_vin"
    AMBIGUOUS_VIN = "ambiguous_vin"
    VIN_DUPLICATE = "vin_duplicate"
    LOOKUP_FAILED = "lookup_failed"
    PLATFORM_LOGIN = "platform_login"  # an inferior platform's login 0x05 with an unknown account or password
    UNDECRYPTABLE = "undecryptable"  # an inferior platform's AES data unit that its key does not decrypt


@dataclass(frozen=True, slots=True)
class Refuse:
    reason: Refusal
    flag: int | None  # response flag to answer with; None: not answered (GB 17691, terminal answers)


@dataclass(frozen=True, slots=True)
class Login:
    """A vehicle login: look the VIN up, then `decide_login`."""


@dataclass(frozen=True, slots=True)
class Forward:
    policy: CommandPolicy


Verdict = Refuse | Login | Forward


def answers_exist(family: str) -> bool:
    """Whether the family's header has a response flag (GB/T 32960 yes, GB 17691 / HJ 1239 no)."""
    return family == "gb32960"


def classify(family: str, logged_in_vin: str | None, header: Header) -> Verdict:
    """What to do with one whole, checked frame of a connection on the `family` port."""
    error = Response.ERROR if answers_exist(family) and header.is_command else None
    if answers_exist(family) and not header.is_command:  # a terminal's answer to a platform command
        if logged_in_vin is None:
            return Refuse(Refusal.NOT_LOGGED_IN, None)
        if header.vin != logged_in_vin:
            return Refuse(Refusal.VIN_MISMATCH, None)
        return Forward(_FORWARD_ONLY) if header.command in TERMINAL_ANSWERS else Refuse(Refusal.UNSUPPORTED, None)
    policy = POLICIES[family].get(header.command)
    if policy is None:
        return Refuse(Refusal.UNSUPPORTED, error)
    if header.command == VEHICLE_LOGIN:
        if logged_in_vin is not None and header.vin != logged_in_vin:
            return Refuse(Refusal.VIN_MISMATCH, error)
        return Login()
    if logged_in_vin is None:
        return Refuse(Refusal.NOT_LOGGED_IN, error)
    if header.vin != logged_in_vin:
        return Refuse(Refusal.VIN_MISMATCH, error)
    return Forward(policy)


@dataclass(frozen=True, slots=True)
class LoginDecision:
    accepted: bool
    refusal: Refusal | None = None
    takeover: bool = False  # the connection holding the VIN was silent long enough: it is closed (replaced)

    def flag(self) -> int:
        """The response flag of the answer (GB/T 32960.3-2016 table 5)."""
        if self.accepted:
            return Response.SUCCESS
        return Response.VIN_DUPLICATE if self.refusal is Refusal.VIN_DUPLICATE else Response.ERROR


def decide_login(matches: int, holder_silent_s: float | None, takeover_silence_s: float) -> LoginDecision:
    """A login's outcome. `matches`: live cars with the VIN and a device of the port's protocols;
    `holder_silent_s`: seconds since another connection holding the VIN last sent a byte (None: none
    holds it, or this connection does).

    VIN duplicate (0x03) is the standard's code for a VIN already in use: chosen for a VIN another live
    connection holds, because a VIN is no secret (it is printed on the car) and so, unlike a JT/T 808
    auth code, cannot prove that a newcomer is the real terminal: the connection that logged in first and
    keeps talking keeps the vehicle. A holder silent for `takeover_silence_s` is taken to be a dead link
    (a terminal reconnecting after a mobile network drop) and is replaced."""
    if matches == 0:
        return LoginDecision(False, Refusal.UNKNOWN_VIN)
    if matches > 1:
        return LoginDecision(False, Refusal.AMBIGUOUS_VIN)
    if holder_silent_s is None:
        return LoginDecision(True)
    if holder_silent_s >= takeover_silence_s:
        return LoginDecision(True, takeover=True)
    return LoginDecision(False, Refusal.VIN_DUPLICATE)
