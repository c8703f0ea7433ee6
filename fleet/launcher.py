"""`fleet up`: run the whole stack on one machine and supervise it.

Order: PostgreSQL and Kafka under ``var/`` (unless FLEET_DATABASE_URL / FLEET_KAFKA_BOOTSTRAP name
servers), topics, migrations, partitions, demo seed, the demo's generated month and its reports,
then the children of ``child_specs`` (gateway, GB gateway, attachment server, media server, streams worker, API,
JT/T 809 link service and the regulator in a box, Dagster webserver and daemon, simulator, GB simulator). A crashed child restarts with
backoff. Ctrl-C or SIGTERM stops the children in reverse order, then Kafka, then PostgreSQL.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from fleet.notebook_server import notebook_note, notebook_server_specs, server_env, write_server_config
from fleet.report_backfill import ReportBackfill
from fleet.services._system import PortInUseError, ServiceError, port_is_free
from fleet.settings import (
    ApiSettings,
    AttachmentsSettings,
    ClusterSettings,
    DatabaseSettings,
    GatewaySettings,
    Gb32960ExchangeSettings,
    GbGatewaySettings,
    KafkaSettings,
    MediaServerSettings,
    RegulatorSettings,
    ReportSettings,
    SimulatorSettings,
    StackSettings,
    StreamsSettings,
    report_dagster_home,
)
from fleet.supervisor import Child, ChildSpec, Health

if TYPE_CHECKING:  # imported lazily at run time: `fleet --help` must stay light
    from fleet.services.kafka import KafkaServer
    from fleet.services.kafka_cluster import KafkaCluster
    from fleet.services.postgres import PostgresServer

log = logging.getLogger("fleet.up")


class _Stop(Exception):
    """SIGTERM or SIGINT arrived: shut down in order."""


@dataclass
class StackState:
    database_url: str = ""
    kafka_bootstrap: str = ""
    login: str = ""
    password: str = ""
    seeded: str = ""


def child_specs(terminals: int, simulator: bool) -> list[ChildSpec]:
    """The supervised processes, in start order (stopped in reverse)."""
    python = sys.executable
    gateway, streams, api = GatewaySettings(), StreamsSettings(), ApiSettings()
    attachments = AttachmentsSettings()
    media = MediaServerSettings()
    gb = GbGatewaySettings()
    specs = [
        ChildSpec("gateway", "gateway.__main__", [python, "-m", "gateway"],
                  Health(tcp_port=gateway.port), gateway.port, "FLEET_GATEWAY_PORT"),
        # GB/T 32960 on its port, GB 17691 / HJ 1239 on emission_port: one process (gateway/gb/), healthy when
        # the 32960 port accepts (both listeners open together).
        ChildSpec("gb-gateway", "gateway.gb.__main__", [python, "-m", "gateway.gb"],
                  Health(tcp_port=gb.port), gb.port, "FLEET_GB_GATEWAY_PORT",
                  more_ports=((gb.emission_port, "FLEET_GB_GATEWAY_EMISSION_PORT"),)),
        ChildSpec("attachments", "gateway.attachments", [python, "-m", "gateway.attachments"],
                  Health(tcp_port=attachments.port), attachments.port, "FLEET_ATTACHMENTS_PORT"),
        ChildSpec("media", "gateway.video.__main__", [python, "-m", "gateway.video"],
                  Health(http_url=f"http://127.0.0.1:{media.port}/healthz"), media.port, "FLEET_MEDIA_SERVER_PORT"),
        ChildSpec("streams", "streams.__main__", [python, "-m", "streams", "worker"],
                  Health(tcp_port=streams.web_port) if streams.web_enabled else Health(),
                  streams.web_port if streams.web_enabled else None, "FLEET_STREAMS_WEB_PORT",
                  start_timeout_s=120),
        ChildSpec("api", "api.__main__", [python, "-m", "api"],
                  Health(http_url=f"http://127.0.0.1:{api.port}/api/health.json"), api.port, "FLEET_API_PORT"),
        # The JT/T 809 link service: always started, idle while no superior platform is enabled (it re-reads
        # the rows every FLEET_EXCHANGE_RELOAD_S, so one configured in the console starts without a restart).
        regulator_spec(python),
        gb32960_box_spec(python),
        ChildSpec("exchange", "exchange.link.__main__", [python, "-m", "exchange.link"]),
    ]
    specs += dagster_specs(ReportSettings())
    specs += notebook_server_specs(ReportSettings())
    if simulator and terminals > 0:
        # The simulator follows the gateway's port, so FLEET_GATEWAY_PORT alone moves both.
        specs.append(ChildSpec("simulator", "simulator.__main__",
                               [python, "-m", "simulator", "--terminals", str(terminals),
                                "--interval", str(StackSettings().simulate_interval_s),
                                "--host", "127.0.0.1", "--port", str(gateway.port),
                                "--odometers", str(simulator_odometers_file(StackSettings()))]))
    if simulator and StackSettings().simulate_gb_vehicles > 0:
        specs.append(gb_simulator_spec(python, StackSettings().simulate_gb_vehicles))
    return specs


def gb_simulator_spec(python: str, vehicles: int) -> ChildSpec:
    """The GB demo vehicles' terminals (simulator.gb32960): the electric buses and vans on the GB gateway's
    GB/T 32960 port, the diesel trucks on its GB 17691 / HJ 1239 port: they follow FLEET_GB_GATEWAY_PORT /
    _EMISSION_PORT as the 808 simulator follows the gateway's. They retry with back-off, quietly, while no
    gateway listens."""
    gb = GbGatewaySettings()
    return ChildSpec("simulator-gb", "simulator.gb32960.__main__",
                     [python, "-m", "simulator.gb32960", "--vehicles", str(vehicles), "--host", "127.0.0.1",
                      "--port", str(gb.port), "--emission-port", str(gb.emission_port),
                      "--odometers", str(simulator_odometers_file(StackSettings()))])


def regulator_spec(python: str) -> ChildSpec:
    """The regulator in a box (`fleet exchange-sim`), the seeded demo superior platform: it accepts the demo
    account (warehouse.exchange_seed), so the link service logs in and a first-time user sees the exchange."""
    from warehouse.exchange_seed import DEMO_ACCOUNT

    regulator = RegulatorSettings()
    return ChildSpec("regulator", "exchange.regulator.cli",
                     [python, "-c", "from fleet.cli import main; main()", "exchange-sim", "--account", DEMO_ACCOUNT],
                     Health(tcp_port=regulator.port), regulator.port, "FLEET_REGULATOR_PORT")


def gb32960_box_spec(python: str) -> ChildSpec:
    """The GB/T 32960 superior in a box (`fleet gb32960-exchange-sim`), the seeded demo gb32960 superior platform
    (warehouse.gb32960_exchange_seed): the link service logs in to it and relays the demo 2016 vehicles' data."""
    box = Gb32960ExchangeSettings()
    return ChildSpec("gb32960-superior", "exchange.gb32960.cli",
                     [python, "-c", "from fleet.cli import main; main()", "gb32960-exchange-sim"],
                     Health(tcp_port=box.box_port), box.box_port, "FLEET_GB32960_EXCHANGE_BOX_PORT")


