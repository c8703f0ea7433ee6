"""Secrets a stack makes on its first start (fleet/secret_files.py): kept, private, one value however many
processes start at once, and an emptied file is an error rather than an empty key."""

from __future__ import annotations

import stat
import threading
from itertools import count
from pathlib import Path

import pytest

from fleet.secret_files import SecretFileError, generated_secret


def test_made_once_kept_with_mode_0600_and_read_back(tmp_path: Path) -> None:
    made = count()
    path = tmp_path / "var" / "some-secret"
    first = generated_secret(path, lambda: f"value-{next(made)}")
    assert first == "value-0"
    assert generated_secret(path, lambda: f"value-{next(made)}") == "value-0"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert sorted(p.name for p in path.parent.iterdir()) == ["some-secret"]  # no draft left behind


def test_processes_starting_at_once_agree_on_one_value(tmp_path: Path) -> None:
    path = tmp_path / "shared-secret"
    start = threading.Barrier(8)
    found: list[str] = []

    def one(n: int) -> None:
        start.wait()
        found.append(generated_secret(path, lambda: f"value-{n}"))

    threads = [threading.Thread(target=one, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(found) == 8 and len(set(found)) == 1
    assert path.read_text().strip() == found[0]


def test_an_emptied_file_is_an_error_not_an_empty_key(tmp_path: Path) -> None:
    path = tmp_path / "empty-secret"
    path.write_text("\n")
    with pytest.raises(SecretFileError, match="delete it"):
        generated_secret(path, lambda: "never")
