"""docker/ against the code: the compose file, the Dockerfile and the HAProxy config may not drift from it.

No Docker engine runs here, so nothing starts a container; these tests read the files (PyYAML) and check
that every ``FLEET_*`` variable is a real setting with a value its type accepts, that every command is a real
``fleet`` command (its options parsed by click) or module, that every process ``fleet up`` supervises has a
service, and that the topology is the one docs/scaling.md computes for 100,000 vehicles.
"""

from __future__ import annotations

import importlib.util
import re
import shlex
import sys
from pathlib import Path
from typing import Any

import click
import pytest
import yaml
from pydantic import ValidationError
from pydantic_settings import BaseSettings

from fleet.cli import main as fleet_cli
from fleet.cluster import COMPOSE_SETTINGS, TERMINAL_TIMEOUT, haproxy_config
from fleet.config_doc import settings_classes
from fleet.launcher import DAGSTER_YAML, child_specs, dagster_specs
from fleet.settings import (
    REPO_ROOT,
    ApiSettings,
    AttachmentsSettings,
    ClusterSettings,
    GatewaySettings,
    ReportSettings,
)
from fleet.topics import ALL_TOPICS
from tests.support.arithmetic import load_arithmetic

DOCKER = REPO_ROOT / "docker"
IMAGE = "fleetwatch:latest"
_INTERPOLATION = re.compile(r"\$\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:(?P<op>:?[-?])(?P<arg>[^}]*))?\}")


def compose() -> dict[str, Any]:
    loaded = yaml.safe_load((DOCKER / "compose.yaml").read_text())
    assert isinstance(loaded, dict)
    return loaded


def services() -> dict[str, dict[str, Any]]:
    found = compose()["services"]
    assert isinstance(found, dict) and found
    return found


def ours() -> dict[str, dict[str, Any]]:
    """The services running the fleetwatch image (docker/Dockerfile)."""
    return {name: svc for name, svc in services().items() if svc.get("image") == IMAGE}


def environment(svc: dict[str, Any]) -> dict[str, str]:
    env = svc.get("environment") or {}
    if isinstance(env, list):
        env = dict(item.split("=", 1) for item in env)
    return {str(k): "" if v is None else str(v) for k, v in env.items()}


def resolved(value: str) -> str | None:
    """``value`` as compose would pass it with no variable set: ``${X:-d}`` -> d; None when it needs a
    variable (``${X}``, ``${X:?...}``)."""
    missing = False

    def substitute(match: re.Match[str]) -> str:
        nonlocal missing
        if match["op"] in (":-", "-"):
            return match["arg"]
        missing = True
        return ""

    text = _INTERPOLATION.sub(substitute, value.replace("$$", "\0")).replace("\0", "$")
    return None if missing else text


def setting_fields() -> dict[str, tuple[type[BaseSettings], str]]:
    """Every FLEET_* variable of fleet/settings.py -> (settings class, field)."""
    fields = {}
    for cls in settings_classes():
        prefix = str(cls.model_config.get("env_prefix", ""))
        for name in cls.model_fields:
            fields[f"{prefix}{name.upper()}"] = (cls, name)
    return fields


def dockerfile_env() -> dict[str, str]:
    """The ENV names and values of docker/Dockerfile (``ENV A=1 \\`` continuation lines joined)."""
    text = (DOCKER / "Dockerfile").read_text().replace("\\\n", " ")
    env = {}
    for line in text.splitlines():
        if line.startswith("ENV "):
            for word in shlex.split(line[4:]):
                name, _, value = word.partition("=")
                env[name] = value
    return env


