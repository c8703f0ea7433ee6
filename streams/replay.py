"""``fleet deadletters replay --step NAME --since TIME``: send a step's dead letters back through that step.

A step that failed with a bug (or whose data the database refused) parked its uplinks on
``fleet.deadletter.v1`` under its name (``agent``; streams.pipeline). Once the cause is fixed, this reads the
dead letters written since ``--since`` (up to ``--until``, default now), keeps those of ``--step`` from
its topic (``jt808.uplink.v1``; ``gb32960.uplink.v1`` for the GB steps, streams.gb_uplinks.GB_STEPS), and
produces each ``value`` back to that topic under its original key with the header ``fleet.step: NAME``: the worker then runs that step alone on them (the other steps already took
them). The step's own idempotence (alarms: ON CONFLICT (device, key, start) DO NOTHING) makes a second replay
harmless. Prints what it sent; ``--dry-run`` only counts.

Failure modes: a bad ``--since`` / ``--step`` is a usage error (exit 2); Kafka unreachable fails with the
client's error (nothing half-sent is acknowledged twice: the producer flushes before the count is printed).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import click

from fleet.topics import DEAD_LETTER, GB32960_UPLINK, JT808_UPLINK
from streams.pipeline import STEP_HEADER


def _steps_by_topic() -> dict[str, str]:
    """Each step that dead-letters (a view never does) -> the topic its records come from and go back to."""
    from streams.gb_uplinks import GB_STEPS
    from streams.uplinks import STEPS

    return {**{s.name: JT808_UPLINK for s in STEPS if not s.view}, **{s.name: GB32960_UPLINK for s in GB_STEPS if not s.view}}


def _step_names() -> list[str]:
    return list(_steps_by_topic())


def topic_of(step: str) -> str:
    return _steps_by_topic().get(step, JT808_UPLINK)


def _utc(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def parse_time(text: str) -> datetime:
    """ISO 8601; without an offset it is UTC."""
    try:
        return _utc(datetime.fromisoformat(text))
    except ValueError as exc:
        raise click.BadParameter(f"not an ISO 8601 time: {text!r}") from exc


def selected(record: dict[str, Any], step: str) -> bool:
    return record.get("agent") == step and record.get("source_topic") == topic_of(step) and "value" in record


def read_dead_letters(consumer: Any, since: datetime, until: datetime) -> list[tuple[bytes | None, dict[str, Any]]]:
    """The dead letters written in [since, until], in partition order: (key, record)."""
    from kafka import TopicPartition

    partitions = sorted(consumer.partitions_for_topic(DEAD_LETTER) or ())
    tps = [TopicPartition(DEAD_LETTER, p) for p in partitions]
    if not tps:
        return []
    consumer.assign(tps)
    since_ms, until_ms = int(since.timestamp() * 1000), int(until.timestamp() * 1000)
    starts = consumer.offsets_for_times({tp: since_ms for tp in tps})
    ends = consumer.end_offsets(tps)
    pending = {}
    for tp in tps:
        found = starts.get(tp)
        if found is not None and found.offset < ends[tp]:
            consumer.seek(tp, found.offset)
            pending[tp] = ends[tp]
    out: list[tuple[bytes | None, dict[str, Any]]] = []
    while pending:
        for tp, messages in consumer.poll(timeout_ms=1000).items():
            for message in messages:
                if tp in pending and message.offset < pending[tp] and message.timestamp <= until_ms:
                    try:
                        record = json.loads(message.value)
                    except ValueError:
                        continue  # not a dead-letter record: nothing to replay
                    if isinstance(record, dict):
                        out.append((message.key, record))
            if tp in pending and consumer.position(tp) >= pending[tp]:
                del pending[tp]
    return out


@click.group("deadletters")
def deadletters_command() -> None:
    """Dead letters of the streams steps (fleet.deadletter.v1)."""


@deadletters_command.command("replay")
@click.option("--step", "step", required=True, type=click.Choice(_step_names()),
              help="the step whose dead letters go back through it (the records' agent)")
@click.option("--since", "since_text", required=True, help="dead letters written at or after this time (ISO 8601; UTC without offset)")
@click.option("--until", "until_text", default=None, help="and at or before this time (default: now)")
@click.option("--dry-run", is_flag=True, help="count, send nothing")
def replay_command(step: str, since_text: str, until_text: str | None, dry_run: bool) -> None:
    """Send the dead letters of STEP since SINCE back to their topic (jt808.uplink.v1, or gb32960.uplink.v1 for
    a gb_ step) for that step alone."""
    from kafka import KafkaConsumer, KafkaProducer

    from fleet.kafka_clients import kafka_python_options
    from fleet.settings import KafkaSettings, kafka_bootstrap

    since = parse_time(since_text)
    until = parse_time(until_text) if until_text else datetime.now(UTC)
    if until < since:
        raise click.BadParameter("--until is before --since")
    kafka = KafkaSettings()
    options = {"bootstrap_servers": kafka_bootstrap(kafka), **kafka_python_options(kafka)}
    consumer = KafkaConsumer(group_id=None, enable_auto_commit=False, **options)
    try:
        letters = [(key, r) for key, r in read_dead_letters(consumer, since, until) if selected(r, step)]
    finally:
        consumer.close()
    if not dry_run and letters:
        producer = KafkaProducer(acks="all", **options)
        try:
            for key, record in letters:
                value = record["value"]
                producer.send(topic_of(step), key=key, headers=[(STEP_HEADER, step.encode())],
                              value=value.encode() if isinstance(value, str) else json.dumps(value).encode())
            producer.flush()
        finally:
            producer.close()
    verb = "would replay" if dry_run else "replayed"
    click.echo(f"{verb} {len(letters)} dead letters of step {step} written {since.isoformat()} .. {until.isoformat()}")
