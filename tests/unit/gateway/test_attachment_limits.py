"""Who may hold an attachment-server connection (gateway/attachment_admission.py) and what a file being
received costs (gateway/attachment_files.py): silent connections make room for new ones, per address (an
IPv6 host by its /64) and overall; identified uploads are never closed for room; a file's buffer grows
with the bytes received, not with the size it declared."""

from __future__ import annotations

import tracemalloc

from gateway.attachment_admission import Admission, address_group
from gateway.attachment_files import MAX_RANGES, FileUpload


def test_an_ipv6_host_is_capped_by_its_64_and_a_mapped_ipv4_by_its_address() -> None:
    assert address_group("2001:db8:1:2::1") == address_group("2001:db8:1:2:ffff::9") == "2001:db8:1:2::/64"
    assert address_group("2001:db8:1:3::1") != address_group("2001:db8:1:2::1")
    assert address_group("::ffff:10.0.0.1") == "10.0.0.1"


def test_the_oldest_silent_connection_of_an_address_makes_room_for_a_new_one() -> None:
    closed: list[str] = []
    admission = Admission(max_connections=100, max_pending_per_address=2)
    for cid in ("a", "b", "c"):
        assert admission.admit(cid, "10.0.0.1", lambda why, cid=cid: closed.append(cid))
    assert closed == ["a"] and admission.open == 2
    assert admission.admit("d", "10.0.0.2", lambda why: closed.append("d"))  # another address: own quota
    assert closed == ["a"]


def test_identified_uploads_are_never_closed_for_room() -> None:
    closed: list[str] = []
    admission = Admission(max_connections=2, max_pending_per_address=8)
    assert admission.admit("up", "10.0.0.1", lambda why: closed.append("up"))
    admission.identify("up")
    assert admission.admit("idle", "10.0.0.2", lambda why: closed.append("idle"))
    assert admission.admit("new", "10.0.0.3", lambda why: closed.append("new"))  # the idle one goes
    assert closed == ["idle"]
    admission.identify("new")
    assert not admission.admit("late", "10.0.0.4", lambda why: closed.append("late"))  # all uploads: refused
    admission.release("up")
    assert admission.admit("late", "10.0.0.4", lambda why: closed.append("late")) and admission.open == 2


def test_a_connection_closed_for_room_while_its_list_was_checked_is_not_counted() -> None:
    admission = Admission(max_connections=10, max_pending_per_address=1)
    assert admission.admit("slow", "10.0.0.1", lambda why: None)
    assert admission.admit("next", "10.0.0.1", lambda why: None)  # "slow" is closed for room
    admission.identify("slow")  # its list is accepted after all: it stays closed, and uncounted
    admission.release("slow")
    assert (admission.open, admission.identified) == (1, 0)


def test_one_byte_at_the_end_of_a_16_mib_file_holds_no_16_mib_buffer() -> None:
    size = 16 * 1024 * 1024
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        uploads = [FileUpload(f"f{i}.jpg", size) for i in range(8)]
        for upload in uploads:
            assert upload.write(size - 1, b"x") is None
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 256 * 1024, grown
    assert uploads[0].missing == [(0, size - 1)]
    for upload in uploads:
        upload.drop()


def test_a_whole_file_reads_back_and_a_scattered_one_is_refused() -> None:
    upload = FileUpload("a.jpg", 10)
    assert upload.write(5, b"56789") is None and upload.write(0, b"01234") is None
    assert upload.missing == [] and upload.read_all() == b"0123456789"
    upload.drop()
    scattered = FileUpload("s.jpg", 4 * MAX_RANGES)
    results = [scattered.write(offset, b"x") for offset in range(0, 4 * MAX_RANGES, 2)]
    assert results[MAX_RANGES] is not None and all(r is None for r in results[:MAX_RANGES])
    scattered.drop()