def test_every_fleet_variable_is_a_setting_and_its_value_fits() -> None:
    fields = setting_fields()
    sources = {f"compose {name}": environment(svc) for name, svc in services().items()}
    sources["Dockerfile"] = dockerfile_env()
    unknown = sorted(f"{where}: {key}" for where, env in sources.items() for key in env
                     if key.startswith("FLEET_") and key not in fields)
    assert unknown == [], "not settings of fleet/settings.py (docs/configuration.md)"
    bad = []
    for where, env in sources.items():
        per_class: dict[type[BaseSettings], dict[str, str]] = {}
        for key, value in env.items():
            if not key.startswith("FLEET_"):
                continue
            # a required secret (${X:?...}) stands for what the operator's .env gives
            literal = resolved(value)
            if literal is None:
                literal = _INTERPOLATION.sub("from-docker-env", value)
            if literal is None or "${" in literal:  # set by the Dockerfile's ARG
                continue
            cls, field = fields[key]
            per_class.setdefault(cls, {})[field] = literal
        for cls, values in per_class.items():
            try:
                cls(**values)  # type: ignore[arg-type]
            except ValidationError as exc:
                bad.append(f"{where}: {exc}")
    assert bad == []


def _python_module_ok(module: str) -> None:
    spec = importlib.util.find_spec(module)
    assert spec is not None, f"python -m {module}: no such module"
    if spec.submodule_search_locations is not None:  # a package runs its __main__
        assert importlib.util.find_spec(f"{module}.__main__") is not None, f"python -m {module}: no __main__"
    else:
        assert spec.origin and 'if __name__ == "__main__":' in Path(spec.origin).read_text(), (
            f"python -m {module}: the module does nothing when run")


def _fleet_command_ok(argv: list[str]) -> None:
    name, args = argv[0], argv[1:]
    with click.Context(fleet_cli) as ctx:
        command = fleet_cli.get_command(ctx, name)
        assert command is not None, f"fleet {name}: not a fleet command (fleet/cli.py LAZY_COMMANDS)"
        command.make_context(f"fleet {name}", list(args), parent=ctx)  # unknown options raise


def _executable_ok(argv: list[str]) -> None:
    executable = Path(sys.executable).parent / argv[0]
    assert executable.exists(), f"{argv[0]}: not installed by pyproject.toml's dependencies"
    if "-m" in argv:
        module = argv[argv.index("-m") + 1]
        assert importlib.util.find_spec(module) is not None, f"{argv[0]} -m {module}: no such module"


def check_argv(argv: list[str]) -> None:
    """One command line of ours: python -m MODULE, fleet COMMAND, or a console script of the venv."""
    if argv[0] == "python":
        assert argv[1] == "-m", argv
        _python_module_ok(argv[2])
    elif argv[0] == "fleet":
        _fleet_command_ok(argv[1:])
    else:
        _executable_ok(argv)


def command_lines(svc: dict[str, Any]) -> list[list[str]]:
    """The command lines a service runs: its command, or each ``fleet``/``python`` line of its ``sh -c`` loop."""
    command = svc.get("command")
    assert isinstance(command, list), "write commands as lists (no shell parsing by compose)"
    if command[:2] != ["sh", "-c"]:
        return [[str(part) for part in command]]
    lines = []
    for part in re.split(r";|&&|\|\||\bdo\b|\bdone\b", command[2]):
        words = shlex.split(part)
        if words and words[0] in ("fleet", "python"):
            lines.append(words)
        else:
            assert not words or words[0] in ("while", "sleep", ":", "true"), f"unexpected shell command {words}"
    assert lines, f"no fleet command in {command[2]!r}"
    return lines


@pytest.mark.parametrize("name", sorted(ours()))
def test_every_command_is_a_real_fleet_command_or_module(name: str) -> None:
    svc = ours()[name]
    assert "entrypoint" not in svc
    for argv in command_lines(svc):
        check_argv(argv)


def _target(argv: list[str]) -> str:
    """A command line reduced to what it starts: ``python -m gateway``, ``dagster-daemon run -m ...``."""
    program = Path(argv[0]).name
    if program.startswith("python") and argv[1] == "-m":
        return " ".join(["python", *argv[1:]])
    module = argv[argv.index("-m") + 1] if "-m" in argv else ""
    return f"{program} -m {module}" if module else program


