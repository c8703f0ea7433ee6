"""Free TCP ports for servers a test starts."""

from fleet.services._system import free_port, port_answers, port_is_free

__all__ = ["free_port", "port_answers", "port_is_free"]
