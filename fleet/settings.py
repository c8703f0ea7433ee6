"""Typed settings, one object per service, read when a service is built (never at import).

Every key derives its environment variable mechanically: ``GatewaySettings.idle_timeout_s`` is
``FLEET_GATEWAY_IDLE_TIMEOUT_S``. Shared connection settings have short names
(``FLEET_DATABASE_URL``, ``FLEET_KAFKA_BOOTSTRAP``). ``docs/configuration.md`` lists them all.
"""

from __future__ import annotations

import ipaddress
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

REPO_ROOT = Path(__file__).resolve().parent.parent


class _Base(BaseSettings):
    model_config = SettingsConfigDict(extra="ignore", frozen=True)


class StackSettings(_Base):
    """Where the local stack lives and which private ports its own servers use."""

    model_config = SettingsConfigDict(env_prefix="FLEET_STACK_", extra="ignore", frozen=True)

    var_dir: Path = Field(REPO_ROOT / "var", description="state of locally started servers, logs under log/")
    postgres_port: int = Field(55432, description="port of the PostgreSQL that `fleet up` starts")
    kafka_port: int = Field(59092, description="broker port of the Kafka that `fleet up` starts")
    kafka_controller_port: int = Field(59093, description="KRaft controller port of that Kafka")
    simulate_terminals: int = Field(200, description="simulated terminals `fleet up` runs (0: none)")
    simulate_interval_s: float = Field(5.0, description="report interval of each simulated terminal")
    simulate_gb_vehicles: int = Field(10, ge=0, le=10, description="GB demo vehicles `fleet up` seeds and simulates (first 6 new-energy over GB/T 32960, one of them a fuel-cell bus, then 4 diesel over GB 17691 / HJ 1239; 0: none)")
    seed_history_days: float = Field(3.0, ge=0, description="days of generated track history `fleet up` gives each demo vehicle without any (0: none)")
    seed_history_interval_s: float = Field(60.0, gt=0, description="fix interval of that generated history")


class ClusterSettings(_Base):
    """`fleet up --topology cluster` (fleet/cluster.py): the topology of docker/compose.yaml as processes on
    this machine, on loopback ports of their own; HAProxy takes the single-box ports (FLEET_GATEWAY_PORT,
    FLEET_API_PORT)."""

    model_config = SettingsConfigDict(env_prefix="FLEET_CLUSTER_", extra="ignore", frozen=True)

    kafka_brokers: int = Field(3, ge=3, description="Kafka nodes (KRaft broker and controller each); node i listens on kafka_base_port + 10 i, its controller one above")
    kafka_base_port: int = Field(59100, ge=1024, le=65000, description="see kafka_brokers")
    replication_factor: int = Field(3, ge=1, description="replicas of every topic (docker/compose.yaml kafka-init REPLICATION_FACTOR)")
    min_insync_replicas: int = Field(2, ge=1, description="replicas an acks=all write needs (docker/compose.yaml kafka-init MIN_INSYNC_REPLICAS)")
    gateways: int = Field(2, ge=1, description="JT/T 808 gateways behind HAProxy; gateway i listens on 127.0.0.1:gateway_base_port + i")
    gateway_base_port: int = Field(7630, ge=1024, description="see gateways")
    workers: int = Field(3, ge=1, description="stream workers in one consumer group; worker i's Faust web port is FLEET_STREAMS_WEB_PORT + i")
    apis: int = Field(2, ge=1, description="API processes behind HAProxy; API i listens on 127.0.0.1:api_base_port + i")
    api_base_port: int = Field(8090, ge=1024, description="see apis")
    attachment_servers: int = Field(2, ge=1, description="attachment servers behind HAProxy; server i listens on 127.0.0.1:attachment_base_port + i")
    attachment_base_port: int = Field(7700, ge=1024, description="see attachment_servers (above the media server's one-time ports 7620-7699)")
    haproxy_stats_port: int = Field(8404, description="HAProxy's statistics page (127.0.0.1 only)")


class DatabaseSettings(_Base):
    model_config = SettingsConfigDict(env_prefix="FLEET_DATABASE_", extra="ignore", frozen=True)

    url: str = Field("", description="libpq URL; empty: the stack's own server under var/")
    pool_max: int = Field(10, description="connections per process pool")
    gps_retention_days: int = Field(180, ge=0, description="days of positions kept: older daily gps partitions are dropped by `fleet retention` and `fleet up` (0: keep all)")
    message_log_retention_days: int = Field(30, ge=0, description="days of the message log (every frame, raw and decoded) kept: older daily partitions are dropped by `fleet retention` and `fleet up` (0: keep all)")
    retention_interval_s: float = Field(3600.0, gt=0, description="how often `fleet up`'s supervisor runs the retention (gps and message log partitions)")


class KafkaSettings(_Base):
    model_config = SettingsConfigDict(env_prefix="FLEET_KAFKA_", extra="ignore", frozen=True)

    bootstrap: str = Field("", description="host:port list; empty: the stack's own broker under var/")
    topic_partitions: int = Field(4, description="partitions for topics fleetwatch creates")
    security_protocol: Literal["PLAINTEXT", "SASL_PLAINTEXT", "SASL_SSL"] = Field("PLAINTEXT", description="how every fleetwatch Kafka client talks to the brokers: PLAINTEXT (the stack's own broker, 127.0.0.1 only) or SASL over the cluster's listeners (docs/security.md)")
    sasl_mechanism: Literal["SCRAM-SHA-512", "SCRAM-SHA-256", "PLAIN"] = Field("SCRAM-SHA-512", description="SASL mechanism when security_protocol is SASL_*")
    sasl_username: str = Field("", description="SASL user of the fleetwatch services (required with SASL_*)")
    sasl_password: str = Field("", description="its password (required with SASL_*; keep it in the environment, e.g. docker/.env)")
    ssl_cafile: str = Field("", description="CA bundle the brokers' certificates are checked against with SASL_SSL; empty: the system's")
    compression: Literal["zstd", "gzip", "none"] = Field("zstd", description="compression of the record batches the gateways write (uplinks, sessions, attachments): zstd keeps a JT/T 808 position in ~1/9 of its JSON and a 96-cell GB/T 32960 frame in ~1/6, for about the CPU it saves the brokers (docs/performance.md); gzip only for readers without zstd (it costs the gateway ~20 times zstd's CPU); none: uncompressed. Every fleetwatch client reads all three")

    @model_validator(mode="after")
    def _sasl_needs_credentials(self) -> KafkaSettings:
        # a missing secret fails at start, naming the variable (house style 5)
        if self.security_protocol.startswith("SASL_"):
            for name in ("sasl_username", "sasl_password"):
                if not getattr(self, name):
                    raise ValueError(f"FLEET_KAFKA_{name.upper()} must be set when FLEET_KAFKA_SECURITY_PROTOCOL"
                                     f" is {self.security_protocol}")
        return self


class ProtocolSettings(_Base):
    """The codec's choices that every process decoding terminal frames shares (gateway, attachment
    server, ``fleet redecode``)."""

    model_config = SettingsConfigDict(env_prefix="FLEET_PROTOCOL_", extra="ignore", frozen=True)

    variant: str = Field("jiangsu2017", description="regional layout of the active-safety items and attachment messages the terminals speak: jiangsu2017 (T/JSATL12-2017, most terminals) or guangdong2019")


