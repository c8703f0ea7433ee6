"""Browser benchmark of the live map: N vehicles on the map, R position updates per second.

    .venv/bin/python benchmarks/browser_map_bench.py                     # 10,000 vehicles, 2,000/s
    .venv/bin/python benchmarks/browser_map_bench.py --vehicles 2000 --rate 500 --measure 15
    .venv/bin/python benchmarks/browser_map_bench.py --source loadgen --vehicles 5000 --rate 5000

Needs the built console (scripts/build-console.sh) and Debian's /usr/bin/chromium; ``--source
loadgen`` also needs Go (the load generator is built on first use, simulator/loadgen.py).

Setup: private PostgreSQL and Kafka in a temporary directory (or FLEET_DATABASE_URL /
FLEET_KAFKA_BOOTSTRAP), the demo seed with N terminals, a last position for every vehicle, the API
under gunicorn serving dashboards/dist, headless Chromium signed in as ``admin`` (the parent
enterprise: it sees all N) on /dashboard/map with every vehicle ticked.

Load: ``console.events.v1`` ``positions`` batches produced straight to Kafka (what the streams
worker emits after coalescing), every 100 ms one batch per enterprise, R positions per second in
total, round-robin over the vehicles, each moved a few metres, each stamped ``sentAt`` = the moment
it was produced. So the path measured is Kafka -> API push hub -> STOMP -> browser -> marker; the
gateway and the worker (terminal -> Kafka, measured by ingest_bench.py) are not in it.

Measured, while the load runs:

- frames: requestAnimationFrame intervals and PerformanceObserver long tasks, first with the view
  still, then while the map is dragged back and forth with the mouse (target: no frame > 50 ms);
- delay, sentAt to marker moved: (a) the page's own hook ``window.__fleetwatchLive.latency()``
  (batch applied to the position store and the markers), (b) a MutationObserver on the
  ``data-lng``/``data-lat`` of marker elements in the document (markers on screen, not in a
  cluster), matched to what was sent by (device, lng, lat); (c) the same, to the next animation
  frame after the move (painted). Targets: p50 <= 100 ms, p99 <= 500 ms.

``--source loadgen`` (position to marker moved at 5,000 positions/s through the real chain,
targets p50 <= 150 ms, p99 <= 500 ms): nothing is produced to ``console.events.v1`` by this process.
A gateway and the streams worker(s) (``--workers``) are started as benchmarks/ingest_bench.py starts
them, the map is opened and every vehicle ticked, then the Go load generator (simulator/loadgen)
reports 0x0200 positions at R per second over the N terminals (one TCP connection each, registered
in a warm-up first) for warmup + measure seconds (plus a few seconds of slack). Path measured:
terminal -> gateway -> Kafka -> worker (its take, ``streams/take.py``, and its live flush,
``FLEET_STREAMS_LIVE_COALESCE_MS``: set them in the environment to try others) -> ``console.events.v1``
-> API push hub -> STOMP -> browser -> markers, ``sentAt`` being the gateway's receive time. One phase,
the fleet overview held still: frames as above and (a) the page hook, reset after the warmup. The hook
keeps 20,000 samples, fewer than 5,000/s yield in 8 s, so it is read and reset every 10,000 / R seconds:
its p50 is then the count-weighted median of the slices' p50s and its p99 the largest slice p99 (an
upper bound of the window's p99: no slice has more than 1 % of its samples above it). (b) and (c)
are not measured in this mode: the load generator's coordinates are not known to this process (and
in the overview the markers are in clusters anyway). Also printed: the rate the load generator
offered and the rate actually stored (``gps`` rows per second during the measure window), i.e. the
throughput the delay was measured at, the terminals' ack delay (terminal send -> gateway ack, the load
generator's), and the delay from ``sentAt`` to the end of each stage, p50 / p99, for the positions of
the window (``stageN_*``):

1. ``gateway_record``: the gateway's batch window closed, the ``jt808.uplink.v1`` record created
   (its CreateTime; read by a consumer in this process);
2. ``uplink_read``: that record read by a consumer (Kafka to the worker's fetch);
3. ``live_published``: the ``console.events.v1`` record that carried the position created (the
   worker's take, its steps up to ``live`` and its live flush);
4. ``live_read``: that record read by a consumer (Kafka to the API push hub's consumer);
5. ``stomp_frame``: the STOMP MESSAGE arrived in the page (a WebSocket listener ahead of stompjs': the
   push hub, STOMP, the socket);
6. ``applied``: the batch applied to the position store and the markers (the page hook (a): the
   page's coalescer, which flushes on an animation frame, so the paint follows within that frame).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import secrets
import sys
import tempfile
import threading
import time
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tabulate import tabulate  # noqa: E402

from fleet.position_wire import LIVE_POSITION_FIELDS  # noqa: E402
from fleet.topics import CONSOLE_EVENTS, JT808_UPLINK  # noqa: E402
from fleet.uplink_records import split_value  # noqa: E402
from protocols.jt808.catalogue import LOCATION_REPORT  # noqa: E402

HOOK_CAPACITY = 20_000  # delay samples the page's LatencyRecorder keeps

PAGE_PROBE = """
(() => {
  const b = { recording: false, frames: [], longtasks: [], moves: [], painted: [], rx: [] };
  window.__bench = b;
  // STOMP frames as they arrive (SockJS websocket transport: 'a["MESSAGE ... NUL"]'), before stompjs
  // parses them: for every position of a positions MESSAGE, arrival time - sentAt (--source loadgen's
  // "STOMP frame received" stage). The listener is added at construction, so it runs before stompjs'.
  const NativeSocket = window.WebSocket;
  const onFrame = (data) => {
    if (!b.recording || typeof data !== 'string') return;
    const now = Date.now();
    let frames = [data];
    if (data[0] === 'a') { try { frames = JSON.parse(data.slice(1)); } catch (e) { return; } }
    for (const f of frames) {
      if (typeof f !== 'string' || !f.startsWith('MESSAGE') || f.indexOf('"positions"') < 0) continue;
      const start = f.indexOf('\\n\\n');
      const end = f.lastIndexOf('\\u0000');
      let body = null;
      try { body = JSON.parse(f.slice(start + 2, end > start ? end : undefined)); } catch (e) { continue; }
      if (!body || body.type !== 'positions' || !Array.isArray(body.rows)) continue;
      const at = body.fields.indexOf('sentAt');
      if (at < 0) continue;
      for (const row of body.rows) b.rx.push(now - row[at]);
    }
  };
  if (NativeSocket) {
    const Wrapped = function (url, protocols) {
      const ws = protocols === undefined ? new NativeSocket(url) : new NativeSocket(url, protocols);
      ws.addEventListener('message', (event) => onFrame(event.data));
      return ws;
    };
    Wrapped.prototype = NativeSocket.prototype;
    for (const k of ['CONNECTING', 'OPEN', 'CLOSING', 'CLOSED']) Wrapped[k] = NativeSocket[k];
    window.WebSocket = Wrapped;
  }
  let last = performance.now();
  const loop = (t) => { if (b.recording) b.frames.push(t - last); last = t; requestAnimationFrame(loop); };
  requestAnimationFrame(loop);
  try {
    new PerformanceObserver((list) => {
      if (!b.recording) return;
      for (const e of list.getEntries()) b.longtasks.push(e.duration);
    }).observe({ type: 'longtask', buffered: false });
  } catch (e) { b.noLongTasks = String(e); }
  const start = () => {
    new MutationObserver((mutations) => {
      if (!b.recording) return;
      const now = Date.now();
      // Markers put on screen in this batch: their position is written as they appear (a marker off
      // screen is not updated), which is a catch-up, not a move.
      const appeared = new Set();
      for (const m of mutations) {
        for (const node of m.addedNodes || []) {
          if (node.nodeType !== 1) continue;
          if (node.dataset && node.dataset.deviceId) appeared.add(node);
          node.querySelectorAll('[data-device-id]').forEach((el) => appeared.add(el));
        }
      }
      const seen = new Set();
      for (const m of mutations) {
        const el = m.target;
        if (m.type !== 'attributes' || !el.dataset || !el.dataset.deviceId || seen.has(el) || appeared.has(el)) continue;
        if (m.oldValue === el.getAttribute(m.attributeName)) continue;  // same value written again
        seen.add(el);
        b.moves.push([Number(el.dataset.deviceId), el.dataset.lng, el.dataset.lat, now]);
      }
      if (seen.size) {
        const index = b.moves.length;
        requestAnimationFrame(() => b.painted.push([index, Date.now()]));
      }
    }).observe(document.documentElement, { subtree: true, childList: true, attributes: true,
                                            attributeOldValue: true, attributeFilter: ['data-lng', 'data-lat'] });
  };
  if (document.documentElement) start(); else document.addEventListener('DOMContentLoaded', start);
})();
"""


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--vehicles", type=int, default=10_000)
    p.add_argument("--rate", type=float, default=2000.0, help="position updates per second")
    p.add_argument("--measure", type=float, default=8.0,
                   help="seconds of each measurement phase (the page keeps 20,000 delay samples: keep rate x measure "
                        "below; --source loadgen reads them in slices)")
    p.add_argument("--warmup", type=float, default=10.0, help="seconds of load before measuring")
    p.add_argument("--source", choices=("kafka", "loadgen"), default="kafka",
                   help="kafka: positions batches produced to console.events.v1 by this process; loadgen: the Go "
                        "load generator against a gateway and the streams worker(s), the real chain")
    p.add_argument("--workers", type=int, default=1, help="loadgen: streams worker processes (one consumer group)")
    p.add_argument("--no-clustering", action="store_true", help="turn the map's clustering off")
    p.add_argument("--database-url", default=os.environ.get("FLEET_DATABASE_URL", ""))
    p.add_argument("--kafka-bootstrap", default=os.environ.get("FLEET_KAFKA_BOOTSTRAP", ""))
    p.add_argument("--json", type=Path, default=None, help="also write the figures as JSON here")
    p.add_argument("--shots", type=Path, default=None, help="save screenshots of each phase here")
    return p.parse_args(argv)


def say(message: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# -- servers and data -----------------------------------------------------------------------------


def start_servers(stack: ExitStack, workdir: Path, args: argparse.Namespace) -> tuple[str, str]:
    from fleet.kafka_admin import ensure_topics
    from fleet.services._system import free_port
    from fleet.settings import KafkaSettings
    from warehouse.migrate import apply

    db_url, bootstrap = args.database_url, args.kafka_bootstrap
    if not db_url:
        from fleet.services.postgres import PostgresServer

        pg = PostgresServer(workdir / "pg", free_port(), fast=True)
        pg.start()
        stack.callback(pg.destroy)
        db_url = pg.url
        from benchmarks.ingest_bench import CPU  # --source loadgen: PostgreSQL's CPU per position

        CPU.roots["postgres"] = [int((pg.data_dir / "postmaster.pid").read_text().split()[0])]
    apply(db_url)
    if not bootstrap:
        from fleet.services.kafka import KafkaServer

        kafka = KafkaServer(workdir / "kafka", free_port(), free_port())
        kafka.start()
        stack.callback(kafka.stop)
        bootstrap = kafka.bootstrap
    ensure_topics(bootstrap, KafkaSettings().topic_partitions)
    return db_url, bootstrap


def prepare_fleet(db_url: str, vehicles: int, seed: int = 7) -> list[dict[str, Any]]:
    """Demo seed with ``vehicles`` terminals, every device online with a last position; returns
    [{deviceId, carId, enterpriseId, path, lng, lat}]."""
    from warehouse.db import connect
    from warehouse.seed import seed_demo

    started = time.monotonic()
    seed_demo(db_url, terminals=vehicles)
    rng = random.Random(seed)
    with connect(db_url) as conn:
        rows = conn.execute(
            "SELECT d.id, d.car_id, d.enterprise_id, e.path FROM device d JOIN enterprise e ON e.id = d.enterprise_id"
            " WHERE d.car_id IS NOT NULL ORDER BY d.id").fetchall()
        fleet = []
        now = datetime.now(UTC)
        last_rows = []
        for device_id, car_id, enterprise_id, path in rows:
            lng = 116.39 + rng.uniform(-0.18, 0.18)
            lat = 39.91 + rng.uniform(-0.14, 0.14)
            fleet.append({"deviceId": int(device_id), "carId": int(car_id), "enterpriseId": int(enterprise_id),
                          "path": str(path), "lng": lng, "lat": lat, "direction": rng.randrange(0, 360)})
            last_rows.append((device_id, car_id, enterprise_id, now, lng, lat, 30.0, 90, 3))
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO device_last (device_id, car_id, enterprise_id, fix_at, lng, lat, speed_kmh, direction_deg,"
                " status_flags) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (device_id) DO NOTHING",
                last_rows)
        conn.execute("UPDATE device SET state = 3, biz_state = 1, acc = 1, online_time = now() WHERE car_id IS NOT NULL")
        conn.commit()
    say(f"seeded {len(fleet)} vehicles with last positions in {time.monotonic() - started:.0f} s")
    return fleet


# -- load -----------------------------------------------------------------------------------------


class Producer(threading.Thread):
    """console.events.v1 positions batches at ``rate`` per second; remembers when each
    (device, lng, lat) was sent."""

    TICK_S = 0.1

    def __init__(self, bootstrap: str, fleet: list[dict[str, Any]], rate: float) -> None:
        super().__init__(name="positions-producer", daemon=True)
        from kafka import KafkaProducer

        self.producer = KafkaProducer(bootstrap_servers=bootstrap, acks=1, linger_ms=2,
                                      max_request_size=8 * 1024 * 1024, compression_type=None)
        self.fleet = fleet
        self.rate = rate
        self.sent_at: dict[tuple[int, str, str], float] = {}
        self.sent = 0
        self.started_at = 0.0
        self.stopping = threading.Event()
        self.rng = random.Random(11)

    def _move(self, v: dict[str, Any]) -> None:
        heading = math.radians(v["direction"] + self.rng.uniform(-20, 20))
        step_m = self.rng.uniform(20, 60)
        v["lat"] += step_m * math.cos(heading) / 110_540
        v["lng"] += step_m * math.sin(heading) / (111_320 * math.cos(math.radians(v["lat"])))
        v["direction"] = int(math.degrees(heading)) % 360

    def run(self) -> None:
        self.started_at = time.monotonic()
        cursor = 0
        owed = 0.0
        next_tick = time.monotonic()
        while not self.stopping.is_set():
            owed += self.rate * self.TICK_S
            count, owed = int(owed), owed - int(owed)
            by_enterprise: dict[int, list[dict[str, Any]]] = {}
            paths: dict[int, str] = {}
            now_ms = time.time() * 1000
            stamp = round(now_ms)
            for _ in range(count):
                v = self.fleet[cursor]
                cursor = (cursor + 1) % len(self.fleet)
                self._move(v)
                lng, lat = round(v["lng"], 6), round(v["lat"], 6)
                # a row of fleet.position_wire.LIVE_POSITION_FIELDS, as streams.console.live_position
                by_enterprise.setdefault(v["enterpriseId"], []).append([
                    v["carId"], v["deviceId"], None, stamp, lng, lat, 36.0, v["direction"], 50.0, None, None, 0,
                    1, 1, 1, stamp])
                paths[v["enterpriseId"]] = v["path"]
                self.sent_at[(v["deviceId"], repr(lng), repr(lat))] = now_ms
            for enterprise_id, positions in by_enterprise.items():
                value = {"kind": "positions", "enterprise_id": enterprise_id, "enterprise_path": paths[enterprise_id],
                         "fields": list(LIVE_POSITION_FIELDS), "rows": positions}
                self.producer.send(CONSOLE_EVENTS, key=str(enterprise_id).encode(),
                                   value=json.dumps(value, separators=(",", ":")).encode())
            self.sent += count
            next_tick += self.TICK_S
            delay = next_tick - time.monotonic()
            if delay > 0:
                self.stopping.wait(delay)
        self.producer.flush(timeout=10)
        self.producer.close(timeout=10)

    def achieved_rate(self) -> float:
        elapsed = time.monotonic() - self.started_at
        return self.sent / elapsed if elapsed > 0 else 0.0


class ConsoleEventsTap(threading.Thread):
    """``--source loadgen``: reads ``console.events.v1`` from its end and keeps, for every position of a
    ``positions`` message, (record timestamp, record timestamp - sentAt, read time - sentAt) in ms. The
    record timestamp is the worker's producer time (CreateTime), so the first delay is the chain's share
    up to the worker's live flush: gateway batch window, Kafka, the worker's take window and live
    coalescing; the second adds Kafka to a consumer (what the API push hub's consumer sees)."""

    def __init__(self, bootstrap: str, topic: str = CONSOLE_EVENTS) -> None:
        super().__init__(name=f"tap-{topic}", daemon=True)
        from kafka import KafkaConsumer

        self.consumer = KafkaConsumer(topic, bootstrap_servers=bootstrap, group_id=None,
                                      auto_offset_reset="latest", enable_auto_commit=False)
        self.samples: list[tuple[int, float, float]] = []
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.is_set():
            for records in self.consumer.poll(timeout_ms=200).values():
                read_ms = time.time() * 1000
                for record in records:
                    self.samples.extend((record.timestamp, record.timestamp - sent, read_ms - sent)
                                        for sent in self.sent_at(record.value))
        self.consumer.close()

    def sent_at(self, value: bytes) -> list[float]:
        """The gateway receive times (epoch ms) of the positions a record carries."""
        event = json.loads(value)
        if event.get("kind") != "positions":
            return []
        column = (event.get("fields") or []).index("sentAt")
        return [row[column] for row in event.get("rows") or ()]

    def delays(self, from_ms: float, to_ms: float, read: bool = False) -> list[float]:
        """Record timestamp - sentAt (``read``: read time - sentAt) of the records created in the window."""
        return [sample[2 if read else 1] for sample in list(self.samples) if from_ms <= sample[0] <= to_ms]


class UplinkTap(ConsoleEventsTap):
    """The same over ``jt808.uplink.v1``: for every 0x0200 of a record, record timestamp (the gateway's
    producer time: its batch window closed) - the uplink's ``received_at``, and read time - it (Kafka
    to a consumer, what the worker's fetch sees)."""

    def __init__(self, bootstrap: str) -> None:
        super().__init__(bootstrap, JT808_UPLINK)

    def sent_at(self, value: bytes) -> list[float]:
        return [datetime.fromisoformat(u["received_at"]).timestamp() * 1000 for u in split_value(value)
                if isinstance(u, dict) and u.get("msg_id") == LOCATION_REPORT and u.get("received_at")]


# -- browser --------------------------------------------------------------------------------------


def open_map(browser: Any, base_url: str, clustering: bool) -> Any:
    from tests.e2e.support import sign_in

    context = browser.new_context(base_url=base_url, viewport={"width": 1440, "height": 900}, locale="zh-CN")
    context.set_default_timeout(120_000)
    context.add_init_script(PAGE_PROBE)
    prefs = json.dumps({"styleFilter": "none", "clustering": clustering})
    context.add_init_script(f"localStorage.setItem('fleetwatch.map.prefs', {json.dumps(prefs)});")
    # Start from nothing ticked (the map's first open would tick the online fleet by itself).
    context.add_init_script("if (sessionStorage.getItem('fleetwatch.map.ticked') === null)"
                            " sessionStorage.setItem('fleetwatch.map.ticked', '[]');")
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(f"{exc}\n    {(exc.stack or '').splitlines()[1:4]}"))
    page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)
    sign_in(page, "admin")
    if not page.url.endswith("/dashboard/map"):
        page.goto("/dashboard/map")
    page.get_by_test_id("live-map").wait_for()
    page.wait_for_function("() => document.querySelector('[data-testid=vehicle-tree] .ant-tree-treenode:not([aria-hidden])')")
    return page


