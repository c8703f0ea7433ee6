"""Free TCP ports for servers a test starts: never one port twice in a process, and on each pytest-xdist
worker only ports of its own share (port modulo the worker count is the worker's number), so no two tests of
the run, on one worker or on two, are given one port for two servers."""

import os

from fleet.services._system import free_port as _os_free_port
from fleet.services._system import port_answers, port_is_free

__all__ = ["free_port", "port_answers", "port_is_free"]

_WORKERS = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
_WORKER = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0)


def free_port(host: str = "127.0.0.1") -> int:
    return _os_free_port(host, lambda port: port % _WORKERS == _WORKER)
