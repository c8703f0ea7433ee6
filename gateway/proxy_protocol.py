"""The PROXY protocol header (HAProxy's proxy-protocol.txt, versions 1 and 2) a TCP balancer sends first on
each connection it opens to a gateway, naming the client's real address.

Behind HAProxy (`send-proxy` / `send-proxy-v2`) every terminal's socket peer is the balancer: without the
header, the per-address caps (gateway/admission.py) would share one budget among all terminals. With
``FLEET_GATEWAY_PROXY_PROTOCOL`` on, the gateway reads this header before any JT/T 808 byte and takes its
source address as the terminal's; a connection whose first bytes are not a valid header is closed.

``parse`` is pure: bytes in, a result (or "need more") out, ``ProxyHeaderError`` for anything malformed.
"""

from __future__ import annotations

import ipaddress
import struct
from dataclasses import dataclass

V1_PREFIX = b"PROXY "
V1_MAX_BYTES = 107  # the longest v1 line, CRLF included (proxy-protocol.txt §2.1)
V2_SIGNATURE = b"\r\n\r\n\x00\r\nQUIT\n"
V2_FIXED_BYTES = 16
V2_MAX_BYTES = V2_FIXED_BYTES + 536  # a TLV-laden header is larger than this only on purpose
_V2_LOCAL, _V2_PROXY = 0x0, 0x1
_V2_INET_STREAM, _V2_INET6_STREAM = 0x11, 0x21


class ProxyHeaderError(ValueError):
    """The connection's first bytes are not a PROXY protocol v1 or v2 header we accept."""


@dataclass(frozen=True)
class ProxyHeader:
    """What a complete header said. ``source`` is ``"host:port"`` of the real client, or None when the
    balancer speaks for itself (v1 ``UNKNOWN``, v2 ``LOCAL``: its own health check), in which case the
    socket's peer stands. ``length`` is the header's size: the JT/T 808 stream starts after it."""

    source: str | None
    length: int


def parse(data: bytes) -> ProxyHeader | None:
    """The header at the start of `data`; None while `data` is a valid but incomplete prefix of one.

    Raises ProxyHeaderError for bytes that cannot start a header (a terminal connecting past the balancer),
    a malformed v1 line or v2 block, a transport other than TCP over IPv4/IPv6, or a header over its limit.
    """
    if data[:1] == b"P":
        return _parse_v1(data)
    if data[:1] == b"\r":
        return _parse_v2(data)
    if not data:
        return None
    raise ProxyHeaderError(f"no PROXY protocol header: first byte 0x{data[0]:02x}")


def _parse_v1(data: bytes) -> ProxyHeader | None:
    if not data.startswith(V1_PREFIX[: len(data)]):
        raise ProxyHeaderError("not a PROXY v1 line")
    end = data.find(b"\r\n", 0, V1_MAX_BYTES)
    if end < 0:
        if len(data) >= V1_MAX_BYTES:
            raise ProxyHeaderError(f"PROXY v1 line longer than {V1_MAX_BYTES} bytes")
        return None
    try:
        words = data[:end].decode("ascii").split(" ")
    except UnicodeDecodeError as exc:
        raise ProxyHeaderError("PROXY v1 line is not ASCII") from exc
    if words[:2] == ["PROXY", "UNKNOWN"]:
        return ProxyHeader(None, end + 2)
    if len(words) != 6 or words[1] not in ("TCP4", "TCP6"):
        raise ProxyHeaderError(f"PROXY v1 line needs 'PROXY TCP4|TCP6 src dst sport dport': {words[:6]!r}")
    _, family, source, destination, source_port, destination_port = words
    wanted = 4 if family == "TCP4" else 6
    for address in (source, destination):
        try:
            version = ipaddress.ip_address(address).version
        except ValueError as exc:
            raise ProxyHeaderError(f"PROXY v1 address {address!r} is not an IP address") from exc
        if version != wanted:
            raise ProxyHeaderError(f"PROXY v1 {family} with address {address!r}")
    for port in (source_port, destination_port):
        if not port.isdigit() or (len(port) > 1 and port[0] == "0") or int(port) > 65535:
            raise ProxyHeaderError(f"PROXY v1 port {port!r} is not 0-65535")
    return ProxyHeader(_host_port(source, int(source_port)), end + 2)


def _parse_v2(data: bytes) -> ProxyHeader | None:
    if not data.startswith(V2_SIGNATURE[: len(data)]):
        raise ProxyHeaderError("not a PROXY v2 signature")
    if len(data) < V2_FIXED_BYTES:
        return None
    version_command, family, length = data[12], data[13], struct.unpack_from(">H", data, 14)[0]
    if version_command >> 4 != 2:
        raise ProxyHeaderError(f"PROXY v2 version {version_command >> 4}")
    command = version_command & 0x0F
    if command not in (_V2_LOCAL, _V2_PROXY):
        raise ProxyHeaderError(f"PROXY v2 command {command}")
    total = V2_FIXED_BYTES + length
    if total > V2_MAX_BYTES:
        raise ProxyHeaderError(f"PROXY v2 header of {total} bytes (limit {V2_MAX_BYTES})")
    if len(data) < total:
        return None
    if command == _V2_LOCAL:
        return ProxyHeader(None, total)
    block = data[V2_FIXED_BYTES:total]
    if family == _V2_INET_STREAM and length >= 12:
        source = str(ipaddress.IPv4Address(block[0:4]))
        port = struct.unpack_from(">H", block, 8)[0]
    elif family == _V2_INET6_STREAM and length >= 36:
        source = str(ipaddress.IPv6Address(block[0:16]))
        port = struct.unpack_from(">H", block, 32)[0]
    else:
        raise ProxyHeaderError(f"PROXY v2 family/transport 0x{family:02x} with {length} address bytes "
                               "(only TCP over IPv4 or IPv6)")
    return ProxyHeader(_host_port(source, port), total)


def _host_port(host: str, port: int) -> str:
    """The ``host:port`` form the gateway keeps as a peer (IPv6 in brackets, as admission.address_key reads)."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
