"""Browser benchmark of live video in the console, in Debian's Chromium:

    .venv/bin/python benchmarks/browser_video_bench.py                       # all three
    .venv/bin/python benchmarks/browser_video_bench.py --rounds 20 --g2g-seconds 20 --grid-seconds 20

Needs the built console (scripts/build-console.sh), /usr/bin/chromium and the install-time clips.

Setup: private PostgreSQL and Kafka in a temporary directory (or FLEET_DATABASE_URL /
FLEET_KAFKA_BOOTSTRAP), the demo seed with 20 terminals (every fourth has 4 cameras), the streams
worker, the gateway, the media server and the API as subprocesses (as under ``fleet up``), the
simulator in this process (every terminal answers commands), Chromium signed in as ``admin`` on
/dashboard/monitor.

Measured:

1. click to first frame: a click on a channel in the channel tree (the stream not running: each
   round's stream was stopped with 9102 before) to the first picture the page paints
   (``requestVideoFrameCallback``), both read in the page (``performance.now()``). Target p50/p99 <= 1 s.
2. glass-to-glass: one window; at every painted frame the page draws the picture on a canvas, reads
   the 16-square frame counter of the simulated camera (simulator/video_clips.py: side H/18, pitch 5/4
   of it, MSB first, white = 1) and computes ``(Date.now() - 40 k) mod 10000``: the simulator sends
   frame k when ``epoch_ms % 10000 == 40 k``. Target p50 <= 500 ms.
3. 16 windows in one browser: four vehicles x four channels; decoded and dropped frames per window
   and the CPU of every Chromium process (``/proc``) over the window.
"""

from __future__ import annotations

import argparse
import os
import secrets
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

TERMINALS = 20

FIRST_FRAME_JS = """async (selector) => {
  const node = document.querySelector(selector);
  if (!node) return {error: 'no node ' + selector};
  const before = new Set(document.querySelectorAll('video'));
  const t0 = performance.now();
  node.click();
  const deadline = t0 + 20000;
  let video = null;
  while (!video && performance.now() < deadline) {
    await new Promise((r) => setTimeout(r, 5));
    video = Array.from(document.querySelectorAll('video')).find((v) => !before.has(v)) || null;
  }
  if (!video) return {error: 'no video element'};
  const painted = await new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), Math.max(0, deadline - performance.now()));
    video.requestVideoFrameCallback(() => { clearTimeout(timer); resolve(performance.now()); });
  });
  return painted === null ? {error: 'no frame'} : {ms: painted - t0};
}"""

G2G_JS = """async ([seconds]) => {
  const video = document.querySelector('[data-testid=live-player]');
  const canvas = document.createElement('canvas');
  const ctx = canvas.getContext('2d', {willReadFrequently: true});
  const samples = [];
  const end = performance.now() + seconds * 1000;
  await new Promise((done) => {
    const onFrame = () => {
      const now = Date.now();
      const w = video.videoWidth, h = video.videoHeight;
      if (w && h) {
        if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h; }
        ctx.drawImage(video, 0, 0, w, h);
        const side = Math.max(4, Math.floor(h / 18)), pitch = Math.floor(side * 5 / 4);
        const x0 = Math.floor(side / 4), y0 = h - side - Math.floor(side / 4);
        const row = ctx.getImageData(0, y0 + Math.floor(side / 2), x0 + 16 * pitch, 1).data;
        let k = 0;
        for (let bit = 0; bit < 16; bit += 1) {
          const x = x0 + bit * pitch + Math.floor(side / 2);
          const luma = 0.299 * row[4 * x] + 0.587 * row[4 * x + 1] + 0.114 * row[4 * x + 2];
          k = (k << 1) | (luma > 128 ? 1 : 0);
        }
        if (k < 250) samples.push(((now - 40 * k) % 10000 + 10000) % 10000);
      }
      if (performance.now() < end) video.requestVideoFrameCallback(onFrame); else done();
    };
    video.requestVideoFrameCallback(onFrame);
  });
  return {samples, lead: video.buffered.length ? video.buffered.end(video.buffered.length - 1) - video.currentTime : null,
          size: [video.videoWidth, video.videoHeight]};
}"""

GRID_JS = """() => Array.from(document.querySelectorAll('[data-testid^=video-window-]')).map((w) => {
  const v = w.querySelector('video');
  const q = v ? v.getVideoPlaybackQuality() : null;
  return {key: w.dataset.key, frames: q ? q.totalVideoFrames : 0, dropped: q ? q.droppedVideoFrames : 0,
          time: v ? v.currentTime : 0, size: v ? [v.videoWidth, v.videoHeight] : null};
})"""


def say(message: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))]


