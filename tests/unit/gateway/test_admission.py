"""The login budgets' rules in isolation: source address keys, the fair pool of connections waiting
to authenticate, the back-off schedule of wrong auth codes, and the accept queue the gateway listens with."""

import asyncio
import contextlib
import socket
from pathlib import Path

from gateway.admission import AuthBackoff, UnauthenticatedPool, accept_queue, address_key
from gateway.server import GatewayServer
from tests.unit.gateway.twins import MemoryDirectory, MemorySink, settings


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


def _connects_while_not_accepting(backlog: int, tries: int) -> int:
    """Connections a gateway listening with ``listen_backlog=backlog`` lets complete while its event loop takes
    none (the kernel's accept queue holds them); the first that does not complete within 0.3 s ends the count."""
    async def main() -> int:
        server = GatewayServer(settings(host="127.0.0.1", port=0, listen_backlog=backlog), MemoryDirectory(),
                               MemorySink())
        await server.start()
        connected = 0
        with contextlib.ExitStack() as sockets:
            try:
                for _ in range(tries):  # blocking: the loop accepts nothing meanwhile
                    client = sockets.enter_context(socket.socket())
                    client.settimeout(0.3)
                    try:
                        client.connect(("127.0.0.1", server.port))
                    except TimeoutError:
                        break
                    connected += 1
            finally:
                await server.stop(drain_timeout_s=0)
        return connected

    return asyncio.run(main())


def test_the_gateway_listens_with_the_accept_queue_of_its_setting() -> None:
    # A restart's reconnect storm arrives faster than the process accepts: connects past a full queue are dropped
    # and dialled again only after TCP's doubling timers (docs/performance.md, the storm's tail).
    assert _connects_while_not_accepting(4, 40) in (4, 5)  # Linux queues one beyond the backlog
    assert _connects_while_not_accepting(32, 40) in (32, 33)


def test_the_accept_queue_is_the_backlog_asked_up_to_somaxconn(tmp_path: Path) -> None:
    cap = tmp_path / "somaxconn"
    cap.write_text("4096\n")
    assert accept_queue(65535, cap) == 4096
    assert accept_queue(1000, cap) == 1000
    assert accept_queue(65535, tmp_path / "missing") == 65535
