"""The PROXY protocol header behind HAProxy (gateway/proxy_protocol.py): v1 and v2 parsed byte by byte, bad
headers rejected, and the gateway's per-address cap counting the header's address, not the balancer's."""

import ipaddress
import struct

import pytest

from gateway.proxy_protocol import V2_SIGNATURE, ProxyHeader, ProxyHeaderError, parse
from protocols.jt808 import Authentication, PlatformResponse
from tests.unit.gateway.twins import PHONE, FakeTransport, Harness, frame, run, settle

V1 = b"PROXY TCP4 203.0.113.7 10.0.0.2 51000 7611\r\n"


def v2(source: str, port: int, *, command: int = 0x21, family: int | None = None, extra: bytes = b"") -> bytes:
    address = ipaddress.ip_address(source)
    if address.version == 4:
        block = address.packed + bytes(4) + struct.pack(">HH", port, 7611)
        family = 0x11 if family is None else family
    else:
        block = address.packed + bytes(16) + struct.pack(">HH", port, 7611)
        family = 0x21 if family is None else family
    block += extra
    return V2_SIGNATURE + bytes([command, family]) + struct.pack(">H", len(block)) + block


def test_v1_tcp4_and_tcp6_lines_name_the_source_and_their_length() -> None:
    assert parse(V1 + b"\x7e\x01") == ProxyHeader("203.0.113.7:51000", len(V1))
    line = b"PROXY TCP6 2001:db8::7 2001:db8::1 40000 7611\r\n"
    assert parse(line) == ProxyHeader("[2001:db8::7]:40000", len(line))
    assert parse(b"PROXY UNKNOWN\r\n") == ProxyHeader(None, 15)  # the balancer's own check: socket peer stands


def test_v2_proxy_ipv4_and_ipv6_blocks_name_the_source_and_local_keeps_the_peer() -> None:
    header = v2("198.51.100.9", 40123)
    assert parse(header + b"\x7e") == ProxyHeader("198.51.100.9:40123", len(header))
    header6 = v2("2001:db8::9", 8, extra=b"\x04\x00\x01\x00")  # a TLV after the addresses is skipped
    assert parse(header6) == ProxyHeader("[2001:db8::9]:8", len(header6))
    local = V2_SIGNATURE + bytes([0x20, 0x00, 0, 0])
    assert parse(local) == ProxyHeader(None, 16)


@pytest.mark.parametrize("header", [V1, v2("198.51.100.9", 40123)])
def test_every_incomplete_prefix_asks_for_more(header: bytes) -> None:
    for end in range(len(header)):
        assert parse(header[:end]) is None, end


@pytest.mark.parametrize(("data", "reason"), [
    (b"\x7e\x01\x02", "first byte 0x7e"),  # a JT/T 808 frame straight to the gateway, past the balancer
    (b"PROXI TCP4", "not a PROXY v1 line"),
    (b"PROXY TCP4 1.2.3.4 5.6.7.8 1 2 3\r\n", "needs"),
    (b"PROXY UDP4 1.2.3.4 5.6.7.8 1 2\r\n", "needs"),
    (b"PROXY TCP4 1.2.3 5.6.7.8 1 2\r\n", "not an IP address"),
    (b"PROXY TCP4 2001:db8::1 5.6.7.8 1 2\r\n", "TCP4 with address"),
    (b"PROXY TCP4 1.2.3.4 5.6.7.8 65536 2\r\n", "not 0-65535"),
    (b"PROXY TCP4 1.2.3.4 5.6.7.8 01 2\r\n", "not 0-65535"),
    (b"PROXY TCP4 1.2.3.4 " + b"9" * 100, "longer than 107"),
    (b"PROXY TCP4 \xff.2.3.4 5.6.7.8 1 2\r\n", "not ASCII"),
    (b"\r\n\r\n\x00\r\nQUIX", "v2 signature"),
    (V2_SIGNATURE + bytes([0x11, 0x11, 0, 12]) + bytes(12), "version 1"),
    (V2_SIGNATURE + bytes([0x22, 0x11, 0, 12]) + bytes(12), "command 2"),
    (v2("198.51.100.9", 1, family=0x12), "family/transport 0x12"),  # UDP
    (V2_SIGNATURE + bytes([0x21, 0x11, 0, 4]) + bytes(4), "with 4 address bytes"),
    (V2_SIGNATURE + bytes([0x21, 0x11, 0x10, 0]), "limit"),
])
def test_malformed_headers_are_rejected_with_the_reason(data: bytes, reason: str) -> None:
    with pytest.raises(ProxyHeaderError, match=reason):
        parse(data)


