"""The local media store: keys that could leave the store are refused; writes are atomic and checksummed."""

import hashlib
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from fleet.media_store import BadObjectKey, LocalMediaStore, check_key, content_type, media_key


@pytest.mark.parametrize("key", [
    "/../etc/passwd", "/a/../../etc/passwd", "../x", "x/y.jpg", "", "/", "/a//b", "/a/./b", "/a/\x00.jpg",
    "/a\\..\\b", "/a/..", "//etc/passwd",
])
def test_keys_that_could_escape_are_refused(tmp_path: Path, key: str) -> None:
    store = LocalMediaStore(tmp_path / "media")
    with pytest.raises(BadObjectKey):
        store.put(key, b"x")
    with pytest.raises(BadObjectKey):
        store.open(key)
    assert store.exists(key) is False
    assert not (tmp_path / "etc").exists()


def test_a_symlink_out_of_the_store_is_not_followed(tmp_path: Path) -> None:
    root = tmp_path / "media"
    root.mkdir()
    (tmp_path / "secret.txt").write_text("secret")
    os.symlink(tmp_path, root / "out")
    store = LocalMediaStore(root)
    with pytest.raises(BadObjectKey):
        store.open("/out/secret.txt")
    assert store.exists("/out/secret.txt") is False


def test_put_writes_the_bytes_and_their_sha256(tmp_path: Path) -> None:
    store = LocalMediaStore(tmp_path)
    data = os.urandom(3 * 1024 * 1024 + 17)  # more than one write chunk
    stored = store.put("/12/20261125/7-abc.jpg", data)
    assert stored.size == len(data) and stored.sha256 == hashlib.sha256(data).hexdigest()
    assert stored.file_store_type == 1
    with store.open("/12/20261125/7-abc.jpg") as f:
        assert f.read() == data
    assert store.exists("/12/20261125/7-abc.jpg")
    assert [p.name for p in (tmp_path / "12" / "20261125").iterdir()] == ["7-abc.jpg"]  # no temp file left


def test_a_failed_write_leaves_neither_a_partial_nor_the_old_file_damaged(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    store = LocalMediaStore(tmp_path)
    store.put("/1/a.jpg", b"old bytes")

    def broken_fsync(fd: int) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(OSError):
        store.put("/1/a.jpg", b"new bytes that never land")
    assert (tmp_path / "1" / "a.jpg").read_bytes() == b"old bytes"
    assert [p.name for p in (tmp_path / "1").iterdir()] == ["a.jpg"]


def test_media_keys_live_under_the_device_and_name_their_format() -> None:
    at = datetime(2026, 11, 25, 1, 2, 3, tzinfo=UTC)
    key = media_key(42, 7, "ab" * 32, 0, at)
    assert key == "/42/20261125/7-" + "ab" * 8 + ".jpg"
    assert check_key(key) == key
    assert content_type(key) == "image/jpeg"
    assert content_type(media_key(42, 7, "cd" * 32, 3, at)) == "audio/wav"
    assert content_type(media_key(42, 7, "cd" * 32, 99, at)) == "application/octet-stream"
