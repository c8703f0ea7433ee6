"""Who the client is, by address: the key one client is counted under, and the address behind a
trusted reverse proxy.

Counting (connection caps, login and token throttles) keys an IPv6 client by its /64: one subscriber
line or host gets a whole /64, so exact addresses would let one host take as many slots as it has
addresses. IPv4 (and IPv4-mapped IPv6) is keyed by the address.

Forwarded addresses: ``X-Forwarded-For`` and ``Forwarded`` are written by whoever sends the request,
so they name the client only when the peer is one of the configured proxies
(``ApiSettings.trusted_proxies``); then the client is the right-most hop that is not itself a
trusted proxy (the hops to its left were written by the client and may be forged). Only the one
header the proxies set (``ApiSettings.forwarded_header``) is read: a proxy appending to
``X-Forwarded-For`` passes a client's forged ``Forwarded`` through untouched.

Imported by gunicorn's master (``api.server``): standard library only.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Iterable
from typing import Any

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
PEER_ADDR_KEY = "fleet.peer_addr"  # the WSGI environ key keeping the socket's peer address
_FOR = re.compile(r'(?i)(?:^|;)\s*for\s*=\s*("[^"]*"|[^;,\s]*)')


def address_key(address: str) -> str:
    """IPv6 clients are keyed by their /64 (one subscriber's prefix), IPv4 by the address."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return address[:64]
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


def parse_networks(values: Iterable[str]) -> tuple[Network, ...]:
    """Addresses or CIDR networks; raises ValueError naming a value that is neither."""
    networks = []
    for value in values:
        try:
            networks.append(ipaddress.ip_network(value.strip(), strict=False))
        except ValueError:
            raise ValueError(f"not an address or network: {value!r}") from None
    return tuple(networks)


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    text = text.strip().strip('"')
    if text.startswith("["):  # [v6] or [v6]:port
        text = text[1:].split("]", 1)[0]
    elif text.count(":") == 1:  # v4:port
        text = text.split(":", 1)[0]
    try:
        ip = ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def is_trusted(address: str, proxies: tuple[Network, ...]) -> bool:
    ip = _ip(address)
    return ip is not None and any(ip.version == net.version and ip in net for net in proxies)


def forwarded_hops(header: str, value: str) -> list[str]:
    """The hops of one header, client first: ``X-Forwarded-For: a, b`` or ``Forwarded: for=a, for=b``."""
    if header.lower() == "forwarded":
        return [match.group(1).strip('"') for element in value.split(",") for match in [_FOR.search(element)] if match]
    return [hop.strip() for hop in value.split(",") if hop.strip()]


def client_address(peer: str, header_value: str | None, header: str, proxies: tuple[Network, ...]) -> str:
    """The client's address: ``peer`` unless ``peer`` is a trusted proxy and ``header_value`` (of
    ``header``) names hops; then the right-most hop that is not a trusted proxy. A hop that is not
    an address (``unknown``, an obfuscated name) ends the walk at the proxy that wrote it."""
    if not proxies or not header_value or not is_trusted(peer, proxies):
        return peer
    client = peer
    for hop in reversed(forwarded_hops(header, header_value)):
        ip = _ip(hop)
        if ip is None:
            return client
        client = str(ip)
        if not is_trusted(client, proxies):
            return client
    return client


class TrustedProxyMiddleware:
    """WSGI middleware: ``REMOTE_ADDR`` becomes the client's address (``client_address``); the
    socket's peer stays in ``environ[PEER_ADDR_KEY]``. With no trusted proxy it changes nothing."""

    def __init__(self, app: Callable[..., Any], proxies: tuple[Network, ...], header: str) -> None:
        self.app = app
        self.proxies = proxies
        self.header = header
        self._environ_key = "HTTP_" + header.upper().replace("-", "_")

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        peer = str(environ.get("REMOTE_ADDR") or "")
        environ[PEER_ADDR_KEY] = peer
        if self.proxies:
            environ["REMOTE_ADDR"] = client_address(peer, environ.get(self._environ_key), self.header, self.proxies)
        return self.app(environ, start_response)