def apply_protocol_variant(settings: ProtocolSettings | None = None) -> str:
    """Make the configured variant the codec's; at a service's start. Raises SystemExit naming
    FLEET_PROTOCOL_VARIANT for an unknown name."""
    from protocols.jt808.variants import use_variant, variant_names

    name = (settings or ProtocolSettings()).variant
    try:
        use_variant(name)
    except KeyError:
        raise SystemExit(f"FLEET_PROTOCOL_VARIANT={name!r} is not a known variant; known: {', '.join(variant_names())}") from None
    return name


class GatewaySettings(_Base):
    model_config = SettingsConfigDict(env_prefix="FLEET_GATEWAY_", extra="ignore", frozen=True)

    host: str = Field("0.0.0.0", description="address the JT/T 808 server binds")
    port: int = Field(7611, description="JT/T 808 TCP port")
    listen_backlog: int = Field(65535, ge=1, description="connections the kernel holds accepted for the gateway to take (the kernel caps it at net.core.somaxconn): a restart's reconnect storm arrives faster than one process accepts, and a connect past a full queue is dropped and dialled again only after TCP's doubling timers (1, 3, 7, 15, 31, 63 s)")
    gateway_id: str = Field("gw-1", description="identifies this gateway process in uplinks and sessions")
    heartbeat_interval_s: float = Field(60.0, description="terminal heartbeat interval we expect")
    idle_timeout_s: float = Field(0.0, description="close silent connections after this; 0: 3 x heartbeat")
    max_frame_bytes: int = Field(4096, description="frames longer than this (escaped) are rejected")
    auto_register: bool = Field(False, description="put unknown terminals into the 'unassigned' pool")
    produce_buffer: int = Field(10000, description="uplinks awaiting a Kafka ack before reads pause")
    gc_threshold: int = Field(50_000, ge=0, description="allocations between young garbage collections (see FLEET_STREAMS_GC_THRESHOLD); 0: Python's default")
    event_loop: Literal["uvloop", "asyncio"] = Field("uvloop", description="event loop of python -m gateway (asyncio: the standard library's, to compare)")
    linger_ms: int = Field(0, description="Kafka producer linger; uplinks are already grouped (batch_window_ms)")
    batch_window_ms: float = Field(20.0, ge=0, description="uplinks received within this window go to Kafka as one record per partition (0: what one event-loop turn read)")
    batch_max_bytes: int = Field(512 * 1024, ge=1024, description="largest uplink batch record (JSON bytes); the broker's limit is 1 MiB")
    subpackage_timeout_s: float = Field(30.0, description="drop incomplete sub-packaged messages after")
    subpackage_max_bytes: int = Field(128 * 1024 * 1024, description="memory bound for reassembly buffers, all connections (100 terminals uploading a 1 MB photo at once fit)")
    subpackage_connection_max_bytes: int = Field(
        4 * 1024 * 1024, description="one connection's share of the reassembly memory (a 0x0801 keeps bodies only: a 4 MB file fits); beyond it its own oldest message is dropped")
    subpackage_resend_after_s: float = Field(5.0, description="ask again (0x8003) for missing packages after this silence")
    unassigned_enterprise_id: int = Field(0, description="enterprise of auto-registered devices; 0: the first root enterprise")
    connection_in_flight_max: int = Field(256, description="uplinks of one terminal awaiting Kafka before its reads pause")
    max_frames_per_s: int = Field(200, description="frames one connection may send per second before its reads pause")
    write_buffer_bytes: int = Field(64 * 1024, description="unsent bytes to one terminal before it counts as not reading and is dropped")
    db_timeout_s: float = Field(5.0, description="longest wait for a registration or authentication lookup")
    lookup_linger_ms: float = Field(5.0, ge=0, description="device lookups of logins start a query at most once per this interval; those arriving sooner go together in the next (gateway/lookup_batch.py); 0: each goes as soon as a connection is free")
    status_interval_s: float = Field(60.0, description="interval of the counters log line")
    unauthenticated_max: int = Field(10000, description="connections not yet authenticated, shared by source address (IPv4 address, IPv6 /64): when full, a host holding fewer displaces the oldest of the host holding most; else the newcomer is closed at accept")
    auth_free_failures: int = Field(3, ge=0, description="wrong auth codes (per connection and per phone) before 0x0102 attempts back off")
    auth_backoff_base_s: float = Field(1.0, gt=0, description="wait before the next 0x0102 is checked after the first failure past auth_free_failures; doubles per failure")
    auth_backoff_max_s: float = Field(16.0, gt=0, description="longest wait before a 0x0102 is checked (keep it well under auth_deadline_s)")
    unknown_refusals_buffer_max: int = Field(1000, ge=1, description="phones of refused unknown terminals kept between two writes of refused_registration (more are counted, not kept)")
    unknown_refusals_flush_s: float = Field(2.0, gt=0, description="how often refused registrations of unknown phones are written to refused_registration")
    unknown_refusals_max_rows: int = Field(10_000, ge=1, description="phones kept in refused_registration (the least recently seen are deleted)")
    auth_backoff_phones_max: int = Field(100_000, ge=1, description="phones whose wrong codes are remembered (the oldest are forgotten first)")
    auth_deadline_s: float = Field(30.0, description="close a connection not authenticated this long after accept")
    proxy_protocol: bool = Field(False, description="every connection starts with a PROXY protocol v1/v2 header (HAProxy send-proxy): its source address is the terminal's for the per-address caps and logs; a connection without a valid one is closed. Only behind a balancer that sends it")
    hostile_log_per_connection: int = Field(10, description="bad inputs logged per connection (then one summary at close)")
    hostile_log_per_s: float = Field(20.0, description="bad-input log lines per second across all connections")
    hostile_log_burst: int = Field(100, description="bad-input log lines allowed at once before the per-second rate applies")
    hostile_log_hex_bytes: int = Field(64, description="bytes of a bad frame shown as hex in the log")
    downlink_in_flight: int = Field(1, ge=1, description="downlinks to one terminal awaiting their reply at once; others queue")
    downlink_queue_max: int = Field(16, ge=0, description="downlinks queued per terminal behind the awaited one; more fail (queue_full)")
    downlink_reply_wait_s: float = Field(10.0, gt=0, description="longest wait for a downlink's reply before the next queued one is written")
    sent_record_buffer: int = Field(10000, ge=1, description="jt808.sent.v1 records awaiting Kafka; more are dropped (counted), uplinks never are")