def tick_everything(page: Any, vehicles: int) -> float:
    """Ticks the root enterprise (every vehicle); returns seconds until all markers are placed."""
    started = time.monotonic()
    root = page.locator(".ant-tree-treenode:not([aria-hidden])").first  # the virtual list keeps a hidden one
    root.locator(".ant-tree-checkbox").click()
    page.wait_for_function(
        "(n) => { const s = sessionStorage.getItem('fleetwatch.map.ticked'); return s && JSON.parse(s).length >= n; }",
        arg=vehicles)
    page.wait_for_function("() => document.querySelector('.leaflet-marker-icon')")
    time.sleep(3)  # chunked marker loading
    return time.monotonic() - started


def zoom_to_single_markers(page: Any, wanted: int = 20, max_clicks: int = 7, shots: Path | None = None) -> list[int]:
    """Zooms in step by step (the + control) until ``wanted`` single (unclustered) markers are on
    screen; past the step with the most it steps back once. Returns the counts seen per step."""
    count = "() => document.querySelectorAll('[data-testid^=marker-]').length"
    seen = [page.evaluate(count)]
    while seen[-1] < wanted and len(seen) <= max_clicks:
        page.locator(".leaflet-control-zoom-in").click()
        time.sleep(1.5)
        seen.append(page.evaluate(count))
        if shots:
            page.screenshot(path=str(shots / f"zoom-{len(seen) - 1}.png"))
        if len(seen) >= 3 and seen[-1] < seen[-2]:
            page.locator(".leaflet-control-zoom-out").click()
            time.sleep(1.5)
            seen.append(page.evaluate(count))
            break
    return seen