def chromium_cpu_s() -> float:
    """User + system CPU seconds of every process whose command line names chromium."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if b"chromium" not in (entry / "cmdline").read_bytes():
                continue
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
        except OSError:
            continue
    return total


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rounds", type=int, default=20, help="click-to-first-frame rounds")
    p.add_argument("--g2g-seconds", type=float, default=20.0)
    p.add_argument("--grid-seconds", type=float, default=20.0)
    p.add_argument("--stream", choices=("sub", "main"), default="sub", help="stream type of the glass-to-glass window")
    p.add_argument("--database-url", default=os.environ.get("FLEET_DATABASE_URL", ""))
    p.add_argument("--kafka-bootstrap", default=os.environ.get("FLEET_KAFKA_BOOTSTRAP", ""))
    return p.parse_args(argv)


def start_stack(stack: ExitStack, workdir: Path, args: argparse.Namespace) -> tuple[str, Any, list[dict[str, Any]]]:
    from benchmarks.browser_map_bench import start_servers
    from fleet.services._system import free_port
    from tests.e2e.support import ApiProcess, SimulatedFleet
    from tests.integration.streams.support import Worker
    from tests.support.processes import GatewayProcess, MediaServerProcess
    from warehouse.db import connect
    from warehouse.seed import seed_demo, terminal_has_video

    os.environ["FLEET_SIMULATOR_UNSUPPORTED_SHARE"] = "0"  # every camera answers 9101
    os.environ["FLEET_SIMULATOR_SILENT_SHARE"] = "0"
    db_url, bootstrap = start_servers(stack, workdir, argparse.Namespace(database_url=args.database_url,
                                                                          kafka_bootstrap=args.kafka_bootstrap))
    seed_demo(db_url, terminals=TERMINALS)
    media_port = free_port()
    env = {**os.environ, "FLEET_DATABASE_URL": db_url, "FLEET_KAFKA_BOOTSTRAP": bootstrap,
           "FLEET_API_TOKEN_SECRET": secrets.token_urlsafe(32), "FLEET_MEDIA_SERVER_PORT": str(media_port),
           "FLEET_MEDIA_SERVER_PUBLIC_HOST": "127.0.0.1", "FLEET_MEDIA_SERVER_SECRET": secrets.token_urlsafe(32),
           "FLEET_API_MEDIA_PORT": str(media_port), "FLEET_MEDIA_ROOT": str(workdir / "media")}
    worker = Worker(env, workdir, app_id=f"video-bench-{secrets.token_hex(3)}")
    gateway = GatewayProcess(env, free_port(), workdir / "gateway.log", gateway_id="gw-video-bench")
    media = MediaServerProcess(env, media_port, workdir / "media.log")
    api = ApiProcess(env, free_port(), workdir / "api.log")
    for proc in (worker, gateway, media, api):
        proc.start()
        stack.callback(proc.stop)
    deadline = time.monotonic() + 120
    while "ready" not in worker.log_tail(400).lower() and time.monotonic() < deadline:
        time.sleep(0.5)
    fleet = SimulatedFleet(gateway.port, TERMINALS, 5.0, workdir, alarm_rates_per_hour=(0, 0), talk_dir=workdir / "talk")
    fleet.start()
    stack.callback(fleet.stop)
    with connect(db_url) as conn:
        rows = conn.execute("SELECT c.id, d.id, c.plate_number, d.phone FROM car c JOIN device d ON d.id = c.master_device_id"
                            " ORDER BY d.phone").fetchall()
    cameras = [{"car": int(r[0]), "device": int(r[1]), "plate": str(r[2])} for r in rows
               if terminal_has_video(int(r[3]) % 10**8)]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with connect(db_url) as conn:
            online = conn.execute("SELECT count(*) FROM device WHERE state = 3").fetchone()
        if online and int(online[0]) >= TERMINALS:
            break
        time.sleep(0.5)
    return api.base_url, media, cameras


def open_monitor(browser: Any, base_url: str) -> Any:
    from tests.e2e.support import sign_in

    context = browser.new_context(base_url=base_url, viewport={"width": 1600, "height": 1000})
    context.set_default_timeout(30_000)
    page = context.new_page()
    sign_in(page, "admin", path="/dashboard/monitor")
    page.get_by_test_id("video-monitor").wait_for()
    return page


def close_all(page: Any) -> None:
    page.get_by_test_id("grid-close-all").click()
    page.wait_for_function("() => !document.querySelector('[data-testid=live-player]')")


def click_to_first_frame(page: Any, cameras: list[dict[str, Any]], rounds: int) -> list[float]:
    page.get_by_test_id("channel-search").locator("input").fill("")
    times: list[float] = []
    for n in range(rounds):
        cam = cameras[n % len(cameras)]
        channel = 1 + (n // len(cameras)) % 4
        page.get_by_test_id("channel-search").locator("input").fill(cam["plate"])
        selector = f"[data-testid=channel-node-ch_{cam['car']}_{cam['device']}_{channel}]"
        page.wait_for_selector(selector)
        result = page.evaluate(FIRST_FRAME_JS, selector)
        if "ms" in result:
            times.append(float(result["ms"]))
        else:
            say(f"round {n}: {result}")
        close_all(page)
        time.sleep(1.0)  # the terminal has stopped its stream: the next round starts cold
    return times


def glass_to_glass(page: Any, camera: dict[str, Any], seconds: float, main: bool) -> dict[str, Any]:
    page.get_by_test_id("channel-search").locator("input").fill(camera["plate"])
    page.get_by_test_id(f"channel-node-ch_{camera['car']}_{camera['device']}_1").click()
    page.wait_for_function("() => { const v = document.querySelector('[data-testid=live-player]');"
                           " return v && v.getVideoPlaybackQuality().totalVideoFrames > 10; }")
    if main:
        page.get_by_test_id("window-stream-0").click()
        time.sleep(1.0)
        page.wait_for_function("() => { const v = document.querySelector('[data-testid=live-player]');"
                               " return v && v.getVideoPlaybackQuality().totalVideoFrames > 10; }")
    time.sleep(3.0)  # past the start: the catch-up rule has settled
    result = page.evaluate(G2G_JS, [seconds])
    close_all(page)
    return result


def sixteen_windows(page: Any, cameras: list[dict[str, Any]], seconds: float) -> dict[str, Any]:
    page.get_by_test_id("layout-16").click()
    for cam in cameras[:4]:
        page.get_by_test_id("channel-search").locator("input").fill(cam["plate"])
        page.get_by_test_id(f"play-car-{cam['car']}").click()
        time.sleep(0.3)
    page.wait_for_function("() => Array.from(document.querySelectorAll('[data-testid=live-player]'))"
                           ".filter((v) => v.getVideoPlaybackQuality().totalVideoFrames > 0).length >= 16", timeout=60_000)
    time.sleep(3.0)
    first, cpu0, t0 = page.evaluate(GRID_JS), chromium_cpu_s(), time.monotonic()
    time.sleep(seconds)
    second, cpu1, t1 = page.evaluate(GRID_JS), chromium_cpu_s(), time.monotonic()
    close_all(page)
    before = {w["key"]: w for w in first if w["key"]}
    windows = []
    for w in second:
        if not w["key"] or w["key"] not in before:
            continue
        b = before[w["key"]]
        windows.append({"key": w["key"], "fps": (w["frames"] - b["frames"]) / (t1 - t0),
                        "dropped": w["dropped"] - b["dropped"], "decoded": w["frames"] - b["frames"], "size": w["size"]})
    return {"windows": windows, "cpu_cores": (cpu1 - cpu0) / (t1 - t0), "seconds": t1 - t0}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    from playwright.sync_api import sync_playwright

    from tests.e2e.support import console_build_problem, launch_chromium

    problem = console_build_problem()
    if problem:
        say(problem)
        return 2
    with ExitStack() as stack:
        workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="video-bench-")))
        workdir.chmod(0o755)
        say("starting PostgreSQL, Kafka, worker, gateway, media server, API and 20 simulated terminals")
        base_url, _media, cameras = start_stack(stack, workdir, args)
        say(f"cameras on {len(cameras)} vehicles: {[c['plate'] for c in cameras]}")
        playwright = stack.enter_context(sync_playwright())
        browser = launch_chromium(playwright, full=True)
        stack.callback(browser.close)
        page = open_monitor(browser, base_url)

        say(f"click to first frame, {args.rounds} rounds")
        times = click_to_first_frame(page, cameras, args.rounds)
        say(f"glass-to-glass, {args.g2g_seconds:.0f} s ({args.stream} stream)")
        g2g = glass_to_glass(page, cameras[0], args.g2g_seconds, args.stream == "main")
        say(f"16 windows, {args.grid_seconds:.0f} s")
        grid = sixteen_windows(page, cameras, args.grid_seconds)

        load = os.getloadavg()[0]
        print(f"\nload average {load:.1f}, {os.cpu_count()} cores\n")
        if times:
            print(f"click to first frame ({len(times)} of {args.rounds} rounds): p50 {pct(times, 50):.0f} ms, "
                  f"p99 {pct(times, 99):.0f} ms, min {min(times):.0f}, max {max(times):.0f}")
        samples = g2g["samples"]
        if samples:
            print(f"glass-to-glass ({len(samples)} frames, {g2g['size'][0]}x{g2g['size'][1]}): p50 {pct(samples, 50):.0f} ms, "
                  f"p90 {pct(samples, 90):.0f} ms, p99 {pct(samples, 99):.0f} ms, mean {statistics.fmean(samples):.0f}; "
                  f"buffered lead at the end {g2g['lead']:.2f} s")
        windows = grid["windows"]
        if windows:
            fps = [w["fps"] for w in windows]
            print(f"16 windows: {len(windows)} playing for {grid['seconds']:.0f} s, decoded fps per window "
                  f"min {min(fps):.1f} / median {statistics.median(fps):.1f} (source 25), dropped frames "
                  f"{sum(w['dropped'] for w in windows)} of {sum(w['decoded'] for w in windows)}, Chromium CPU "
                  f"{grid['cpu_cores'] * 100:.0f} % of one core ({grid['cpu_cores'] * 100 / len(windows):.1f} % per window); "
                  f"picture {windows[0]['size']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
