"""What a private Kafka broker costs in CPU to start and to sit idle: `fleet up`'s broker (Kafka's JVM defaults,
fleet/services/kafka.py) against the test sessions' broker (tests/support/stack.py TEST_BROKER_JVM and
TEST_BROKER_PROPERTIES), each started on its own directory, given every fleetwatch topic, then left idle.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/kafka_idle_bench.py [--idle 60] [--rounds 2]

Prints, per broker and round: seconds to answer metadata, the broker's CPU (user + system, /proc) up to then and
over the idle minute(s). CPU time, not wall time, so a busy machine changes the figures little.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.procstat import cpu_s
from fleet.kafka_admin import ensure_topics
from fleet.services.kafka import KafkaServer
from fleet.settings import KafkaSettings
from tests.support.ports import free_port
from tests.support.stack import TEST_BROKER_JVM, TEST_BROKER_PROPERTIES

PROFILES: dict[str, dict[str, object]] = {
    "fleet up (Kafka's defaults)": {},
    "test sessions (C1, serial GC, no-op records every 5 s)": {"jvm_extra": TEST_BROKER_JVM,
                                                              "properties": TEST_BROKER_PROPERTIES},
}


def measure(options: dict[str, object], idle_s: float, work: Path) -> tuple[float, float, float]:
    broker = KafkaServer(work / "kafka", free_port(), free_port(), heap="384m", **options)  # type: ignore[arg-type]
    started = time.monotonic()
    broker.start()
    try:
        ensure_topics(broker.bootstrap, KafkaSettings().topic_partitions)
        ready_s = time.monotonic() - started
        pid = broker.pid()
        assert pid is not None
        at_ready = cpu_s(pid)
        time.sleep(idle_s)
        return ready_s, at_ready, cpu_s(pid) - at_ready
    finally:
        broker.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--idle", type=float, default=60, help="seconds left idle after the topics exist")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    print(f"| broker | round | ready | CPU to ready | CPU idle per minute ({args.idle:.0f} s) |")
    print("|---|---|---|---|---|")
    for round_ in range(1, args.rounds + 1):
        for name, options in PROFILES.items():
            with tempfile.TemporaryDirectory(prefix="kafka-idle-") as work:
                ready_s, start_cpu, idle_cpu = measure(options, args.idle, Path(work))
            print(f"| {name} | {round_} | {ready_s:.1f} s | {start_cpu:.1f} s | {idle_cpu * 60 / args.idle:.2f} s |",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
