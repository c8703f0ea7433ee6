"""FLEET_KAFKA_* -> the options of each Kafka library (fleet/kafka_clients.py); SASL without its secret
fails when the settings are built, naming the variable."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from fleet.kafka_clients import (
    aiokafka_options,
    faust_credentials,
    kafka_python_options,
    producer_compression,
)
from fleet.settings import KafkaSettings


def test_plaintext_default_adds_nothing() -> None:
    kafka = KafkaSettings()
    assert kafka.security_protocol == "PLAINTEXT"
    assert kafka_python_options(kafka) == {} and aiokafka_options(kafka) == {}
    assert faust_credentials(kafka) is None


@pytest.mark.parametrize("missing", ["FLEET_KAFKA_SASL_USERNAME", "FLEET_KAFKA_SASL_PASSWORD"])
def test_sasl_without_a_credential_fails_naming_the_variable(monkeypatch: pytest.MonkeyPatch, missing: str) -> None:
    monkeypatch.setenv("FLEET_KAFKA_SECURITY_PROTOCOL", "SASL_PLAINTEXT")
    for name in ("FLEET_KAFKA_SASL_USERNAME", "FLEET_KAFKA_SASL_PASSWORD"):
        if name != missing:
            monkeypatch.setenv(name, "x")
    with pytest.raises(ValidationError, match=missing):
        KafkaSettings()


def test_sasl_settings_reach_every_client_library(monkeypatch: pytest.MonkeyPatch) -> None:
    from faust.transport.drivers.aiokafka import credentials_to_aiokafka_auth

    for name, value in {"SECURITY_PROTOCOL": "SASL_PLAINTEXT", "SASL_MECHANISM": "PLAIN",
                        "SASL_USERNAME": "fleet", "SASL_PASSWORD": "s3cret"}.items():
        monkeypatch.setenv(f"FLEET_KAFKA_{name}", value)
    wanted = {"security_protocol": "SASL_PLAINTEXT", "sasl_mechanism": "PLAIN",
              "sasl_plain_username": "fleet", "sasl_plain_password": "s3cret"}
    assert kafka_python_options() == wanted and aiokafka_options() == wanted
    faust_auth = credentials_to_aiokafka_auth(faust_credentials())
    assert {k: faust_auth[k] for k in wanted} == wanted


def test_sasl_ssl_checks_the_brokers_certificates() -> None:
    kafka = KafkaSettings(security_protocol="SASL_SSL", sasl_mechanism="SCRAM-SHA-512", sasl_username="fleet",
                          sasl_password="s3cret")
    context = kafka_python_options(kafka)["ssl_context"]
    assert context.check_hostname and context.verify_mode.name == "CERT_REQUIRED"
    assert faust_credentials(kafka).protocol.value == "SASL_SSL"


def test_every_offered_compression_is_one_both_client_libraries_write_and_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """A codec the gateways may write must be one every reader has: aiokafka (the streams worker, the link services)
    and kafka-python (tools, tests); a codec library missing from the install fails here, not on a live topic."""
    import typing

    import aiokafka.codec
    import kafka.codec

    offered = typing.get_args(KafkaSettings.model_fields["compression"].annotation)
    assert KafkaSettings().compression == "zstd" and "none" in offered
    for name in offered:
        monkeypatch.setenv("FLEET_KAFKA_COMPRESSION", name)
        if name == "none":
            assert producer_compression() is None
            continue
        assert producer_compression() == name
        assert getattr(aiokafka.codec, f"has_{name}")() and getattr(kafka.codec, f"has_{name}")(), name
    monkeypatch.setenv("FLEET_KAFKA_COMPRESSION", "lz4")  # not every reader has it
    with pytest.raises(ValidationError, match="compression"):
        KafkaSettings()
