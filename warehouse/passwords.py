"""Password hashing (argon2id, memory-hard) shared by the seed and the API's login.

Lives in ``warehouse`` because both the seed (warehouse) and the API need it and ``api`` may import
``warehouse`` but not the other way round.
"""

from __future__ import annotations

import functools
import threading

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError


@functools.lru_cache(maxsize=1)
def _hasher() -> PasswordHasher:
    return PasswordHasher()  # argon2id with the library's RFC 9106 low-memory defaults


def hash_password(password: str) -> str:
    """An argon2id PHC string (salted; two calls give different strings)."""
    return _hasher().hash(password)


def verify_password(password_hash: str, password: str) -> bool:
    """True when ``password`` matches. A malformed or non-argon2 hash answers False, never raises."""
    try:
        return _hasher().verify(password_hash, password)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def needs_rehash(password_hash: str) -> bool:
    try:
        return _hasher().check_needs_rehash(password_hash)
    except InvalidHashError:
        return True


_dummy_lock = threading.Lock()


@functools.lru_cache(maxsize=1)
def _dummy_hash() -> str:
    return hash_password("fleetwatch-no-such-user")


def dummy_hash() -> str:
    """A hash to verify against for unknown users, so timing does not reveal which names exist.

    Computed once per process under a lock: a burst of first requests would otherwise hash it
    concurrently, 64 MiB each (30 at once took the API to 1.3 GB)."""
    with _dummy_lock:
        return _dummy_hash()


def verify_password_or_dummy(password_hash: str | None, password: str) -> bool:
    """``verify_password`` against ``password_hash``, or against the dummy hash (always False)
    when there is none, spending the same time."""
    if password_hash is None:
        verify_password(dummy_hash(), password)
        return False
    return verify_password(password_hash, password)
