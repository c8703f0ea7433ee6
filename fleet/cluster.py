"""`fleet up --topology cluster`: the topology of docker/compose.yaml as processes on this machine.

Three KRaft Kafka nodes under ``var/kafka-cluster/`` (every topic replicated 3 times, ``min.insync.replicas``
2: the producers' acks=all then survive one lost broker), the JT/T 808 gateways on loopback ports behind
HAProxy (TCP mode, PROXY protocol v2, so each gateway sees the terminals' real addresses), the attachment
servers behind HAProxy the same way (so a 0x1210's address is still compared with its terminal's 7611
session address, gateway/attachment_session.py), several stream workers in one consumer group, and the API
processes behind HAProxy (HTTP and WebSocket). HAProxy listens where the single-box gateway, attachment server
and API do (FLEET_GATEWAY_PORT, FLEET_ATTACHMENTS_PORT, FLEET_API_PORT), so terminals, the simulator, the
0x9208's address and browsers stay as they were. Counts and ports: ``ClusterSettings`` (FLEET_CLUSTER_*).

``COMPOSE_SETTINGS`` are the values docker/compose.yaml gives every service (partitioning, batching,
heartbeats): the cluster applies them unless configured, and tests/unit/test_docker_topology.py fails when
the two drift.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from dataclasses import replace
from pathlib import Path

from fleet.services._system import ServiceError
from fleet.settings import ApiSettings, AttachmentsSettings, ClusterSettings, GatewaySettings, StreamsSettings
from fleet.supervisor import ChildSpec, Health

LOOPBACK_BALANCER = ("127.0.0.1/32",)  # HAProxy connects to the replicas from loopback

# What docker/compose.yaml sets (x-fleet-env, x-gateway-env): checked equal by test_docker_topology.py.
COMPOSE_SETTINGS: dict[str, str] = {
    "FLEET_KAFKA_TOPIC_PARTITIONS": "12",
    "FLEET_GATEWAY_BATCH_WINDOW_MS": "40",
    "FLEET_GATEWAY_HEARTBEAT_INTERVAL_S": "60",
    "FLEET_GATEWAY_UNAUTHENTICATED_MAX": "20000",
    "FLEET_GATEWAY_PROXY_PROTOCOL": "true",
    "FLEET_ATTACHMENTS_PROXY_PROTOCOL": "true",
    "FLEET_STREAMS_APP_ID": "fleet-streams",
}

# HAProxy's timeouts for terminals: longer than the gateway's idle timeout (3 x the heartbeat interval), so
# the gateway, not the balancer, decides when a silent terminal is gone (docker/haproxy.cfg says the same).
TERMINAL_TIMEOUT = "10m"


def apply_compose_settings(environ: dict[str, str] | os._Environ[str] = os.environ) -> dict[str, str]:
    """Set COMPOSE_SETTINGS in `environ` where not configured; returns what it set."""
    applied = {key: value for key, value in COMPOSE_SETTINGS.items() if key not in environ}
    environ.update(applied)
    return applied


def kafka_ports(cluster: ClusterSettings) -> list[tuple[int, int, int]]:
    """(node id, broker port, controller port) of each Kafka node."""
    return [(node, cluster.kafka_base_port + 10 * node, cluster.kafka_base_port + 10 * node + 1)
            for node in range(1, cluster.kafka_brokers + 1)]


def gateway_ports(cluster: ClusterSettings) -> list[int]:
    return [cluster.gateway_base_port + i for i in range(1, cluster.gateways + 1)]


def api_ports(cluster: ClusterSettings) -> list[int]:
    return [cluster.api_base_port + i for i in range(1, cluster.apis + 1)]


def attachment_ports(cluster: ClusterSettings) -> list[int]:
    return [cluster.attachment_base_port + i for i in range(1, cluster.attachment_servers + 1)]


def haproxy_config(cluster: ClusterSettings, gateway: GatewaySettings, api: ApiSettings,
                   attachments: AttachmentsSettings | None = None) -> str:
    """HAProxy's configuration of `fleet up --topology cluster` (see ``balancer_config``)."""
    attachments = attachments or AttachmentsSettings()
    return balancer_config(terminals_at=(gateway.host, gateway.port), gateway_ports=gateway_ports(cluster),
                           browsers_at=(api.host, api.port), api_ports=api_ports(cluster),
                           stats_port=cluster.haproxy_stats_port,
                           attachments_at=(attachments.host, attachments.port),
                           attachment_ports=attachment_ports(cluster))


