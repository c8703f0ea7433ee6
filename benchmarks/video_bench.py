"""Live video benchmarks. Never a timed assertion; prints markdown rows for docs/performance.md.

    .venv/bin/python benchmarks/video_bench.py relay [--streams 4,8,16,24] [--viewers 2] [--seconds 20]
    .venv/bin/python benchmarks/video_bench.py first-frame [--rounds 20]
    .venv/bin/python benchmarks/video_bench.py guards [--idle 2000]

``relay``: one media server process (``gateway.video`` with no database: NullPlatform) relays N simulated
720p terminals (the install-time clip: 1280x720, 25 fps, ~1.1 Mbit/s, GOP 1 s, plus 8 kHz G.711A audio
transcoded to AAC) to ``--viewers`` HTTP-FLV viewers each. The terminals and viewers run in this process.
Reported per N: the media server's CPU (user + system, from /proc) over the window, CPU per stream, and
whether every viewer kept up (video frames received / frames expected; behind = a viewer that got less than
95 %).

``first-frame``: the server side of "click to first frame": the API (in this process, Flask test client)
answers ``POST /api/command/{carId}/9101.json``, the 0x9101 goes API -> Kafka -> gateway -> the simulated
terminal, which connects to the media server and streams; a viewer opens the answered flvUrl at once (as
the console does). Times from the request: the API's reply, the viewer's first byte, its first video tag
(the key frame: the first picture a browser can show). Private PostgreSQL and Kafka (tests/support/stack.py).

``guards``: the attacks on port 7612 against one media server process (``serve``), a stream fed by a
simulated camera on 127.0.0.1 (its session address) and one viewer: a client on 127.0.0.2 sends 4 s of
another picture with the camera's SIM and channel (what the viewer got: real and forged frames, told apart by
their AVC sequence header); then ``--idle`` silent sockets from 127.0.0.2, how many the server still holds
after 6 s, and a new viewer's first byte meanwhile.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.procstat import cpu_s

SECRET = b"video-bench-secret"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


# -- relay --------------------------------------------------------------------------------------------

def serve(port: int) -> None:
    """The media server alone (the relay benchmark's child process)."""
    from fleet.settings import MediaServerSettings
    from gateway.video.server import MediaServer

    async def main() -> None:
        server = MediaServer(MediaServerSettings(host="127.0.0.1", port=port, idle_stop_s=3600), SECRET)
        await server.start()
        print("ready", flush=True)
        await asyncio.Event().wait()

    asyncio.run(main())


async def _viewer(port: int, path: str, stats: dict[str, int], stop: asyncio.Event) -> None:
    from gateway.video.flv import FlvReader

    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: bench\r\n\r\n".encode())
    await reader.readuntil(b"\r\n\r\n")
    flv = FlvReader()
    try:
        while not stop.is_set():
            data = await reader.read(262144)
            if not data:
                break
            stats["bytes"] += len(data)
            for tag in flv.feed(data):
                if tag.tag_type == 9 and not tag.is_config:
                    stats["video"] += 1
    finally:
        writer.close()


async def _relay_round(port: int, streams: int, viewers: int, seconds: float, pid: int) -> dict[str, Any]:
    from fleet.video_tokens import internal_key, sign
    from simulator.video import MediaSession
    from simulator.video_clips import ClipLibrary

    clips = ClipLibrary(per_plate=False)
    audio = clips.audio()
    sessions, tasks = [], []
    key = internal_key(SECRET)
    for n in range(streams):
        sim = f"0199{n:08d}"
        body = json.dumps({"streamId": f"{n + 1}-1-live", "kind": "live", "sim": sim, "channel": 1, "dataType": 0,
                           "streamType": 0, "enterpriseId": 1, "deviceId": n + 1,
                           "sourceAddress": "127.0.0.1"}).encode()  # the terminals' 808 sessions: loopback
        r, w = await asyncio.open_connection("127.0.0.1", port)
        w.write(b"POST /internal/streams HTTP/1.1\r\nHost: b\r\nAuthorization: Bearer " + key.encode()
                + b"\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
        await r.read(65536)
        w.close()
        session = MediaSession("127.0.0.1", port, sim, 1, clips.clip("SIMULATOR", (n % 4) + 1, "main"), audio)
        sessions.append(session)
        tasks.append(asyncio.create_task(session.run()))
    await asyncio.sleep(2.0)  # every stream up and keyed
    stop = asyncio.Event()
    stats = [{"bytes": 0, "video": 0} for _ in range(streams * viewers)]
    viewer_tasks = []
    for n in range(streams):
        token, _ = sign(SECRET, f"{n + 1}-1-live", 1, None, ttl_s=600)
        for v in range(viewers):
            viewer_tasks.append(asyncio.create_task(_viewer(port, f"/live/{n + 1}-1-live.flv?token={token}",
                                                            stats[n * viewers + v], stop)))
    await asyncio.sleep(1.0)
    for s in stats:
        s["bytes"] = s["video"] = 0
    cpu0, load0, t0 = cpu_s(pid), time.process_time(), time.monotonic()
    await asyncio.sleep(seconds)
    cpu1, load1, elapsed = cpu_s(pid), time.process_time(), time.monotonic() - t0
    stop.set()
    for session in sessions:
        session.stop()
    await asyncio.gather(*tasks, *viewer_tasks, return_exceptions=True)
    expected = elapsed * 25
    ratios = [s["video"] / expected for s in stats]
    server_cpu = (cpu1 - cpu0) / elapsed
    return {"streams": streams, "viewers": streams * viewers, "server_cpu_pct": 100 * server_cpu,
            "cpu_ms_per_stream_s": 1000 * server_cpu / streams, "load_cpu_pct": 100 * (load1 - load0) / elapsed,
            "mbit_in": sum(s.counters.bytes_sent for s in sessions) * 8 / 1e6 / (elapsed + 3),
            "mbit_out": sum(s["bytes"] for s in stats) * 8 / 1e6 / elapsed,
            "kept_up": sum(r >= 0.95 for r in ratios), "worst": min(ratios) if ratios else 0.0}


def relay(stream_counts: list[int], viewers: int, seconds: float) -> None:
    from tests.support.ports import free_port

    port = free_port()
    child = subprocess.Popen([sys.executable, __file__, "serve", "--port", str(port)], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        print(f"load average {os.getloadavg()[0]:.1f}; {viewers} HTTP-FLV viewer(s) per stream, {seconds:g} s window")
        print("| streams | viewers | media server CPU | CPU per stream | in Mbit/s | out Mbit/s | viewers kept up "
              "(>= 95 % of frames) | worst viewer | load generator CPU |")
        print("|---|---|---|---|---|---|---|---|---|")
        for count in stream_counts:
            r = asyncio.run(_relay_round(port, count, viewers, seconds, child.pid))
            print(f"| {r['streams']} | {r['viewers']} | {r['server_cpu_pct']:.0f} % | {r['cpu_ms_per_stream_s']:.1f} ms/s "
                  f"({r['cpu_ms_per_stream_s'] / 10:.1f} %) | {r['mbit_in']:.1f} | {r['mbit_out']:.1f} | "
                  f"{r['kept_up']} / {r['viewers']} | {100 * r['worst']:.0f} % | {r['load_cpu_pct']:.0f} % |", flush=True)
    finally:
        child.terminate()
        child.wait(10)


# -- first frame ----------------------------------------------------------------------------------------

def first_frame(rounds: int) -> None:
    import random
    import threading
    import urllib.request
    import uuid
    from datetime import UTC, datetime

    import psycopg

    from api import create_app
    from api.commands import Downlinks
    from api.media import MEDIA_KEY, MediaClient
    from api.services import DOWNLINKS_KEY
    from fleet.settings import ApiSettings, MediaServerSettings
    from gateway.video.server import MediaServer
    from simulator.driving import Vehicle
    from simulator.fleet import MemoryAuthStore
    from simulator.terminal import TerminalConfig, VirtualTerminal
    from simulator.video_clips import ClipLibrary
    from simulator.video_terminal import VideoTerminal
    from tests.integration.gateway.support import running_gateway
    from tests.support.ports import free_port
    from tests.support.stack import SessionStack
    from warehouse.passwords import hash_password
    from warehouse.seed import seed_demo

    stack = SessionStack()
    tmp = Path(tempfile.mkdtemp(prefix="video-bench-"))
    try:
        pg_url, bootstrap = stack.database_url(), stack.kafka_bootstrap()
        seed_demo(pg_url, terminals=0)
        tag = uuid.uuid4().int % 10**8
        phone = f"0157{tag:08d}"
        with psycopg.connect(pg_url, autocommit=True) as conn:
            ent = conn.execute("INSERT INTO enterprise (name, short_name) VALUES (%s, 'vb') RETURNING id",
                               (f"video-bench-{tag}",)).fetchone()[0]  # type: ignore[index]
            conn.execute("UPDATE enterprise SET path = %s WHERE id = %s", (f"/{ent}/", ent))
            car = conn.execute("INSERT INTO car (enterprise_id, plate_number) VALUES (%s, '京V·00001') RETURNING id",
                               (ent,)).fetchone()[0]  # type: ignore[index]
            device = conn.execute(
                "INSERT INTO device (enterprise_id, car_id, phone, device_sn, auth_code, has_video, video_channel)"
                " VALUES (%s, %s, %s, %s, 'VB', 1, '1,2,3,4') RETURNING id", (ent, car, phone.lstrip("0"), f"VB{tag}"),
            ).fetchone()[0]  # type: ignore[index]
            conn.execute("UPDATE car SET master_device_id = %s WHERE id = %s", (device, car))
            user = conn.execute("INSERT INTO app_user (enterprise_id, user_name, password_hash, name) VALUES"
                                " (%s, %s, %s, 'bench') RETURNING id", (ent, f"vb{tag}", hash_password("Bench@2026x"))
                                ).fetchone()[0]  # type: ignore[index]
            role = conn.execute("INSERT INTO role (enterprise_id, name) VALUES (%s, 'vb') RETURNING id",
                                (ent,)).fetchone()[0]  # type: ignore[index]
            conn.execute("INSERT INTO role_permission (role_id, permission_code, actions) VALUES (%s, 'command', %s)",
                         (role, ["cmd", "get"]))
            conn.execute("INSERT INTO user_role (user_id, role_id) VALUES (%s, %s)", (user, role))

        loop = asyncio.new_event_loop()
        threading.Thread(target=loop.run_forever, daemon=True).start()
        media = MediaServer(MediaServerSettings(host="127.0.0.1", port=0), SECRET)
        asyncio.run_coroutine_threadsafe(media.start(), loop).result(10)
        gateway_port = free_port()
        ready = threading.Event()
        done = asyncio.Event()

        async def run_gateway() -> None:
            async with running_gateway(pg_url, bootstrap, gateway_port) as gateway:
                async with asyncio.timeout(30):
                    await gateway.downlinks_ready.wait()
                config = TerminalConfig(host="127.0.0.1", port=gateway_port, interval_s=30, heartbeat_interval_s=30,
                                        ack_timeout_s=10, backlog_batch_items=20, reconnect_min_s=0.2,
                                        reconnect_max_s=1, reply_timeout_s=10)
                rng = random.Random(1)
                terminal = VirtualTerminal(1, phone, "VB00001", config, Vehicle(rng, 39.9, 116.4, 5), rng,
                                           MemoryAuthStore({phone: "VB"}), datetime.now(UTC).replace(microsecond=0),
                                           plate="京V·00001")
                terminal.responder.video = VideoTerminal(phone, "京V·00001", clips=ClipLibrary(per_plate=False))
                stop = asyncio.Event()
                task = asyncio.create_task(terminal.run(stop))
                while not terminal.counters.authenticated:
                    await asyncio.sleep(0.05)
                ready.set()
                await done.wait()
                stop.set()
                terminal.wake()
                await task

        gateway_future = asyncio.run_coroutine_threadsafe(run_gateway(), loop)
        if not ready.wait(60):
            raise SystemExit(f"the simulated terminal did not come online: {gateway_future}")
        with psycopg.connect(pg_url, autocommit=True) as conn:
            # no streams worker here: online, from the simulated terminal's address, as it would record
            conn.execute("UPDATE device SET state = 3, session_address = '127.0.0.1' WHERE id = %s", (device,))

        app = create_app(ApiSettings(token_secret="video-bench"), pg_url, var_dir=tmp)
        app.extensions[MEDIA_KEY] = MediaClient(MediaServerSettings(port=media.port, internal_url=f"http://127.0.0.1:{media.port}"),
                                                SECRET)
        app.extensions[DOWNLINKS_KEY] = Downlinks(bootstrap, 10.0)
        client = app.test_client()
        token = client.get("/oauth2/token.json", query_string={"grant_type": "password", "username": f"vb{tag}",
                                                               "password": "Bench@2026x"}).json["data"]["access_token"]
        headers = {"Authorization": f"Bearer {token}"}
        api_ms, first_byte_ms, first_video_ms = [], [], []
        for n in range(rounds + 1):
            channel = 1 + n % 4
            started = time.perf_counter()
            reply = client.post(f"/api/command/{car}/9101.json", headers=headers,
                                json={"channelId": channel, "dataType": 0, "streamType": 0})
            answered = time.perf_counter()
            data = reply.json["data"]
            assert reply.status_code == 200 and data["state"] == "created", reply.json
            stream = urllib.request.urlopen(data["flvUrl"].replace("localhost", "127.0.0.1"), timeout=20)
            buf = stream.read(1)
            got_byte = time.perf_counter()
            from gateway.video.flv import FlvReader

            reader = FlvReader()
            video_at = None
            tags = reader.feed(buf)
            while video_at is None:
                tags = reader.feed(stream.read1(65536))
                if any(t.tag_type == 9 and not t.is_config for t in tags):
                    video_at = time.perf_counter()
            stream.close()
            if n:  # the first round warms the paths up
                api_ms.append(1000 * (answered - started))
                first_byte_ms.append(1000 * (got_byte - started))
                first_video_ms.append(1000 * (video_at - started))
            client.post(f"/api/command/{car}/9102.json", headers=headers,
                        json={"streamId": data["streamId"], "channelId": channel, "command": 0})
            time.sleep(0.5)
        app.extensions[DOWNLINKS_KEY].close()
        loop.call_soon_threadsafe(done.set)
        gateway_future.result(30)
        asyncio.run_coroutine_threadsafe(media.close(), loop).result(10)
        print(f"load average {os.getloadavg()[0]:.1f}; {rounds} rounds, 720p main stream + audio")
        print("| 9101 request to | p50 ms | p99 ms | max ms |")
        print("|---|---|---|---|")
        for name, values in (("the API's reply (stream registered, row, Kafka ack)", api_ms),
                             ("the viewer's first byte (FLV header)", first_byte_ms),
                             ("the viewer's first video tag (key frame)", first_video_ms)):
            print(f"| {name} | {statistics.median(values):.0f} | {percentile(values, 0.99):.0f} | {max(values):.0f} |")
    finally:
        stack.close()


# -- guards -------------------------------------------------------------------------------------------

async def _guards_round(port: int, idle: int) -> dict[str, Any]:
    from fleet.video_tokens import internal_key, sign
    from gateway.video.flv import FlvReader
    from simulator.video import MediaSession
    from simulator.video_clips import ClipLibrary, render_clip
    from tests.support.media import forge

    sim, sid = "019900000001", "1-1-live"
    body = json.dumps({"streamId": sid, "kind": "live", "sim": sim, "channel": 1, "dataType": 1, "streamType": 0,
                       "enterpriseId": 1, "deviceId": 1, "sourceAddress": "127.0.0.1"}).encode()
    r, w = await asyncio.open_connection("127.0.0.1", port)
    w.write(b"POST /internal/streams HTTP/1.1\r\nHost: b\r\nAuthorization: Bearer " + internal_key(SECRET).encode()
            + b"\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
    await r.read(65536)
    w.close()
    camera = MediaSession("127.0.0.1", port, sim, 1, ClipLibrary(per_plate=False).clip("SIMULATOR", 1, "sub"), None)
    running = asyncio.create_task(camera.run())
    await asyncio.sleep(1.5)
    token, _ = sign(SECRET, sid, 1, None, ttl_s=600)
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET /live/{sid}.flv?token={token} HTTP/1.1\r\nHost: bench\r\n\r\n".encode())
    await reader.readuntil(b"\r\n\r\n")
    frames: dict[bytes, int] = {}
    config: list[bytes] = []

    async def watch(seconds: float) -> None:
        flv = FlvReader()
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                async with asyncio.timeout(left):
                    data = await reader.read(262144)
            except TimeoutError:
                return
            if not data:
                return
            for tag in flv.feed(data):
                if tag.tag_type == 9 and tag.is_config:
                    config.append(tag.data)
                elif tag.tag_type == 9 and config:
                    frames[config[-1]] = frames.get(config[-1], 0) + 1

    fake = render_clip("FAKE", 1, "sub", frames=25, size=(160, 96), bit_rate=100_000)
    await asyncio.gather(watch(6.0), forge(port, sim, 1, 4.0, local_ip="127.0.0.2", clip=fake))
    writer.close()
    real_key = config[0] if config else b""
    out: dict[str, Any] = {"real": frames.get(real_key, 0), "forged": sum(n for k, n in frames.items() if k != real_key),
                           "camera_alive": not running.done()}
    held = []  # the idle flood, from one address
    for _ in range(idle):
        try:
            held.append(await asyncio.open_connection("127.0.0.1", port, local_addr=("127.0.0.2", 0)))
        except OSError:
            break
    started = time.monotonic()
    v_reader, v_writer = await asyncio.open_connection("127.0.0.1", port)
    v_writer.write(f"GET /live/{sid}.flv?token={token} HTTP/1.1\r\nHost: bench\r\n\r\n".encode())
    await v_reader.readuntil(b"\r\n\r\n")
    await v_reader.read(1)
    out["viewer_first_byte_ms"] = 1000 * (time.monotonic() - started)
    v_writer.close()
    await asyncio.sleep(6.0)

    async def still_open(pair: Any) -> bool:
        try:
            async with asyncio.timeout(0.05):
                return bool(await pair[0].read(1))
        except TimeoutError:
            return True
        except ConnectionError:
            return False

    out["idle_opened"] = len(held)
    out["idle_held_after_6s"] = sum(await asyncio.gather(*(still_open(p) for p in held)))
    for _, idle_writer in held:
        idle_writer.close()
    camera.stop()
    await asyncio.gather(running, return_exceptions=True)
    return out


def guards(idle: int) -> None:
    from tests.support.ports import free_port

    port = free_port()
    child = subprocess.Popen([sys.executable, __file__, "serve", "--port", str(port)], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        r = asyncio.run(_guards_round(port, idle))
        print(f"load average {os.getloadavg()[0]:.1f}")
        print("| forged frames seen by the viewer | real frames seen | camera still connected | idle sockets opened "
              "(one address) | still held after 6 s | a new viewer's first byte during the flood |")
        print("|---|---|---|---|---|---|")
        print(f"| {r['forged']} | {r['real']} | {r['camera_alive']} | {r['idle_opened']} | {r['idle_held_after_6s']} | "
              f"{r['viewer_first_byte_ms']:.0f} ms |")
    finally:
        child.terminate()
        child.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="what", required=True)
    r = sub.add_parser("relay")
    r.add_argument("--streams", default="4,8,16,24")
    r.add_argument("--viewers", type=int, default=2)
    r.add_argument("--seconds", type=float, default=20.0)
    f = sub.add_parser("first-frame")
    f.add_argument("--rounds", type=int, default=20)
    g = sub.add_parser("guards")
    g.add_argument("--idle", type=int, default=2000)
    s = sub.add_parser("serve")
    s.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    if args.what == "serve":
        serve(args.port)
    elif args.what == "relay":
        relay([int(x) for x in args.streams.split(",")], args.viewers, args.seconds)
    elif args.what == "guards":
        guards(args.idle)
    else:
        first_frame(args.rounds)


if __name__ == "__main__":
    main()