def test_every_process_fleet_up_supervises_has_a_service() -> None:
    # The analysts' JupyterLab is a workstation tool (it runs code as its user; loopback only): the
    # production-like topology has no such service, its pages come rendered through the API.
    # The regulator in a box and the GB/T 32960 superior in a box stand in for a regulator's platform (tests and
    # the demo): a deployment links to the real one.
    specs = [spec for spec in child_specs(0, simulator=False)
             if not spec.module.startswith("dagster") and spec.name not in ("notebooks", "regulator",
                                                                                     "gb32960-superior")]
    specs += dagster_specs(ReportSettings(dagster_enabled=True))
    wanted = {spec.name: _target(spec.argv) for spec in specs}
    running = {_target(argv) for svc in ours().values() for argv in command_lines(svc)}
    missing = {name: target for name, target in wanted.items() if target not in running}
    assert missing == {}, "fleet up runs these, docker/compose.yaml does not"


def _gateways() -> dict[str, dict[str, Any]]:
    return {name: svc for name, svc in ours().items() if svc["command"] == ["python", "-m", "gateway"]}


def test_gateways_have_their_own_ids_and_sit_behind_haproxy() -> None:
    gateways = _gateways()
    ids = [environment(svc).get("FLEET_GATEWAY_GATEWAY_ID") for svc in gateways.values()]
    assert None not in ids and len(set(ids)) == len(ids), "connection ids are <gateway id>-<n>: ids must differ"
    assert all("replicas" not in (svc.get("deploy") or {}) for svc in gateways.values()), (
        "replicas would share one gateway id")
    port = GatewaySettings().port
    ports = {environment(svc).get("FLEET_GATEWAY_PORT", str(port)) for svc in gateways.values()}
    servers = re.findall(r"^\s*server\s+(\S+)\s+([\w.-]+):(\d+)", haproxy_section("backend gateways"), re.M)
    assert {(name, host, p) for name, host, p in servers} == {(name, name, p) for name in gateways for p in ports}
    assert "haproxy.cfg" in " ".join(services()["haproxy"]["volumes"])


def _attachment_servers() -> dict[str, dict[str, Any]]:
    return {name: svc for name, svc in ours().items() if svc["command"] == ["python", "-m", "gateway.attachments"]}


def test_attachment_servers_sit_behind_haproxy_reading_the_terminals_address_from_it() -> None:
    """Two or more attachment servers, each a `server` of haproxy.cfg's attachments backend, which sends them
    the PROXY header they read: the 0x1210's address stays the terminal's, comparable with its session's."""
    servers = _attachment_servers()
    assert len(servers) >= 2
    ids = [environment(svc).get("FLEET_ATTACHMENTS_SERVER_ID") for svc in servers.values()]
    assert None not in ids and len(set(ids)) == len(ids), "connection ids are <server id>-<n>: ids must differ"
    port = str(AttachmentsSettings().port)
    listed = re.findall(r"^\s*server\s+(\S+)\s+([\w.-]+):(\d+)", haproxy_section("backend attachments"), re.M)
    assert set(listed) == {(name, name, port) for name in servers}
    assert re.search(r"^\s*default-server .*\bsend-proxy-v2\b", haproxy_section("backend attachments"), re.M)
    assert re.findall(r"^\s*bind :(\d+)", haproxy_section("frontend attachments"), re.M) == [port]
    for name, svc in servers.items():
        env = environment(svc)
        assert env.get("FLEET_ATTACHMENTS_PROXY_PROTOCOL") == "true", name
        assert env.get("FLEET_ATTACHMENTS_PORT", port) == port and "ports" not in svc, name
        # the check keeps its meaning behind the balancer: it is not switched off there
        assert env.get("FLEET_ATTACHMENTS_REQUIRE_SESSION_ADDRESS", "true") == "true", name
    assert set(servers) <= set(services()["haproxy"]["depends_on"])