def balancer_config(*, terminals_at: tuple[str, int], gateway_ports: list[int], browsers_at: tuple[str, int],
                    api_ports: list[int], stats_port: int, attachments_at: tuple[str, int] | None = None,
                    attachment_ports: list[int] | None = None) -> str:
    """HAProxy's configuration: terminals to the gateways (TCP, PROXY v2, leastconn as docker/haproxy.cfg),
    their evidence uploads to the attachment servers (the same way, when ``attachments_at`` is given),
    browsers to the APIs (HTTP; a WebSocket is one long request, so a STOMP session stays on its API and
    reconnects to a live one when that API dies; no cookie stickiness, because STOMP is served over a WebSocket
    only, SockJS's websocket transport included (api/sockjs.py), so REST requests spread freely), and the
    statistics page on loopback."""
    gateways = "\n".join(f"    server gateway-{i} 127.0.0.1:{port}" for i, port in enumerate(gateway_ports, start=1))
    apis = "\n".join(f"    server api-{i} 127.0.0.1:{port}" for i, port in enumerate(api_ports, start=1))
    uploads = ""
    if attachments_at is not None:
        servers = "\n".join(f"    server attachments-{i} 127.0.0.1:{port}"
                            for i, port in enumerate(attachment_ports or [], start=1))
        uploads = f"""
frontend attachments
    mode tcp
    bind {attachments_at[0]}:{attachments_at[1]}
    default_backend attachments

backend attachments
    mode tcp
    # each upload is its own connection (0x9208 -> 0x1210 ... 0x1212): any server takes it. PROXY v2 so the
    # server compares the terminal's address, not the balancer's, with its 7611 session's.
    balance leastconn
    default-server check inter 1s fall 1 rise 2 send-proxy-v2
{servers}
"""
    return f"""# Written by `fleet up --topology cluster` (fleet/cluster.py) on every start; edit the code, not this.
global
    # no maxconn: HAProxy sizes it from the file descriptor limit it is given (ulimit -n)

defaults
    log global
    timeout connect 2s
    timeout client {TERMINAL_TIMEOUT}
    timeout server {TERMINAL_TIMEOUT}
    # a connect refused by a dead server is tried again on another one
    retries 3
    option redispatch

frontend jt808
    mode tcp
    bind {terminals_at[0]}:{terminals_at[1]}
    default_backend gateways

backend gateways
    mode tcp
    # leastconn: long-lived terminals; after a gateway loss its terminals reconnect to the others.
    balance leastconn
    # PROXY v2 first on every connection (health checks too): the gateway's FLEET_GATEWAY_PROXY_PROTOCOL.
    default-server check inter 1s fall 1 rise 2 send-proxy-v2
{gateways}
{uploads}
frontend api
    mode http
    bind {browsers_at[0]}:{browsers_at[1]}
    option forwardfor
    timeout client 1h
    default_backend apis

backend apis
    mode http
    balance leastconn
    timeout server 1h
    timeout tunnel 1h
    option httpchk GET /api/health.json
    default-server check inter 2s fall 2 rise 2
{apis}

frontend stats
    mode http
    bind 127.0.0.1:{stats_port}
    stats enable
    stats uri /
"""


def haproxy_binary() -> str:
    """``haproxy`` on PATH or in /usr/sbin (Debian's package, installed by scripts/install.sh)."""
    found = shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin:/usr/local/sbin")
    if found is None:
        raise ServiceError("haproxy is not installed: `apt-get install haproxy` (scripts/install.sh does it)")
    return found


def haproxy_config_path(var_dir: Path) -> Path:
    return var_dir / "cluster" / "haproxy.cfg"


