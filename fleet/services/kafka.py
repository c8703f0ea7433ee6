"""A private single-node Kafka (KRaft, broker + controller) under one directory, on 127.0.0.1.

The jars come from Maven Central through ``kafka-pom.xml`` and ``mvn dependency:copy-dependencies``
into a cache (``.cache/kafka-jars`` in the repository by default), fetched once. The broker is a
``java`` child process in its own session; ``stop()`` sends SIGTERM (a controlled shutdown) and
SIGKILL after a timeout.
"""

from __future__ import annotations

import base64
import fcntl
import logging
import os
import secrets
import shutil
import signal
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

from fleet.services._system import (
    PortInUseError,
    ServiceError,
    ensure_command,
    pid_alive,
    port_answers,
    port_is_free,
    tail,
)
from fleet.settings import REPO_ROOT

log = logging.getLogger(__name__)

KAFKA_VERSION = "3.9.1"
POM = Path(__file__).with_name("kafka-pom.xml")
DEFAULT_JARS_DIR = REPO_ROOT / ".cache" / "kafka-jars"
_COMPLETE_MARK = ".complete"
BROKER_USER = "broker"


def new_cluster_id() -> str:
    """A Kafka cluster id: a URL-safe base64 UUID. One that starts with "-" is read by StorageTool's argument
    parser as an option, so the format step would fail 1 in 64 times: those are drawn again."""
    cluster_id = "-"
    while cluster_id.startswith("-"):
        cluster_id = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
    return cluster_id


def ensure_java() -> str:
    """Path of ``java`` (installs openjdk-17-jre-headless when missing and root)."""
    return ensure_command("java", "openjdk-17-jre-headless")