def haproxy_section(header: str) -> str:
    """The lines of haproxy.cfg's section ``header`` (e.g. ``backend gateways``), up to the next section."""
    text = (DOCKER / "haproxy.cfg").read_text()
    match = re.search(rf"^{re.escape(header)}\n(.*?)(?=^\S|\Z)", text, re.M | re.S)
    assert match, f"haproxy.cfg has no section {header!r}"
    return match[1]


def _partitions() -> int:
    counts = {environment(svc).get("FLEET_KAFKA_TOPIC_PARTITIONS") for svc in ours().values()}
    assert len(counts) == 1 and None not in counts, f"every process must see one partition count: {counts}"
    return int(counts.pop())  # type: ignore[arg-type]


def test_kafka_topics_are_fleetwatchs_with_the_partitions_every_process_uses() -> None:
    init = services()["kafka-init"]
    env = environment(init)
    assert set(env["TOPICS"].split()) == set(ALL_TOPICS)
    assert int(env["PARTITIONS"]) == _partitions()
    for name in ("TOPICS", "PARTITIONS", "REPLICATION_FACTOR", "MIN_INSYNC_REPLICAS"):
        assert f"$${name}" in init["command"][2]
    brokers = [name for name, svc in services().items() if str(svc.get("image", "")).startswith("apache/kafka")
               and name != "kafka-init"]
    assert int(env["REPLICATION_FACTOR"]) <= len(brokers)
    assert int(env["MIN_INSYNC_REPLICAS"]) < int(env["REPLICATION_FACTOR"])
    bootstrap = {environment(svc)["FLEET_KAFKA_BOOTSTRAP"] for svc in ours().values()}
    assert bootstrap == {",".join(f"{b}:9092" for b in brokers)}


def test_the_topology_is_the_one_docs_scaling_computes() -> None:
    plan = load_arithmetic().doc_topology(100_000)
    workers = ours()["streams"]["deploy"]["replicas"]
    windows = {float(environment(svc)["FLEET_GATEWAY_BATCH_WINDOW_MS"]) for svc in _gateways().values()}
    assert (len(_gateways()), workers, _partitions()) == (plan.gateways, plan.workers, plan.partitions), (
        "docs/scaling.md's 100,000-vehicle column changed: update docker/compose.yaml and haproxy.cfg")
    assert windows == {float(plan.window_ms)}
    assert _partitions() >= workers


def test_dagster_instance_matches_fleet_ups() -> None:
    ours_yaml = yaml.safe_load((DOCKER / "dagster.yaml").read_text())
    fleet_up = yaml.safe_load(DAGSTER_YAML)
    assert {k: ours_yaml[k] for k in fleet_up} == fleet_up
    variable = ours_yaml["storage"]["postgres"]["postgres_url"]["env"]
    for name, svc in ours().items():
        if any("dagster" in argv[0] for argv in command_lines(svc)):
            assert "./dagster.yaml:/data/dagster/dagster.yaml:ro" in svc["volumes"], name
            assert environment(svc)[variable].startswith("postgresql+psycopg2://"), name


# -- what the cluster exposes (docs/security.md) -------------------------------------------------------------


def _required_variable(value: str) -> str:
    """The one ``${NAME:?...}`` variable `value` needs; fails when it has a default or names none."""
    names = {m["name"] for m in _INTERPOLATION.finditer(value)}
    assert len(names) == 1 and resolved(value) is None, f"{value!r}: a secret with a default, or none at all"
    return names.pop()


def _brokers() -> dict[str, dict[str, Any]]:
    return {name: svc for name, svc in services().items()
            if str(svc.get("image", "")).startswith("apache/kafka") and name != "kafka-init"}


