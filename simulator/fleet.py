"""Many virtual terminals in one process: `run_fleet(settings, terminals, interval_s, ...)`.

Terminal i (1-based) has phone `settings.phone_prefix + f"{i:08d}"` and terminal id `f"SIM{i:07d}"`,
matching `warehouse.seed.seed_demo`. A run is deterministic for a seed: routes, driving, alarms and
timing jitter come from `random.Random(seed, i)`; only the network decides what gets resent.

At the end of `duration_s` the terminals stop generating positions and get up to `drain_timeout_s`
to have everything acknowledged, so `acked == sent` on a healthy stack. With `sent_log`, every
position is recorded as `phone,fix_at` (ISO UTC) when first sent, for loss/duplicate reconciliation.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import random
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TextIO

from fleet.demo_fleet import terminal_has_tpms
from fleet.driving_model import DrivingModel
from fleet.phones import canonical_phone
from fleet.settings import SimulatorSettings
from fleet.tyre_model import TyreSensors
from simulator.alarms import AlarmSchedule
from simulator.commands import behaviour_for
from simulator.driving import Vehicle
from simulator.terminal import TerminalConfig, VirtualTerminal
from simulator.video_clips import ClipLibrary
from simulator.video_terminal import VideoTerminal

log = logging.getLogger("simulator")

CONNECTIONS_PER_SOURCE_ADDRESS = 25_000  # below the ~28k ephemeral ports of one source address


@dataclass
class FleetStats:
    terminals: int = 0
    authenticated: int = 0
    sent: int = 0
    acked: int = 0
    resent: int = 0
    backlog_uploaded: int = 0
    backlog_batches: int = 0
    unacked: int = 0
    connects: int = 0
    registrations: int = 0
    registration_failures: int = 0
    auth_failures: int = 0
    heartbeats: int = 0
    downlinks: int = 0
    answers: int = 0
    media_uploaded: int = 0
    media_failed: int = 0
    alarm_episodes: int = 0
    safety_alarms: int = 0
    alarms_confirmed: int = 0
    attachment_uploads: int = 0
    attachment_failures: int = 0

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


def collect_stats(terminals: list[VirtualTerminal], stats: FleetStats | None = None) -> FleetStats:
    stats = stats if stats is not None else FleetStats()
    for name in stats.as_dict():  # reset in place: callers may hold the object
        setattr(stats, name, 0)
    stats.terminals = len(terminals)
    for t in terminals:
        o, c = t.outbox.stats, t.counters
        stats.authenticated += c.authenticated
        stats.sent += o.sent
        stats.acked += o.acked
        stats.resent += o.resent
        stats.backlog_uploaded += o.backlog_uploaded
        stats.backlog_batches += o.batches
        stats.unacked += len(t.outbox)
        stats.connects += c.connects
        stats.registrations += c.registrations
        stats.registration_failures += c.registration_failures
        stats.auth_failures += c.auth_failures
        stats.heartbeats += c.heartbeats
        stats.downlinks += c.downlinks
        stats.answers += c.answers
        stats.media_uploaded += t.uploader.uploaded
        stats.media_failed += t.uploader.failed
        stats.attachment_uploads += c.attachment_uploads
        stats.attachment_failures += c.attachment_failures
        if t.alarms is not None:
            stats.alarm_episodes += t.alarms.counters.episodes
            stats.safety_alarms += t.alarms.counters.safety_events
            stats.alarms_confirmed += t.alarms.counters.confirmed
    return stats


class MemoryAuthStore:
    def __init__(self, codes: dict[str, str] | None = None) -> None:
        self.codes = dict(codes or {})

    def get(self, phone: str) -> str | None:
        return self.codes.get(phone)

    def put(self, phone: str, code: str | None) -> None:
        if code is None:
            self.codes.pop(phone, None)
        else:
            self.codes[phone] = code


class JsonAuthStore(MemoryAuthStore):
    """Auth codes kept in a small JSON file between runs (written at the end of a run)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        codes: dict[str, str] = {}
        with contextlib.suppress(FileNotFoundError, ValueError):
            codes = json.loads(path.read_text())
        super().__init__(codes if isinstance(codes, dict) else {})

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.codes, sort_keys=True))
        os.replace(tmp, self.path)