def ensure_jars(cache_dir: Path | str | None = None) -> Path:
    """Directory holding the Kafka jars; resolves them with Maven the first time.

    Skipped when the cache is complete (marker file written last). A lock file makes concurrent
    callers wait for one download. Raises ServiceError when Maven fails.
    """
    cache = Path(cache_dir) if cache_dir else DEFAULT_JARS_DIR
    marker = cache / _COMPLETE_MARK
    if marker.exists() and marker.read_text().strip() == KAFKA_VERSION:
        return cache
    cache.parent.mkdir(parents=True, exist_ok=True)
    with open(cache.parent / f".{cache.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if marker.exists() and marker.read_text().strip() == KAFKA_VERSION:
            return cache
        ensure_java()
        mvn = ensure_command("mvn", "maven")
        staging = Path(tempfile.mkdtemp(prefix=f".{cache.name}-", dir=cache.parent))
        log.info("resolving Kafka %s jars with Maven into %s", KAFKA_VERSION, cache)
        proc = subprocess.run(
            [mvn, "-q", "-B", "-f", str(POM), "dependency:copy-dependencies", f"-DoutputDirectory={staging}"],
            capture_output=True, text=True, check=False, stdin=subprocess.DEVNULL,
        )
        if proc.returncode != 0 or not list(staging.glob("kafka_2.13-*.jar")):
            shutil.rmtree(staging, ignore_errors=True)
            raise ServiceError(f"mvn could not resolve the Kafka jars:\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}")
        shutil.rmtree(cache, ignore_errors=True)
        staging.rename(cache)
        marker.write_text(KAFKA_VERSION + "\n")
    return cache


class KafkaServer:
    """One private KRaft node. Idempotent: start() on a running broker only checks it."""

    def __init__(
        self,
        data_dir: Path | str,
        port: int,
        controller_port: int,
        *,
        jars_dir: Path | str | None = None,
        heap: str = "512m",
        retention_hours: int = 24,
        jvm_extra: tuple[str, ...] = (),
        properties: dict[str, str] | None = None,
        sasl_users: dict[str, str] | None = None,
        node_id: int = 1,
        quorum_voters: str | None = None,
        cluster_id: str | None = None,
        replication_factor: int = 1,
        min_insync_replicas: int = 1,
    ) -> None:
        self.data_dir = Path(data_dir).resolve()
        self.port = port
        self.controller_port = controller_port
        # e.g. a flight recording for benchmarks/ingest_bench.py --profile; a collector named here (-XX:+Use...GC)
        # replaces the default G1
        self.jvm_extra = tuple(jvm_extra)
        self.properties = dict(properties or {})  # server properties over the defaults below (_write_config)
        self.jars_dir = Path(jars_dir) if jars_dir else None
        self.heap = heap
        self.retention_hours = retention_hours
        # SASL/PLAIN users (name -> password), as the cluster of docker/compose.yaml has: None keeps the local
        # default, PLAINTEXT on 127.0.0.1 (docs/security.md); set, every listener wants a login.
        self.sasl_users = dict(sasl_users) if sasl_users is not None else None
        # One node of a KRaft cluster (fleet/services/kafka_cluster.py): its id, every controller as
        # id@host:port, the cluster id all nodes format with, and the replication of the internal and
        # auto-created topics. The defaults are the single node of `fleet up`.
        self.node_id = node_id
        self.quorum_voters = quorum_voters or f"{node_id}@127.0.0.1:{controller_port}"
        self.cluster_id = cluster_id
        self.replication_factor = replication_factor
        self.min_insync_replicas = min_insync_replicas
        self.log_file = self.data_dir / "server.log"
        self._pid_file = self.data_dir / "kafka.pid"
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def _broker_password(self) -> str:
        """The broker's own SASL password, generated once per data directory (a restart keeps it)."""
        path = self.data_dir / "broker.password"
        if not path.is_file():
            self.data_dir.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w") as out:
                out.write(secrets.token_urlsafe(18))
        return path.read_text().strip()

    def client_options(self) -> dict[str, str]:
        """kafka-python options of the broker's own user (health checks): {} without SASL."""
        if self.sasl_users is None:
            return {}
        return {"security_protocol": "SASL_PLAINTEXT", "sasl_mechanism": "PLAIN",
                "sasl_plain_username": BROKER_USER, "sasl_plain_password": self._broker_password}

    # -- lifecycle -------------------------------------------------------------------------

    def pid(self) -> int | None:
        """PID of the broker when it runs on this directory, else None."""
        if self._proc is not None and self._proc.poll() is None:
            return self._proc.pid
        try:
            pid = int(self._pid_file.read_text().strip())
        except (OSError, ValueError):
            return None
        if not pid_alive(pid):
            return None
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
        except OSError:
            return None
        return pid if str(self.data_dir / "server.properties") in cmdline else None

    def is_running(self) -> bool:
        return self.pid() is not None

    def start(self, timeout_s: float = 120) -> None:
        """Format storage (first time), launch the broker and wait until it serves metadata.

        Raises PortInUseError when a port is taken, ServiceError when the broker exits or does not
        answer within `timeout_s` (the message carries the tail of its log).
        """
        if self.is_running():
            self.wait_ready(timeout_s)
            return
        self.launch()
        try:
            self.wait_ready(timeout_s)
        except BaseException:
            self.stop()
            raise

    def launch(self) -> None:
        """Format storage (first time) and start the broker without waiting for it: a cluster's nodes serve
        only once a majority of controllers is up, so they are all launched before any is awaited."""
        if self.is_running():
            return
        for port in (self.port, self.controller_port):
            if not port_is_free(port):
                raise PortInUseError(port)
        jars = ensure_jars(self.jars_dir)
        java = ensure_java()
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self._write_config()
        classpath = f"{jars}/*"
        jvm = self._jvm_options()
        if not (self.data_dir / "logs" / "meta.properties").exists():
            cluster_id = self.cluster_id or new_cluster_id()
            proc = subprocess.run(
                [java, *jvm, "-cp", classpath, "kafka.tools.StorageTool", "format", "-t", cluster_id,
                 "-c", str(self.data_dir / "server.properties")],
                capture_output=True, text=True, check=False, stdin=subprocess.DEVNULL,
            )
            if proc.returncode != 0:
                raise ServiceError(f"Kafka storage format failed:\n{proc.stdout}{proc.stderr}")
        log.info("starting Kafka on %s (%s)", self.bootstrap, self.data_dir)
        with open(self.data_dir / "stdout.log", "ab") as out:
            self._proc = subprocess.Popen(
                [java, *jvm, "-cp", classpath, "kafka.Kafka", str(self.data_dir / "server.properties")],
                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True,  # Ctrl-C in the terminal must not reach it: the supervisor stops it in order
            )
        self._pid_file.write_text(f"{self._proc.pid}\n")

    def stop(self, timeout_s: float = 30) -> None:
        """SIGTERM, wait up to `timeout_s`, then SIGKILL. No-op when not running."""
        pid = self.pid()
        if pid is None:
            self._pid_file.unlink(missing_ok=True)
            return
        log.info("stopping Kafka (pid %d)", pid)
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        if not self._wait_exit(pid, timeout_s):
            log.warning("Kafka (pid %d) ignored SIGTERM for %.0fs; killing it", pid, timeout_s)
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self._wait_exit(pid, 10)
        self._pid_file.unlink(missing_ok=True)
        self._proc = None

    def healthy(self) -> bool:
        """True when the broker answers a metadata request."""
        if not port_answers(self.port):
            return False
        from kafka import KafkaAdminClient
        from kafka.errors import KafkaError

        try:
            admin = KafkaAdminClient(bootstrap_servers=self.bootstrap, request_timeout_ms=5000,
                                     client_id="fleet-health", **self.client_options())
        except (KafkaError, OSError):
            return False
        try:
            admin.list_topics()
            return True
        except (KafkaError, OSError):
            return False
        finally:
            admin.close()

    def destroy(self) -> None:
        self.stop()
        shutil.rmtree(self.data_dir, ignore_errors=True)

    # -- internals -------------------------------------------------------------------------

    def _wait_exit(self, pid: int, timeout_s: float) -> bool:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self._proc is not None and self._proc.pid == pid:
                try:
                    self._proc.wait(timeout=0.2)
                    return True
                except subprocess.TimeoutExpired:
                    continue
            if not pid_alive(pid):
                return True
            time.sleep(0.2)
        return False

    def wait_ready(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self._proc is not None and self._proc.poll() is not None:
                raise ServiceError(
                    f"Kafka exited with {self._proc.returncode} while starting:\n"
                    f"{tail(self.data_dir / 'stdout.log')}\n--- {self.log_file}:\n{tail(self.log_file)}"
                )
            if self.healthy():
                return
            time.sleep(0.5)
        raise ServiceError(f"Kafka on {self.bootstrap} did not answer within {timeout_s:.0f}s:\n{tail(self.log_file)}")

    def _jvm_options(self) -> list[str]:
        return [
            f"-Xmx{self.heap}", "-Xms128m",
            *([] if any(option.startswith("-XX:+Use") and option.endswith("GC") for option in self.jvm_extra)
              else ["-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20"]),  # the JVM refuses two collectors
            "-Djava.awt.headless=true",
            f"-Dlog4j.configuration=file:{self.data_dir / 'log4j.properties'}",
            f"-Dkafka.logs.dir={self.data_dir}",
            *self.jvm_extra,
        ]

    def _sasl_properties(self) -> dict[str, str]:
        """Both listeners SASL/PLAIN, like docker/compose.yaml's brokers: the broker logs in as BROKER_USER
        (inter-broker and controller traffic), clients as one of `sasl_users`."""
        users = {**(self.sasl_users or {}), BROKER_USER: self._broker_password}
        jaas = (f'org.apache.kafka.common.security.plain.PlainLoginModule required username="{BROKER_USER}"'
                f' password="{self._broker_password}" '
                + " ".join(f'user_{name}="{password}"' for name, password in sorted(users.items())) + ";")
        return {
            "listeners": f"BROKER://127.0.0.1:{self.port},CONTROLLER://127.0.0.1:{self.controller_port}",
            "advertised.listeners": f"BROKER://127.0.0.1:{self.port}",
            "inter.broker.listener.name": "BROKER",
            "listener.security.protocol.map": "CONTROLLER:SASL_PLAINTEXT,BROKER:SASL_PLAINTEXT",
            "sasl.enabled.mechanisms": "PLAIN",
            "sasl.mechanism.inter.broker.protocol": "PLAIN",
            "sasl.mechanism.controller.protocol": "PLAIN",
            "listener.name.broker.plain.sasl.jaas.config": jaas,
            "listener.name.controller.plain.sasl.jaas.config": jaas,
        }

    def _write_config(self) -> None:
        logs = self.data_dir / "logs"
        props = {
            "process.roles": "broker,controller",
            "node.id": str(self.node_id),
            "controller.quorum.voters": self.quorum_voters,
            "listeners": f"PLAINTEXT://127.0.0.1:{self.port},CONTROLLER://127.0.0.1:{self.controller_port}",
            "advertised.listeners": f"PLAINTEXT://127.0.0.1:{self.port}",
            "controller.listener.names": "CONTROLLER",
            "inter.broker.listener.name": "PLAINTEXT",
            "listener.security.protocol.map": "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
            "log.dirs": str(logs),
            "num.partitions": "1",
            "default.replication.factor": str(self.replication_factor),
            "min.insync.replicas": str(self.min_insync_replicas),
            "offsets.topic.replication.factor": str(self.replication_factor),
            "offsets.topic.num.partitions": "8",
            "transaction.state.log.replication.factor": str(self.replication_factor),
            "transaction.state.log.min.isr": str(self.min_insync_replicas),
            "transaction.state.log.num.partitions": "4",
            "group.initial.rebalance.delay.ms": "0",
            "num.network.threads": "2",
            "num.io.threads": "4",
            "background.threads": "4",
            "log.segment.bytes": str(16 * 1024 * 1024),
            "offsets.topic.segment.bytes": str(16 * 1024 * 1024),
            "log.retention.hours": str(self.retention_hours),
            "log.retention.check.interval.ms": "60000",
            "auto.create.topics.enable": "true",
            "delete.topic.enable": "true",
        }
        if self.sasl_users is not None:
            props.update(self._sasl_properties())
        props.update(self.properties)
        text = "# written by fleet/services/kafka.py on every start\n"
        text += "".join(f"{key}={value}\n" for key, value in props.items())
        config = self.data_dir / "server.properties"
        config.touch(mode=0o600)  # may hold SASL passwords
        config.chmod(0o600)
        config.write_text(text)
        (self.data_dir / "log4j.properties").write_text(
            "log4j.rootLogger=INFO, file\n"
            "log4j.appender.file=org.apache.log4j.RollingFileAppender\n"
            f"log4j.appender.file.File={self.log_file}\n"
            "log4j.appender.file.MaxFileSize=20MB\n"
            "log4j.appender.file.MaxBackupIndex=2\n"
            "log4j.appender.file.layout=org.apache.log4j.PatternLayout\n"
            "log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n\n"
            "log4j.logger.kafka=INFO\n"
            "log4j.logger.org.apache.kafka=INFO\n"
            "log4j.logger.state.change.logger=WARN\n"
            "log4j.logger.kafka.request.logger=WARN\n"
        )