class GbGatewaySettings(_Base):
    """The GB/T 32960 (new-energy) and GB 17691 / HJ 1239 (emissions) terminal gateway (gateway/gb/,
    ``python -m gateway.gb``): the JT/T 808 gateway's guarantees, one process for both ports."""

    model_config = SettingsConfigDict(env_prefix="FLEET_GB_GATEWAY_", extra="ignore", frozen=True)

    host: str = Field("0.0.0.0", description="address the GB gateway binds (both ports)")
    port: int = Field(7617, ge=0, le=65535, description="GB/T 32960 TCP port (## 2016 and $$ 2025 frames; 0: any free one, for tests)")
    emission_port: int = Field(7618, ge=0, le=65535, description="GB 17691 / HJ 1239 TCP port (## frames read as the GB 17691 family; 0: any free one, for tests)")
    gateway_id: str = Field("gb-1", description="identifies this GB gateway process in uplinks and sessions")
    listen_backlog: int = Field(65535, ge=1, description="connections the kernel holds accepted for the gateway to take on each port, as on the JT/T 808 gateway (capped at net.core.somaxconn)")
    idle_timeout_s: float = Field(180.0, gt=0, description="close a connection silent this long (terminals send a heartbeat or data well within it)")
    login_deadline_s: float = Field(30.0, gt=0, description="close a connection without a successful vehicle login this long after accept")
    takeover_silence_s: float = Field(90.0, gt=0, description="a login of a VIN another connection holds is answered VIN duplicate (0x03) unless that connection has been silent this long (a terminal reconnecting after a dead link), which then closes")
    max_frame_bytes: int = Field(8192, ge=64, description="longest frame accepted (a 96-cell real-time frame is ~350 bytes); a header announcing more is a framing error")
    max_relayed_vehicles: int = Field(100_000, ge=1, description="vehicles a GB/T 32960 inferior platform's connection keeps looked up (VIN -> vehicle); past this the cache starts again")
    inferior_link_flush_s: float = Field(5.0, gt=0, description="how often the link state of GB/T 32960 inferior platforms (online / offline, frames, vehicles, last error) and their logged login / logout frames are written (one write, never per frame; migration 0062)")
    inferior_log_buffer: int = Field(1000, ge=1, description="inferior platforms' logged frames (login, logout, refusals) awaiting a write; more are counted dropped")
    produce_buffer: int = Field(10000, ge=1, description="frames awaiting a Kafka ack before every connection's reads pause")
    connection_in_flight_max: int = Field(256, ge=1, description="frames of one terminal awaiting Kafka before its reads pause")
    max_frames_per_s: int = Field(200, ge=1, description="frames one connection may send per second before its reads pause")
    write_buffer_bytes: int = Field(64 * 1024, ge=1024, description="unsent bytes to one terminal before it counts as not reading and is dropped")
    unauthenticated_max: int = Field(10000, ge=1, description="connections without a vehicle login, shared by source address as on the JT/T 808 gateway (gateway/admission.py)")
    db_timeout_s: float = Field(5.0, gt=0, description="longest wait for a VIN lookup; past it the login is answered error (0x02)")
    lookup_linger_ms: float = Field(5.0, ge=0, description="VIN lookups of logins start a query at most once per this interval, as on the JT/T 808 gateway (gateway/lookup_batch.py)")
    linger_ms: int = Field(0, ge=0, description="Kafka producer linger; frames are already grouped (batch_window_ms)")
    batch_window_ms: float = Field(20.0, ge=0, description="frames received within this window go to Kafka as one record per partition")
    batch_max_bytes: int = Field(512 * 1024, ge=1024, description="largest batch record (JSON bytes)")
    status_interval_s: float = Field(60.0, gt=0, description="interval of the counters log line")
    hostile_log_per_connection: int = Field(10, ge=0, description="bad inputs logged per connection (then one summary at close)")
    hostile_log_per_s: float = Field(20.0, gt=0, description="bad-input log lines per second across all connections")
    hostile_log_burst: int = Field(100, ge=1, description="bad-input log lines allowed at once before the per-second rate applies")
    hostile_log_hex_bytes: int = Field(64, ge=0, description="bytes of a bad frame shown as hex in the log")
    downlink_queue_max: int = Field(16, ge=0, description="platform commands (0x80 / 0x81 / 0x82) queued per vehicle behind the one awaiting its answer; more fail (queue_full)")
    downlink_reply_wait_s: float = Field(10.0, gt=0, description="longest wait for a vehicle's answer to a platform command before the next queued one is written")
    sent_record_buffer: int = Field(10000, ge=1, description="jt808.sent.v1 records of platform commands awaiting Kafka; more are dropped (counted)")


class StreamsSettings(_Base):
    model_config = SettingsConfigDict(env_prefix="FLEET_STREAMS_", extra="ignore", frozen=True)

    app_id: str = Field("fleet-streams", description="Faust app id (consumer group)")
    data_dir: Path = Field(REPO_ROOT / "var" / "faust", description="Faust local state")
    web_port: int = Field(6066, description="Faust web port (health)")
    auto_offset_reset: Literal["earliest", "latest"] = Field(
        "earliest", description="where a new consumer group starts: earliest processes all retained uplinks")
    batch_size: int = Field(500, description="uplinks per database write (a take is split into writes of this many)")
    batch_records: int = Field(500, ge=1, description="Kafka records per take (a gateway's record holds a batch of uplinks)")
    batch_window_s: float = Field(0.05, description="longest wait to fill a take when the worker is busy, i.e. records arrived while it processed the last one (commit lag p50 60 ms at 5,000/s; 0.2 s made it 172 ms for the same CPU, docs/performance.md)")
    batch_idle_s: float = Field(0.005, ge=0, description="an idle worker's take (nothing arrived while it processed the last one) goes this long after its first record instead of waiting batch_window_s (streams/take.py)")
    max_future_s: float = Field(600.0, gt=0, description="a fix dated more than this after its receipt is stored flagged implausible (quality bit 2: not on the live map, not in the track, mileage or qualified data)")
    max_past_h: float = Field(720.0, gt=0, description="a fix dated more than this before its receipt is stored flagged implausible (quality bit 1; a clock writing the century as the year dates fixes 2020; backlogs younger than this are normal)")
    max_implied_speed_kmh: float = Field(250.0, gt=0, description="a fix this far from the device's last plausible fix faster than this (distance / time) is stored flagged as a teleport (quality bit 4)")
    teleport_min_km: float = Field(1.0, ge=0, description="a jump shorter than this from the last plausible fix is never a teleport (GPS noise between fixes a second apart)")
    max_speed_kmh: float = Field(250.0, description="positions whose reported speed is faster than this are rejected")
    no_signal_after_s: float = Field(600.0, description="online but no position for this long: no signal")
    live_coalesce_ms: int = Field(25, ge=0, description="live positions to the console: at most one message per enterprise per window; the first fixes after a quiet window go at once (streams/live.py)")
    driving_min_speed_kmh: float = Field(5.0, description="ACC on and faster than this: driving, else parked")
    web_enabled: bool = Field(True, description="run Faust's web server (health, stats) on web_port")
    retry_max_backoff_s: float = Field(10.0, description="longest wait between database retries (outage)")
    message_log_enabled: bool = Field(True, description="keep every uplink in message_log (raw and decoded; off only to measure its cost)")
    alarms_enabled: bool = Field(True, description="run the alarms step (alarm rows, pushes 2 / 13, 0x9208; off only to measure its cost)")
    fences_enabled: bool = Field(True, description="run the fence step (platform fences and the terminal's area items -> type-4 alarms, push 2, 0x8300 TTS to the driver; off only to measure its cost)")
    fences_reload_s: float = Field(5.0, gt=0, description="how often the fence step looks whether fences or their bindings changed (one count / max query) and rebuilds its check if so")
    session_timeout_s: float = Field(10.0, description="Kafka group session timeout: how soon a crashed worker's partitions move")
    fence_sync_interval_s: float = Field(1.0, gt=0, description="how often terminal fences are reconciled with the terminals (bindings, edits and authentications reach them within this)")
    gc_threshold: int = Field(50_000, ge=0, description="allocations between young garbage collections (Python's default 700 made the collector ~a quarter of the worker's CPU per position); 0: Python's default")
    log_level: str = Field("warning", description="worker log level (debug, info, warning, error)")
    log_file: str = Field("", description="worker log file; empty: stderr")


class CommandsSettings(_Base):
    """Commands to terminals (api/commands.py, streams/commands.py)."""

    model_config = SettingsConfigDict(env_prefix="FLEET_COMMANDS_", extra="ignore", frozen=True)

    timeout_s: float = Field(30.0, gt=0, description="a command created or sent and not answered for this long: timed out (push 11)")
    sweep_interval_s: float = Field(2.0, gt=0, description="how often the streams worker looks for timed-out commands")
    kafka_send_timeout_s: float = Field(5.0, gt=0, description="the API's wait for Kafka to take a downlink; longer: 503 and the command failed")


