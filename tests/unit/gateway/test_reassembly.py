import pytest

from gateway.reassembly import Completed, ReassemblyBudget, ResendRequest, SubpackageAssembler


def _assembler(max_bytes: int = 10_000, timeout_s: float = 30.0, resend_after_s: float = 5.0) -> SubpackageAssembler:
    return SubpackageAssembler(ReassemblyBudget(max_bytes), timeout_s=timeout_s, resend_after_s=resend_after_s)


def test_reassembles_packages_arriving_out_of_order() -> None:
    a = _assembler()
    assert a.add(0x0801, seq=11, total=3, index=2, body=b"BB", frame=b"f2", now=0) is None
    assert a.add(0x0801, seq=10, total=3, index=1, body=b"AA", frame=b"f1", now=0) is None
    done = a.add(0x0801, seq=12, total=3, index=3, body=b"CC", frame=b"f3", now=0)
    assert done == Completed(0x0801, 10, b"AABBCC", [b"f1", b"f2", b"f3"])
    assert len(a) == 0


def test_duplicate_package_is_kept_once() -> None:
    a = _assembler()
    a.add(0x0801, 10, 2, 1, b"AA", b"f1", 0)
    a.add(0x0801, 10, 2, 1, b"AA", b"f1", 0)
    done = a.add(0x0801, 11, 2, 2, b"BB", b"f2", 0)
    assert isinstance(done, Completed) and done.body == b"AABB"


def test_last_package_with_gaps_asks_for_the_missing_ones() -> None:
    a = _assembler()
    for index in (1, 2, 4, 5, 6, 9, 10):
        outcome = a.add(0x1205, seq=100 + index - 1, total=10, index=index, body=b"x", frame=b"f", now=0)
    assert outcome == ResendRequest(0x1205, 100, [3, 7, 8])
    for index in (3, 7):
        assert a.add(0x1205, 100 + index - 1, 10, index, b"x", b"f", 1) is None
    done = a.add(0x1205, 107, 10, 8, b"x", b"f", 2)
    assert isinstance(done, Completed) and len(done.body) == 10


def test_serial_numbers_wrap_around() -> None:
    a = _assembler()
    a.add(0x0801, 0xFFFF, 2, 1, b"A", b"f", 0)
    done = a.add(0x0801, 0x0000, 2, 2, b"B", b"f", 0)
    assert isinstance(done, Completed) and done.first_seq == 0xFFFF


def test_quiet_partial_message_is_asked_again_then_dropped_at_timeout() -> None:
    a = _assembler(timeout_s=30, resend_after_s=5)
    a.add(0x0801, 10, 3, 1, b"A", b"f", now=0)
    assert a.sweep(now=4) == []
    assert a.sweep(now=5) == [ResendRequest(0x0801, 10, [2, 3])]
    assert a.sweep(now=10) == [ResendRequest(0x0801, 10, [2, 3])]
    assert a.sweep(now=15) == []  # asked twice already
    a.sweep(now=30)
    assert len(a) == 0 and a.dropped == 1


def test_shared_memory_budget_bounds_partial_messages() -> None:
    budget = ReassemblyBudget(10)
    a = SubpackageAssembler(budget, timeout_s=30, resend_after_s=5)
    b = SubpackageAssembler(budget, timeout_s=30, resend_after_s=5)
    a.add(0x0801, 1, 3, 1, b"12345", b"f", 0)  # 6 bytes
    with pytest.raises(ValueError):
        b.add(0x0801, 1, 3, 1, b"12345", b"f", 0)
    a.clear()
    assert budget.used_bytes == 0
    b.add(0x0801, 1, 3, 1, b"12345", b"f", 0)


@pytest.mark.parametrize("total,index", [(0, 1), (3, 0), (3, 4)])
def test_rejects_impossible_package_fields(total: int, index: int) -> None:
    with pytest.raises(ValueError):
        _assembler().add(0x0801, 1, total, index, b"x", b"f", 0)


def test_connection_over_its_own_bound_loses_its_oldest_message_never_anothers() -> None:
    budget = ReassemblyBudget(100)
    hostile = SubpackageAssembler(budget, timeout_s=30, resend_after_s=5, connection_max_bytes=30)
    bystander = SubpackageAssembler(budget, timeout_s=30, resend_after_s=5, connection_max_bytes=30)
    bystander.add(0x0801, 500, 2, 1, b"123456789", b"f", 0)  # 10 bytes, incomplete
    for n in range(5):  # 12 bytes each: the third and later evict the oldest of the hostile's own
        hostile.add(0x0801, 10 * n + 1, 3, 1, b"12345678901", b"f", n)
    assert len(hostile) == 2 and hostile.evicted == 3 and hostile.used_bytes == 24
    assert budget.used_bytes == 34
    assert bystander.add(0x0801, 501, 2, 2, b"x", b"f", 6) is not None  # still completes


def test_a_message_larger_than_the_connections_bound_is_refused_and_released() -> None:
    budget = ReassemblyBudget(100)
    a = SubpackageAssembler(budget, timeout_s=30, resend_after_s=5, connection_max_bytes=20)
    a.add(0x0801, 1, 3, 1, b"123456789", b"f", 0)
    with pytest.raises(ValueError):
        a.add(0x0801, 2, 3, 2, b"1234567890123", b"f", 0)
    assert len(a) == 0 and a.used_bytes == 0 and budget.used_bytes == 0