def pan_for(page: Any, seconds: float) -> int:
    """Drags the map back and forth (mouse, like a user) for ``seconds``; returns the drags done."""
    box = page.get_by_test_id("live-map").bounding_box()
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    deadline = time.monotonic() + seconds
    drags = 0
    direction = 1
    while time.monotonic() < deadline:
        page.mouse.move(cx, cy)
        page.mouse.down()
        for step in range(1, 21):
            page.mouse.move(cx + direction * step * 12, cy + direction * step * 6)
            time.sleep(0.016)
        time.sleep(0.15)  # hold still before releasing: no inertia, so the drags cancel out
        page.mouse.up()
        direction = -direction
        drags += 1
        time.sleep(0.05)
    return drags


def record(page: Any, seconds: float, panning: bool, hook_slice_s: float = 0.0) -> dict[str, Any]:
    """One phase. With ``hook_slice_s`` (view still only) the page hook is read and reset every slice
    (it keeps HOOK_CAPACITY samples) and ``hook`` is their combination (combine_hook_slices)."""
    page.evaluate("() => { window.__benchStatus = []; const live = window.__fleetwatchLive;"
                  " window.__benchStatusTimer = setInterval(() => window.__benchStatus.push(live ? live.status() : 'none'), 250); }")
    page.evaluate("() => { const b = window.__bench; b.frames = []; b.longtasks = []; b.moves = []; b.painted = []; b.rx = [];"
                  " window.__fleetwatchLive && window.__fleetwatchLive.resetLatency(); b.recording = true; }")
    drags = 0
    slices: list[dict[str, Any]] = []
    if panning:
        drags = pan_for(page, seconds)
    elif hook_slice_s > 0:
        count = max(1, math.ceil(seconds / hook_slice_s))
        deadline = time.monotonic() + seconds
        for index in range(count):
            time.sleep(max(0.0, deadline - (count - index - 1) * seconds / count - time.monotonic()))
            if index < count - 1:  # the last slice is read with the rest below
                slices.append(page.evaluate("() => { const live = window.__fleetwatchLive; if (!live) return null;"
                                            " const s = live.latency(); live.resetLatency(); return s; }"))
    else:
        time.sleep(seconds)
    data: dict[str, Any] = page.evaluate(
        "() => { const b = window.__bench; b.recording = false;"
        " return { frames: b.frames, longtasks: b.longtasks, moves: b.moves, painted: b.painted,"
        " hook: window.__fleetwatchLive ? window.__fleetwatchLive.latency() : null,"
        " rx: (() => { const r = b.rx.slice().sort((x, y) => x - y); const at = (q) => r.length ?"
        " r[Math.min(r.length - 1, Math.floor(q * r.length))] : null; return { count: r.length, p50: at(0.5),"
        " p99: at(0.99) }; })(),"
        " markers: document.querySelectorAll('[data-testid^=marker-]').length,"
        " clusters: document.querySelectorAll('.marker-cluster').length,"
        " status: (clearInterval(window.__benchStatusTimer), [...new Set(window.__benchStatus)].join('/')) }; }")
    data["drags"] = drags
    if hook_slice_s > 0 and not panning:
        data["hook_slices"] = [*slices, data["hook"]]
        data["hook"] = combine_hook_slices(data["hook_slices"])
    return data