class StopSettings(_Base):
    """Stop and idling detection over a track (``fleet.stops``): parking and idling logs, replay."""

    model_config = SettingsConfigDict(env_prefix="FLEET_STOPS_", extra="ignore", frozen=True)

    park_speed_kmh: float = Field(5.0, gt=0, description="below this speed a point counts as stopped (as streams' driving_min_speed_kmh)")
    park_min_s: float = Field(180.0, ge=0, description="stopped at least this long: a parking stop (a red light is shorter)")
    idle_min_s: float = Field(60.0, ge=0, description="stopped with ACC on at least this long: idling")
    radius_m: float = Field(50.0, ge=0, description="points this close to where a stop began stay in it whatever their speed (GPS jitter); a stopped point farther away starts a new stop")


class TrackDaySettings(_Base):
    """Per-device day summaries of closed UTC days (``warehouse.track_days``): long track and stop-log reads."""

    model_config = SettingsConfigDict(env_prefix="FLEET_TRACK_DAY_", extra="ignore", frozen=True)

    resolution_s: int = Field(60, ge=1, description="a summary keeps the first fix of every such time bucket (plus every alarm fix and whatever stop detection needs)")
    lookback_s: int = Field(21600, ge=0, description="fixes before the day a summary reads to know the stop going at midnight (exact unless a stop began earlier)")
    catch_up_days: int = Field(7, ge=0, description="closed days `fleet up` (at start and daily) and `fleet summarise-days` look back for missing summaries")
    after_midnight_s: int = Field(600, ge=0, description="`fleet up` summarises the day just closed this long after UTC midnight (late fixes first)")


class GeoSettings(_Base):
    """Reverse geocoding (``fleet.geo``): offline to district level, optionally refined online."""

    model_config = SettingsConfigDict(env_prefix="FLEET_GEO_", extra="ignore", frozen=True)

    provider: Literal["offline", "amap"] = Field("offline", description="online provider used before the offline data when its key is set (amap: street-level addresses)")
    amap_key: str = Field("", description="AMap (Gaode) web-service key for the online provider; empty: offline only")
    online_timeout_s: float = Field(2.0, gt=0, description="longest wait for the online provider; on timeout or error the offline answer is used")
    cache_size: int = Field(100_000, ge=0, description="reverse-geocoded points kept per process (LRU, keyed by the point rounded to cache_decimals)")
    cache_decimals: int = Field(4, ge=2, le=6, description="decimal places of lng/lat the cache rounds to (4: about 11 m)")


class ReportSettings(_Base):
    """Reports and analytics: Dagster builds the report tables (orchestration/), the rules
    of pipelines/ (mileage, trips, parks, KPIs) and the Parquet lake (docs/reports.md)."""

    model_config = SettingsConfigDict(env_prefix="FLEET_REPORT_", extra="ignore", frozen=True)

    tz: str = Field("Asia/Shanghai", description="time zone of a report day (a Chinese calendar day); gps partitions stay UTC days")
    start_date: str = Field("2026-01-01", description="first day of the daily partitions (YYYY-MM-DD); months start at its month")
    lake_dir: str = Field("", description="the analysts' Parquet lake (hive-partitioned by day=YYYY-MM-DD), read by `fleet sql` and notebooks/; empty: <FLEET_STACK_VAR_DIR>/lake")
    dagster_home: str = Field("", description="DAGSTER_HOME of `fleet up`'s Dagster webserver and daemon (run storage: SQLite there); empty: <FLEET_STACK_VAR_DIR>/dagster")
    dagster_port: int = Field(3070, description="port of the Dagster UI (dagster-webserver) that `fleet up` starts")
    dagster_enabled: bool = Field(True, description="run the Dagster webserver and daemon under `fleet up` (schedules, late-data sensor)")
    dagster_storage: Literal["postgres", "sqlite"] = Field("postgres", description="where `fleet up`'s Dagster keeps runs, events and schedules: postgres (database <fleet database>_dagster on the fleet's server, created when missing) or sqlite (files under DAGSTER_HOME)")
    history_days: int = Field(30, ge=0, description="days of generated history (positions, alarms, state logs) the first `fleet up` gives the demo fleet, with their reports (0: none)")
    history_interval_s: float = Field(300.0, gt=0, description="fix interval of that generated month (the last FLEET_STACK_SEED_HISTORY_DAYS come at FLEET_STACK_SEED_HISTORY_INTERVAL_S)")
    lookback_s: int = Field(3600, ge=0, description="a report day also reads this much before its start (the first segment's predecessor)")
    lookahead_s: int = Field(7200, ge=0, description="and this much after its end, to finish a trip begun before midnight (listed once, on its start day)")
    v_max_kmh: float = Field(160.0, gt=0, description="implied speed between two fixes above which the later one is a drift point (dropped from GPS mileage; the drift KPI)")
    drift_jump_km: float = Field(5.0, gt=0, description="a jump longer than this within drift_jump_s is also drift")
    drift_jump_s: float = Field(60.0, gt=0, description="see drift_jump_km")
    min_error_m: float = Field(20.0, ge=0, description="while stopped with ACC off, segments shorter than this are jitter, not mileage")
    gap_s: float = Field(3600.0, gt=0, description="no fix for this long: a gap (ends a trip; its distance is incomplete mileage)")
    gap_km: float = Field(5.0, gt=0, description="consecutive fixes farther apart than this: an incomplete segment (轨迹完整率)")
    motion_kmh: float = Field(5.0, ge=0, description="faster than this: moving (trips); standing GPS reads 1-3 km/h")
    trip_min_s: float = Field(300.0, ge=0, description="a moving streak lasting this long is a trip (or covering trip_min_m)")
    trip_min_m: float = Field(500.0, ge=0, description="a moving streak covering this distance is a trip")
    park_min_s: float = Field(300.0, ge=0, description="a stop this long is a park and splits trips; shorter ones do not")
    idle_min_s: float = Field(300.0, ge=0, description="a park with the ACC on at least this long is idling (怠速)")
    odo_min_share: float = Field(0.8, ge=0, le=1, description="share of a day's fixes carrying the odometer (0x01) needed to use it as the day's mileage")
    odo_ratio_min: float = Field(0.8, gt=0, description="odometer mileage is used only within this ratio of the GPS mileage (or GPS < 1 km)")
    odo_ratio_max: float = Field(1.3, gt=0, description="see odo_ratio_min")
    active_day_km: float = Field(1.0, ge=0, description="a vehicle-day with at least this mileage counts as an active day (出车天数)")
    intraday_minutes: int = Field(15, ge=1, le=60, description="today's provisional reports are rebuilt this often (07:00-23:59)")
    sensor_interval_s: int = Field(300, ge=30, description="how often the late-data sensor looks at report_dirty_day")
    notebook_pages_dir: str = Field("", description="the analyst notebooks executed on the lake and rendered to HTML (served to root-enterprise report users by /api/analysis/notebooks); empty: <FLEET_STACK_VAR_DIR>/notebook_pages")
    notebook_server_enabled: bool = Field(True, description="run a JupyterLab on notebooks/ and the lake under `fleet up` (127.0.0.1 only, token in <FLEET_STACK_VAR_DIR>/notebooks.token)")
    notebook_server_port: int = Field(3071, description="port of that JupyterLab")


