"""The one media store: terminal photos, audio and video clips (and any other uploaded file).

A store keeps bytes under an *object key*: a relative POSIX path written with a leading "/"
("/12/20261125/7-3f2a9c1e0b4d.jpg"). Keys are made by the platform (``media_key``) from the
authenticated device, never from what a terminal or a browser sent; ``check_key`` refuses "..",
empty or "." segments, backslashes, NUL and anything that is not one plain relative path.

Five methods, so another backend can replace the local one (docs/architecture.md "Media store"):
``put(key, data) -> StoredObject``, ``create(key, data) -> StoredObject`` (write-once: raises
``ObjectExists`` when the key holds a file), ``open(key) -> BinaryIO``, ``exists(key) -> bool`` and
``file_store_type`` (1 local files, served from ``/file{objectKey}``; 3 is reserved for an
S3-compatible store, served from ``/api/media/obs/download/{id}.json``).

``LocalMediaStore`` writes atomically: a temporary file in the target folder, sha256 computed while
writing, fsync, then ``os.replace`` onto the key's path (``create``: ``os.link``, which fails when the path
exists, so two writers of one key cannot both win); a reader never sees half a file. Calls block:
the gateway runs them in an executor, never on its event loop.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import BinaryIO, Protocol

FILE_STORE_LOCAL = 1
FILE_STORE_S3 = 3  # reserved: an S3-compatible store (MinIO, AWS), docs/architecture.md

MEDIA_EXTENSIONS = {0: "jpg", 1: "tif", 2: "mp3", 3: "wav", 4: "wmv"}  # JT/T 808 media format
CONTENT_TYPES = {"jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "tif": "image/tiff",
                 "mp3": "audio/mpeg", "wav": "audio/wav", "wmv": "video/x-ms-wmv", "mp4": "video/mp4",
                 "bin": "application/octet-stream"}


class BadObjectKey(ValueError):
    """An object key that is not one plain relative path."""


class ChecksumMismatch(Exception):
    """A stored file whose bytes do not hash to the sha256 its row recorded (changed on disk)."""

    def __init__(self, key: str, expected: str, actual: str) -> None:
        super().__init__(f"{key}: sha256 {actual}, recorded {expected}")
        self.key, self.expected, self.actual = key, expected, actual


class ObjectExists(Exception):
    """``create`` of a key that already holds a file: evidence is write-once. ``existing`` is the file kept."""

    def __init__(self, existing: StoredObject) -> None:
        super().__init__(f"{existing.key} is already stored ({existing.size} bytes, sha256 {existing.sha256})")
        self.existing = existing


@dataclass(frozen=True)
class StoredObject:
    key: str
    size: int
    sha256: str
    file_store_type: int


class MediaStore(Protocol):
    file_store_type: int

    def put(self, key: str, data: bytes) -> StoredObject: ...

    def create(self, key: str, data: bytes) -> StoredObject: ...

    def open(self, key: str) -> BinaryIO: ...

    def exists(self, key: str) -> bool: ...


def check_key(key: str) -> str:
    """The key itself if it is a valid object key, else BadObjectKey."""
    if not isinstance(key, str) or not key.startswith("/") or len(key) > 512:
        raise BadObjectKey("object key must start with '/'")
    if "\x00" in key or "\\" in key:
        raise BadObjectKey("object key holds NUL or a backslash")
    parts = key[1:].split("/")
    if any(part in ("", ".", "..") for part in parts):
        raise BadObjectKey("object key has an empty, '.' or '..' segment")
    return key


def media_key(device_id: int, media_id: int, sha256: str, media_format: int, at: datetime) -> str:
    """The key of a terminal's media file: under the (authenticated) device's folder, by day."""
    extension = MEDIA_EXTENSIONS.get(media_format, "bin")
    return f"/{int(device_id)}/{at:%Y%m%d}/{int(media_id)}-{sha256[:16]}.{extension}"


def content_type(key: str) -> str:
    extension = key.rsplit(".", 1)[-1].lower() if "." in key.rsplit("/", 1)[-1] else "bin"
    return CONTENT_TYPES.get(extension, "application/octet-stream")


class LocalMediaStore:
    file_store_type = FILE_STORE_LOCAL

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root).resolve()

    def path_of(self, key: str) -> Path:
        path = (self.root / check_key(key)[1:]).resolve()
        if not path.is_relative_to(self.root):  # a symlink inside the store pointing out of it
            raise BadObjectKey("object key leaves the store")
        return path

    def put(self, key: str, data: bytes) -> StoredObject:
        """Store ``data`` under ``key``, replacing what the key held."""
        return self._write(key, data, replace=True)

    def create(self, key: str, data: bytes) -> StoredObject:
        """Store ``data`` under ``key`` only if the key holds nothing; raises ``ObjectExists`` (with the kept
        file's size and sha256) otherwise. The check and the write are one ``os.link``: no race."""
        return self._write(key, data, replace=False)

    def _write(self, key: str, data: bytes, *, replace: bool) -> StoredObject:
        path = self.path_of(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        digest = hashlib.sha256()
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".partial-")
        try:
            with os.fdopen(fd, "wb") as out:
                view = memoryview(data)
                for start in range(0, len(view), 1 << 20):
                    chunk = view[start:start + (1 << 20)]
                    digest.update(chunk)
                    out.write(chunk)
                out.flush()
                os.fsync(out.fileno())
            if replace:
                os.replace(tmp, path)
            else:
                try:
                    os.link(tmp, path)
                except FileExistsError:
                    raise ObjectExists(self.describe(key)) from None
                finally:
                    os.unlink(tmp)
        except BaseException:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
            raise
        return StoredObject(key, len(data), digest.hexdigest(), self.file_store_type)

    def describe(self, key: str) -> StoredObject:
        """Size and sha256 of the file under ``key`` (read in full). Raises OSError when there is none."""
        digest = hashlib.sha256()
        size = 0
        with self.open(key) as f:
            while chunk := f.read(1 << 20):
                digest.update(chunk)
                size += len(chunk)
        return StoredObject(key, size, digest.hexdigest(), self.file_store_type)

    def open(self, key: str) -> BinaryIO:
        return self.path_of(key).open("rb")

    def exists(self, key: str) -> bool:
        try:
            return self.path_of(key).is_file()
        except BadObjectKey:
            return False


def open_verified(store: MediaStore, key: str, sha256: str) -> BinaryIO:
    """The file under ``key``, read once in full to check it against ``sha256`` (the row's), rewound, so
    the bytes served are the bytes checked (the store replaces files by rename, never in place). Raises
    ``ChecksumMismatch`` (the file is closed) and OSError."""
    f = store.open(key)
    try:
        digest = hashlib.sha256()
        while chunk := f.read(1 << 20):
            digest.update(chunk)
        actual = digest.hexdigest()
        if actual != sha256.lower():
            raise ChecksumMismatch(key, sha256, actual)
        f.seek(0)
    except BaseException:
        f.close()
        raise
    return f


def build_media_store(settings: object | None = None) -> MediaStore:
    """The configured store (FLEET_MEDIA_STORE, FLEET_MEDIA_ROOT)."""
    from fleet.settings import MediaSettings

    media = settings if isinstance(settings, MediaSettings) else MediaSettings()
    if media.store == "local":
        return LocalMediaStore(media.root)
    raise ValueError(f"unknown media store {media.store!r}")  # pragma: no cover (Literal-checked)
