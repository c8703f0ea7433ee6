"""A process's CPU and memory from /proc, for the benchmarks that charge CPU or memory to one server process."""

from __future__ import annotations

import os
from pathlib import Path


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of ``pid`` so far (its own threads; not its children's)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mib(pid: int) -> float:
    """Resident memory of ``pid`` in MiB (VmRSS), 0.0 when the kernel does not say."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0