def _connect_via_balancer(h: Harness) -> tuple[object, FakeTransport]:
    conn = h.server.new_connection()
    transport = FakeTransport(conn)
    transport._extra = {"peername": ("10.0.0.2", 40000)}  # the balancer, as every socket's peer
    conn.connection_made(transport)
    return conn, transport


def test_the_header_address_is_the_terminals_and_the_frames_after_it_in_the_same_read_are_handled() -> None:
    async def t(h: Harness) -> None:
        h.directory.add(PHONE, 1, auth_code="CODE1")
        conn, transport = _connect_via_balancer(h)
        auth = frame(0x0102, Authentication("CODE1").encode("2013"), seq=1)
        conn.data_received(V1[:9])  # type: ignore[attr-defined]
        conn.data_received(V1[9:] + auth)  # type: ignore[attr-defined]
        await settle()
        [ack] = transport.replies()
        assert isinstance(ack.body, PlatformResponse) and ack.body.result == 0
        assert conn.peer == "203.0.113.7:51000"  # type: ignore[attr-defined]

    run(t, proxy_protocol=True)


def test_the_unauthenticated_cap_counts_terminals_addresses_not_the_balancers() -> None:
    async def t(h: Harness) -> None:
        crowd = [_connect_via_balancer(h)[1] for _ in range(3)]
        for transport in crowd:
            transport.protocol.data_received(b"PROXY TCP4 203.0.113.7 10.0.0.2 51000 7611\r\n")
        assert [c.closing for c in crowd] == [False, False, True]  # one host over the cap of 2
        other = _connect_via_balancer(h)[1]
        other.protocol.data_received(b"PROXY TCP4 198.51.100.1 10.0.0.2 51000 7611\r\n")
        await settle()
        assert not other.closing  # displaces the crowding host's oldest: another terminal still gets in
        assert crowd[0].closing and h.server.counters.unauthenticated_displaced == 1

    run(t, proxy_protocol=True, unauthenticated_max=2)


def test_a_connection_without_a_valid_header_is_closed_before_any_frame_is_read() -> None:
    async def t(h: Harness) -> None:
        h.directory.add(PHONE, 1, auth_code="CODE1")
        conn, transport = _connect_via_balancer(h)
        conn.data_received(frame(0x0102, Authentication("CODE1").encode("2013"), seq=1))  # type: ignore[attr-defined]
        await settle()
        assert transport.aborted and not transport.replies()
        assert h.server.counters.proxy_header_rejected == 1 and h.server.counters.frames_in == 0

    run(t, proxy_protocol=True)


def test_without_the_setting_the_socket_peer_is_used_and_no_header_is_expected() -> None:
    async def t(h: Harness) -> None:
        h.directory.add(PHONE, 1, auth_code="CODE1")
        conn, transport = _connect_via_balancer(h)
        conn.data_received(frame(0x0102, Authentication("CODE1").encode("2013"), seq=1))  # type: ignore[attr-defined]
        await settle()
        [ack] = transport.replies()
        assert isinstance(ack.body, PlatformResponse) and ack.body.result == 0
        assert conn.peer == "10.0.0.2:40000"  # type: ignore[attr-defined]

    run(t)
