"""The payload records the agents consume; the decoder lives in ``fleet.uplink_messages`` (shared with the
JT/T 809 link service, which may not import ``streams``)."""

from fleet.uplink_messages import (
    STATUS_ACC_ON,
    STATUS_POSITIONED,
    Fix,
    PayloadError,
    RefusedFrame,
    SecurityNotice,
    SessionEvent,
    Uplink,
    load_json_object,
    location_bodies,
    parse_fix,
    parse_session,
    parse_sessions_record,
    parse_time,
    parse_uplink,
)

__all__ = [
    "STATUS_ACC_ON", "STATUS_POSITIONED", "Fix", "PayloadError", "RefusedFrame", "SecurityNotice", "SessionEvent",
    "Uplink", "load_json_object", "location_bodies", "parse_fix", "parse_session", "parse_sessions_record",
    "parse_time", "parse_uplink",
]