class CsvSentLog:
    """`phone,fix_at` per position, written when the position is first sent."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file: TextIO = path.open("w", buffering=1 << 16)
        self._file.write("phone,fix_at\n")

    def record(self, phone: str, fix_at: datetime) -> None:
        self._file.write(f"{phone},{fix_at.isoformat()}\n")

    def close(self) -> None:
        self._file.close()


def plate_of(index: int) -> str:
    """The plate `warehouse.seed.seed_demo` (fleet.demo_fleet) gives terminal ``index`` (drawn in its photos)."""
    from fleet.demo_fleet import terminal_plate

    return terminal_plate(index)


def has_video(index: int) -> bool:
    """Whether `warehouse.seed.seed_demo` (fleet.demo_fleet) gives terminal ``index`` cameras (channels 1-4)."""
    from fleet.demo_fleet import terminal_has_video

    return terminal_has_video(index)


def phone_of(settings: SimulatorSettings, index: int) -> str:
    return f"{settings.phone_prefix}{index:08d}"


def source_addresses_for(host: str, terminals: int) -> list[str] | None:
    """Several 127.0.0.x source addresses when one would run out of ephemeral ports."""
    if not host.startswith("127.") or terminals <= CONNECTIONS_PER_SOURCE_ADDRESS:
        return None
    count = -(-terminals // CONNECTIONS_PER_SOURCE_ADDRESS)
    return [f"127.0.0.{i}" for i in range(1, count + 1)]


def build_terminals(settings: SimulatorSettings, terminals: int, interval_s: float, *,
                    first_index: int = 1, auth_store: MemoryAuthStore | None = None,
                    sent_log: CsvSentLog | None = None, fix_clock_start: datetime | None = None,
                    source_addresses: list[str] | None = None,
                    odometers: Mapping[str, float] | None = None) -> list[VirtualTerminal]:
    """The virtual terminals; ``odometers``: per canonical phone (``fleet.phones``), the odometer (km) each vehicle goes on from (its last
    stored reading, so the live odometer continues the seeded history's), else a random one."""
    store = auth_store if auth_store is not None else MemoryAuthStore()
    start = (fix_clock_start or datetime.now(UTC)).replace(microsecond=0)
    clips = ClipLibrary(per_plate=settings.per_plate_clips) if settings.video else None
    addresses = source_addresses or source_addresses_for(settings.gateway_host, terminals)
    model = DrivingModel.from_settings(settings)  # the seeded history's model (warehouse.history)
    built = []
    for n, index in enumerate(range(first_index, first_index + terminals)):
        rng = random.Random(f"{settings.seed}:{index}")
        config = TerminalConfig(
            host=settings.gateway_host, port=settings.gateway_port, interval_s=interval_s,
            heartbeat_interval_s=settings.heartbeat_interval_s, ack_timeout_s=settings.ack_timeout_s,
            backlog_batch_items=settings.backlog_batch_items, reconnect_min_s=settings.reconnect_min_s,
            reconnect_max_s=settings.reconnect_max_s, protocol_version=settings.protocol_version,
            source_address=addresses[n % len(addresses)] if addresses else None,
            command_behaviour=behaviour_for(phone_of(settings, index), settings.unsupported_share,
                                            settings.silent_share),
            media_package_bytes=settings.media_package_bytes)
        vehicle = Vehicle(rng, settings.centre_lat, settings.centre_lng, settings.radius_km, model,
                          mileage_km=(odometers or {}).get(canonical_phone(phone_of(settings, index))))
        terminal_id = f"SIM{index:07d}"
        alarms = AlarmSchedule(random.Random(f"{settings.seed}:{index}:alarms"), terminal_id,
                               rate_per_hour=settings.alarm_rate_per_hour,
                               safety_rate_per_hour=settings.safety_alarm_rate_per_hour)
        terminal = VirtualTerminal(index=index, phone=phone_of(settings, index), terminal_id=terminal_id,
                                   config=config, vehicle=vehicle, rng=rng, auth_store=store,
                                   fix_clock=start, sent_log=sent_log, plate=plate_of(index), alarms=alarms)
        if terminal_has_tpms(index):
            # tyre alarms are active-safety alarms: off with the simulator's other safety alarms
            terminal.tyres = TyreSensors(random.Random(f"{settings.seed}:{index}:tyres"), terminal_id,
                                         alarms=settings.safety_alarm_rate_per_hour > 0)
        if clips is not None and has_video(index):
            terminal.responder.video = VideoTerminal(phone_of(settings, index), plate_of(index), clips=clips,
                                                     talk_dir=settings.talk_dir)
        built.append(terminal)
    return built


async def run_fleet(settings: SimulatorSettings, terminals: int, interval_s: float,
                    duration_s: float | None = None, stats: FleetStats | None = None, *,
                    first_index: int = 1, sent_log: Path | None = None, auth_store: MemoryAuthStore | None = None,
                    drain_timeout_s: float = 30.0, stop: asyncio.Event | None = None,
                    progress_interval_s: float = 10.0, ramp_per_s: float = 2000.0,
                    odometers: Mapping[str, float] | None = None) -> FleetStats:
    """Run `terminals` virtual terminals reporting every `interval_s` (0: heartbeats only) for
    `duration_s` (None: until `stop` is set). Returns the stats (also kept current in `stats`).

    With interval_s < 1 the fix clock advances 1 s per report, faster than the wall clock; it is
    started `duration_s * (1/interval_s - 1)` seconds in the past so the last fix is near now."""
    stop = stop or asyncio.Event()
    stats = stats if stats is not None else FleetStats()
    store = auth_store if auth_store is not None else JsonAuthStore(settings.auth_cache)
    log_file = CsvSentLog(sent_log) if sent_log else None
    start = datetime.now(UTC)
    if 0 < interval_s < 1 and duration_s:
        start -= timedelta(seconds=duration_s * (1 / interval_s - 1))
    fleet = build_terminals(settings, terminals, interval_s, first_index=first_index, auth_store=store,
                            sent_log=log_file, fix_clock_start=start, odometers=odometers)
    sessions_stop = asyncio.Event()
    generating_stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    tasks = []
    for n, terminal in enumerate(fleet):  # ramp up: thousands of logins at once would be a SYN flood
        tasks.append(loop.create_task(terminal.run(sessions_stop, generating_stop)))
        if ramp_per_s and n % 100 == 99:
            await asyncio.sleep(100 / ramp_per_s)
    progress = loop.create_task(_progress(fleet, stats, progress_interval_s))
    try:
        if duration_s is None:
            await stop.wait()
        else:
            with contextlib.suppress(asyncio.TimeoutError):
                async with asyncio.timeout(duration_s):
                    await stop.wait()
        generating_stop.set()
        deadline = loop.time() + drain_timeout_s
        while loop.time() < deadline and any(len(t.outbox) for t in fleet):
            await asyncio.sleep(0.2)
    finally:
        generating_stop.set()
        sessions_stop.set()
        for terminal in fleet:
            terminal.wake()
        progress.cancel()
        await asyncio.gather(*tasks, progress, return_exceptions=True)
        collect_stats(fleet, stats)
        if log_file:
            log_file.close()
        if isinstance(store, JsonAuthStore):
            store.save()
    return stats


async def _progress(fleet: list[VirtualTerminal], stats: FleetStats, interval_s: float) -> None:
    while True:
        await asyncio.sleep(interval_s)
        collect_stats(fleet, stats)
        log.info("simulator %s", " ".join(f"{k}={v}" for k, v in stats.as_dict().items()))