class ApiSettings(_Base):
    model_config = SettingsConfigDict(env_prefix="FLEET_API_", extra="ignore", frozen=True)

    host: str = Field("127.0.0.1", description="HTTP bind address")
    port: int = Field(8080, description="HTTP port (API and console)")
    workers: int = Field(1, description="gunicorn workers")
    threads: int = Field(32, description="gunicorn threads per worker (worker_class gthread only)")
    worker_class: Literal["gevent", "gthread"] = Field(
        "gevent", description="gunicorn worker: gevent serves every connection (WebSockets, slow clients) without a thread of its own; gthread only to compare")
    worker_connections: int = Field(4096, description="open connections per gevent worker (HTTP and WebSocket); more wait in the listen backlog")
    header_timeout_s: int = Field(5, ge=1, description="longest wait for a request's line and headers, also the idle keep-alive wait (gevent; slow clients are closed)")
    max_connections_per_address: int = Field(256, description="open connections from one client address (an IPv6 client: its /64) per worker; more get 503 and are closed (0: no cap; trusted proxies are not capped)")
    busy_connections_per_address: int = Field(32, ge=1, description="once a worker holds half its worker_connections, a client holding this many gets 503 for more (a few hosts just under the cap cannot fill it)")
    body_timeout_s: float = Field(10.0, gt=0, description="a request body may take this long plus its size at body_min_rate_bytes_s; later: 408 and the connection is closed (gevent)")
    body_min_rate_bytes_s: int = Field(8192, ge=1, description="slowest body upload served to its end beyond body_timeout_s (bytes per second)")
    trusted_proxies: list[str] = Field(
        [], description="addresses or networks (CIDR) of reverse proxies whose forwarded_header names the client; empty: every peer is the client")
    forwarded_header: Literal["X-Forwarded-For", "Forwarded"] = Field(
        "X-Forwarded-For", description="the one header the trusted proxies set to name the client (the other is ignored: clients can forge it)")
    auth_protocol: int = Field(
        3, ge=1, le=3, description="authorization protocol (console-spec §7, platform-spec §9): 3 Bearer access tokens; 1 also HTTP Basic userName:password on every REST call and in STOMP CONNECT; 2 Bearer tokens whose token call must authenticate the client with HTTP Basic open platform app credentials (the console sends console_client_id / console_client_secret, or those it was built with, dashboards/README.md)")
    console_client_id: str = Field(
        "", max_length=64, description="protocol 2: the appKey of the open platform app the console authenticates as on its token calls; the API writes it and console_client_secret into the console's index.html (a public client's credentials: they say which client asks, they guard nothing; dashboards/README.md). Empty: the console sends the ones it was built with, if any")
    console_client_secret: str = Field(
        "", max_length=128, description="protocol 2: that app's secret (shown once when the app is made or given a new secret on the openPlatform screen)")
    basic_auth_cache_s: float = Field(
        60.0, ge=0.0, le=600.0, description="protocol 1: how long a verified Basic credential is trusted before its password is checked again (revocation is still seen within session_check_ttl_s)")
    stomp_connect_timeout_s: float = Field(5.0, description="close a STOMP socket that sends no CONNECT within this")
    stomp_max_per_address: int = Field(64, description="open STOMP sockets from one client address per worker; more get an ERROR frame (0: no cap)")
    stomp_max_per_user: int = Field(16, description="connected STOMP sessions of one user per worker; more get an ERROR frame (0: no cap)")
    stomp_token_check_s: float = Field(30.0, description="how often an open STOMP session re-verifies its access token; expired or revoked: ERROR and close")
    allowed_origins: list[str] = Field(
        [], description="browser origins (scheme://host[:port]) allowed to open the STOMP socket; empty: the API's own origin")
    token_secret: str = Field("", description="HMAC key for tokens; empty: generated into var/ on first start")
    access_token_ttl_s: int = Field(7200, description="access token lifetime")
    refresh_token_ttl_s: int = Field(7 * 86400, description="refresh token lifetime")
    login_max_failures: int = Field(5, description="failed logins per account and address before that address backs off")
    login_lockout_s: int = Field(300, description="longest back-off, and how long failures are remembered")
    login_backoff_s: float = Field(2.0, description="first back-off after the limit; doubles with every further failure")
    login_address_max_failures: int = Field(100, description="failed logins from one address (any names) before it backs off for accounts that never signed in from it")
    login_account_max_failures: int = Field(20, description="failed logins on one account from all addresses before addresses it never signed in from back off")
    login_audit_retention_days: int = Field(90, description="failed-login audit rows older than this are deleted")
    login_verify_concurrency: int = Field(2, description="password checks (argon2, 64 MiB each) run at once per process; more wait")
    login_known_verify_concurrency: int = Field(1, ge=1, description="more password checks at once, only for accounts signing in from an address they signed in from before")
    token_client_per_min: int = Field(10, ge=1, description="client_credentials tokens one client id may ask for per minute (429 above)")
    token_address_per_min: int = Field(60, ge=1, description="client_credentials token requests from one address per minute, any client id (429 above)")
    session_check_ttl_s: float = Field(15.0, ge=0.0, le=30.0, description="how long a process trusts a user's session state (revocation delay, <= 30)")
    token_max_body_bytes: int = Field(8 * 1024, description="largest request body of the token endpoint (413 above)")
    max_body_bytes: int = Field(1024 * 1024, description="largest request body of every other route (413 above)")
    media_port: int = Field(7612, description="port of the video streams the console's CSP allows (http and ws)")
    console_dir: Path = Field(REPO_ROOT / "dashboards" / "dist", description="built console served at /")
    map_tianditu_key: str = Field("", description="Tianditu tile key for the console's map (empty: layer unavailable)")
    map_bing_key: str = Field("", description="Bing Maps key for the console's map (empty: layer unavailable)")
    map_amap_key: str = Field("", description="AMap (Gaode) key for the console's map (empty: keyless tiles)")
    map_center_lng: float = Field(116.39, description="map centre before the browser's geolocation answers; the default of the run-time platform parameter mapCenterLng (settings param)")
    map_center_lat: float = Field(39.91, description="map centre before the browser's geolocation answers; the default of the run-time platform parameter mapCenterLat (settings param)")
    map_default_base_layer: str = Field("osm", description="base layer the map opens with; the console falls back to the offline 'blank' layer with a notice when its tiles do not load; the default of the run-time platform parameter mapDefaultBaseLayer (settings param)")
    license_public_key_file: str = Field("", description="the licence vendor's Ed25519 public key (PEM file); empty: licences cannot be installed")
    license_apply_per_hour: int = Field(5, ge=1, description="licence applications accepted from one address per hour (429 above)")
    notice_insurance_days: int = Field(30, ge=0, le=3650, description="a vehicle's insurance shows in the bell (bizType 2) from this many days before it ends (and once it has ended); the default of the run-time platform parameter noticeInsuranceDays (settings param)")
    notice_inspection_days: int = Field(30, ge=0, le=3650, description="a vehicle's annual inspection shows in the bell (bizType 3) from this many days before it is due (and once overdue); the default of the run-time platform parameter noticeInspectionDays (settings param)")
    notice_licence_days: int = Field(30, ge=0, le=3650, description="a driver's driving licence shows in the bell (bizType 4) from this many days before it expires (and once expired); the default of the run-time platform parameter noticeLicenceDays (settings param)")
    licence_warning_days: int = Field(30, ge=0, le=3650, description="the licence overview warns this many days before the licence in force ends; the default of the run-time platform parameter licenceWarningDays (settings param)")
    monitor_kafka_timeout_s: float = Field(3.0, description="longest wait for Kafka in the system monitor before its section says unavailable")
    export_max_rows: int = Field(100_000, ge=1, description="most rows one spreadsheet export may hold (400 above: narrow the filters)")
    import_max_rows: int = Field(20_000, ge=1, description="most data rows of one imported spreadsheet (400 above)")
    import_max_body_bytes: int = Field(10 * 1024 * 1024, description="largest uploaded import file (413 above)")
    import_batch_rows: int = Field(500, ge=1, description="import rows committed (and progress reported) together; each row still has its own savepoint")
    history_max_days: int = Field(31, ge=1, description="longest time range of one history read: GPS, parking or idling log, track or its export (400 above)")
    import_stale_s: float = Field(120.0, gt=0, description="a running import whose process has not reported for this long is reported failed")
    build_commit: str = Field("", description="git commit the running code was built from (version log); empty: read from the repository's .git when there is one")

    @field_validator("trusted_proxies")
    @classmethod
    def _proxies_are_networks(cls, value: list[str]) -> list[str]:
        for item in value:
            ipaddress.ip_network(item.strip(), strict=False)  # ValueError: the setting is refused at start
        return value

    @model_validator(mode="after")
    def _console_client_whole(self) -> ApiSettings:
        # A key without its secret (or the reverse) would make every sign-in of the console fail with a
        # credentials error that names neither setting: refused at start instead.
        if bool(self.console_client_id) != bool(self.console_client_secret):
            raise ValueError("console_client_id and console_client_secret are set together or not at all")
        return self