def dagster_specs(reports: ReportSettings) -> list[ChildSpec]:
    """The Dagster UI and daemon (schedules, the late-data sensor, the run queue) as two services, not
    ``dagster dev`` (which ignores SIGTERM: docs/reports.md §7); both load ``orchestration.definitions``."""
    if not reports.dagster_enabled:
        return []
    bin_dir = Path(sys.executable).parent
    port = reports.dagster_port
    # Loopback only, whatever the other settings say: the Dagster UI has no sign-in, and whoever reaches it
    # can launch and wipe report runs (docs/security.md).
    return [
        ChildSpec("dagster-webserver", "dagster_webserver",
                  [str(bin_dir / "dagster-webserver"), "-h", "127.0.0.1", "-p", str(port),
                   "-m", "orchestration.definitions"],
                  Health(http_url=f"http://127.0.0.1:{port}/server_info"), port, "FLEET_REPORT_DAGSTER_PORT",
                  start_timeout_s=180),
        ChildSpec("dagster-daemon", "dagster._daemon",
                  [str(bin_dir / "dagster-daemon"), "run", "-m", "orchestration.definitions"], start_timeout_s=60),
    ]


DAGSTER_YAML = """# Written by `fleet up` (fleet/launcher.py): Dagster's instance for the reports (orchestration/).
telemetry:
  enabled: false
run_coordinator:  # one report run at a time: never both cores away from ingest
  module: dagster._core.run_coordinator
  class: QueuedRunCoordinator
  config:
    max_concurrent_runs: 1
"""