def write_haproxy_config(var_dir: Path) -> Path:
    """The balancer's configuration for this start (the settings may have changed since the last)."""
    path = haproxy_config_path(var_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(haproxy_config(ClusterSettings(), GatewaySettings(), ApiSettings(), AttachmentsSettings()))
    return path


def haproxy_spec(config: Path, gateway: GatewaySettings, cluster: ClusterSettings) -> ChildSpec:
    """HAProxy in the foreground (``-db``) under the supervisor, healthy when the terminals' port accepts."""
    binary = shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin:/usr/local/sbin") or "haproxy"
    return ChildSpec("haproxy", "fleet.cluster", [binary, "-db", "-f", str(config)],
                     Health(tcp_port=gateway.port), gateway.port, "FLEET_GATEWAY_PORT",
                     more_ports=((ApiSettings().port, "FLEET_API_PORT"),
                                 (AttachmentsSettings().port, "FLEET_ATTACHMENTS_PORT"),
                                 (cluster.haproxy_stats_port, "FLEET_CLUSTER_HAPROXY_STATS_PORT")))


def api_trusted_proxies(api: ApiSettings) -> list[str]:
    """The APIs' trusted proxies behind the balancer: the configured ones (a proxy in front of HAProxy) and
    HAProxy itself on loopback, whose ``option forwardfor`` names the client. Without it every browser would be
    127.0.0.1 to the API, and one client's failed logins would throttle everyone's (api/addresses.py)."""
    return [*api.trusted_proxies, *(net for net in LOOPBACK_BALANCER if net not in api.trusted_proxies)]


def cluster_specs(single_box: list[ChildSpec], var_dir: Path) -> list[ChildSpec]:
    """The single-box children with the gateway, attachment server, stream worker and API replaced by their
    replicas, and HAProxy in front of the gateways, attachment servers and APIs (started after them, before
    the simulator), reading ``write_haproxy_config(var_dir)``."""
    cluster, gateway, streams = ClusterSettings(), GatewaySettings(), StreamsSettings()
    python = sys.executable
    specs: list[ChildSpec] = []
    for spec in single_box:
        if spec.name == "gateway":
            for i, port in enumerate(gateway_ports(cluster), start=1):
                specs.append(replace(spec, name=f"gateway-{i}", health=Health(tcp_port=port), port=port,
                                     port_env="FLEET_CLUSTER_GATEWAY_BASE_PORT",
                                     env=(("FLEET_GATEWAY_HOST", "127.0.0.1"), ("FLEET_GATEWAY_PORT", str(port)),
                                          ("FLEET_GATEWAY_GATEWAY_ID", f"gw-{i}"))))
        elif spec.name == "attachments":
            for i, port in enumerate(attachment_ports(cluster), start=1):
                # FLEET_ATTACHMENTS_PORT is where this replica listens; the 0x9208 (sent by the streams and the
                # API, which keep the single-box value) names HAProxy's port
                specs.append(replace(spec, name=f"attachments-{i}", health=Health(tcp_port=port), port=port,
                                     port_env="FLEET_CLUSTER_ATTACHMENT_BASE_PORT",
                                     env=(("FLEET_ATTACHMENTS_HOST", "127.0.0.1"),
                                          ("FLEET_ATTACHMENTS_PORT", str(port)),
                                          ("FLEET_ATTACHMENTS_SERVER_ID", f"att-{i}"))))
        elif spec.name == "streams":
            for i in range(1, cluster.workers + 1):
                web_port = streams.web_port + i
                specs.append(replace(
                    spec, name=f"streams-{i}",
                    argv=[python, "-m", "streams", "worker"],
                    health=Health(tcp_port=web_port) if streams.web_enabled else Health(),
                    port=web_port if streams.web_enabled else None,
                    env=(("FLEET_STREAMS_WEB_PORT", str(web_port)),
                         ("FLEET_STREAMS_DATA_DIR", f"{streams.data_dir}-{i}"))))  # Faust's local state is per process
        elif spec.name == "api":
            proxies = json.dumps(api_trusted_proxies(ApiSettings()))
            for i, port in enumerate(api_ports(cluster), start=1):
                specs.append(replace(spec, name=f"api-{i}",
                                     health=Health(http_url=f"http://127.0.0.1:{port}/api/health.json"),
                                     port=port, port_env="FLEET_CLUSTER_API_BASE_PORT",
                                     env=(("FLEET_API_HOST", "127.0.0.1"), ("FLEET_API_PORT", str(port)),
                                          ("FLEET_API_TRUSTED_PROXIES", proxies))))
            specs.append(haproxy_spec(haproxy_config_path(var_dir), gateway, cluster))
        else:
            specs.append(spec)
    return specs
