"""Who the client is: IPv6 clients counted by their /64, forwarded addresses believed only from the
configured proxies, and then only the hop the last trusted proxy wrote."""

from __future__ import annotations

from typing import Any

from api.addresses import TrustedProxyMiddleware, address_key, client_address, forwarded_hops, parse_networks
from api.server import ConnectionCap

PROXIES = parse_networks(["10.0.0.0/8", "2001:db8:ffff::1"])


def test_ipv6_addresses_of_one_64_are_one_client() -> None:
    assert address_key("2001:db8:0:1::1") == address_key("2001:db8:0:1:ffff:ffff:ffff:ffff") == "2001:db8:0:1::/64"
    assert address_key("2001:db8:0:2::1") != address_key("2001:db8:0:1::1")
    assert address_key("fe80::1%eth0") == "fe80::/64"
    assert address_key("::ffff:198.51.100.7") == "198.51.100.7"
    assert address_key("198.51.100.7") == "198.51.100.7"


def test_the_connection_cap_counts_an_ipv6_host_by_its_64() -> None:
    cap = ConnectionCap(2)
    first, second = cap.admit("2001:db8:0:1::1"), cap.admit("2001:db8:0:1::2")
    assert first == second == "2001:db8:0:1::/64"
    assert cap.admit("2001:db8:0:1:aaaa:bbbb:cccc:dddd") is None  # a third address of the same /64
    assert cap.admit("2001:db8:0:2::1") == "2001:db8:0:2::/64"  # another subscriber's prefix
    cap.release("2001:db8:0:1::/64")
    assert cap.admit("2001:db8:0:1::3") == "2001:db8:0:1::/64"


def test_the_connection_cap_leaves_trusted_proxies_uncounted_and_zero_means_no_cap() -> None:
    cap = ConnectionCap(1, PROXIES)
    assert [cap.admit("10.1.2.3") for _ in range(5)] == [""] * 5
    assert cap.admit("198.51.100.7") == "198.51.100.7" and cap.admit("198.51.100.7") is None
    assert ConnectionCap(0).admit("198.51.100.7") == ""


def test_once_the_worker_is_half_full_a_client_gets_no_more_than_its_busy_share() -> None:
    cap = ConnectionCap(8, busy_at=10, busy_per_client=3)
    assert all(cap.admit("198.51.100.1") for _ in range(8))  # quiet: up to the cap
    assert cap.admit("198.51.100.1") is None
    assert all(cap.admit("198.51.100.2") for _ in range(2))  # 10 open: the worker is half full now
    assert cap.admit("198.51.100.2") == "198.51.100.2"  # its 3rd, within the busy share
    assert cap.admit("198.51.100.2") is None and cap.admit("198.51.100.3") == "198.51.100.3"
    for _ in range(6):
        cap.release("198.51.100.1")
    assert cap.open_total == 6 and cap.admit("198.51.100.2") == "198.51.100.2"  # quiet again


def test_forwarded_addresses_from_a_peer_that_is_not_a_trusted_proxy_are_ignored() -> None:
    assert client_address("198.51.100.7", "203.0.113.1", "X-Forwarded-For", PROXIES) == "198.51.100.7"
    assert client_address("10.1.2.3", "203.0.113.1", "X-Forwarded-For", ()) == "10.1.2.3"


def test_behind_a_trusted_proxy_the_client_is_the_right_most_untrusted_hop() -> None:
    # the client wrote "192.0.2.66" itself; the proxy appended the address it saw
    assert client_address("10.1.2.3", "192.0.2.66, 203.0.113.1", "X-Forwarded-For", PROXIES) == "203.0.113.1"
    # two trusted proxies in a row: skip both
    assert client_address("10.1.2.3", "203.0.113.1, 10.9.9.9", "X-Forwarded-For", PROXIES) == "203.0.113.1"
    assert client_address("10.1.2.3", "10.7.7.7", "X-Forwarded-For", PROXIES) == "10.7.7.7"
    # a hop that is no address ends the walk at the proxy that wrote it
    assert client_address("10.1.2.3", "unknown", "X-Forwarded-For", PROXIES) == "10.1.2.3"
    assert client_address("10.1.2.3", None, "X-Forwarded-For", PROXIES) == "10.1.2.3"


def test_the_forwarded_header_is_parsed_with_ports_brackets_and_quotes() -> None:
    value = 'for=192.0.2.66;proto=http, for="[2001:db8:0:1::7]:4711";by=10.1.2.3'
    assert forwarded_hops("Forwarded", value) == ["192.0.2.66", "[2001:db8:0:1::7]:4711"]
    assert client_address("2001:db8:ffff::1", value, "Forwarded", PROXIES) == "2001:db8:0:1::7"
    assert client_address("10.1.2.3", "203.0.113.1:8080", "X-Forwarded-For", PROXIES) == "203.0.113.1"


def test_the_middleware_reads_only_the_configured_header_and_keeps_the_peer() -> None:
    seen: dict[str, Any] = {}

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        seen.update(environ)
        return []

    middleware = TrustedProxyMiddleware(app, PROXIES, "X-Forwarded-For")
    middleware({"REMOTE_ADDR": "10.1.2.3", "HTTP_X_FORWARDED_FOR": "203.0.113.1",
                "HTTP_FORWARDED": "for=192.0.2.99"}, lambda *a: None)
    assert seen["REMOTE_ADDR"] == "203.0.113.1" and seen["fleet.peer_addr"] == "10.1.2.3"
    forged = {"REMOTE_ADDR": "10.1.2.3", "HTTP_FORWARDED": "for=192.0.2.99"}  # the proxy sets the other header
    middleware(forged, lambda *a: None)
    assert seen["REMOTE_ADDR"] == "10.1.2.3"
