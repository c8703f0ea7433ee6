"""A process's CPU from /proc, for the benchmarks that charge CPU to one server process."""

from __future__ import annotations

import os
from pathlib import Path


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of ``pid`` so far (its own threads; not its children's)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