def dagster_database_url(database_url: str) -> str:
    """The Dagster storage URL beside the fleet's database: same server, database ``<name>_dagster``, and the
    ``postgresql+psycopg2`` scheme (with SQLAlchemy 2.1 a plain postgresql:// URL selects psycopg 3, with
    which dagster-postgres' event writes fail: docs/reports.md §7)."""
    from warehouse.db import libpq_url

    base, _, name = libpq_url(database_url).rpartition("/")
    name, _, query = name.partition("?")
    scheme, _, rest = base.partition("://")
    return f"postgresql+psycopg2://{rest}/{name}_dagster" + (f"?{query}" if query else "")


def ensure_dagster_database(database_url: str) -> bool:
    """Create ``<name>_dagster`` on the fleet's server when missing; False when that is not possible (no
    CREATEDB right on an external server: the caller falls back to SQLite)."""
    from psycopg import sql

    from warehouse.db import connect, libpq_url

    name = libpq_url(database_url).rpartition("/")[2].partition("?")[0] + "_dagster"
    try:
        with connect(database_url, autocommit=True) as conn:
            if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone() is None:
                conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        return True
    except Exception as exc:  # permissions, an unreachable server: Dagster still runs, on SQLite
        log.warning("Dagster database %s not available (%s); using SQLite under DAGSTER_HOME", name, exc)
        return False


def dagster_yaml(reports: ReportSettings, database_url: str = "") -> str:
    text = DAGSTER_YAML
    if reports.dagster_storage == "postgres" and database_url:
        text += f"storage:\n  postgres:\n    postgres_url: \"{dagster_database_url(database_url)}\"\n"
    return text


def prepare_dagster_home(reports: ReportSettings, database_url: str = "") -> Path:
    """``DAGSTER_HOME`` (var/dagster) with its dagster.yaml: telemetry off, one run at a time, runs and
    events in PostgreSQL (``FLEET_REPORT_DAGSTER_STORAGE=postgres``, the default, given the fleet's
    database) or SQLite under the home."""
    home = report_dagster_home(reports)
    home.mkdir(parents=True, exist_ok=True)
    if reports.dagster_storage == "postgres" and database_url and not ensure_dagster_database(database_url):
        database_url = ""
    wanted = dagster_yaml(reports, database_url)
    config = home / "dagster.yaml"
    if not config.is_file() or config.read_text() != wanted:
        config.write_text(wanted)
    config.chmod(0o600)  # its storage URL carries the database password
    return home


def _check_ports(specs: list[ChildSpec], stack: StackSettings, own_pg: bool, own_kafka: bool) -> None:
    """Fail before starting anything when a port we need is taken by someone else."""
    wanted: list[tuple[int, str]] = [(s.port, s.port_env or "") for s in specs if s.port and not s.missing_reason()]
    wanted += [more for s in specs if not s.missing_reason() for more in s.more_ports]
    if own_pg and not _own_postgres(stack).is_running():
        wanted.append((stack.postgres_port, "FLEET_STACK_POSTGRES_PORT"))
    if own_kafka and not _own_kafka(stack).is_running():
        wanted += [(stack.kafka_port, "FLEET_STACK_KAFKA_PORT"),
                   (stack.kafka_controller_port, "FLEET_STACK_KAFKA_CONTROLLER_PORT")]
    for port, env in wanted:
        if not port_is_free(port):
            raise PortInUseError(port, env)


def _own_postgres(stack: StackSettings) -> PostgresServer:
    from fleet.services.postgres import PostgresServer as Server

    return Server(stack.var_dir / "postgres", stack.postgres_port)


def _own_kafka(stack: StackSettings) -> KafkaServer:
    from fleet.services.kafka import KafkaServer as Server

    return Server(stack.var_dir / "kafka", stack.kafka_port, stack.kafka_controller_port)


def _own_kafka_cluster(stack: StackSettings) -> KafkaCluster:
    from fleet.cluster import kafka_ports
    from fleet.services.kafka_cluster import KafkaCluster as Cluster

    cluster = ClusterSettings()
    return Cluster(stack.var_dir / "kafka-cluster", kafka_ports(cluster),
                   replication_factor=cluster.replication_factor, min_insync_replicas=cluster.min_insync_replicas)


