from __future__ import annotations

import pytest

from fleet.addresses import source_ip


@pytest.mark.parametrize(("peer", "ip"), [
    ("10.0.0.7:40123", "10.0.0.7"),
    ("10.0.0.7", "10.0.0.7"),
    ("[2001:db8::1]:7612", "2001:db8::1"),
    ("2001:db8::1:5000", "2001:db8::1"),  # the gateway's unbracketed IPv6 "ip:port"
    ("2001:db8::", "2001:db8::"),
    ("::ffff:127.0.0.1:5000", "127.0.0.1"),  # an IPv4-mapped peer compares equal to its IPv4 form
    (("::ffff:10.1.1.1", 5000, 0, 0), "10.1.1.1"),
    (("127.0.0.1", 5000), "127.0.0.1"),
    ("fe80::1%eth0", "fe80::1"),
])
def test_source_ip_is_one_spelling_per_host(peer: str | tuple[object, ...], ip: str) -> None:
    assert source_ip(peer) == ip


@pytest.mark.parametrize("peer", [None, "", "not-an-address:80", ()])
def test_source_ip_of_garbage_is_none(peer: str | tuple[object, ...] | None) -> None:
    assert source_ip(peer) is None