def test_every_kafka_listener_wants_a_sasl_login_and_the_services_send_one() -> None:
    fleet_envs = {name: environment(svc) for name, svc in ours().items()}
    protocols = {(e["FLEET_KAFKA_SECURITY_PROTOCOL"], e["FLEET_KAFKA_SASL_MECHANISM"], e["FLEET_KAFKA_SASL_USERNAME"],
                  e["FLEET_KAFKA_SASL_PASSWORD"]) for e in fleet_envs.values()}
    assert len(protocols) == 1, f"every service must log in the same way: {protocols}"
    protocol, mechanism, username, password = protocols.pop()
    fleet_secret = _required_variable(password)
    for name, svc in _brokers().items():
        env = environment(svc)
        listeners = dict(item.split(":", 1) for item in env["KAFKA_LISTENER_SECURITY_PROTOCOL_MAP"].split(","))
        used = {item.split("://")[0] for item in env["KAFKA_LISTENERS"].split(",")}
        assert used <= listeners.keys() and set(listeners.values()) == {protocol}, f"{name}: a listener without SASL"
        assert env["KAFKA_SASL_ENABLED_MECHANISMS"].split(",") == [mechanism]
        assert env["KAFKA_SASL_MECHANISM_INTER_BROKER_PROTOCOL"] == env["KAFKA_SASL_MECHANISM_CONTROLLER_PROTOCOL"] == mechanism
        assert env["KAFKA_INTER_BROKER_LISTENER_NAME"] in used
        assert env["KAFKA_ADVERTISED_LISTENERS"].split("://")[0] in used
        for listener in used:
            jaas = env[f"KAFKA_LISTENER_NAME_{listener}_{mechanism}_SASL_JAAS_CONFIG"]
            assert "PlainLoginModule required" in jaas
            users = dict(re.findall(r'user_(\w+)="([^"]*)"', jaas))
            assert _required_variable(users[username]) == fleet_secret, f"{name} {listener}: user {username}"
            own = dict(re.findall(r'\b(username|password)="([^"]*)"', jaas))
            assert users[own["username"]] == own["password"]
            _required_variable(own["password"])
    # the one-shot topic creation and the health checks log in too (an anonymous client is refused)
    init = services()["kafka-init"]
    assert "--command-config /tmp/client.properties" in init["command"][2]
    for svc in [init, *_brokers().values()]:
        client = environment(svc)["CLIENT_JAAS_CONFIG"]
        assert f'username="{username}"' in client and _required_variable(client) == fleet_secret
    for svc in _brokers().values():
        assert "--command-config" in " ".join(svc["healthcheck"]["test"])


def test_postgresql_takes_scram_logins_with_a_password_from_the_environment() -> None:
    postgres = services()["postgres"]
    env = environment(postgres)
    assert env["POSTGRES_HOST_AUTH_METHOD"] == "scram-sha-256"
    assert "password_encryption=scram-sha-256" in postgres["command"]
    # the image's superuser is not the services' role, and has a secret of its own
    assert env["POSTGRES_USER"] != "fleet" and "POSTGRES_DB" not in env
    superuser_secret = _required_variable(env["POSTGRES_PASSWORD"])
    secret = _required_variable(env["SERVICE_ROLE_PASSWORD"])  # role fleet's, set by postgres-init.sh
    assert secret != superuser_secret
    assert "./postgres-init.sh:/docker-entrypoint-initdb.d/10-fleetwatch.sh:ro" in postgres["volumes"]
    urls = {f"{name} {key}": value for name, svc in services().items() for key, value in environment(svc).items()
            if key in ("FLEET_DATABASE_URL", "DAGSTER_POSTGRES_URL", "PGPASSWORD")}
    assert urls
    for where, value in urls.items():
        assert _required_variable(value) == secret, where
        assert "PGPASSWORD" in where or "://fleet:" in value, f"{where}: services log in as role fleet"


