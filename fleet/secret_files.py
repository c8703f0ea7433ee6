"""Secrets a stack makes for itself on its first start and keeps under its var folder (the API's token key, the media
server's key, the demo GB/T 32960 link's AES key): nothing of the kind is in the repository or in a default setting.

``generated_secret`` returns the one in the file, or makes one and keeps it there. The file is only ever seen whole
(written under another name, then linked into place), with mode 0600, and two processes starting at once (the API
and the media server both read ``media-secret``) end up with the same value: the second one's link fails and it
reads the first one's file.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path


class SecretFileError(OSError):
    """The secret file exists but holds nothing (deleting it makes a new one on the next start)."""


def generated_secret(path: Path, make: Callable[[], str]) -> str:
    """The secret in ``path``; when there is no such file, ``make()``'s, written there first (mode 0600)."""
    existing = _read(path)
    if existing is not None:
        return existing
    path.parent.mkdir(parents=True, exist_ok=True)
    value = make()
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".draft")  # mode 0600
    draft = Path(name)
    try:
        with os.fdopen(fd, "w", encoding="ascii") as handle:
            handle.write(value + "\n")
        try:
            os.link(draft, path)  # fails when another process got there first: its value is the one
        except FileExistsError:
            found = _read(path)
            if found is None:
                raise SecretFileError(f"secret file {path} disappeared while it was made") from None
            return found
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(draft)
    return value


def _read(path: Path) -> str | None:
    try:
        value = path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        return None
    if not value:
        raise SecretFileError(f"secret file {path} is empty; delete it to make a new one")
    return value