def combine_hook_slices(slices: list[dict[str, Any] | None]) -> dict[str, Any]:
    """The hook's summaries of consecutive slices as one: count summed, p50 the count-weighted median
    of the slices' p50s, p99 the largest slice p99 (an upper bound: every slice has at most 1 % of its
    samples above its own p99, so the union has at most 1 % above the largest), max the largest."""
    filled = [s for s in slices if s and s.get("count")]
    if not filled:
        return {"count": 0, "p50": None, "p99": None, "max": None}
    total = sum(int(s["count"]) for s in filled)
    p50, seen = None, 0
    for s in sorted(filled, key=lambda s: float(s["p50"])):
        seen += int(s["count"])
        if seen * 2 >= total:
            p50 = float(s["p50"])
            break
    return {"count": total, "p50": p50, "p99": max(float(s["p99"]) for s in filled),
            "max": max(float(s["max"]) for s in filled)}


def pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def summarise(phase: str, data: dict[str, Any], sent_at: dict[tuple[int, str, str], float]) -> dict[str, Any]:
    frames = list(data["frames"][1:])
    moved: list[float] = []
    painted: list[float] = []
    paint_at = dict(data["painted"])
    unmatched = 0
    pending_paint: list[tuple[int, float]] = []
    first_seen: set[tuple[int, str, str]] = set()
    repeats = 0
    if os.environ.get("BENCH_DUMP"):
        dump = Path(os.environ["BENCH_DUMP"]) / f"{phase.replace(' ', '-')}.json"
        rows = [[*m, sent_at.get((int(m[0]), repr(round(float(m[1]), 6)), repr(round(float(m[2]), 6))))]
                for m in data["moves"]]
        dump.write_text(json.dumps(rows))
    for index, (device_id, lng, lat, at) in enumerate(data["moves"]):
        key = (int(device_id), repr(round(float(lng), 6)), repr(round(float(lat), 6)))
        if key in first_seen:  # the same position written again (a setAttribute of an equal value)
            repeats += 1
            continue
        first_seen.add(key)
        sent = sent_at.get(key)
        if sent is None:
            unmatched += 1
            continue
        moved.append(at - sent)
        pending_paint.append((index, sent))
    paint_indices = sorted(paint_at)
    for index, sent in pending_paint:  # the first frame after the batch this move belongs to
        after = next((i for i in paint_indices if i > index), None)
        if after is not None:
            painted.append(paint_at[after] - sent)
    hook = data.get("hook") or {}
    return {
        "phase": phase,
        "frames": len(frames),
        "frame_max_ms": max(frames) if frames else None,
        "frame_p99_ms": pct(frames, 0.99),
        "frames_over_50ms": sum(1 for f in frames if f > 50),
        "longtasks": len(data["longtasks"]),
        "longtask_max_ms": max(data["longtasks"]) if data["longtasks"] else 0,
        "hook_count": hook.get("count"),
        "hook_p50_ms": hook.get("p50"),
        "hook_p99_ms": hook.get("p99"),
        "dom_moves": len(moved),
        "dom_unmatched": unmatched,
        "dom_rewrites": repeats,
        "moved_p50_ms": pct(moved, 0.5),
        "moved_p99_ms": pct(moved, 0.99),
        "painted_p50_ms": pct(painted, 0.5),
        "painted_p99_ms": pct(painted, 0.99),
        "markers_in_dom": data["markers"],
        "clusters_in_dom": data["clusters"],
        "drags": data["drags"],
        "socket": data["status"],
    }


def fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.1f}"
    return str(value)


def measure_produced(args: argparse.Namespace, page: Any, fleet: list[dict[str, Any]], bootstrap: str,
                     stack: ExitStack) -> tuple[list[dict[str, Any]], float]:
    """The default source: positions batches produced here, four phases. Returns (phases, rate sent)."""
    producer = Producer(bootstrap, fleet, args.rate)
    producer.start()
    stack.callback(producer.stopping.set)
    time.sleep(max(args.warmup / 2, len(fleet) / args.rate + 1))  # every vehicle pushed once
    tick_s = tick_everything(page, len(fleet))
    say(f"all {len(fleet)} vehicles ticked in {tick_s:.1f} s; warming up")
    time.sleep(args.warmup / 2)
    phases = []
    for phase, panning in (("overview still", False), ("overview panning", True), ("zoomed still", False),
                           ("zoomed panning", True)):
        if phase.startswith("zoomed") and not panning:
            page.get_by_test_id("map-fit").click()  # back over the fleet
            time.sleep(2)
            seen = zoom_to_single_markers(page, shots=args.shots)
            say(f"single markers on screen after each zoom step: {seen}")
            time.sleep(2)
        say(f"measuring {phase} for {args.measure:.0f} s")
        sent_before = producer.sent
        figures = summarise(phase, record(page, args.measure, panning), producer.sent_at)
        sent = producer.sent - sent_before
        figures["sent"] = sent
        capped = (figures["hook_count"] or 0) >= HOOK_CAPACITY
        figures["delivered_pct"] = None if capped or not sent else 100.0 * (figures["hook_count"] or 0) / sent
        phases.append(figures)
        if args.shots:
            args.shots.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(args.shots / f"{phase.replace(' ', '-')}.png"))
    rate = producer.achieved_rate()
    producer.stopping.set()
    producer.join(timeout=15)
    return phases, rate