def test_only_the_terminal_and_browser_ports_are_published_beyond_this_host() -> None:
    published = {}
    for name, svc in services().items():
        for port in svc.get("ports") or []:
            host_ip, _, rest = str(port).rpartition(":")[0].rpartition(":")
            published[str(port).rsplit(":", 1)[1]] = (name, host_ip or "0.0.0.0")
    public = {port for port, (_, ip) in published.items() if ip != "127.0.0.1"}
    # 7620-7699: the media server's one-time ports (its `port` source policy, the only one behind HAProxy);
    # 7615: the JT/T 809 sub link the superior platform connects back to (it must present the verify code
    # of the main link's login); 7616: the main link server inferior platforms log in to; 7617 / 7618: the GB
    # gateway's GB/T 32960 and GB 17691 / HJ 1239 terminals (their VIN must name a vehicle of the records)
    assert public == {"7611", "7612", "7613", "7615", "7616", "7617", "7618", "8080", "7620-7699"}, published
    assert published["7617"][0] == published["7618"][0] == "gb-gateway"
    assert published["7615"][0] == "exchange"
    assert published["7616"][0] == "exchange"
    assert published["3070"][0] == "haproxy", "the Dagster UI (no sign-in of its own) only through the proxy"
    assert "ports" not in services()["dagster-webserver"]


def test_the_dagster_ui_is_behind_the_proxys_sign_in() -> None:
    frontend = haproxy_section("frontend dagster")
    assert "bind :3070" in frontend and "mode http" in frontend
    auth = re.search(r"^\s*http-request auth realm \w+ unless \{ http_auth\((\w+)\) \}", frontend, re.M)
    assert auth, "the dagster frontend asks for a sign-in"
    users = haproxy_section(f"userlist {auth[1]}")
    assert '"${DAGSTER_UI_PASSWORD}"' in users
    assert _required_variable(environment(services()["haproxy"])["DAGSTER_UI_PASSWORD"]) == "DAGSTER_UI_PASSWORD"
    assert re.search(r"^\s*server \S+ dagster-webserver:3070\b", haproxy_section("backend dagster"), re.M)


# -- `fleet up --topology cluster` (fleet/cluster.py): the same topology as processes on one machine --------


def test_the_local_cluster_takes_composes_settings() -> None:
    gateway_env = [environment(svc) for svc in _gateways().values()]
    for key, value in COMPOSE_SETTINGS.items():
        if key.startswith("FLEET_GATEWAY_"):
            found = {env.get(key) for env in gateway_env}
        elif key.startswith("FLEET_STREAMS_"):
            found = {environment(ours()["streams"]).get(key)}
        elif key.startswith("FLEET_ATTACHMENTS_"):
            found = {environment(svc).get(key) for svc in _attachment_servers().values()}
        else:
            found = {environment(svc).get(key) for svc in ours().values()}
        assert found == {value}, f"{key}: docker/compose.yaml has {found}, fleet/cluster.py {value!r}"
    init = environment(services()["kafka-init"])
    cluster = ClusterSettings()
    brokers = [name for name, svc in services().items() if str(svc.get("image", "")).startswith("apache/kafka")
               and name != "kafka-init"]
    assert (cluster.kafka_brokers, cluster.replication_factor, cluster.min_insync_replicas) == (
        len(brokers), int(init["REPLICATION_FACTOR"]), int(init["MIN_INSYNC_REPLICAS"]))