class MediaSettings(_Base):
    """The one media store (fleet/media_store.py): terminal photos, audio and video clips."""

    model_config = SettingsConfigDict(env_prefix="FLEET_MEDIA_", extra="ignore", frozen=True)

    store: Literal["local"] = Field("local", description="media store kind: local files under root (fileStoreType 1); 3 is reserved for an S3-compatible store")
    root: Path = Field(REPO_ROOT / "var" / "media", description="folder of the local media store")


class AttachmentsSettings(_Base):
    """Active-safety alarm attachments (JT/T 1078 Jiangsu 0x9208/0x1210-0x1212): where terminals upload them."""

    model_config = SettingsConfigDict(env_prefix="FLEET_ATTACHMENTS_", extra="ignore", frozen=True)

    public_host: str = Field("127.0.0.1", description="attachment server address sent to terminals in 0x9208 (as they reach it)")
    port: int = Field(7613, ge=1, le=65535, description="attachment server TCP port (listened on, and sent in 0x9208)")
    host: str = Field("0.0.0.0", description="address the attachment server binds")
    max_file_bytes: int = Field(16 * 1024 * 1024, ge=1, description="largest attachment file accepted (a larger declared size is refused)")
    max_files: int = Field(16, ge=1, le=255, description="most files one alarm's attachment list (0x1210) may announce")
    stall_timeout_s: float = Field(30.0, gt=0, description="close an attachment connection silent for this long (never blocks other uploads)")
    list_timeout_s: float = Field(10.0, gt=0, description="close an attachment connection whose attachment list (0x1210) is not accepted this long after it connected")
    kafka_ack_timeout_s: float = Field(10.0, gt=0, description="longest wait for Kafka to store a file's record before 0x9212 result 0 is withheld")
    max_connections: int = Field(1000, ge=1, description="attachment connections open at once; at the cap a new one closes the oldest connection still without an accepted list")
    max_pending_per_address: int = Field(8, ge=1, description="attachment connections without an accepted list from one address (IPv6: one /64); a new one closes the oldest of them")
    request_ttl_s: float = Field(3600.0, gt=0, description="how long the one-time alarm number of a 0x9208 is accepted in a 0x1210 (from its terminal only)")
    require_session_address: bool = Field(True, description="accept a 0x1210 only from the IP of its terminal's authenticated 7611 session; off only for carrier NAT that changes addresses (the one-time alarm number then binds the upload alone)")
    session_address_wait_s: float = Field(5.0, ge=0, description="how long a 0x1210 waits for its terminal's session address to be recorded (a terminal asked right after it logged in)")
    proxy_protocol: bool = Field(False, description="every connection starts with a PROXY protocol v1/v2 header (HAProxy send-proxy): its source address is the terminal's for the session address check, the per-address caps and logs; a connection without a valid one is closed. Only behind a balancer that sends it")
    server_id: str = Field("att-1", min_length=1, description="this attachment server's name in connection ids and in its uplink records' gateway_id (one per replica behind a balancer)")


class MediaServerSettings(_Base):
    """The JT/T 1078 media server (gateway/video): terminals' audio/video in, HTTP-FLV / WebSocket-FLV out."""

    model_config = SettingsConfigDict(env_prefix="FLEET_MEDIA_SERVER_", extra="ignore", frozen=True)

    host: str = Field("0.0.0.0", description="address the media server binds (terminals' media, viewers, talk and the API's calls share one port)")
    port: int = Field(7612, ge=0, le=65535, description="media server TCP port (0: any free one, for tests): JT/T 1078 packets from terminals and HTTP/WebSocket from browsers, told apart by their first bytes")
    public_host: str = Field("127.0.0.1", description="media server address sent to terminals in 0x9101 / 0x9201 (as they reach it)")
    public_url: str = Field("", description="base URL browsers reach the media server at (http[s]://host:port); empty: the console's own host name on `port`")
    internal_url: str = Field("", description="where the API reaches the media server (stream registration, status, heartbeats); empty: http://127.0.0.1:<port>")
    secret: str = Field("", description="HMAC key of stream URLs and of the API's calls; empty: generated into var/media-secret, shared by the API and the media server")
    url_ttl_s: float = Field(120.0, gt=0, description="a signed stream URL must be opened within this (its expiry does not cut an open stream); GET /api/video/{sn}/{channel}.json gives fresh ones")
    idle_stop_s: float = Field(15.0, gt=0, le=300, description="grace after a stream's last viewer (or talk socket) left: nobody back within it, the terminal is told to stop (0x9102 close, a playback 0x9202 end), whatever heartbeats say; the console also closes players hidden this long")
    connect_timeout_s: float = Field(30.0, gt=0, description="a requested stream whose terminal has not connected within this is dropped")
    source_grace_s: float = Field(10.0, ge=0, description="viewers wait this long for a terminal that dropped its media connection to come back")
    gop_cache_bytes: int = Field(8 * 1024 * 1024, ge=0, description="most bytes of the last group of pictures kept per stream (a new viewer starts on its key frame)")
    viewer_queue_bytes: int = Field(2 * 1024 * 1024, ge=64 * 1024, description="bytes queued for one viewer before it skips to the next key frame (a slow viewer never slows the others)")
    viewer_socket_buffer_bytes: int = Field(256 * 1024, ge=16 * 1024, description="kernel send buffer of a viewer's connection (fixed: autotuning would let a stalled viewer hide megabytes there)")
    viewer_lag_drop_s: float = Field(10.0, gt=0, description="a viewer still skipping after this long is disconnected")
    max_viewers: int = Field(64, ge=1, description="viewers of one stream at once; more are refused (503)")
    max_packet_body: int = Field(4096, ge=950, description="largest JT/T 1078 packet body accepted (the standard's cap is 950)")
    aac_sample_rate: int = Field(16000, description="sample rate of the AAC that G.711 / G.726 / ADPCM audio is transcoded to for browsers")
    g726_bit_rate: int = Field(40000, description="bit rate of G.726 terminal audio (16000, 24000, 32000 or 40000)")
    db_pool_max: int = Field(2, ge=1, description="database connections of the media server")
    kafka_ack_timeout_s: float = Field(5.0, gt=0, description="longest wait for Kafka to take a 0x9102 downlink or a push")
    source_policy: Literal["address", "port"] = Field(
        "address", description="how a terminal's media connection proves it is the terminal asked: `address` (its source IP is that of its authenticated JT/T 808 session) or `port` (it connects to the one-time port its 0x9101 / 0x9201 named; for carrier NAT that changes addresses)")
    one_time_ports: str = Field("7620-7699", description="TCP port range (first-last) of the one-time ports of the `port` source policy (open them to terminals)")
    identify_deadline_s: float = Field(5.0, gt=0, description="a connection must send its HTTP request head, or a terminal its first whole JT/T 1078 packet, within this; else it is closed")
    source_idle_s: float = Field(10.0, gt=0, description="a terminal's live, listen or talk connection that sends nothing for this long is closed")
    playback_idle_s: float = Field(300.0, gt=0, description="a terminal's playback connection that sends nothing for this long is closed (a paused playback sends nothing)")
    max_connections_per_address: int = Field(256, ge=0, description="open connections from one source IP (terminals, viewers, talk, the API's calls); more are closed at accept (0: no cap)")
    allowed_origins: list[str] = Field(
        [], description="browser origins (scheme://host[:port]) allowed to read streams and open the talk socket; empty: pages on the media server's own host name (the console the API serves there)")
    session_check_s: float = Field(5.0, gt=0, description="how often open viewers and talk sockets are checked against their user's session (disabled, password changed, sessions revoked: closed)")


