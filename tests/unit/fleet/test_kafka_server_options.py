"""A broker's JVM options and server properties (fleet/services/kafka.py): a collector named by the caller replaces
the default G1 (the JVM refuses to start with two), and the caller's properties win over the defaults."""

from __future__ import annotations

from pathlib import Path

from fleet.services.kafka import KafkaServer


def _properties(server: KafkaServer) -> dict[str, str]:
    server.data_dir.mkdir(parents=True)
    server._write_config()
    lines = (server.data_dir / "server.properties").read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if line and not line.startswith("#"))


def test_the_default_broker_runs_g1(tmp_path: Path) -> None:
    options = KafkaServer(tmp_path, 9092, 9093)._jvm_options()
    assert "-XX:+UseG1GC" in options and "-XX:MaxGCPauseMillis=20" in options


def test_a_collector_named_by_the_caller_replaces_g1(tmp_path: Path) -> None:
    options = KafkaServer(tmp_path, 9092, 9093, jvm_extra=("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"))._jvm_options()
    collectors = [option for option in options if option.startswith("-XX:+Use") and option.endswith("GC")]
    assert collectors == ["-XX:+UseSerialGC"]
    assert "-XX:MaxGCPauseMillis=20" not in options and "-XX:TieredStopAtLevel=1" in options


def test_other_jvm_options_keep_g1(tmp_path: Path) -> None:
    options = KafkaServer(tmp_path, 9092, 9093, jvm_extra=("-XX:+FlightRecorder",))._jvm_options()
    assert "-XX:+UseG1GC" in options and "-XX:+FlightRecorder" in options


def test_the_callers_properties_override_the_defaults(tmp_path: Path) -> None:
    default = _properties(KafkaServer(tmp_path / "a", 9092, 9093))
    assert "metadata.max.idle.interval.ms" not in default and default["num.io.threads"] == "4"
    tuned = _properties(KafkaServer(tmp_path / "b", 9092, 9093,
                                    properties={"metadata.max.idle.interval.ms": "5000", "num.io.threads": "2"}))
    assert tuned["metadata.max.idle.interval.ms"] == "5000" and tuned["num.io.threads"] == "2"
    unchanged = set(default) - {"num.io.threads", "log.dirs"}
    assert {key: tuned[key] for key in unchanged} == {key: default[key] for key in unchanged}
