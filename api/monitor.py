"""The system monitor (platform-spec §2 "system is a server monitor"): the health of what ``fleet up``
runs, read from the real services each time it is asked.

Each section is ``{"available": true, ...}`` or ``{"available": false, "error": "..."}``: a service
that cannot be read makes its own section say so, never the whole page fail.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from warehouse.queries import monitor as queries

log = logging.getLogger(__name__)


def section(read: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """``read()`` marked available, or the failure as an unavailable section (logged)."""
    try:
        return {"available": True, **read()}
    except Exception as exc:  # any failure of one service is that section's answer
        log.warning("system monitor: %s failed: %s", getattr(read, "__name__", "section"), exc)
        return {"available": False, "error": f"{type(exc).__name__}: {str(exc)[:200]}"}


def kafka_lag(bootstrap: str, timeout_s: float) -> dict[str, Any]:
    """Topics with their end offsets, and per consumer group and topic: committed offsets, end
    offsets and the lag (end - committed, summed over the group's partitions; a partition without a
    committed offset counts its whole end offset as lag).

    Raises kafka.errors.KafkaError (or NoBrokersAvailable) when the cluster does not answer."""
    from kafka import KafkaAdminClient, KafkaConsumer, TopicPartition

    from fleet.kafka_clients import kafka_python_options

    timeout_ms = int(timeout_s * 1000)
    common = {"bootstrap_servers": bootstrap, "request_timeout_ms": max(timeout_ms, 1000),
              "bootstrap_timeout_ms": timeout_ms, "client_id": "fleet-monitor", **kafka_python_options()}
    admin = KafkaAdminClient(**common)
    consumer = None
    try:
        consumer = KafkaConsumer(group_id=None, enable_auto_commit=False, **common)
        topic_names = sorted(t for t in admin.list_topics() if not t.startswith("__"))
        partitions = [TopicPartition(t, p) for t in topic_names for p in sorted(consumer.partitions_for_topic(t) or ())]
        group_ids = sorted(_group_id(g) for g in admin.list_groups())
        committed: dict[str, dict[Any, Any]] = {}
        for group_id in group_ids:
            committed[group_id] = admin.list_group_offsets({group_id: None}).get(group_id, {})
        wanted = set(partitions) | {tp for offsets in committed.values() for tp in offsets}
        ends: dict[Any, int] = consumer.end_offsets(sorted(wanted)) if wanted else {}
    finally:
        if consumer is not None:
            consumer.close()
        admin.close()
    topics = [{"topic": t, "partitions": sum(1 for tp in partitions if tp.topic == t),
               "endOffset": sum(ends.get(tp, 0) for tp in partitions if tp.topic == t)} for t in topic_names]
    return {"bootstrap": bootstrap, "topics": topics, "groups": _group_rows(committed, ends)}


def _group_id(group: Any) -> str:
    """kafka-python answers dicts (3.x) or (id, protocol) tuples (2.x)."""
    if isinstance(group, dict):
        return str(group.get("group_id") or group.get("group"))
    return str(group[0])


def _group_rows(committed: dict[str, dict[Any, Any]], ends: dict[Any, int]) -> list[dict[str, Any]]:
    rows = []
    for group_id, offsets in committed.items():
        by_topic: dict[str, list[tuple[int, int]]] = {}
        for tp, meta in offsets.items():
            offset = max(int(getattr(meta, "offset", meta)), 0)  # -1: nothing committed
            by_topic.setdefault(tp.topic, []).append((offset, int(ends.get(tp, offset))))
        for topic, pairs in sorted(by_topic.items()):
            rows.append({
                "group": group_id, "topic": topic, "partitions": len(pairs),
                "committedOffset": sum(c for c, _ in pairs), "endOffset": sum(e for _, e in pairs),
                "lag": sum(max(e - c, 0) for c, e in pairs),
            })
        if not by_topic:
            rows.append({"group": group_id, "topic": None, "partitions": 0, "committedOffset": 0,
                         "endOffset": 0, "lag": 0})
    return rows


RESTRICTED = ("仅平台管理员可见 (platform-wide figures: gateway sessions, Kafka offsets and database sizes are "
              "shown to the platform's own administrators only)")


def restricted_snapshot() -> dict[str, Any]:
    """The monitor of a subsidiary's administrator: every section is platform-wide (all tenants' terminals,
    every consumer group's offsets, the database's size), so none is read."""
    closed = {"available": False, "restricted": True, "error": RESTRICTED}
    return {"at": datetime.now(UTC), "gateway": closed, "kafka": closed, "database": closed, "throughput": closed}


def snapshot(conn_factory: Callable[[], Any], bootstrap: str, kafka_timeout_s: float) -> dict[str, Any]:
    """Every section of the monitor; ``conn_factory()`` is a context manager giving a connection."""

    def database() -> dict[str, Any]:
        with conn_factory() as conn:
            return queries.database(conn)

    def gateway() -> dict[str, Any]:
        with conn_factory() as conn:
            return queries.terminals(conn)

    def throughput() -> dict[str, Any]:
        with conn_factory() as conn:
            return queries.throughput(conn)

    def kafka() -> dict[str, Any]:
        return kafka_lag(bootstrap, kafka_timeout_s)

    return {
        "at": datetime.now(UTC),
        "gateway": section(gateway),
        "kafka": section(kafka),
        "database": section(database),
        "throughput": section(throughput),
    }