def _prepare_database(state: StackState, terminals: int) -> None:
    """Migrations, today's partitions, demo seed (each step skipped when its module is absent)."""
    from warehouse.migrate import apply

    applied = apply(state.database_url)
    _say(f"migrations: {len(applied)} applied" if applied else "migrations: up to date")
    try:
        from warehouse.partitions import ensure_gps_partitions
    except ImportError:
        ensure_gps_partitions = None  # type: ignore[assignment]
    if ensure_gps_partitions is not None:
        from warehouse.db import connect

        with connect(state.database_url) as conn:
            ensure_gps_partitions(conn, datetime.now(UTC).date())
            conn.commit()
    try:
        from warehouse.seed import seed_demo
    except ImportError:
        state.seeded = "warehouse/seed.py does not exist yet"
        return
    summary: dict[str, Any] = seed_demo(state.database_url, terminals=terminals,
                                        gb_vehicles=StackSettings().simulate_gb_vehicles)
    users = summary.get("users") or ["admin"]
    state.login, state.password = str(users[0]), str(summary.get("password", ""))
    state.seeded = f"{summary.get('terminals', terminals)} terminals"
    _seed_fences(state, int(summary["enterprises"]["a"]))
    _seed_superior_platform(state, int(summary["enterprises"]["parent"]))
    _seed_loopback_inferior(state, int(summary["enterprises"]["parent"]), int(summary["enterprises"]["b"]))
    _seed_gb32960_superior(state, int(summary["enterprises"]["parent"]))
    _seed_report_history(state)
    _seed_history(state)
    _seed_demo_events(state)
    _write_simulator_odometers(state)


def simulator_odometers_file(stack: StackSettings) -> Path:
    return stack.var_dir / "simulator-odometers.json"


def _write_simulator_odometers(state: StackState) -> None:
    """Each demo terminal's last stored odometer, for the simulator to go on from: the live odometers
    continue the seeded history's instead of starting over (warehouse.history.last_odometers)."""
    from warehouse.history import last_odometers

    path = simulator_odometers_file(StackSettings())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(last_odometers(state.database_url)), encoding="utf-8")


def _seed_fences(state: StackState, enterprise_id: int) -> None:
    """The demo fences and label points where the simulator drives (warehouse.fence_seed)."""
    from fleet.driving_model import DrivingModel
    from warehouse.db import connect
    from warehouse.fence_seed import seed_fences

    with connect(state.database_url) as conn:
        fences = seed_fences(conn, enterprise_id, DrivingModel.from_settings(SimulatorSettings()))
        conn.commit()
    state.seeded += f", {len(fences)} fences"


def _seed_superior_platform(state: StackState, enterprise_id: int) -> None:
    """The demo superior platform: the regulator in a box on loopback (warehouse.exchange_seed)."""
    from warehouse.db import connect
    from warehouse.exchange_seed import seed_superior_platform

    with connect(state.database_url) as conn:
        seed_superior_platform(conn, enterprise_id)
        conn.commit()
    state.seeded += ", a superior platform"


def _seed_gb32960_superior(state: StackState, enterprise_id: int) -> None:
    """The demo GB/T 32960 superior platform: the superior in a box on loopback (warehouse.gb32960_exchange_seed)."""
    from warehouse.db import connect
    from warehouse.gb32960_exchange_seed import demo_aes_key, seed_gb32960_superior

    with connect(state.database_url) as conn:
        seed_gb32960_superior(conn, enterprise_id, aes=demo_aes_key(StackSettings().var_dir))
        conn.commit()
    state.seeded += ", a gb32960 superior platform (AES-128)"


def _seed_loopback_inferior(state: StackState, enterprise_id: int, exchanged_enterprise_id: int) -> None:
    """The demo inferior platform: fleetwatch's link service logging in to its own superior service on the
    loopback with one subsidiary's vehicles (warehouse.exchange_seed), so the superior side's screens have data."""
    from warehouse.db import connect
    from warehouse.exchange_seed import seed_loopback_inferior

    with connect(state.database_url) as conn:
        seed_loopback_inferior(conn, enterprise_id, exchanged_enterprise_id)
        conn.commit()
    state.seeded += ", an inferior platform (loopback)"