class RegulatorSettings(_Base):
    """The regulator in a box (`fleet exchange-sim`): a JT/T 809 superior platform for the demo, the tests
    and the benchmark (exchange/regulator/)."""

    model_config = SettingsConfigDict(env_prefix="FLEET_REGULATOR_", extra="ignore", frozen=True)

    host: str = Field("127.0.0.1", description="address the regulator's main link server binds")
    port: int = Field(7809, ge=0, le=65535, description="main link port the inferior platforms log in to (0: any free port)")
    status_port: int = Field(7819, ge=0, le=65535, description="loopback HTTP port serving the regulator's status JSON (GET /status; 0: any free port)")
    accounts: list[str] = Field(["1001:fleet809:7001:2011"], description="accepted inferior platforms, each USER:PASSWORD:CENTRE[:VERSION] (CENTRE: the inferior's MSG_GNSSCENTERID)")
    keys: str = Field("", description="M1:IA1:IC1 of the simple encryption shared by every account; empty: plain frames only")
    encrypt_key: int = Field(0, ge=0, le=0xFFFFFFFF, description="ENCRYPT_KEY of the frames the regulator sends when keys are set")
    sub_heartbeat_s: float = Field(30.0, gt=0, description="interval of the sub link keep-alive (0x9005)")
    sub_reply_timeout_s: float = Field(10.0, gt=0, description="longest wait for 0x9002 / 0x9006 before the sub link counts as down")
    reconnect_min_s: float = Field(1.0, gt=0, description="first delay before the sub link is opened again (doubles, with jitter)")
    reconnect_max_s: float = Field(60.0, gt=0, description="longest delay between sub link attempts")
    main_idle_s: float = Field(180.0, gt=0, description="a main link with no frame (not even a 0x1005 heartbeat) for this long is closed")
    max_platforms: int = Field(0, ge=0, description="inferior platforms logged in at once; one more gets 0x1002 result 5, resources busy (0: no limit)")
    inspection_minutes: float = Field(5.0, ge=0, description="the command sends an inspection (0x9301) this often to each logged-in platform (0: never)")
    count_minutes: float = Field(1.0, ge=0, description="the command sends the count of positions received (0x9101) this often (0: never)")
    urge_alarms: bool = Field(True, description="the command sends an urging (0x9401) for the first alarm each platform reports, and a message (0x9302) after each login")
    video_minutes: float = Field(10.0, ge=0, description="the command asks for live video (0x9801) of a vehicle forwarded in the last 5 minutes, pulls a few seconds and stops it (0x9802), a minute after start and then this often (0: never)")


class SimulatorSettings(_Base):
    model_config = SettingsConfigDict(env_prefix="FLEET_SIMULATOR_", extra="ignore", frozen=True)

    gateway_host: str = Field("127.0.0.1", description="gateway to connect to")
    gateway_port: int = Field(7611, description="gateway port")
    centre_lng: float = Field(116.39, description="centre of generated routes")
    centre_lat: float = Field(39.91, description="centre of generated routes")
    radius_km: float = Field(15.0, description="routes stay within this distance of the centre")
    phone_prefix: str = Field("0138", description="simulated terminal phones are prefix + zero-padded index")
    protocol_version: str = Field("2013", description="2011, 2013 or 2019 header")
    alarm_rate_per_hour: float = Field(4.0, ge=0, description="terminal alarm episodes (overspeed, fatigue, power low, emergency) per vehicle per hour with the ACC on")
    safety_alarm_rate_per_hour: float = Field(10.0, ge=0, description="ADAS/DSM events (0x64/0x65, 1-3 attachments each) per vehicle per hour of driving; 0 also keeps tyre sensors from raising alarms")
    heartbeat_interval_s: float = Field(30.0, description="heartbeat when nothing else was sent for this long")
    ack_timeout_s: float = Field(10.0, description="resend a position not acknowledged (0x8001) within this")
    backlog_batch_items: int = Field(20, description="positions per 0x0704 backlog upload")
    reconnect_min_s: float = Field(1.0, description="first reconnect delay (doubles, with jitter)")
    reconnect_max_s: float = Field(60.0, description="longest reconnect delay")
    seed: int = Field(808, description="seed of routes, driving and alarms (deterministic runs)")
    auth_cache: Path = Field(REPO_ROOT / "var" / "simulator-auth.json", description="auth codes kept between runs")
    unsupported_share: float = Field(0.03, ge=0, le=1, description="share of terminals (by phone) answering every command 'unsupported'")
    silent_share: float = Field(0.02, ge=0, le=1, description="share of terminals (by phone) never answering a command")
    media_package_bytes: int = Field(900, ge=1, le=1023, description="0x0801 photo upload body bytes per sub-package")
    video: bool = Field(True, description="terminals the demo seed gives cameras (hasVideo, channels 1-4) answer 0x9101/0x9201 by streaming their clips to the media server")
    talk_dir: Path = Field(REPO_ROOT / "var" / "talk", description="where simulated terminals write what a talk session sent them (<phone>-ch<channel>.wav)")
    per_plate_clips: bool = Field(True, description="render each vehicle's own clip (its plate drawn in) in the background on first use; off: every vehicle plays the generic clips install made (tests, benchmarks)")
    gb_port: int = Field(7617, ge=1, le=65535, description="GB gateway port the simulated GB/T 32960 terminals (electric buses and vans, ## and $$ frames) connect to")
    gb_emission_port: int = Field(7618, ge=1, le=65535, description="GB gateway port the simulated GB 17691 / HJ 1239 terminals (heavy diesel trucks) connect to")
    gb_interval_s: float = Field(10.0, gt=0, description="real-time report interval of the simulated GB terminals (GB/T 32960.3: at most 30 s)")
    gb_alarm_rate_per_hour: float = Field(0.5, ge=0, description="battery alarm episodes (cell over-temperature, insulation, thermal event) per electric vehicle per hour on")
    gb_fault_rate_per_hour: float = Field(0.2, ge=0, description="emission fault episodes (MIL on with a trouble code) per diesel truck per hour with the engine on")