def stored_rows(db_url: str) -> tuple[int, float]:
    """(rows in gps, monotonic time the count was taken)."""
    from warehouse.db import connect

    with connect(db_url) as conn:
        row = conn.execute("SELECT count(*) FROM gps").fetchone()
    return int(row[0]) if row else 0, time.monotonic()


SLACK_S = 5.0  # seconds the load generator keeps going past warmup + measure (the first position's wait)


def measure_through_chain(args: argparse.Namespace, page: Any, fleet: list[dict[str, Any]], terms: list[Any],
                          workdir: Path, env: dict[str, str], db_url: str, bootstrap: str,
                          stack: ExitStack) -> tuple[dict[str, Any], dict[str, Any]]:
    """``--source loadgen``: worker(s), gateway and the Go load generator (benchmarks/ingest_bench.py's),
    the overview held still. Returns (the phase's figures, the chain's figures)."""
    from benchmarks import ingest_bench as chain

    tick_s = tick_everything(page, len(fleet))  # markers from the seeded last positions, before any load
    say(f"all {len(fleet)} vehicles ticked in {tick_s:.1f} s; starting {args.workers} streams worker(s)")
    chain.start_worker(stack, workdir, env, chain.new_group(bootstrap), 0, workers=args.workers)
    slice_s = HOOK_CAPACITY / 2 / args.rate
    generate_s = args.warmup + args.measure + SLACK_S
    out: dict[str, Any] = {}
    tap, uplink_tap = ConsoleEventsTap(bootstrap), UplinkTap(bootstrap)
    for thread in (tap, uplink_tap):
        thread.start()
        stack.callback(thread.stopping.set)

    def during(port: int) -> None:  # runs while the load generator runs (ingest_bench.send_loadgen)
        page.evaluate("() => window.__fleetwatchLive && window.__fleetwatchLive.resetLatency()")
        say(f"load generator connecting {len(terms)} terminals to the gateway on port {port}; waiting for the"
            " first position on the map")
        page.wait_for_function("() => { const l = window.__fleetwatchLive; return l && l.latency().count > 0; }",
                               polling=250, timeout=300_000)
        first_at = time.monotonic()
        say(f"positions on the map; warming up for {args.warmup:.0f} s")
        time.sleep(args.warmup)
        say(f"measuring overview still for {args.measure:.0f} s (hook read every {slice_s:.1f} s)")
        load_start = os.getloadavg()[0]
        rows_before, t0 = stored_rows(db_url)
        wall0 = time.time() * 1000
        data = record(page, args.measure, False, hook_slice_s=slice_s)
        wall1 = time.time() * 1000
        rows_after, t1 = stored_rows(db_url)
        figures = summarise("overview still", data, {})
        for key in ("dom_moves", "dom_unmatched", "dom_rewrites", "moved_p50_ms", "moved_p99_ms", "painted_p50_ms",
                    "painted_p99_ms"):
            figures.pop(key)  # (b) and (c): the load generator's coordinates are not known here
        hook = data["hook"]
        filled = [h for h in data["hook_slices"] if h and h.get("count")]
        figures["hook_max_ms"] = hook.get("max")
        figures["hook_slices"] = f"{len(filled)} x {args.measure / len(data['hook_slices']):.1f} s"
        if filled:  # slice by slice: a delay growing through the window is a backlog (not sustained)
            figures["hook_p50_by_slice_ms"] = " ".join(f"{float(h['p50']):.0f}" for h in filled)
            figures["hook_p99_by_slice_ms"] = " ".join(f"{float(h['p99']):.0f}" for h in filled)
        time.sleep(1.0)  # the tap's last records
        # the stages, each the delay from sentAt (gateway receive) to the end of the stage, p50 / p99
        stages = {
            "1_gateway_record": uplink_tap.delays(wall0, wall1),  # the gateway's batch closed, produced
            "2_uplink_read": uplink_tap.delays(wall0, wall1, read=True),  # Kafka to a consumer
            "3_live_published": tap.delays(wall0, wall1),  # worker: fetch, take, live step, coalescing
            "4_live_read": tap.delays(wall0, wall1, read=True),  # Kafka to a consumer (the push hub's)
        }
        for name, delays in stages.items():
            figures[f"stage{name}_p50_ms"] = pct(delays, 0.5)
            figures[f"stage{name}_p99_ms"] = pct(delays, 0.99)
        figures["to_console_events_count"] = len(stages["3_live_published"])
        rx = data.get("rx") or {}
        figures["stage5_stomp_frame_p50_ms"] = rx.get("p50")  # API push hub, STOMP, the socket
        figures["stage5_stomp_frame_p99_ms"] = rx.get("p99")
        figures["stage6_applied_p50_ms"] = hook.get("p50")  # the page's coalescer, the markers (= hook)
        figures["stage6_applied_p99_ms"] = hook.get("p99")
        stored = rows_after - rows_before
        cpu = chain.CPU.window(wall0 / 1000, wall1 / 1000)  # sampled once a second
        if cpu is not None and stored:
            for name in ("streams", "gateway", "postgres"):  # the worker(s), the gateway, PostgreSQL
                if name in cpu[2]:
                    figures[f"cpu_{name}_us_per_position"] = round(cpu[2][name] / stored * 1e6)
        figures["stored"] = stored
        figures["stored_per_s"] = stored / (t1 - t0)
        figures["delivered_pct"] = 100.0 * (figures["hook_count"] or 0) / stored if stored else None
        figures["loadavg_1m"] = f"{load_start:.2f} / {os.getloadavg()[0]:.2f}"
        if t1 > first_at + generate_s - 1:
            say("warning: the measure window reached the end of the load generator's run")
        if args.shots:
            args.shots.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(args.shots / "overview-still.png"))
        out["figures"] = figures
        say("measured; the load generator finishes its run and drains its acknowledgements")

    stats: dict[str, Any] = {}
    time.sleep(1.0)  # the tap's consumer at the topic's end before anything is sent
    sent, acked = chain.send_loadgen(stack, workdir, env, terms, args.rate, generate_s, None, stats, 1, 10.0,
                                     during)
    stats["offered_per_s"] = round(len(sent) / generate_s, 1)
    stats["generated_s"] = generate_s
    stats["sent_acknowledged"] = f"{len(sent)} / {len(acked)}"
    return out["figures"], stats


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    from playwright.sync_api import sync_playwright

    from fleet.services._system import free_port
    from tests.e2e.support import ApiProcess, console_build_problem, launch_chromium

    problem = console_build_problem()
    if problem:
        say(problem)
        return 2
    chain_figures: dict[str, Any] = {}
    load_before = os.getloadavg()
    with ExitStack() as stack:
        workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="browser-bench-")))
        workdir.chmod(0o755)
        db_url, bootstrap = start_servers(stack, workdir, args)
        fleet = prepare_fleet(db_url, args.vehicles)
        terms: list[Any] = []
        if args.source == "loadgen":
            from benchmarks.ingest_bench import devices

            terms = devices(db_url, args.vehicles)  # the load generator's phones: 0138 + index, the first N
            if len(terms) != len(fleet):
                say(f"{len(terms)} terminals for {len(fleet)} vehicles on the map")
                return 2
        env = {**os.environ, "FLEET_DATABASE_URL": db_url, "FLEET_KAFKA_BOOTSTRAP": bootstrap,
               "FLEET_API_TOKEN_SECRET": secrets.token_urlsafe(32)}
        api = ApiProcess(env, free_port(), workdir / "api.log")
        api.start()
        stack.callback(api.stop)
        playwright = stack.enter_context(sync_playwright())
        browser = launch_chromium(playwright, full=True)
        stack.callback(browser.close)
        page = open_map(browser, api.base_url, clustering=not args.no_clustering)
        if args.source == "loadgen":
            say("signed in, map open")
            figures, chain_figures = measure_through_chain(args, page, fleet, terms, workdir, env, db_url,
                                                           bootstrap, stack)
            phases, rate = [figures], float(chain_figures["offered_per_s"])
        else:
            say("signed in, map open; starting the load")
            phases, rate = measure_produced(args, page, fleet, bootstrap, stack)
        page_errors = list(page.errors)
        positions_in_page = page.evaluate("() => window.__fleetwatchLive ? window.__fleetwatchLive.positions() : null")
        if args.shots:
            (args.shots / "api.log").write_text(api.log_file.read_text(errors="replace"))

    if page_errors:
        print(f"\n{len(page_errors)} errors in the page, first ones:\n  " + "\n  ".join(page_errors[:5]))
    if args.source == "loadgen":
        stored = phases[0]["stored_per_s"]
        print(f"\nbrowser map benchmark through the real chain (Go load generator -> gateway -> Kafka -> "
              f"{args.workers} streams worker(s) -> console.events.v1 -> API push hub -> Chromium): "
              f"{args.vehicles} terminals / vehicles, {rate:.0f} positions/s offered (target {args.rate:.0f}), "
              f"{stored:.0f}/s stored in gps during the measure window, clustering "
              f"{'off' if args.no_clustering else 'on'}, {positions_in_page} positions in the page, "
              f"{os.cpu_count()} CPUs, load average at the start {load_before[0]:.2f} / {load_before[1]:.2f} / "
              f"{load_before[2]:.2f}")
        print("delay = the page hook (a), gateway receive time (sentAt) -> batch applied to the markers, read in "
              "slices (p50: count-weighted median of the slices' p50s; p99: the largest slice p99, an upper bound); "
              "to_console_events: sentAt -> timestamp of the console.events.v1 record (the share up to the worker's "
              "live flush); (b) marker moved and (c) painted are not measured with --source loadgen (the load "
              "generator's coordinates are not known to this process)")
        print(tabulate(sorted(chain_figures.items()), headers=["load generator", ""], tablefmt="github"))
    else:
        print(f"\nbrowser map benchmark: {args.vehicles} vehicles, {rate:.0f} position updates/s sent "
              f"(target {args.rate:.0f}), clustering {'off' if args.no_clustering else 'on'}, "
              f"{positions_in_page} positions in the page, {os.cpu_count()} CPUs")
    keys = list(phases[0])
    print(tabulate([[k, *(fmt(p[k]) for p in phases)] for k in keys if k != "phase"],
                   headers=["", *(p["phase"] for p in phases)], tablefmt="github"))
    if args.json:
        result = {"args": {k: str(v) for k, v in vars(args).items()}, "rate": rate, "phases": phases}
        if chain_figures:
            result["chain"] = chain_figures
        args.json.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
