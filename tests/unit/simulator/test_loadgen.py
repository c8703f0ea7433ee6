"""The Go load generator (simulator/loadgen) as built by simulator/loadgen.py, against a fake gateway that
reads its frames with the project's own JT/T 808 codec (protocols/jt808) and answers with it: every frame
the generator writes must decode (escapes, checksum, header, 0x0100 / 0x0102 / 0x0200 / 0x0704 bodies),
its reconciliation log must name exactly what the gateway received, and a second run must log in with
the auth code the first one saved. Needs Go (part of the machine image): without it these tests fail
with the reason, they are not skipped. The Go side's own tests: simulator/loadgen/main_test.go."""

from __future__ import annotations

import json
import socketserver
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from protocols.jt808 import (
    Authentication,
    BatchLocationUpload,
    FrameReader,
    JT808Error,
    LocationReport,
    Message,
    PlatformResponse,
    Registration,
    RegistrationResponse,
    decode_frame,
    encode_frame,
)
from simulator import loadgen

PHONES = ["013800000001", "013800000002"]


@pytest.fixture(scope="module")
def binary() -> Path:
    try:
        return loadgen.ensure_built()
    except loadgen.LoadgenUnavailable as exc:
        pytest.fail(f"{exc}: the load generator's tests need Go (/usr/local/go/bin/go on this kind of machine)")