class ExchangeSettings(_Base):
    """The JT/T 809 exchange service (``fleet exchange``): links to the superior platforms (exchange/link) and
    the main link server for inferior platforms (exchange/superior)."""

    model_config = SettingsConfigDict(env_prefix="FLEET_EXCHANGE_", extra="ignore", frozen=True)

    heartbeat_s: float = Field(60.0, gt=0, description="main link 0x1005 heartbeat interval; the main link silent for 3 intervals is dead, the sub link (kept by the superior's 0x9005) after 3 intervals or 180 s, whichever is longer")
    reconnect_min_s: float = Field(1.0, gt=0, description="first main link reconnect delay (doubles, full jitter)")
    reconnect_max_s: float = Field(60.0, gt=0, description="longest main link reconnect delay")
    backfill_after_s: float = Field(30.0, ge=0, description="a position whose fix is older than this goes as 0x1203 back-fill, else 0x1202")
    resend_window_s: float = Field(5.0, ge=0, description="after a link to a superior is lost, the records whose frames were written this long before are sent again as 0x1203 back-fill (a written frame may not have been read; offsets are committed only past this window)")
    resend_window_bytes: int = Field(256 * 1024, ge=0, description="and at least the records of the last this many bytes written, however old (what socket buffers may still hold)")
    poll_s: float = Field(2.0, gt=0, description="how often answered inspections are looked for and link state is saved")
    reload_s: float = Field(30.0, gt=0, description="how often the superior platform rows are re-read (a change restarts that platform's links)")
    offset_reset: Literal["earliest", "latest"] = Field("latest", description="where a platform's new consumer group starts reading Kafka")
    message_log_days: int = Field(30, ge=1, description="days the exchange message log is kept")
    demo_down_link_port: int = Field(7615, description="sub link port the seeded demo superior platform connects back to")
    superior_host: str = Field("0.0.0.0", description="address the superior service (fleetwatch as a JT/T 809 superior platform) listens on for inferior platforms' main links")
    superior_port: int = Field(7616, ge=1, le=65535, description="port of that main link server; it runs while an enabled inferiorPlatform row exists")
    superior_position_days: int = Field(90, ge=1, description="days the positions inferior platforms report (exchange_position) are kept")
    superior_video_wait_s: float = Field(45.0, gt=0, le=600, description="how long an operator's live video request to an inferior platform waits for its 0x1801 (the platform asks its terminal first) before it expires")
    demo_inferior_down_link_port: int = Field(7619, ge=1, le=65535, description="sub link port of the demo inferior platform `fleet up` seeds (fleetwatch's own link service logging in to its superior service on the loopback)")
    video_host: str = Field("", description="media server address answered to a superior platform's 0x9801 / 0x9A01 (SERVER_IP), where it pulls the stream (JT/T 1078-2016 §6.2); empty: FLEET_MEDIA_SERVER_PUBLIC_HOST; a wildcard address (0.0.0.0, ::) is refused")
    video_port: int = Field(0, ge=0, le=65535, description="media server port answered with it (SERVER_PORT); 0: FLEET_MEDIA_SERVER_PORT")

    @field_validator("video_host")
    @classmethod
    def _no_wildcard_video_host(cls, value: str) -> str:
        if value.strip() in ("0.0.0.0", "::", "[::]"):
            raise ValueError("FLEET_EXCHANGE_VIDEO_HOST must be an address a superior platform can reach, not a "
                             "wildcard")
        return value.strip()


class Gb32960ExchangeSettings(_Base):
    """The GB/T 32960 forwarding to superior platforms (in ``fleet exchange``: exchange/gb32960) and the superior
    in a box (``fleet gb32960-exchange-sim``)."""

    model_config = SettingsConfigDict(env_prefix="FLEET_GB32960_EXCHANGE_", extra="ignore", frozen=True)

    heartbeat_s: float = Field(30.0, gt=0, description="interval of the platform heartbeat 0x07 sent to a superior; a link that has read nothing for 3 intervals is dead")
    login_timeout_s: float = Field(10.0, gt=0, description="longest wait for the answer to the platform login 0x05")
    reconnect_min_s: float = Field(1.0, gt=0, description="first reconnect delay to a superior (doubles, full jitter)")
    reconnect_max_s: float = Field(60.0, gt=0, description="longest reconnect delay to a superior")
    backfill_after_s: float = Field(30.0, ge=0, description="a frame received by the gateway longer ago than this is sent as back-filled data 0x03, else as real-time data 0x02")
    resend_window_s: float = Field(5.0, ge=0, description="after a link to a superior is lost, the frames written this long before are sent again as 0x03 (a written frame may not have been read; offsets are committed only past this window)")
    resend_window_bytes: int = Field(256 * 1024, ge=0, description="and at least the frames of the last this many bytes written, however old (what socket buffers may still hold)")
    reload_s: float = Field(30.0, gt=0, description="how often the gb32960 superior platform rows are re-read (a change restarts that platform's link)")
    offset_reset: Literal["earliest", "latest"] = Field("latest", description="where a platform's new consumer group starts reading gb32960.uplink.v1")
    box_host: str = Field("127.0.0.1", description="address the superior in a box binds")
    box_port: int = Field(7960, ge=0, le=65535, description="port the superior in a box accepts platform logins on (0: any free port)")
    box_accounts: list[str] = Field(["fleet32960:fleet32960pw"], description="accounts the superior in a box accepts, each USERNAME:PASSWORD")
    box_aes: list[str] = Field([], description="accounts of the superior in a box whose data units come AES-128 encrypted, each USERNAME:KEYHEX:IVHEX (`fleet up` gives its demo account the key and IV it made into var/gb32960-box-aes)")


def report_lake_dir(reports: ReportSettings | None = None, stack: StackSettings | None = None) -> Path:
    """The Parquet lake's folder: FLEET_REPORT_LAKE_DIR, or ``lake`` under the stack's var dir."""
    reports = reports or ReportSettings()
    return Path(reports.lake_dir) if reports.lake_dir else (stack or StackSettings()).var_dir / "lake"


def report_notebook_pages_dir(reports: ReportSettings | None = None, stack: StackSettings | None = None) -> Path:
    """The rendered notebooks' folder: FLEET_REPORT_NOTEBOOK_PAGES_DIR, or ``notebook_pages`` under var."""
    reports = reports or ReportSettings()
    return Path(reports.notebook_pages_dir) if reports.notebook_pages_dir else (stack or StackSettings()).var_dir / "notebook_pages"


def report_dagster_home(reports: ReportSettings | None = None, stack: StackSettings | None = None) -> Path:
    """DAGSTER_HOME of `fleet up`: FLEET_REPORT_DAGSTER_HOME, or ``dagster`` under the stack's var dir."""
    reports = reports or ReportSettings()
    return Path(reports.dagster_home) if reports.dagster_home else (stack or StackSettings()).var_dir / "dagster"


def database_url(db: DatabaseSettings | None = None, stack: StackSettings | None = None) -> str:
    """The configured database URL, or the one of the stack's own server with role ``fleet``'s password
    from ``var/postgres.password`` (written by its first start: fleet/services/postgres.py)."""
    db = db or DatabaseSettings()
    if db.url:
        return db.url
    from urllib.parse import quote

    from fleet.services.postgres import password_file_for, read_password

    stack = stack or StackSettings()
    password = read_password(password_file_for(stack.var_dir / "postgres"))
    userinfo = f"fleet:{quote(password, safe='')}" if password else "fleet"
    return f"postgresql://{userinfo}@127.0.0.1:{stack.postgres_port}/fleet"


def kafka_bootstrap(kafka: KafkaSettings | None = None, stack: StackSettings | None = None) -> str:
    kafka = kafka or KafkaSettings()
    if kafka.bootstrap:
        return kafka.bootstrap
    stack = stack or StackSettings()
    return f"127.0.0.1:{stack.kafka_port}"
