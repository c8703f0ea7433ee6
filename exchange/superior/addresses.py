"""Which addresses fleetwatch as a JT/T 809 superior platform contacts on an inferior platform's word.

An inferior platform names addresses we then reach: its 0x1001 login names the sub link server we connect back to
(DOWN_LINK_IP, JT/T 809-2011 §5.2.1), its 0x1801 / 0x1A01 the video server our media server fetches from
(SERVER_IP, JT/T 1078-2016 §8.2). Taken on trust, any platform holding a login could make our servers reach any
host of our network. So each is held to what an administrator gave the platform (inferior_platform's
``allowed_hosts``, ``video_hosts``) or, where nothing was given, to the address its main link comes from.
Addresses compare as addresses: ``::ffff:10.0.0.8`` (a dual-stack listener's view) is ``10.0.0.8``.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
BROADCAST = ipaddress.IPv4Address("255.255.255.255")


def ip_of(text: str | None) -> IpAddress | None:
    """The address ``text`` writes (brackets and an IPv4-mapped IPv6 form undone), None for a host name."""
    if text is None:
        return None
    try:
        address = ipaddress.ip_address(text.strip().strip("[]"))
    except ValueError:
        return None
    mapped = address.ipv4_mapped if isinstance(address, ipaddress.IPv6Address) else None
    return mapped or address


def host_listed(host: str, hosts: Iterable[str]) -> bool:
    """Is ``host`` (an address) one of ``hosts`` (addresses)?"""
    address = ip_of(host)
    return address is not None and any(ip_of(h) == address for h in hosts)


def down_link_allowed(down_link_ip: str, link_host: str | None, allowed_hosts: Iterable[str]) -> bool:
    """May we open the sub link to ``down_link_ip`` (a 0x1001's DOWN_LINK_IP)? Yes when it is the address
    ``link_host`` its main link comes from, or one of the platform's ``allowed_hosts``."""
    address = ip_of(down_link_ip)
    if address is None or address.is_unspecified or address.is_multicast or address == BROADCAST:
        return False
    return (link_host is not None and ip_of(link_host) == address) or host_listed(down_link_ip, allowed_hosts)


def video_address_allowed(server_ip: str, video_hosts: Iterable[str], link_host: str | None) -> bool:
    """May our media server fetch a stream from ``server_ip`` (a 0x1801 / 0x1A01's SERVER_IP)? Yes when it is
    one of ``video_hosts`` (an IP address, a CIDR network it lies in, or a host name spelled the same), or, with
    no ``video_hosts``, the address ``link_host`` of the platform's main link. Never an unspecified, multicast or
    broadcast address."""
    hosts = [h.strip() for h in video_hosts if h.strip()]
    address = ip_of(server_ip)
    if address is None:  # a host name: only one configured as is (its DNS is the operator's to trust)
        name = server_ip.strip().rstrip(".").lower()
        return bool(name) and any(h.rstrip(".").lower() == name for h in hosts)
    if address.is_unspecified or address.is_multicast or address == BROADCAST:
        return False
    if not hosts:
        return link_host is not None and ip_of(link_host) == address
    for host in hosts:
        try:
            if address in ipaddress.ip_network(host.strip("[]"), strict=False):
                return True
        except ValueError:
            continue  # a host name: matched above only by a name
    return False