def test_the_local_balancer_spreads_terminals_like_composes_and_sends_the_proxy_header() -> None:
    local = haproxy_config(ClusterSettings(), GatewaySettings(), ApiSettings(), AttachmentsSettings())
    for backend in ("gateways", "attachments"):
        local_section = local.split(f"backend {backend}\n", 1)[1].split("\n\n", 1)[0]
        for text in (haproxy_section(f"backend {backend}"), local_section):
            assert re.search(r"^\s*balance leastconn$", text, re.M)
            assert re.search(r"^\s*default-server .*\bsend-proxy-v2\b", text, re.M)
    attachments = AttachmentsSettings()
    assert f"bind {attachments.host}:{attachments.port}" in local.split("frontend attachments\n", 1)[1]
    docker_cfg = (DOCKER / "haproxy.cfg").read_text()
    for timeout in ("client", "server"):
        docker_value = re.search(rf"^\s*timeout {timeout} (\S+)", docker_cfg, re.M)
        assert docker_value and docker_value[1] == TERMINAL_TIMEOUT
    assert f"bind {GatewaySettings().host}:{GatewaySettings().port}" in local
    assert re.findall(r"^\s*bind :(\d+)", haproxy_section("frontend jt808"), re.M) == [str(GatewaySettings().port)]


def test_the_local_cluster_replicates_what_compose_replicates() -> None:
    from fleet.cluster import cluster_specs

    specs = cluster_specs(child_specs(0, simulator=False), Path("/nonexistent/var"))
    names = [spec.name for spec in specs]
    cluster = ClusterSettings()
    assert [n for n in names if n.startswith("gateway-")] == [f"gateway-{i}" for i in range(1, cluster.gateways + 1)]
    assert len([n for n in names if n.startswith("streams-")]) == cluster.workers >= 2
    assert len([n for n in names if n.startswith("api-")]) == cluster.apis and "haproxy" in names
    uploads = [spec for spec in specs if spec.name.startswith("attachments-")]
    assert len(uploads) == cluster.attachment_servers == len(_attachment_servers()) and "attachments" not in names
    assert len({dict(spec.env)["FLEET_ATTACHMENTS_SERVER_ID"] for spec in uploads}) == len(uploads)
    assert names.index("haproxy") > max(names.index(n) for n in names
                                        if n.startswith(("gateway-", "api-", "attachments-")))
    gateway_ids = {dict(spec.env)["FLEET_GATEWAY_GATEWAY_ID"] for spec in specs if spec.name.startswith("gateway-")}
    assert len(gateway_ids) == cluster.gateways, "connection ids are <gateway id>-<n>: ids must differ"
    ports = [spec.port for spec in specs if spec.port] + [p for spec in specs for p, _ in spec.more_ports]
    assert len(ports) == len(set(ports)), "two children of the cluster on one port"
    # the process kinds compose replicates are the ones replicated here
    replicated = {_target(command_lines(svc)[0]) for name, svc in ours().items()
                  if name != "streams" and re.fullmatch(r".+-\d+", name)} | {_target(command_lines(ours()["streams"])[0])}
    assert replicated == {_target(spec.argv) for spec in specs
                          if re.fullmatch(r"(gateway|attachments|streams)-\d+", spec.name)}


def test_the_cluster_apis_read_the_client_address_haproxy_forwards(monkeypatch: pytest.MonkeyPatch) -> None:
    """Behind the balancer every request's peer is HAProxy on loopback: the APIs must trust its
    X-Forwarded-For, or one client's failed logins would throttle every user (api/addresses.py)."""
    import json

    from api.addresses import client_address, parse_networks
    from fleet.cluster import cluster_specs

    monkeypatch.setenv("FLEET_API_TRUSTED_PROXIES", '["10.0.0.0/8"]')  # a proxy in front of HAProxy
    specs = [spec for spec in cluster_specs(child_specs(0, simulator=False), Path("/nonexistent/var"))
             if spec.name.startswith("api-")]
    assert specs
    for spec in specs:
        trusted = json.loads(dict(spec.env)["FLEET_API_TRUSTED_PROXIES"])
        assert trusted == ["10.0.0.0/8", "127.0.0.1/32"]
        networks = parse_networks(trusted)
        assert client_address("127.0.0.1", "203.0.113.7", "X-Forwarded-For", networks) == "203.0.113.7"
        assert client_address("127.0.0.1", "198.51.100.9, 203.0.113.7", "X-Forwarded-For", networks) == "203.0.113.7"
