"""The login budgets' rules in isolation: source address keys, the fair pool of connections waiting
to authenticate, and the back-off schedule of wrong auth codes."""

from gateway.admission import AuthBackoff, UnauthenticatedPool, address_key


def test_address_key_counts_ipv4_hosts_and_ipv6_slash_64s() -> None:
    assert address_key("10.0.0.7:5000") == "10.0.0.7"
    assert address_key("[2001:db8:1:2:aaaa::1]:5000") == address_key("2001:db8:1:2:bbbb::9:6000") == "2001:db8:1:2::/64"
    assert address_key("::ffff:10.0.0.7:5000") == "10.0.0.7"
    assert address_key(None) == ""


def test_full_pool_makes_room_for_a_host_holding_fewer_and_refuses_the_crowding_host() -> None:
    pool: UnauthenticatedPool[str] = UnauthenticatedPool(3)
    for name in ("a1", "a2", "a3"):
        assert pool.admit(name, "A") == (True, None)
    assert pool.admit("a4", "A") == (False, None)
    assert pool.admit("b1", "B") == (True, "a1")  # the crowding host's oldest goes
    assert pool.admit("b2", "B") == (False, None)  # B would hold as many as A: refused
    pool.discard("a2")
    assert pool.admit("b2", "B") == (True, None) and len(pool) == 3


def test_backoff_doubles_after_the_free_failures_up_to_its_maximum_and_forgets_a_success() -> None:
    backoff = AuthBackoff(free_failures=3, base_s=1.0, max_s=16.0, phones_max=2)
    assert [backoff.delay_s(n) for n in range(1, 10)] == [0, 0, 0, 1, 2, 4, 8, 16, 16]
    for _ in range(4):
        backoff.phone_failed("p", 100.0)
    assert backoff.phone_ready_at("p") == 101.0
    backoff.phone_succeeded("p")
    assert backoff.phone_ready_at("p") == 0.0
    for phone in ("x", "y", "z"):  # at most phones_max remembered
        backoff.phone_failed(phone, 100.0)
    assert backoff.phone_ready_at("x") == 0.0 and len(backoff._phones) == 2
    backoff.sweep(100.0 + 64.0)
    assert not backoff._phones
