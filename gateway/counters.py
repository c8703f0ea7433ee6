"""Simple counters of what the gateway saw, logged periodically (no metrics dependency)."""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass

log = logging.getLogger("gateway.counters")


@dataclass
class GatewayCounters:
    """Monotonic counters; `snapshot()` gives a dict for logs and the status line."""

    connections_opened: int = 0
    connections_closed: int = 0
    connections_open: int = 0
    authenticated: int = 0
    registrations: int = 0
    registration_rejected: int = 0
    auth_failed: int = 0
    auth_backoff_delayed: int = 0  # 0x0102 attempts held back after wrong codes (connection or phone)
    auth_backoff_refused: int = 0  # 0x0102 answered result 1 unchecked: its phone was still backing off
    login_resends_answered: int = 0  # a 0x0100 / 0x0102 sent again after its success: given the same answer, not redone
    frames_in: int = 0
    bytes_in: int = 0
    uplinks_produced: int = 0
    uplink_records: int = 0  # Kafka records the uplinks went in (batches of uplinks, docs/topics.md)
    resends_dropped: int = 0  # a terminal's resend of a serial still on its way to Kafka (acked once stored)
    resends_reacked: int = 0  # a terminal's resend of an uplink already stored and acknowledged (acked again, not stored)
    positions_acked: int = 0
    produce_failed: int = 0
    framing_errors: int = 0
    bad_checksum: int = 0
    decode_errors: int = 0
    pre_auth_rejected: int = 0
    phone_mismatch: int = 0
    flood_throttled: int = 0
    slow_reader_dropped: int = 0
    idle_timeouts: int = 0
    replaced: int = 0
    codes_replaced: int = 0
    unauthenticated_refused: int = 0
    unauthenticated_displaced: int = 0  # closed to make room for a host holding fewer waiting connections
    auth_deadline_closed: int = 0
    proxy_header_rejected: int = 0  # connections closed: their first bytes were no valid PROXY header
    unknown_refusals: int = 0  # refused 0x0100 / 0x0102 of unknown phones gathered for refused_registration
    unknown_refusals_dropped: int = 0  # ... not kept: too many other phones were waiting for the write
    unknown_refusals_write_failed: int = 0  # phones whose refusals a failed write lost
    log_lines_suppressed: int = 0
    backpressure_pauses: int = 0
    subpackages_in: int = 0
    subpackage_resend_requests: int = 0
    subpackage_dropped: int = 0
    subpackage_evicted: int = 0
    media_stored: int = 0
    media_failed: int = 0
    media_location_invalid: int = 0  # 0x0801 stored without a position: its block did not decode
    downlinks_delivered: int = 0
    downlinks_ignored: int = 0
    downlinks_invalid: int = 0
    downlinks_queue_full: int = 0
    downlink_reply_timeouts: int = 0
    downlink_late_answers: int = 0  # a GB answer echoing the time of a downlink that expired unanswered
    downlink_replies_malformed: int = 0  # a command answered by a reply whose body did not decode
    downlinks_failed: int = 0
    sent_records: int = 0
    sent_records_dropped: int = 0
    db_errors: int = 0
    internal_errors: int = 0

    def snapshot(self) -> dict[str, int]:
        return asdict(self)

    def log_line(self) -> None:
        nonzero = {k: v for k, v in self.snapshot().items() if v}
        log.info("gateway counters %s", " ".join(f"{k}={v}" for k, v in nonzero.items()))


@dataclass
class GbGatewayCounters(GatewayCounters):
    """The GB gateway's counters (gateway/gb/): the JT/T 808 gateway's, plus its own refusals."""

    logins: int = 0  # vehicle logins answered success (stored in Kafka first)
    frames_forwarded: int = 0  # frames handed to gb32960.uplink.v1
    answers_after_kafka: int = 0  # answers written from a Kafka delivery
    refused_not_logged_in: int = 0
    refused_vin_mismatch: int = 0
    refused_unsupported_command: int = 0
    refused_unknown_vin: int = 0
    refused_ambiguous_vin: int = 0
    refused_vin_duplicate: int = 0
    refused_lookup_failed: int = 0
    refused_platform_login: int = 0
    refused_undecryptable: int = 0  # an inferior platform's AES data unit that its key does not decrypt
    login_deadline_closed: int = 0
    inferior_link_writes_failed: int = 0  # link state / frame log writes of inferior platforms that failed (retried)
    inferior_log_dropped: int = 0  # inferior platforms' frames not logged: the buffer was full
    inferior_unknown_dropped: int = 0  # logins with an unknown username not recorded: too many distinct ones waited