class _Gateway(socketserver.ThreadingTCPServer):
    """Registers every phone (code "C" + phone), checks the code at authentication, acknowledges each
    position and batch at once, and hangs up on each terminal once, on its ``hang_up_at``-th 0x0200
    (left unacknowledged: it must come back in a 0x0704)."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, hang_up_at: int) -> None:
        super().__init__(("127.0.0.1", 0), _Connection)
        self.hang_up_at = hang_up_at
        self.lock = threading.Lock()
        self.messages: list[Message] = []
        self.errors: list[str] = []
        self.positions: Counter[str] = Counter()
        self.hung_up: set[str] = set()

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    def reply(self, msg: Message) -> bytes | None:
        """The answer to one uplink (b"" for none); None: hang up."""
        header, body = msg.header, msg.body
        with self.lock:
            self.messages.append(msg)
            if header.msg_id == 0x0200:
                self.positions[header.phone] += 1
                if self.positions[header.phone] == self.hang_up_at and header.phone not in self.hung_up:
                    self.hung_up.add(header.phone)
                    return None
        if header.msg_id == 0x0100:
            answer: Any = RegistrationResponse(header.seq, 0, "C" + header.phone)
            return encode_frame(0x8100, answer, phone=header.phone, seq=1)
        result = 0
        if header.msg_id == 0x0102:
            assert isinstance(body, Authentication)
            result = 0 if body.auth_code == "C" + header.phone else 1
        elif header.msg_id not in (0x0200, 0x0704, 0x0002):
            self.errors.append(f"unexpected 0x{header.msg_id:04X}")
            return b""
        return encode_frame(0x8001, PlatformResponse(header.seq, header.msg_id, result), phone=header.phone, seq=1)


class _Connection(socketserver.BaseRequestHandler):
    server: _Gateway

    def handle(self) -> None:
        frames = FrameReader()
        while data := self.request.recv(65536):
            for item in frames.feed(data):
                if isinstance(item, JT808Error):
                    self.server.errors.append(f"framing: {item}")
                    continue
                try:
                    msg = decode_frame(item)
                except JT808Error as exc:
                    self.server.errors.append(f"{item.hex()}: {exc!r}")
                    continue
                answer = self.server.reply(msg)
                if answer is None:
                    return
                if answer:
                    self.request.sendall(answer)


@pytest.fixture
def gateway() -> Iterator[_Gateway]:
    server = _Gateway(hang_up_at=3)
    thread = threading.Thread(target=server.serve_forever, name="fake-gateway", daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def _run(binary: Path, gateway: _Gateway, tmp: Path, name: str, duration_s: float) -> tuple[dict[str, Any], Path]:
    options = loadgen.Options(port=gateway.port, terminals=len(PHONES), rate=10.0, duration_s=duration_s,
                              drain_s=10.0, ack_timeout_s=5.0, ramp_per_s=100.0)
    log, stats = tmp / f"{name}.log", tmp / f"{name}.json"
    argv = options.argv(binary, auth=tmp / "auth.json", log=log, stats=stats)
    done = subprocess.run([*argv, "-reconnect-min", "0.2", "-reconnect-max", "0.4"], capture_output=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    assert json.loads(done.stdout) == loadgen.load_stats(stats)  # the same stats on stdout and in the file
    return loadgen.load_stats(stats), log


def test_frames_decode_with_the_project_codec_and_the_log_names_what_the_gateway_received(
        binary: Path, gateway: _Gateway, tmp_path: Path) -> None:
    started = datetime.now(UTC)
    stats, log = _run(binary, gateway, tmp_path, "first", duration_s=1.5)
    assert not gateway.errors, gateway.errors[:5]

    by_id = Counter(msg.header.msg_id for msg in gateway.messages)
    assert {msg.header.phone for msg in gateway.messages} == set(PHONES)
    registrations = [msg for msg in gateway.messages if msg.header.msg_id == 0x0100]
    assert len(registrations) == 2, by_id
    for msg in registrations:
        assert isinstance(msg.body, Registration)
        assert (msg.body.manufacturer_id, msg.body.terminal_model) == ("FLEET", "SIM-808")
        assert msg.body.terminal_id == msg.header.phone[-7:]  # as the demo seed's SIM<index:07d>
    assert by_id[0x0102] >= 4 and by_id[0x0704] >= 2, f"each terminal was hung up on once: {by_id}"

    received: set[tuple[str, datetime]] = set()
    for msg in gateway.messages:
        if isinstance(msg.body, LocationReport):
            items = [msg.body]
        elif isinstance(msg.body, BatchLocationUpload):
            assert msg.body.kind == 1, "backlog after a reconnect is a blind-area batch"
            items = list(msg.body.items)
        else:
            continue
        for report in items:
            assert report.status_flags & 0b11 == 0b11 and report.alarm_flags == 0  # ACC on, positioned
            assert 39.9 <= report.lat < 40.0 and 116.4 <= report.lng < 116.5, report
            assert 30.0 <= report.speed_kmh < 70.0 and 0 <= report.direction_deg < 360, report
            extras = report.extras
            assert 1000.0 <= extras["mileage_km"] < 1100 and (extras["gnss_satellites"], extras["rssi"]) == (12, 25)
            received.add((msg.header.phone, report.fix_at))

    events = list(loadgen.read_log(log))
    sent = {(e.phone, e.fix_at): e.at for e in events if e.kind == "s"}
    acked = {(e.phone, e.fix_at): e.at for e in events if e.kind == "a"}
    assert len(events) == len(sent) + len(acked), "a position logged twice"
    assert received == sent.keys() and acked.keys() == sent.keys(), (sorted(sent.keys() - received),
                                                                     sorted(sent.keys() - acked.keys()))
    # each event's time: within the run, an acknowledgement after the position's first sending
    assert all(started.timestamp() - 1 <= e.at <= time.time() for e in events), events[:3]
    assert all(acked[key] >= sent[key] for key in sent), [key for key in sent if acked[key] < sent[key]][:3]
    # the last fix is about the end of the run (fix clocks 1 s apart per terminal, -fix-start 0)
    newest = max(fix_at for _, fix_at in sent)
    assert abs((newest - started).total_seconds()) < 5, (newest, started)

    assert stats["generated"] == stats["sent"] == stats["acked"] == len(sent) >= 10, stats
    assert stats["unacked"] == 0 and stats["bad_frames"] == 0 and stats["registrations"] == 2, stats
    assert stats["backlog_uploaded"] >= 2 and stats["connects"] >= 4, stats
    assert 0 < stats["cpu_s"] < stats["wall_s"] and stats["wall_s"] >= 1.5, stats
    assert json.loads((tmp_path / "auth.json").read_text()) == {phone: "C" + phone for phone in PHONES}

    # a second run authenticates with the saved codes: no registration
    gateway.messages.clear()
    again, _ = _run(binary, gateway, tmp_path, "second", duration_s=0.5)
    assert again["registrations"] == 0 and again["authenticated"] >= 2 and again["auth_failures"] == 0, again
    assert not any(msg.header.msg_id == 0x0100 for msg in gateway.messages)
    assert not gateway.errors, gateway.errors[:5]


def test_bad_flags_are_refused_before_connecting(binary: Path) -> None:
    for flags, word in ((["-prefix", "01380"], "prefix"), (["-rate", "0"], "rate"), (["-terminals", "0"], "terminals")):
        done = subprocess.run([str(binary), "-port", "1", *flags], capture_output=True, timeout=30, check=False)
        assert done.returncode == 2 and word in done.stderr.decode(), (flags, done.stderr)


def test_read_log_parses_kind_phone_fix_time_and_event_time(tmp_path: Path) -> None:
    log = tmp_path / "loadgen.log"
    log.write_text("s,013800000001,1764300000,1764300000120\na,013800000001,1764300000,1764300000375\n"
                   "s,013800000002,1764300001,1764300001002\n")
    assert list(loadgen.read_log(log)) == [
        ("s", "013800000001", datetime(2025, 11, 28, 3, 20, tzinfo=UTC), 1764300000.12),
        ("a", "013800000001", datetime(2025, 11, 28, 3, 20, tzinfo=UTC), 1764300000.375),
        ("s", "013800000002", datetime(2025, 11, 28, 3, 20, 1, tzinfo=UTC), 1764300001.002),
    ]


def test_options_name_every_flag_of_the_binary(binary: Path) -> None:
    """Each flag the wrapper passes exists in the binary (a renamed Go flag would fail every run)."""
    argv = loadgen.Options(sources=("127.0.0.2",)).argv(binary, auth=Path("a"), log=Path("l"), stats=Path("s"))
    flags = {arg for arg in argv[1:] if arg.startswith("-") and not arg.lstrip("-").replace(".", "").isdigit()}
    usage = subprocess.run([str(binary), "-h"], capture_output=True, timeout=30, check=False).stderr.decode()
    missing = {flag for flag in flags if f"  {flag} " not in usage and f"  {flag}\n" not in usage}
    assert not missing, usage


def test_heartbeats_are_answered_and_the_progress_lines_count_them_while_it_runs(binary: Path, tmp_path: Path) -> None:
    """What benchmarks/terminals_bench.py watches a long run by: every --progress s a line of the counters so far
    (terminals online, heartbeats sent and answered by the project's own codec's 0x8001)."""
    server = _Gateway(hang_up_at=10**6)
    thread = threading.Thread(target=server.serve_forever, name="fake-gateway", daemon=True)
    thread.start()
    try:
        options = loadgen.Options(port=server.port, terminals=len(PHONES), rate=1e-6, duration_s=3.0, drain_s=2.0,
                                  ramp_per_s=100.0, heartbeat_s=0.5, progress_s=0.25)
        output = tmp_path / "loadgen.out"
        assert loadgen.read_progress(output) is None
        proc = loadgen.start(options, auth=tmp_path / "auth.json", stats=tmp_path / "stats.json", output=output)
        seen: list[dict[str, float]] = []
        while proc.poll() is None:
            if (line := loadgen.read_progress(output)) is not None:
                seen.append(line)
            time.sleep(0.1)
        assert proc.returncode == 0, output.read_text()
    finally:
        server.shutdown()
        server.server_close()
    stats = loadgen.load_stats(tmp_path / "stats.json")
    assert any(line["online"] == len(PHONES) for line in seen), seen
    last = seen[-1]
    assert last["heartbeats"] >= 2 * len(PHONES) and last["heartbeat_acks"] >= len(PHONES), last
    assert stats["heartbeats"] >= last["heartbeats"] and stats["heartbeat_acks"] >= last["heartbeat_acks"], stats
    assert stats["heartbeat_acks"] >= stats["heartbeats"] - len(PHONES) and stats["online"] == 0, stats
    assert sum(msg.header.msg_id == 0x0002 for msg in server.messages) == stats["heartbeats"]
