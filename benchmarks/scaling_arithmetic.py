"""The scale-out arithmetic of docs/scaling.md, computed from the tables at the top of that file.

docs/scaling.md holds the inputs in three tables: the measured CPU per position (docs/performance.md), the
measured sizes (bytes per row, per Kafka value, per connection) and the assumptions. Everything between
``<!-- arithmetic:begin -->`` and ``<!-- arithmetic:end -->`` is this script's output. After refreshing a
measured figure (or changing an assumption), regenerate it:

    .venv/bin/python benchmarks/scaling_arithmetic.py --write

Without ``--write`` it prints the section. tests/unit/test_scaling_doc.py fails when the committed section
differs from what the tables give.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path

DOC = Path(__file__).resolve().parent.parent / "docs" / "scaling.md"
BEGIN, END = "<!-- arithmetic:begin -->", "<!-- arithmetic:end -->"
FLEETS = (100_000, 1_000_000)

_ROW = re.compile(r"^\|\s*`(?P<id>[a-z_]+)`\s*\|(?P<cells>.*)\|\s*$")
_NUMBER = r"[0-9][0-9,]*(?:\.[0-9]+)?"
_RANGE = re.compile(rf"^\s*({_NUMBER})\s*-\s*({_NUMBER})\s*$")


@dataclass(frozen=True)
class Cpu:
    """CPU µs per position of one component: the range of the runs and their median."""

    low: float
    high: float
    median: float


def _num(text: str) -> float:
    return float(text.replace(",", "").strip())


def read_inputs(text: str) -> tuple[dict[str, Cpu], dict[str, float]]:
    """(CPU per component, every other input) from the doc's input tables: rows whose first cell is a
    back-quoted id. A CPU row's cells are: component, ``low-high``, median; any other row's: meaning, value
    (the value cell's first number), source."""
    cpu: dict[str, Cpu] = {}
    values: dict[str, float] = {}
    for line in text.split(BEGIN)[0].splitlines():
        match = _ROW.match(line.strip())
        if not match:
            continue
        cells = [c.strip() for c in match["cells"].split("|")]
        key = match["id"]
        ranged = _RANGE.match(cells[1]) if len(cells) > 2 else None
        if ranged:
            cpu[key] = Cpu(_num(ranged[1]), _num(ranged[2]), _num(cells[2]))
            continue
        found = re.search(_NUMBER, cells[1]) if len(cells) > 1 else None
        if found is None:
            raise ValueError(f"input `{key}` has no number in {cells[1]!r}")
        values[key] = _num(found[0])
    return cpu, values


def _n(value: float, digits: int = 0) -> str:
    return f"{value:,.{digits}f}"


def _cores(rate: float, micros: float) -> float:
    return rate * micros / 1e6


def _spare(needed: int, share: float) -> int:
    return max(1, math.ceil(needed * share))


def _bytes(value: float) -> str:
    for unit, size in (("PB", 1e15), ("TB", 1e12), ("GB", 1e9), ("MB", 1e6)):
        if value >= size:
            return f"{value / size:,.1f} {unit}"
    return f"{value / 1e3:,.1f} kB"


@dataclass(frozen=True)
class Topology:
    """What one fleet size needs: the rates and the process counts (docker/compose.yaml holds the first's)."""

    vehicles: int
    positions: float
    heartbeats: float
    other: float
    uplinks: float
    workers_needed: int
    workers: int
    partitions: int
    gateways_cpu: int
    gateways_conns: int
    gateways_needed: int
    gateways: int
    window_ms: int  # the batch window that gives ~uplinks_per_record uplinks per record


def topology(cpu: dict[str, Cpu], v: dict[str, float], vehicles: int) -> Topology:
    positions = vehicles / v["interval_s"]
    heartbeats = vehicles / v["heartbeat_s"]
    other = positions * v["other_share"]
    uplinks = positions + heartbeats + other
    util = v["utilisation"]
    workers_needed = math.ceil(_cores(uplinks, cpu["worker"].high) / util)
    workers = workers_needed + _spare(workers_needed, v["spare_share"])
    gateways_cpu = math.ceil(_cores(uplinks, cpu["gateway"].high) / util)
    gateways_conns = math.ceil(vehicles / v["conns_per_gateway"])
    gateways_needed = max(gateways_cpu, gateways_conns)
    gateways = gateways_needed + _spare(gateways_needed, v["spare_share"])
    multiple = int(v["partition_multiple"])
    partitions = math.ceil(workers * v["partition_headroom"] / multiple) * multiple
    window_ms = math.ceil(v["uplinks_per_record"] * partitions * gateways / uplinks * 1000 / 10) * 10
    return Topology(vehicles, positions, heartbeats, other, uplinks, workers_needed, workers, partitions,
                    gateways_cpu, gateways_conns, gateways_needed, gateways, window_ms)


def doc_topology(vehicles: int = FLEETS[0], text: str | None = None) -> Topology:
    """The topology docs/scaling.md gives for ``vehicles`` (tests compare docker/compose.yaml with it)."""
    cpu, values = read_inputs(DOC.read_text() if text is None else text)
    return topology(cpu, values, vehicles)


def render(cpu: dict[str, Cpu], v: dict[str, float]) -> str:
    util = v["utilisation"]
    pct = f"{util * 100:.0f} %"
    w, g, k, p, total = (cpu[name] for name in ("worker", "gateway", "kafka", "postgres", "total"))
    out: list[str] = [BEGIN, "",
                      "Generated by `benchmarks/scaling_arithmetic.py --write` from the tables above; do not edit by hand.", ""]
    for fleet in FLEETS:
        t = topology(cpu, v, fleet)
        positions, heartbeats, other, uplinks = t.positions, t.heartbeats, t.other, t.uplinks
        workers, workers_needed, partitions = t.workers, t.workers_needed, t.partitions
        gateways, gateways_needed, gateways_cpu, gateways_conns = t.gateways, t.gateways_needed, t.gateways_cpu, t.gateways_conns
        window_needed_ms = t.window_ms
        day = 86_400
        worker_cores = _cores(uplinks, w.high)
        gateway_cores = _cores(uplinks, g.high)
        multiple = int(v["partition_multiple"])
        per_gateway = uplinks / gateways
        per_record = per_gateway * v["batch_window_ms"] / 1000 / partitions
        conns = fleet / gateways
        rss = conns * v["gateway_kib_per_conn"] * 1024
        kernel = conns * v["kernel_bytes_per_socket"]

        kafka_cores = _cores(uplinks, k.high) * v["kafka_rf"]
        kafka_in = (positions + other) * v["uplink_position_bytes"] + heartbeats * v["uplink_heartbeat_bytes"]
        kafka_disk = kafka_in * v["kafka_rf"] * v["kafka_retention_h"] * 3600
        pg_cores = _cores(uplinks, p.high)
        gps_day = positions * day * v["gps_row_bytes"]
        log_day = (positions + other) * day * v["log_position_bytes"] + heartbeats * day * v["log_heartbeat_bytes"]
        gps_kept = gps_day * v["gps_retention_days"]
        log_kept = log_day * v["log_retention_days"]

        hb_note = f"{_n(fleet)} / {v['heartbeat_s']:g} s"
        out += [
            f"### {_n(fleet)} vehicles",
            "",
            "| quantity | sum | result |",
            "|---|---|---|",
            f"| positions/s | {_n(fleet)} / {v['interval_s']:g} s | **{_n(positions)}/s** |",
            f"| heartbeats/s (upper bound) | {hb_note} | {_n(heartbeats)}/s |",
            f"| other uplinks/s (alarm reports, replies, backlog) | {_n(positions)} x {v['other_share']:g} | {_n(other)}/s |",
            f"| uplinks/s through gateway, Kafka, worker | {_n(positions)} + {_n(heartbeats)} + {_n(other)} | **{_n(uplinks)}/s** |",
            f"| server CPU, positions only, median | {_n(positions)}/s x {total.median:g} µs | {_cores(positions, total.median):.1f} cores |",
            f"| server CPU, all uplinks, median | {_n(uplinks)}/s x {total.median:g} µs | {_cores(uplinks, total.median):.1f} cores |",
            f"| server CPU, all uplinks, worst run, at {pct} | {_n(uplinks)}/s x {total.high:g} µs / {util:g} |"
            f" **{_cores(uplinks, total.high) / util:.1f} cores** |",
            "",
            "| component | sum (worst run's µs, all uplinks) | processes |",
            "|---|---|---|",
            f"| streams workers (one core each) | {_n(uplinks)}/s x {w.high:g} µs = {worker_cores:.2f} cores; / {util:g} ="
            f" {worker_cores / util:.2f} -> {workers_needed}; + {workers - workers_needed} spare | **{workers}** in one consumer group |",
            f"| `jt808.uplink.v1` partitions | >= workers ({workers}) x headroom {v['partition_headroom']:g}, rounded up to a multiple of"
            f" {multiple} | **{partitions}** (up to {partitions} workers = {partitions / workers_needed:.1f}x this load"
            " before a repartition) |",
            f"| gateways (one core each) | CPU: {_n(uplinks)}/s x {g.high:g} µs = {gateway_cores:.2f} cores; / {util:g} -> {gateways_cpu};"
            f" connections: {_n(fleet)} / {_n(v['conns_per_gateway'])} -> {gateways_conns}; max + {gateways - gateways_needed} spare |"
            f" **{gateways}** behind the TCP balancer |",
            f"| per gateway, all up | {_n(fleet)} / {gateways} terminals; {_n(per_gateway)} uplinks/s x {g.high:g} µs |"
            f" {_n(conns)} connections, {_cores(per_gateway, g.high):.2f} cores; RSS {v['gateway_base_mib']:g} MiB +"
            f" {v['gateway_kib_per_conn']:g} KiB each = {rss / 2**20 + v['gateway_base_mib']:,.0f} MiB; kernel"
            f" {_n(v['kernel_bytes_per_socket'])} B per socket = {kernel / 2**20:,.0f} MiB; file descriptors >= {_n(conns * 1.1)} |",
            f"| uplinks per batch record | {_n(per_gateway)}/s per gateway x {v['batch_window_ms']:g} ms / {partitions} partitions |"
            f" {per_record:.1f} (the measured costs hold at ~{v['uplinks_per_record']:g}) |",
            f"| batch window for ~{v['uplinks_per_record']:g} per record | {v['uplinks_per_record']:g} x {partitions} x {gateways} /"
            f" {_n(uplinks)}/s | `FLEET_GATEWAY_BATCH_WINDOW_MS` >= **{window_needed_ms}** |",
            f"| Kafka brokers' CPU (RF {v['kafka_rf']:g}) | {_n(uplinks)}/s x {k.high:g} µs x {v['kafka_rf']:g} replicas |"
            f" {kafka_cores:.1f} cores; / {util:g} = {kafka_cores / util:.1f} cores over the brokers |",
            f"| Kafka bytes in (one replica) | {_n(positions + other)}/s x {v['uplink_position_bytes']:g} B +"
            f" {_n(heartbeats)}/s x {v['uplink_heartbeat_bytes']:g} B | {_bytes(kafka_in)}/s = {_bytes(kafka_in * day)}/day |",
            f"| Kafka disk | x RF {v['kafka_rf']:g} x {v['kafka_retention_h']:g} h retention, uncompressed | {_bytes(kafka_disk)} |",
            f"| PostgreSQL CPU (ingest only) | {_n(uplinks)}/s x {p.high:g} µs = {pg_cores:.2f} cores; / {util:g} |"
            f" {pg_cores / util:.1f} cores |",
            f"| rows/s written | gps {_n(positions)}; message_log {_n(uplinks)}; device_last updates <= {_n(positions)} |"
            f" {_n(positions * 2 + uplinks)} rows/s |",
            f"| gps per day | {_n(positions * day)} rows x {v['gps_row_bytes']:g} B | {_bytes(gps_day)}/day;"
            f" {v['gps_retention_days']:g} days kept: **{_bytes(gps_kept)}** |",
            f"| message_log per day | {_n((positions + other) * day)} x {v['log_position_bytes']:g} B +"
            f" {_n(heartbeats * day)} x {v['log_heartbeat_bytes']:g} B | {_bytes(log_day)}/day;"
            f" {v['log_retention_days']:g} days kept: **{_bytes(log_kept)}** |",
            f"| PostgreSQL data written per day (tables + indexes) | gps + message_log | {_bytes(gps_day + log_day)}/day"
            f" = {_bytes((gps_day + log_day) / day)}/s |",
            f"| PostgreSQL disk writes with WAL | × (1 + {v['wal_factor']:g}) | {_bytes((gps_day + log_day) * (1 + v['wal_factor']) / day)}/s |",
            "",
        ]
    out.append(END)
    return "\n".join(out).replace(" x ", " × ")


def regenerate(text: str) -> str:
    """``text`` with its arithmetic section replaced by what its input tables give."""
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    cpu, values = read_inputs(text)
    return head + render(cpu, values) + tail


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="rewrite the section in docs/scaling.md")
    args = parser.parse_args(argv)
    text = DOC.read_text()
    new = regenerate(text)
    if args.write:
        if new != text:
            DOC.write_text(new)
        print(f"{DOC}: {'updated' if new != text else 'up to date'}")
    else:
        print(new.split(BEGIN, 1)[1].split(END, 1)[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
