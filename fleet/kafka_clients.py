"""Connection options every fleetwatch Kafka client takes from ``KafkaSettings`` (FLEET_KAFKA_*).

The local default is PLAINTEXT to the stack's own broker, which listens on 127.0.0.1 only; a cluster
(docker/compose.yaml) requires SASL, and then every client (gateway, media server, streams worker, API,
admin) must send the same credentials: these helpers are the one place that turns the settings into the
options of each library (kafka-python, aiokafka, Faust). docs/security.md says who may reach which port.
"""

from __future__ import annotations

import ssl
from typing import Any

from fleet.settings import KafkaSettings


def _ssl_context(kafka: KafkaSettings) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=kafka.ssl_cafile or None)


def kafka_python_options(kafka: KafkaSettings | None = None) -> dict[str, Any]:
    """Keyword arguments for kafka-python's KafkaProducer / KafkaConsumer / KafkaAdminClient; {} for PLAINTEXT."""
    kafka = kafka or KafkaSettings()
    if kafka.security_protocol == "PLAINTEXT":
        return {}
    options: dict[str, Any] = {
        "security_protocol": kafka.security_protocol,
        "sasl_mechanism": kafka.sasl_mechanism,
        "sasl_plain_username": kafka.sasl_username,
        "sasl_plain_password": kafka.sasl_password,
    }
    if kafka.security_protocol == "SASL_SSL":
        options["ssl_context"] = _ssl_context(kafka)
    return options


def aiokafka_options(kafka: KafkaSettings | None = None) -> dict[str, Any]:
    """Keyword arguments for aiokafka's AIOKafkaProducer / AIOKafkaConsumer; {} for PLAINTEXT."""
    # aiokafka takes the same names as kafka-python for everything used here
    return kafka_python_options(kafka)


def producer_compression(kafka: KafkaSettings | None = None) -> str | None:
    """``compression_type`` of a producer (aiokafka, kafka-python): None when FLEET_KAFKA_COMPRESSION is none."""
    kafka = kafka or KafkaSettings()
    return None if kafka.compression == "none" else kafka.compression


def faust_credentials(kafka: KafkaSettings | None = None) -> Any:
    """``broker_credentials`` of a Faust app: None for PLAINTEXT, else SASL credentials (TLS with SASL_SSL)."""
    kafka = kafka or KafkaSettings()
    if kafka.security_protocol == "PLAINTEXT":
        return None
    from faust.auth import SASLCredentials

    context = _ssl_context(kafka) if kafka.security_protocol == "SASL_SSL" else None
    return SASLCredentials(username=kafka.sasl_username, password=kafka.sasl_password,
                           mechanism=kafka.sasl_mechanism, ssl_context=context)
