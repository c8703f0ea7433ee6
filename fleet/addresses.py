"""Network addresses as the services compare them: one spelling per host."""

from __future__ import annotations

import ipaddress


def source_ip(peer: str | tuple[object, ...] | None) -> str | None:
    """The host of ``peer`` ("ip:port", "[v6]:port", a socket's peername tuple, or a bare IP when it is
    not also readable as "ip:port") in one
    canonical spelling (an IPv4-mapped IPv6 address as its IPv4 form), so the address of a terminal's
    JT/T 808 session and of its JT/T 1078 / attachment connections compare equal. None when unparsable."""
    if peer is None:
        return None
    if isinstance(peer, tuple):
        host = str(peer[0]) if peer else ""
    else:
        host = peer.strip()
        if host.startswith("["):
            host = host[1:].partition("]")[0]
        else:
            # "ip:port" as the gateways write it (IPv6 unbracketed): the port goes first; a string that
            # is not "ip:port" is taken as a bare IP
            head, _, port = host.rpartition(":")
            if port.isdigit() and _is_ip(head):
                host = head
    host = host.partition("%")[0]  # an IPv6 zone id is local to this host
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ip)


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text.partition("%")[0])
    except ValueError:
        return False
    return True
