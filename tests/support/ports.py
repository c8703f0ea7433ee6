"""Free TCP ports for servers a test starts: none of the last ones given in a process, and each pytest-xdist worker
takes its ports from its own part of 20000-32767. That range is below the ephemeral ports (32768-60999 on
Linux), which the OS hands out for ``bind(0)`` and outgoing connections and which are not spread evenly (gVisor
gives only odd ones): so no two tests of the run, on one worker or on two, are given one port for two servers, and
no client connection holds a port a test is about to listen on."""

import os

from fleet.services._system import free_port as _free_port
from fleet.services._system import port_answers, port_is_free

__all__ = ["free_port", "port_answers", "port_is_free"]

_LOW, _HIGH = 20_000, 32_768
_WORKERS = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
_WORKER = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0)
_SPAN = (_HIGH - _LOW) // _WORKERS
_MINE = range(_LOW + _WORKER * _SPAN, _LOW + (_WORKER + 1) * _SPAN)


def free_port(host: str = "127.0.0.1") -> int:
    return _free_port(host, _MINE)
