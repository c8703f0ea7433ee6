"""Kafka administration the stack needs: creating fleetwatch's topics, waiting for a cluster's brokers."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from typing import Any

from fleet.topics import ALL_TOPICS

log = logging.getLogger(__name__)


def ensure_topics(
    bootstrap: str,
    partitions: int,
    *,
    topics: Iterable[str] = ALL_TOPICS,
    replication_factor: int = 1,
    configs: dict[str, str] | None = None,
    timeout_s: float = 60,
) -> list[str]:
    """Create the missing topics of `topics` (default: every fleetwatch topic) and wait for leaders.

    Idempotent: existing topics are left as they are (their partition count is not changed). `configs`
    are topic configs of the created ones (a cluster's ``min.insync.replicas``).
    Returns the names it created. Raises kafka.errors.KafkaError when the cluster refuses, or
    TimeoutError when a topic has no leader within `timeout_s`.
    """
    from kafka.errors import (
        KafkaError,
        NodeNotReadyError,
        NotControllerError,
        TopicAlreadyExistsError,
        UnknownBrokerIdError,
    )

    wanted = list(dict.fromkeys(topics))
    deadline = time.monotonic() + timeout_s
    admin = _connect(bootstrap, deadline)
    created: list[str] = []
    try:
        while True:
            existing = set(admin.list_topics())
            missing = [name for name in wanted if name not in existing]
            if not missing:
                break
            log.info("creating topics %s (%d partitions)", ", ".join(missing), partitions)
            spec: dict[str, dict[str, Any]] = {
                name: {"num_partitions": partitions, "replication_factor": replication_factor,
                       **({"configs": dict(configs)} if configs else {})}
                for name in missing}
            try:
                admin.create_topics(spec, timeout_ms=int(timeout_s * 1000))
                created = missing
                break
            except TopicAlreadyExistsError:
                break  # a concurrent caller won the race
            except (UnknownBrokerIdError, NodeNotReadyError, NotControllerError) as exc:
                # A cluster just started: the broker this client asked may not know the controller yet (its
                # metadata lags the quorum's). Ask again, with fresh metadata, until the deadline.
                if time.monotonic() > deadline:
                    raise
                log.info("creating topics on %s: %r; asking again", bootstrap, exc)
                admin.close()
                time.sleep(0.5)
                admin = _connect(bootstrap, deadline)
        remaining_ms = max(1000, int((deadline - time.monotonic()) * 1000))
        try:
            admin.wait_for_topics(wanted, timeout_ms=remaining_ms)
        except KafkaError as exc:
            raise TimeoutError(f"topics {wanted} have no leader on {bootstrap}: {exc}") from exc
        return created
    finally:
        admin.close()


def wait_for_brokers(bootstrap: str, broker_ids: Iterable[int], timeout_s: float = 60) -> None:
    """Wait until the cluster's metadata lists every broker of `broker_ids`, unfenced.

    Each node answering on its port is not enough: a node serves before the controller has registered
    (unfenced) the others, and a topic created then with a replication factor of 3 fails with
    UnknownBrokerIdError, or gets replicas on fewer brokers. Raises TimeoutError after `timeout_s`.
    """
    from kafka.errors import KafkaError

    wanted = set(broker_ids)
    deadline = time.monotonic() + timeout_s
    admin = _connect(bootstrap, deadline)
    seen: set[int] = set()
    try:
        while True:
            try:
                brokers = admin.describe_cluster().get("brokers", [])
                seen = {int(b["broker_id"]) for b in brokers if not b.get("is_fenced", False)}
            except KafkaError as exc:
                log.debug("describe_cluster on %s: %s", bootstrap, exc)
            if wanted <= seen:
                return
            if time.monotonic() > deadline:
                raise TimeoutError(f"brokers {sorted(wanted - seen)} not registered on {bootstrap} "
                                   f"within {timeout_s:.0f} s (registered: {sorted(seen)})")
            time.sleep(0.5)
    finally:
        admin.close()


def log_bytes(bootstrap: str, topic: str, timeout_s: float = 30) -> int:
    """What the brokers keep of ``topic`` on disk: its partitions' log sizes summed over every broker
    (replicas included; DescribeLogDirs). Compressed batches count as stored (FLEET_KAFKA_COMPRESSION)."""
    admin = _connect(bootstrap, time.monotonic() + timeout_s)
    try:
        return sum(int(partition["partition_size"]) for broker in admin.describe_log_dirs([topic])
                   for log_dir in broker["log_dirs"] for found in log_dir["topics"] if found["name"] == topic
                   for partition in found["partitions"])
    finally:
        admin.close()


def _connect(bootstrap: str, deadline: float) -> Any:
    """A KafkaAdminClient, retrying while the broker is still coming up."""
    from kafka import KafkaAdminClient
    from kafka.errors import KafkaError

    from fleet.kafka_clients import kafka_python_options

    while True:
        try:
            return KafkaAdminClient(bootstrap_servers=bootstrap, client_id="fleet-admin", request_timeout_ms=15000,
                                    **kafka_python_options())
        except KafkaError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)