def _seed_demo_events(state: StackState) -> None:
    """Yesterday's live sessions and last night's traffic-control (night driving) alarms at fixes of the
    generated history, so the live log and the traffic-control alarm list have rows (warehouse.demo_events_seed)."""
    from warehouse.db import connect
    from warehouse.demo_events_seed import seed_live_sessions, seed_night_alarms

    with connect(state.database_url) as conn:
        now = datetime.now(UTC)
        sessions, alarms = seed_live_sessions(conn, now), seed_night_alarms(conn, now)
        conn.commit()
    if sessions or alarms:
        state.seeded += f", {sessions} live sessions, {alarms} night driving alarms"


def _seed_history(state: StackState) -> None:
    """Generated track history for demo vehicles that have none yet (warehouse.history, COPY)."""
    stack = StackSettings()
    if stack.seed_history_days <= 0:
        return
    from warehouse.history import seed_history

    started = time.monotonic()
    rows = seed_history(state.database_url, stack.seed_history_days, stack.seed_history_interval_s)
    if rows:
        _say(f"history: {rows} positions over the last {stack.seed_history_days:g} days in {time.monotonic() - started:.0f} s")
        state.seeded += f", {stack.seed_history_days:g} days of history"


def _seed_report_history(state: StackState) -> None:
    """A month of generated history (positions, alarms, state and online logs) for the demo vehicles without
    one, before the recent days of ``_seed_history`` (warehouse.history.seed_report_history)."""
    reports, stack = ReportSettings(), StackSettings()
    if reports.history_days <= 0:
        return
    from warehouse.history import seed_report_history

    started = time.monotonic()
    rows = seed_report_history(state.database_url, reports.history_days, reports.history_interval_s,
                               recent_days=stack.seed_history_days)
    if rows["gps"]:
        _say(f"report history: {rows['gps']} positions, {rows['alarm']} alarms, {rows['biz_state_log']} state"
             f" changes over {reports.history_days} days in {time.monotonic() - started:.0f} s")


def settle_report_start(database_url: str) -> str:
    """FLEET_REPORT_START_DATE for this process and its children, unless configured: the fleet's first day
    of data (orchestration.backfill.first_report_day), so Dagster lists no partition before any data as
    missing."""
    if os.environ.get("FLEET_REPORT_START_DATE"):
        return os.environ["FLEET_REPORT_START_DATE"]
    from orchestration.build import ReportsEnv

    reports = ReportSettings()
    try:
        from orchestration.backfill import first_report_day

        first = first_report_day(database_url, reports, ReportsEnv.from_settings(database_url, reports).today())
    except Exception as exc:  # no report tables yet: keep the configured start
        _say(f"report start not settled: {type(exc).__name__}: {exc}")
        return reports.start_date
    os.environ["FLEET_REPORT_START_DATE"] = first.isoformat()
    return first.isoformat()


def start_report_backfill(state: StackState) -> ReportBackfill | None:
    """The report build (fleet.report_backfill) in its own process: the console, API and Dagster start
    meanwhile (the first start's month of reports takes ~40 s on this machine, docs/performance.md)."""
    reports = ReportSettings()
    if reports.history_days <= 0 or not state.database_url:
        return None
    os.environ["DAGSTER_HOME"] = str(report_dagster_home(reports))  # the runs are recorded there
    backfill = ReportBackfill(state.database_url)
    state.seeded += ", reports building"
    return backfill


def _child_env(state: StackState) -> dict[str, str]:
    from warehouse.gb32960_exchange_seed import demo_box_aes

    # the console's CSP allows the media server's port: the one it really listens on
    media = {"FLEET_API_MEDIA_PORT": str(MediaServerSettings().port)} if "FLEET_API_MEDIA_PORT" not in os.environ else {}
    # the superior in a box decrypts the demo link with the key the seed gave its row (warehouse/gb32960_exchange_seed.py)
    box_aes = "FLEET_GB32960_EXCHANGE_BOX_AES"
    box = {} if box_aes in os.environ else {box_aes: demo_box_aes(StackSettings().var_dir)}
    return {**os.environ, **media, **box, "FLEET_DATABASE_URL": state.database_url,
            "FLEET_KAFKA_BOOTSTRAP": state.kafka_bootstrap, "PYTHONUNBUFFERED": "1",
            "DAGSTER_HOME": str(report_dagster_home(ReportSettings())), **server_env()}


def dagster_note(port: int) -> str:
    """The status table's Dagster line: the UI has no sign-in of its own, so it listens on loopback only."""
    return (f"dagster: http://127.0.0.1:{port}/  (127.0.0.1 only: it has no sign-in; from another machine use"
            f" `ssh -L {port}:127.0.0.1:{port}` to this host, docs/security.md)")


