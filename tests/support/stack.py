"""The private PostgreSQL and Kafka of one test session, started lazily, stopped at the end.

Servers live under ``/tmp/fleetwatch-test/<pid>-<random>/`` (world-traversable, so the ``postgres``
user can reach its data directory). A session killed hard leaves its servers behind; the next
session that needs a server stops and deletes them (their owner pid is gone).

The PostgreSQL is started by the same code as `make up`'s (fleet/services/postgres.py), so the tests log in
the way the services do: role ``fleet`` with its generated password (in the URL), SCRAM-SHA-256, and no
TCP login for the superuser (docs/security.md).
"""

from __future__ import annotations

import logging
import os
import secrets
import shutil
import time
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

from fleet.services._system import PortInUseError, pid_alive
from tests.support.ports import free_port

if TYPE_CHECKING:
    from fleet.services.kafka import KafkaServer
    from fleet.services.postgres import PostgresServer

log = logging.getLogger(__name__)

TEST_ROOT = Path("/tmp/fleetwatch-test")

# The brokers the tests start live for minutes, not months, and a broker's CPU in a test run was mostly its own
# upkeep: the client compiler alone (no C2 compilations of a JVM that never runs long enough to profit from them),
# the serial collector (no G1 threads for a heap of a few hundred MiB), and the KRaft controller's no-op record
# every 5 s rather than every 0.5 s (an idle single-node broker's main work; it shows the brokers the metadata log
# advancing while nothing changes).
# Measured with a broker started, given every topic and left idle a minute: 2.8 -> 1.7 s of CPU to start, 1.9 ->
# 0.9 s a minute idle (benchmarks/kafka_idle_bench.py; docs/performance.md "The whole suite's time: lighter test
# brokers").
# `fleet up`'s brokers keep Kafka's own defaults (fleet/services/kafka.py).
TEST_BROKER_JVM = ("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC")
TEST_BROKER_PROPERTIES = {"metadata.max.idle.interval.ms": "5000"}


def reap_stale_sessions(root: Path = TEST_ROOT) -> None:
    """Stop and delete the servers of test sessions whose process no longer exists."""
    from fleet.services.kafka import KafkaServer
    from fleet.services.postgres import PostgresServer

    if not root.is_dir():
        return
    for session_dir in root.iterdir():
        try:
            owner = int((session_dir / "owner.pid").read_text())
        except (OSError, ValueError):
            owner = 0
        if owner and pid_alive(owner):
            continue
        if not owner and _age_s(session_dir) < 600:
            continue  # being created by a live session (it renames the dir in once owner.pid exists)
        log.warning("cleaning up servers of dead test session %s", session_dir)
        if (session_dir / "kafka").is_dir():
            KafkaServer(session_dir / "kafka", 0, 0).stop(timeout_s=10)
        if (session_dir / "pg").is_dir():
            PostgresServer(session_dir / "pg", 0).stop()
        shutil.rmtree(session_dir, ignore_errors=True)


def _age_s(path: Path) -> float:
    try:
        return time.time() - path.stat().st_mtime
    except OSError:
        return 0.0


class SessionStack:
    """Servers for one pytest session; each starts on first use. `close()` stops what started."""

    def __init__(self) -> None:
        self._dir: Path | None = None
        self._pg: PostgresServer | None = None
        self._kafka: KafkaServer | None = None
        self._external_db: tuple[str, str] | None = None  # (admin url, database name) to drop
        self.timings: dict[str, float] = {}

    @property
    def dir(self) -> Path:
        if self._dir is None:
            reap_stale_sessions()
            TEST_ROOT.mkdir(parents=True, exist_ok=True)
            TEST_ROOT.chmod(0o755)
            name = f"{os.getpid()}-{secrets.token_hex(3)}"
            staging = TEST_ROOT / f".{name}"
            staging.mkdir(mode=0o755)
            staging.chmod(0o755)
            (staging / "owner.pid").write_text(f"{os.getpid()}\n")
            self._dir = staging.rename(TEST_ROOT / name)  # appears with its owner, never without
        return self._dir

    # -- PostgreSQL --------------------------------------------------------------------------

    def database_url(self) -> str:
        """URL of a migrated database: a private server, or a fresh database on FLEET_DATABASE_URL."""
        from warehouse.migrate import apply

        external = os.environ.get("FLEET_DATABASE_URL", "")
        started = time.monotonic()
        if external:
            url = self._fresh_external_database(external)
        else:
            from fleet.services.postgres import PostgresServer

            for attempt in range(3):  # a free port can be taken by a parallel run before we bind it
                if self._pg is None:
                    self._pg = PostgresServer(self.dir / "pg", free_port(), fast=True)
                try:
                    self._pg.start()
                    break
                except PortInUseError:
                    if attempt == 2:
                        raise
                    self._pg = None
            assert self._pg is not None
            url = self._pg.url
        apply(url)
        self.timings["postgres"] = time.monotonic() - started
        return url

    def _fresh_external_database(self, url: str) -> str:
        """A new empty database on the given server; the given database itself if we may not create one.

        `url` must be a URL (postgresql://...), not a key=value connection string.
        """
        import psycopg
        from psycopg import sql

        name = f"fleet_test_{os.getpid()}_{secrets.token_hex(3)}"
        try:
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        except psycopg.Error as exc:
            log.warning("cannot create a test database on FLEET_DATABASE_URL (%s); using it as is", exc)
            return url
        self._external_db = (url, name)
        return urlunsplit(urlsplit(url)._replace(path=f"/{name}"))

    # -- Kafka -------------------------------------------------------------------------------

    def kafka_bootstrap(self) -> str:
        """Bootstrap of a broker with every fleetwatch topic: private, or FLEET_KAFKA_BOOTSTRAP."""
        from fleet.kafka_admin import ensure_topics
        from fleet.settings import KafkaSettings

        started = time.monotonic()
        bootstrap = os.environ.get("FLEET_KAFKA_BOOTSTRAP", "")
        if not bootstrap:
            from fleet.services.kafka import KafkaServer

            for attempt in range(3):
                if self._kafka is None:
                    self._kafka = KafkaServer(self.dir / "kafka", free_port(), free_port(), heap="384m",
                                              jvm_extra=TEST_BROKER_JVM, properties=TEST_BROKER_PROPERTIES)
                try:
                    self._kafka.start()
                    break
                except PortInUseError:
                    if attempt == 2:
                        raise
                    self._kafka = None
            assert self._kafka is not None
            bootstrap = self._kafka.bootstrap
        ensure_topics(bootstrap, KafkaSettings().topic_partitions)
        self.timings["kafka"] = time.monotonic() - started
        return bootstrap

    # -- teardown ----------------------------------------------------------------------------

    def close(self) -> None:
        """Stop everything this session started and delete its directory. Safe to call twice."""
        if self._external_db is not None:
            import psycopg
            from psycopg import sql

            admin_url, name = self._external_db
            self._external_db = None
            try:
                with psycopg.connect(admin_url, autocommit=True) as conn:
                    conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
            except psycopg.Error as exc:
                log.warning("could not drop test database %s: %s", name, exc)
        if self._kafka is not None:
            self._kafka.stop()
            self._kafka = None
        if self._pg is not None:
            self._pg.stop()
            self._pg = None
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None
