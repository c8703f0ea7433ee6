"""Smoke test: `fleet up` brings every component up healthy, the simulated fleet moves, and it stops cleanly."""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fleet.services.postgres import PostgresServer
from tests.support.stack import SessionStack


def test_fleet_up_starts_every_component_healthy_shows_moving_vehicles_and_stops_cleanly(
    _session_stack: SessionStack, tmp_path: Path, free_port: Callable[[], int]
) -> None:
    """`fleet up` as `make up` runs it, once: its own PostgreSQL (password logins only, docs/security.md) and its own
    Kafka under its var/; every component is healthy in the status table, which shows neither the database password
    nor a Dagster UI off loopback; the first start renders the analyst notebooks' pages; the simulated vehicles report
    live, newer fixes through the API, and the terminal fences reach them and their crossings come back; SIGTERM
    stops everything, leaving no process behind."""
    import signal
    import time

    import requests

    gateway_port, api_port = free_port(), free_port()
    var_dir = _session_stack.dir / f"fleet-up-{secrets.token_hex(3)}"  # the postgres user must reach it
    var_dir.mkdir(mode=0o755)
    env = {
        **os.environ,
        "FLEET_DATABASE_URL": "",
        "FLEET_STACK_POSTGRES_PORT": str(free_port()),
        # its own broker under its var/, as `make up` has: on the session's broker its simulated terminals
        # (the demo's phones) and their offline events at shutdown reached the shared e2e stack's worker too,
        # which then held that stack's terminals offline (a 409 for every later video command)
        "FLEET_KAFKA_BOOTSTRAP": "",
        "FLEET_STACK_KAFKA_PORT": str(free_port()),
        "FLEET_STACK_KAFKA_CONTROLLER_PORT": str(free_port()),
        "FLEET_STACK_VAR_DIR": str(var_dir),
        "FLEET_STACK_SIMULATE_INTERVAL_S": "1",
        "FLEET_GATEWAY_PORT": str(gateway_port),
        "FLEET_SIMULATOR_GATEWAY_PORT": str(gateway_port),
        "FLEET_SIMULATOR_AUTH_CACHE": str(tmp_path / "simulator-auth.json"),
        "FLEET_API_PORT": str(api_port),
        "FLEET_ATTACHMENTS_PORT": str(free_port()),
        "FLEET_MEDIA_SERVER_PORT": str(free_port()),
        "FLEET_GB_GATEWAY_PORT": str(free_port()),
        "FLEET_GB_GATEWAY_EMISSION_PORT": str(free_port()),
        # the regulator in a box and the demo superior platform's sub link (the seed follows both)
        "FLEET_REGULATOR_PORT": str(free_port()),
        "FLEET_REGULATOR_STATUS_PORT": str(free_port()),
        "FLEET_EXCHANGE_DEMO_DOWN_LINK_PORT": str(free_port()),
        "FLEET_GB32960_EXCHANGE_BOX_PORT": str(free_port()),  # the GB/T 32960 superior in a box, the seed follows
        "FLEET_STREAMS_WEB_PORT": str(free_port()),
        "FLEET_STREAMS_APP_ID": f"fleet-up-smoke-{secrets.token_hex(3)}",
        "FLEET_STREAMS_DATA_DIR": str(tmp_path / "faust"),
        "FLEET_REPORT_DAGSTER_PORT": str(free_port()),
        "FLEET_REPORT_NOTEBOOK_SERVER_PORT": str(free_port()),
        "FLEET_REPORT_HISTORY_DAYS": "2",  # the month of make up, shortened: the reports' first start runs
    }
    fleet = Path(sys.executable).with_name("fleet")
    out_file = tmp_path / "fleet-up.out"
    out = out_file.open("w")
    proc = subprocess.Popen([str(fleet), "up", "--terminals", "10"], env=env, stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{api_port}"

    def output() -> str:
        return out_file.read_text()

    def report() -> str:
        logs = "\n".join(f"--- {p.name}\n{p.read_text()[-1500:]}" for p in sorted((var_dir / "log").glob("*.log")))
        return output()[-4000:] + "\n" + logs

    try:
        # The status table, printed once every component had its health check (its last line names the logs).
        deadline = time.monotonic() + 300
        while not any(line.startswith("logs:") for line in output().splitlines()) and time.monotonic() < deadline:
            assert proc.poll() is None, report()
            time.sleep(0.5)
        shown = output()
        assert any(line.startswith("logs:") for line in shown.splitlines()), "no status table:\n" + report()
        for component in ("postgresql", "gateway", "gb-gateway", "attachments", "media", "streams", "api", "regulator",
                          "gb32960-superior", "exchange", "dagster-webserver", "dagster-daemon", "notebooks", "simulator"):
            assert any(line.split()[:2] in ([component, "healthy"], [component, "running"])
                       for line in shown.splitlines()), f"{component} not healthy:\n" + report()
        password = (var_dir / "postgres.password").read_text().strip()
        assert password and password not in shown, "the database password was printed"
        assert "postgresql://fleet:***@127.0.0.1:" in shown
        dagster = env["FLEET_REPORT_DAGSTER_PORT"]
        assert f"dagster: http://127.0.0.1:{dagster}/  (127.0.0.1 only" in shown
        token_file = (var_dir / "notebooks.token").read_text().strip()
        notebooks = env["FLEET_REPORT_NOTEBOOK_SERVER_PORT"]
        assert f"notebooks: http://127.0.0.1:{notebooks}/lab?token={token_file}  (JupyterLab, 127.0.0.1 only" in shown
        login = next(line for line in shown.splitlines() if line.startswith("login:"))
        user, _, login_password = login.removeprefix("login:").strip().partition(" / ")
        assert user == "admin" and login_password, login

        deadline = time.monotonic() + 240
        token = None
        while token is None and time.monotonic() < deadline:
            assert proc.poll() is None, report()
            try:
                reply = requests.get(f"{base}/oauth2/token.json", timeout=5, params={
                    "grant_type": "password", "username": user, "password": login_password}).json()
                token = reply["data"]["access_token"] if reply["code"] == 0 else None
            except requests.RequestException:
                time.sleep(1)
        assert token, "the API never answered a login:\n" + report()
        headers = {"Authorization": f"Bearer {token}"}
        cars = requests.post(f"{base}/api/common/query/carView.json", headers=headers, json={}, timeout=10,
                             params={"isParent": "true", "pageSize": 10, "select": "carId,masterDeviceId"}).json()
        device_ids = [row["masterDeviceId"] for row in cars["data"]["list"]]
        assert len(device_ids) == 10, cars

        def positions() -> dict[int, tuple[float, float, str]]:
            seen = {}
            for device_id in device_ids:
                data = requests.get(f"{base}/api/gps/device/{device_id}/last.json", headers=headers,
                                    params={"isParent": "true"}, timeout=10).json()["data"]
                if data:
                    seen[device_id] = (data["lng"], data["lat"], data["time"])
            return seen

        first: dict[int, tuple[float, float, str]] = {}
        while len(first) < len(device_ids) and time.monotonic() < deadline:
            first = positions()
            time.sleep(1)
        assert len(first) == len(device_ids), "vehicles without a position:\n" + report()
        # The first positions may be the seeded history's last fixes (`fleet up` loads history before the
        # simulator connects): every vehicle must then report live, newer fixes. Simulated vehicles start
        # parked for up to 60 s (staggered starts), then drive.
        moved: list[int] = []
        newer: list[int] = []
        later = first
        while (len(moved) < len(device_ids) // 2 or len(newer) < len(device_ids)) and time.monotonic() < deadline:
            time.sleep(3)
            later = positions()
            moved = [d for d in device_ids if later[d][:2] != first[d][:2]]
            newer = [d for d in device_ids if later[d][2] > first[d][2]]
        assert len(newer) == len(device_ids), f"positions did not advance: {first} -> {later}"
        assert len(moved) >= len(device_ids) // 2, f"only {len(moved)} vehicles moved: {first} -> {later}"

        _terminal_fences_reach_the_simulated_terminals_and_their_crossings_come_back(base, headers, moved, deadline,
                                                                                   report)

        # The first start's reports and notebook pages, as Dagster runs beside the running stack.
        while "notebooks: rendered by a Dagster run" not in output() and time.monotonic() < deadline:
            assert "NOT rendered" not in output(), report()
            time.sleep(1)
        assert "notebooks: rendered by a Dagster run" in output(), report()
        assert json.loads((var_dir / "notebook_pages" / "index.json").read_text())[0]["title"]

        assert _listening_addresses(int(dagster)) == {"127.0.0.1"}, "the Dagster UI (no sign-in) off loopback"

        # The demo GB/T 32960 link is AES-128: the box decrypts the simulated electric vehicles' frames with the key
        # the first start made (warehouse/gb32960_exchange_seed.py), which no log line shows.
        box_log = var_dir / "log" / "gb32960-superior.log"
        while not _aes_frames(box_log) and time.monotonic() < deadline:
            time.sleep(1)
        assert _aes_frames(box_log), "no AES-128 frame reached the superior in a box:\n" + report()
        key_hex, _, iv_hex = (var_dir / "gb32960-box-aes").read_text().strip().partition(":")
        assert len(key_hex) == len(iv_hex) == 32
        assert key_hex not in output() and key_hex not in box_log.read_text()

        children = _descendants(proc.pid)
        assert len(children) >= 4, f"expected gateway, streams, api and simulator below fleet up: {children}"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=90) == 0, report()
        time.sleep(1)
        orphans = [pid for pid in children if _alive(pid)]
        assert not orphans, f"processes left after fleet up stopped: {orphans}"
        assert password not in output(), "the database password was printed"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)
        out.close()
        PostgresServer(var_dir / "postgres", 0).destroy()  # `fleet up` stopped it; its data goes too