def redacted_url(url: str) -> str:
    """`url` with its password replaced by ``***`` (for the status table and logs)."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{parts.username}:***@{host}"))


def _status_table(children: list[Child], state: StackState, servers: list[tuple[str, str, str]]) -> str:
    from tabulate import tabulate

    rows: list[list[str | int]] = [[name, status, where, ""] for name, status, where in servers]
    for child in children:
        status = f"missing: {child.missing}" if child.missing else child.state
        rows.append([child.spec.name, status, child.spec.health.describe(), child.pid or ""])
    table = tabulate(rows, headers=["component", "status", "endpoint", "pid"], tablefmt="simple")
    api = ApiSettings()
    console = f"console: http://127.0.0.1:{api.port}/"
    if not (api.console_dir / "index.html").is_file():
        console += f"  (not built: {api.console_dir} has no index.html; `make up` builds it)"
    lines = [table, "", console]
    if state.login:
        lines.append(f"login:   {state.login} / {state.password}")
    reports = ReportSettings()
    if reports.dagster_enabled:
        lines.append(dagster_note(reports.dagster_port))
    if reports.notebook_server_enabled:
        lines.append(notebook_note(reports.notebook_server_port))
    lines.append(f"logs:    {StackSettings().var_dir / 'log'}/<component>.log")
    return "\n".join(lines)


def not_healthy(children: list[Child]) -> list[str]:
    """`fleet up --check`'s verdict: the children that failed their health check, then those whose program is
    missing; the check passes only when this is empty."""
    failed = [c.spec.name for c in children if not c.missing and c.state != "healthy"]
    return failed + [c.spec.name for c in children if c.missing]


def _say(message: str) -> None:
    click.echo(f"[fleet up] {message}", err=True)


def _raise_stop(signum: int, _frame: object) -> None:
    raise _Stop(signal.Signals(signum).name)


def _start_summariser(url: str) -> Any:
    """The track day summaries of closed days: the missing ones now, then daily (warehouse.track_days)."""
    try:
        from warehouse.track_days import DailySummariser
    except ImportError:
        return None
    summariser = DailySummariser(url)
    summariser.start()
    return summariser


def run(terminals: int, simulator: bool, check: bool, topology: str = "single") -> int:
    """Start, print the table, supervise until a signal (or return at once with `check`). `topology`
    ``cluster`` runs docker/compose.yaml's topology as processes (fleet/cluster.py)."""
    stack = StackSettings()
    own_pg = not DatabaseSettings().url
    own_kafka = not KafkaSettings().bootstrap
    clustered = topology == "cluster"
    if clustered:
        from fleet.cluster import apply_compose_settings

        for key, value in apply_compose_settings().items():
            _say(f"cluster: {key}={value} (as docker/compose.yaml)")
    try:
        specs = child_specs(terminals, simulator)
        if clustered:
            from fleet.cluster import cluster_specs, haproxy_binary, write_haproxy_config

            haproxy_binary()  # installed, or a ServiceError naming the package
            specs = cluster_specs(specs, stack.var_dir)
            write_haproxy_config(stack.var_dir)
    except ServiceError as exc:
        _say(f"error: {exc}")
        return 1
    log_dir = stack.var_dir / "log"
    state = StackState()
    pg: PostgresServer | None = None
    kafka: KafkaServer | KafkaCluster | None = None
    children: list[Child] = []
    summariser: Any = None
    backfill: ReportBackfill | None = None
    previous = {sig: signal.signal(sig, _raise_stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        _check_ports(specs, stack, own_pg, own_kafka and not clustered)
        servers: list[tuple[str, str, str]] = []
        if own_pg:
            pg = _own_postgres(stack)
            _say(f"starting PostgreSQL in {pg.data_dir}")
            pg.start()
            state.database_url = pg.url
        else:
            from fleet.settings import database_url

            state.database_url = database_url()
        servers.append(("postgresql", "running" if own_pg else "external", redacted_url(state.database_url)))
        if own_kafka:
            kafka = _own_kafka_cluster(stack) if clustered else _own_kafka(stack)
            _say(f"starting Kafka in {kafka.data_dir}")
            t0 = time.monotonic()
            kafka.start()
            _say(f"Kafka ready in {time.monotonic() - t0:.1f}s")
            state.kafka_bootstrap = kafka.bootstrap
        else:
            state.kafka_bootstrap = KafkaSettings().bootstrap
        from fleet.kafka_admin import ensure_topics

        if clustered:
            cluster = ClusterSettings()
            ensure_topics(state.kafka_bootstrap, KafkaSettings().topic_partitions,
                          replication_factor=cluster.replication_factor,
                          configs={"min.insync.replicas": str(cluster.min_insync_replicas)})
        else:
            ensure_topics(state.kafka_bootstrap, KafkaSettings().topic_partitions)
        servers.append(("kafka", "running" if own_kafka else "external", state.kafka_bootstrap))
        _prepare_database(state, terminals)
        settle_report_start(state.database_url)
        prepare_dagster_home(ReportSettings(), state.database_url)
        if ReportSettings().notebook_server_enabled:
            write_server_config()
        backfill = start_report_backfill(state)
        servers.append(("seed", "done" if state.login else "skipped", state.seeded))
        summariser = _start_summariser(state.database_url)

        env = _child_env(state)
        children = [Child(spec, log_dir, env) for spec in specs]
        for child in children:
            if child.missing:
                continue
            _say(f"starting {child.spec.name}")
            child.start()
            if not child.wait_healthy():
                _say(f"{child.spec.name} is {child.state}; see {child.log_file}")
        if check and backfill is not None:
            backfill.join()  # --check reports the whole first start
        click.echo(_status_table(children, state, servers))
        if check:
            unhealthy = not_healthy(children)
            if unhealthy:
                _say(f"not healthy: {', '.join(unhealthy)}")
                return 1
            return 0
        _supervise(children, state.database_url)
        return 0
    except PortInUseError as exc:
        _say(str(exc))
        return 2
    except (_Stop, KeyboardInterrupt):
        _say("stopping")
        return 0
    except ServiceError as exc:
        _say(f"error: {exc}")
        return 1
    finally:
        for sig in previous:
            signal.signal(sig, signal.SIG_IGN)  # a second Ctrl-C must not leave orphans behind
        if backfill is not None:
            backfill.stop()
        for child in reversed(children):
            child.stop()
        if summariser is not None:
            summariser.stop()
        if kafka is not None:
            kafka.stop()
        if pg is not None:
            pg.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _supervise(children: list[Child], database_url: str = "") -> None:
    """Restart crashed children with backoff, forever (until _Stop); run the retention periodically."""
    retention_at = time.monotonic()
    while True:
        time.sleep(0.5)
        if database_url and time.monotonic() >= retention_at:
            retention_at = time.monotonic() + DatabaseSettings().retention_interval_s
            _retention(database_url)
        for child in children:
            code = child.poll_crash()
            if code is not None:
                _say(f"{child.spec.name} exited with {code}; restarting in "
                     f"{max(0.0, child.next_restart_at - time.monotonic()):.0f}s (log: {child.log_file})")
            if child.restart_due():
                child.restarts += 1
                child.start()


def _retention(database_url: str) -> None:
    """Old gps / message_log partitions dropped (warehouse.retention); a failure is said, not fatal."""
    try:
        from warehouse.retention import run_retention

        for table, names in run_retention(database_url).items():
            if names:
                _say(f"retention: dropped {len(names)} {table} partition(s)")
    except Exception as exc:
        _say(f"retention failed: {exc}")


@click.command("up")
@click.option("--terminals", type=int, default=None, help="simulated terminals (default FLEET_STACK_SIMULATE_TERMINALS)")
@click.option("--no-simulator", is_flag=True, help="do not run the simulator")
@click.option("--check", is_flag=True, help="start everything, print the status table, stop; exit 1 if unhealthy")
@click.option("--topology", type=click.Choice(["single", "cluster"]), default="single", show_default=True,
              help="cluster: three Kafka brokers, gateways and APIs behind HAProxy, several workers (docs/scaling.md)")
def up_command(terminals: int | None, no_simulator: bool, check: bool, topology: str) -> None:
    """Run PostgreSQL, Kafka, gateway, streams worker, API and simulator; Ctrl-C stops them all."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("kafka").setLevel(logging.ERROR)  # kafka-python is chatty while a broker starts
    count = StackSettings().simulate_terminals if terminals is None else terminals
    sys.exit(run(count, simulator=not no_simulator, check=check, topology=topology))
