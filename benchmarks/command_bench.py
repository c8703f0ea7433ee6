"""Command round trip with many online terminals: API -> Kafka -> gateway -> terminal ->
reply -> Kafka -> streams worker -> command row answered.

    .venv/bin/python benchmarks/command_bench.py [--terminals 1000] [--rounds 2] [--rate 200] [--command 8104]

Starts private PostgreSQL and Kafka (or uses FLEET_DATABASE_URL / FLEET_KAFKA_BOOTSTRAP), inserts the
devices, runs `python -m gateway`, `python -m streams worker` and `fleet simulate` (heartbeats only;
every simulated terminal answers at once: no unsupported or silent share) as subprocesses, waits until
every terminal is online, then sends `--rounds` commands per terminal through the API (in this process,
`--threads` HTTP clients, paced at `--rate` per second overall).

Round trip = command ``updated_at`` when answered - ``created_at`` (both PostgreSQL's clock): from the
row written by the API to the reply committed by the worker. Also prints the API's own reply time
(row + audit + Kafka acknowledgement). Prints a markdown row for docs/performance.md. Never a timed
assertion.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import psycopg

from fleet.enums import DeviceState
from fleet.phones import canonical_phone
from tests.support.ports import free_port

PREFIX = "0136"
PASSWORD = "Bench@2026x"
BODIES: dict[str, dict[str, Any]] = {
    "8104": {},
    "8103": {"paramList": [{"id": "0055", "value": 80}]},
    "8201": {},
    "8300": {"content": "前方拥堵，请注意安全", "tts": True},
}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def prepare(url: str, terminals: int) -> tuple[str, list[int]]:
    """Enterprise, cars, devices (no auth code: the simulator registers) and a user allowed to command."""
    from warehouse.passwords import hash_password
    from warehouse.seed import seed_demo

    seed_demo(url, terminals=0)  # the permission catalogue

    tag = uuid.uuid4().hex[:6]
    with psycopg.connect(url, autocommit=True) as conn:
        ent = conn.execute("INSERT INTO enterprise (name, short_name) VALUES (%s, 'bench') RETURNING id",
                           (f"command-bench-{tag}",)).fetchone()[0]  # type: ignore[index]
        conn.execute("UPDATE enterprise SET path = %s WHERE id = %s", (f"/{ent}/", ent))
        devices = []
        for i in range(1, terminals + 1):
            car = conn.execute("INSERT INTO car (enterprise_id, plate_number) VALUES (%s, %s) RETURNING id",
                               (ent, f"B{tag}{i:05d}")).fetchone()[0]  # type: ignore[index]
            device = conn.execute(
                "INSERT INTO device (enterprise_id, car_id, phone, device_sn) VALUES (%s, %s, %s, %s) RETURNING id",
                (ent, car, canonical_phone(f"{PREFIX}{i:08d}"), f"SIM{i:07d}")).fetchone()[0]  # type: ignore[index]
            conn.execute("UPDATE car SET master_device_id = %s WHERE id = %s", (device, car))
            devices.append(device)
        user = f"bench_{tag}"
        user_id = conn.execute("INSERT INTO app_user (enterprise_id, user_name, password_hash, name)"
                               " VALUES (%s, %s, %s, %s) RETURNING id",
                               (ent, user, hash_password(PASSWORD), user)).fetchone()[0]  # type: ignore[index]
        role = conn.execute("INSERT INTO role (enterprise_id, name) VALUES (%s, %s) RETURNING id",
                            (ent, f"bench {tag}")).fetchone()[0]  # type: ignore[index]
        conn.execute("INSERT INTO role_permission (role_id, permission_code, actions) VALUES (%s, 'command', %s)",
                     (role, ["cmd", "get"]))
        conn.execute("INSERT INTO user_role (user_id, role_id) VALUES (%s, %s)", (user_id, role))
    return user, devices


def online_count(url: str, devices: list[int]) -> int:
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("SELECT count(*) FROM device WHERE id = ANY(%s) AND state = %s",
                           (devices, int(DeviceState.ONLINE))).fetchone()
    return int(row[0]) if row else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--terminals", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=2, help="commands per terminal")
    parser.add_argument("--rate", type=float, default=200.0, help="commands per second, overall")
    parser.add_argument("--threads", type=int, default=16, help="concurrent HTTP clients")
    parser.add_argument("--command", choices=sorted(BODIES), default="8104")
    parser.add_argument("--settle", type=float, default=40.0, help="longest wait for the last answers, s")
    parser.add_argument("--warmup", type=float, default=15.0, help="wait after all are online (login backlog), s")
    args = parser.parse_args()

    from api import create_app
    from api.commands import Downlinks
    from api.services import DOWNLINKS_KEY
    from fleet.settings import ApiSettings
    from tests.support.stack import SessionStack

    stack = SessionStack()
    procs: list[subprocess.Popen[bytes]] = []
    try:
        db_url, bootstrap = stack.database_url(), stack.kafka_bootstrap()
        user, devices = prepare(db_url, args.terminals)
        port = free_port()
        env = {**os.environ, "FLEET_DATABASE_URL": db_url, "FLEET_KAFKA_BOOTSTRAP": bootstrap,
               "FLEET_GATEWAY_HOST": "127.0.0.1", "FLEET_GATEWAY_PORT": str(port),
               "FLEET_STREAMS_APP_ID": f"command-bench-{uuid.uuid4().hex[:6]}", "FLEET_STREAMS_WEB_ENABLED": "false",
               "FLEET_STREAMS_DATA_DIR": str(stack.dir / "faust"), "FLEET_STREAMS_BATCH_WINDOW_S": "0.05",
               "FLEET_STREAMS_AUTO_OFFSET_RESET": "latest",
               "FLEET_SIMULATOR_GATEWAY_PORT": str(port), "FLEET_SIMULATOR_PHONE_PREFIX": PREFIX,
               "FLEET_SIMULATOR_AUTH_CACHE": str(stack.dir / "auth.json"),
               "FLEET_SIMULATOR_UNSUPPORTED_SHARE": "0", "FLEET_SIMULATOR_SILENT_SHARE": "0"}
        for name, command in (("gateway", [sys.executable, "-m", "gateway"]),
                              ("streams", [sys.executable, "-m", "streams", "worker"])):
            procs.append(subprocess.Popen(command, env=env, stdout=(stack.dir / f"{name}.log").open("wb"),
                                          stderr=subprocess.STDOUT))
        time.sleep(8)  # gateway listening, worker joined its group
        procs.append(subprocess.Popen(
            [str(Path(sys.executable).parent / "fleet"), "simulate", "--terminals", str(args.terminals), "--interval", "0"],
            env=env, stdout=(stack.dir / "simulator.log").open("wb"), stderr=subprocess.STDOUT))
        deadline = time.monotonic() + 180
        while online_count(db_url, devices) < args.terminals and time.monotonic() < deadline:
            time.sleep(1)
        online = online_count(db_url, devices)
        print(f"{online}/{args.terminals} terminals online; logs under {stack.dir}", flush=True)
        time.sleep(args.warmup)

        app = create_app(ApiSettings(token_secret="command-bench"), db_url, var_dir=stack.dir / "api")
        app.extensions[DOWNLINKS_KEY] = Downlinks(bootstrap, 10.0)
        client = app.test_client()
        token = client.get("/oauth2/token.json", query_string={"grant_type": "password", "username": user,
                                                               "password": PASSWORD}).get_json()
        headers = {"Authorization": f"Bearer {token['data']['access_token']}"}
        body = BODIES[args.command]

        def send(device: int) -> tuple[int | None, float]:
            started = time.perf_counter()
            reply = client.post(f"/api/device/{device}/command/{args.command}.json", headers=headers, json=body)
            elapsed = time.perf_counter() - started
            data = reply.get_json()
            return (data["data"]["id"] if reply.status_code == 200 else None), elapsed

        api_times: list[float] = []
        ids: list[int] = []
        refused = 0
        interval = 1.0 / args.rate
        started = time.perf_counter()
        with ThreadPoolExecutor(args.threads) as pool:
            futures = []
            for n in range(args.rounds * len(devices)):
                delay = started + n * interval - time.perf_counter()
                if delay > 0:
                    time.sleep(delay)
                futures.append(pool.submit(send, devices[n % len(devices)]))
            for future in futures:
                command_id, elapsed = future.result()
                api_times.append(elapsed)
                if command_id is None:
                    refused += 1
                else:
                    ids.append(command_id)
        send_s = time.perf_counter() - started
        deadline = time.monotonic() + args.settle
        with psycopg.connect(db_url, autocommit=True) as conn:
            while time.monotonic() < deadline:
                open_ = conn.execute("SELECT count(*) FROM command WHERE id = ANY(%s) AND state IN ('created', 'sent')",
                                     (ids,)).fetchone()[0]  # type: ignore[index]
                if open_ == 0:
                    break
                time.sleep(0.5)
            rows = conn.execute(
                "SELECT state, extract(epoch FROM updated_at - created_at), extract(epoch FROM sent_at - created_at),"
                " extract(epoch FROM answered_at - sent_at), extract(epoch FROM updated_at - answered_at)"
                " FROM command WHERE id = ANY(%s)", (ids,)
            ).fetchall()
        answered = [float(row[1]) * 1000 for row in rows if row[0] == "answered"]
        for index, stage in ((2, "API row -> gateway wrote it (sent_at)"),
                             (3, "written -> reply received by the gateway (answered_at)"),
                             (4, "reply received -> committed by the worker")):
            values = [float(row[index]) * 1000 for row in rows if row[0] == "answered"]
            if values:
                print(f"  {stage}: p50 {statistics.median(values):.0f} ms, p99 {percentile(values, 0.99):.0f} ms")
        states: dict[str, int] = {}
        for state, *_ in rows:
            states[state] = states.get(state, 0) + 1
        api_ms = [t * 1000 for t in api_times]
        print(f"sent {len(ids)} in {send_s:.1f} s ({len(ids) / send_s:.0f}/s), refused {refused}; states {states}")
        print("| terminals online | command | commands | rate/s | answered | round trip p50 ms | p99 ms | max ms |"
              " API reply p50 ms | p99 ms |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        print(f"| {online} | {args.command} | {len(ids)} | {len(ids) / send_s:.0f} | {len(answered)} | "
              f"{statistics.median(answered) if answered else float('nan'):.0f} | {percentile(answered, 0.99):.0f} | "
              f"{max(answered) if answered else float('nan'):.0f} | {statistics.median(api_ms):.1f} | "
              f"{percentile(api_ms, 0.99):.1f} |", flush=True)
        app.extensions[DOWNLINKS_KEY].close()
    finally:
        for proc in reversed(procs):
            proc.terminate()
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
        stack.close()


if __name__ == "__main__":
    main()