def _aes_frames(box_log: Path) -> int:
    """The AES-128 data frames the superior in a box counted last (its log line every 10 s; exchange/gb32960/cli.py)."""
    counts = re.findall(r"\((\d+) of them AES-128\)", box_log.read_text()) if box_log.exists() else []
    return int(counts[-1]) if counts else 0


def _descendants(pid: int) -> set[int]:
    """Every live process below `pid`, read from /proc."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _listening_addresses(port: int) -> set[str]:
    """IPv4 / IPv6 addresses a socket listens on at `port`, from /proc/net/tcp{,6} (state 0A: LISTEN)."""
    import ipaddress

    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, _, hex_port = local.partition(":")
            if state == "0A" and int(hex_port, 16) == port:
                raw = bytes.fromhex(address)
                # the kernel prints each 32-bit word in host (little-endian) order
                packed = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))
                found.add(str(ipaddress.ip_address(packed)))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _terminal_fences_reach_the_simulated_terminals_and_their_crossings_come_back(
        base: str, headers: dict[str, str], moving: list[int], deadline: float, report: Callable[[], str]) -> None:
    """The seeded terminal fence (warehouse/fence_seed.py, 物流园) is held by the subsidiary's simulated terminals
    (its 0x8602 acknowledged); and a simulated terminal reports crossing a terminal fence itself: a 600 m circle
    around each moving vehicle, bound to it, is left within a minute or so, and that 0x12 is an inOutAlarm row of
    source terminal named after the fence. (Waiting for a crossing of the seeded rectangle would take tens of
    minutes with the test's 10 terminals: about 0.7 crossings a vehicle-hour.)"""
    import time

    import requests

    def post(path: str, body: dict[str, Any], **params: Any) -> Any:
        reply = requests.post(f"{base}{path}", headers=headers, json=body, params={"isParent": "true", **params},
                              timeout=10).json()
        assert reply["code"] == 0, reply
        return reply["data"]

    held: list[Any] = []
    while not held and time.monotonic() < deadline:
        held = post("/api/common/query/fenceSync.json", {"fenceName.eq": "物流园", "state.eq": "acknowledged"})["list"]
        time.sleep(1)
    assert held, "the seeded terminal fence never reached a simulated terminal:\n" + report()

    names = {}
    for device_id in moving:
        last = requests.get(f"{base}/api/gps/device/{device_id}/last.json", headers=headers,
                            params={"isParent": "true"}, timeout=10).json()["data"]
        name = f"e2e-{secrets.token_hex(3)}"
        fence = post("/api/common/fence.json", {
            "name": name, "enterpriseId": last["enterpriseId"], "fenceType": 2, "businessType": 2, "shape": "circle",
            "geometry": {"center": [last["lng"], last["lat"]], "radius": 600}, "attributes": [3, 5]})
        post(f"/api/fence/{fence['id']}/bind.json", {"carIds": [last["carId"]]})
        names[fence["id"]] = name
    rows: list[Any] = []
    crossing_deadline = time.monotonic() + 150
    while not rows and time.monotonic() < crossing_deadline:
        time.sleep(3)
        found = post("/api/common/query/inOutAlarm.json", {"source.eq": "terminal"}, pageSize=100)["list"]
        rows = [r for r in found if r.get("fenceId") in names and str(r.get("key", "")).startswith("tfence:")]
    assert rows, "no simulated terminal reported crossing its terminal fence:\n" + report()
    assert all(r["fenceName"] == names[r["fenceId"]] and r["kind"] in ("enter", "leave") for r in rows), rows
